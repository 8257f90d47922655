"""attention.differences: B − A of two traces (the Compare page's difference maps and maxima)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from attention import AttentionConfig, trace_attention
from attention.differences import context_difference, difference, weights_difference
from attention.examples import BOOK_EMBEDDINGS
from tests.book_recipe import book_recipe, random_inputs


def test_weights_difference_is_b_minus_a_in_float64() -> None:
    a = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(seed=123))
    b = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(seed=123, dropout=0.5))
    result = weights_difference(a, b)
    direct = b.dropped_weights[0].numpy().astype(np.float64) - a.dropped_weights[0].numpy()
    assert result.values.dtype == torch.float64 and result.values.shape == (6, 6)
    assert np.array_equal(result.values.numpy(), direct)
    assert result.max_abs == float(np.abs(direct).max())
    assert result.max_abs > 0.5  # kept weights doubled or dropped: a clear difference


def test_context_difference_of_the_books_outputs() -> None:
    a = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(seed=123))
    b = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(seed=789))
    book_a = book_recipe(BOOK_EMBEDDINGS, d_out=2, seed=123)[0].double()  # (6, 2)
    book_b = book_recipe(BOOK_EMBEDDINGS, d_out=2, seed=789)[0].double()
    result = context_difference(a, b)
    assert result is not None
    assert torch.equal(result.values, book_b - book_a)
    assert result.max_abs == float((book_b - book_a).abs().max())


def test_the_same_settings_differ_by_exactly_zero() -> None:
    inputs = random_inputs((7, 3), seed=4)
    cfg = AttentionConfig(seed=5, dropout=0.3, qkv_bias=True)
    a, b = trace_attention(inputs, cfg), trace_attention(inputs, cfg)
    assert weights_difference(a, b).max_abs == 0.0
    context = context_difference(a, b)
    assert context is not None and context.max_abs == 0.0


def test_other_widths_have_no_context_difference_but_a_weights_difference() -> None:
    a = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(d_out=2))
    b = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(d_out=3))
    assert context_difference(a, b) is None
    assert weights_difference(a, b).values.shape == (6, 6)


def test_traces_of_other_inputs_are_refused() -> None:
    a = trace_attention(BOOK_EMBEDDINGS)
    b = trace_attention(BOOK_EMBEDDINGS[:4])
    with pytest.raises(ValueError, match="inputs of one shape"):
        weights_difference(a, b)


def test_difference_of_plain_tensors() -> None:
    assert difference(torch.zeros(2), torch.zeros(3)) is None
    result = difference(torch.tensor([1.0, -2.0]), torch.tensor([0.5, 1.0]))
    assert result is not None
    assert result.values.tolist() == [-0.5, 3.0] and result.max_abs == 3.0
    empty = difference(torch.zeros(0), torch.zeros(0))
    assert empty is not None and empty.max_abs == 0.0
