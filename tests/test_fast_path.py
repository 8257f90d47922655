"""PyTorch's fast paths give the book's MultiHeadAttention output; the book's mask given to SDPA does not."""

from __future__ import annotations

import time

import pytest
import torch

from attention import AttentionInputError
from attention.examples import BOOK_EMBEDDINGS
from attention.fast_path import (
    PATHS,
    SLIP,
    book_source,
    compare_fast_paths,
    fast_path_outputs,
    measure_fast_paths,
    path_source,
)
from tests.book_recipe import random_inputs
from tests.cases import subcases

BOOK_MHA_ROWS = {0: [0.3190, 0.4858], 1: [0.2943, 0.3897], 5: [0.2575, 0.4028]}  # REFERENCE.md
FLOAT_ERROR = 1e-6

CASES = [  # (inputs, d_out, num_heads, seed): the chapter's example, then a larger layer
    pytest.param(BOOK_EMBEDDINGS, 2, 1, 123, id="book-6-tokens-1-head"),
    pytest.param(BOOK_EMBEDDINGS, 2, 2, 123, id="book-6-tokens-2-heads"),
    pytest.param(random_inputs((2, 40, 16), seed=5), 16, 4, 7, id="2x40-tokens-d16-4-heads"),
]


@pytest.mark.parametrize(("inputs", "d_out", "num_heads", "seed"), CASES)
def test_every_fast_path_equals_the_book_and_the_slip_does_not(
    inputs: torch.Tensor, d_out: int, num_heads: int, seed: int
) -> None:
    differences = compare_fast_paths(inputs, d_out=d_out, num_heads=num_heads, seed=seed)
    assert set(differences) == set(PATHS)
    for name in PATHS:
        if name != SLIP:
            assert differences[name] <= FLOAT_ERROR, (name, differences[name])
    assert differences[SLIP] > 0.1  # the past hidden, the future shown: another result


def test_the_reference_is_the_books_multi_head_attention() -> None:
    outputs = fast_path_outputs(BOOK_EMBEDDINGS, d_out=2, num_heads=2, seed=123)
    for row, numbers in BOOK_MHA_ROWS.items():
        assert torch.allclose(outputs.book[0, row], torch.tensor(numbers), atol=5e-5)
    # the slip's first query attends to the future keys only: not the book's first row
    assert not torch.allclose(outputs.outputs[SLIP][0, 0], outputs.book[0, 0], atol=1e-3)


def test_each_paths_code_shows_its_mask_convention() -> None:
    assert "is_causal=True" in path_source("sdpa_is_causal")
    assert "attn_mask=~mask_bool" in path_source("sdpa_bool_mask")
    assert "attn_mask=mask_bool" in path_source(SLIP)
    assert "nn.MultiheadAttention" in path_source("nn_multihead_attention")
    assert "masked_fill_(mask_bool, -torch.inf)" in book_source()
    with pytest.raises(AttentionInputError, match="No fast path"):
        path_source("flash")


@subcases(
    ("inputs", "d_out", "num_heads", "match"),
    [
        (BOOK_EMBEDDINGS, 3, 2, "divisible"),
        ([[1.0, float("nan")]], 2, 1, "row 1"),
        (BOOK_EMBEDDINGS, 0, 1, "d_out"),
    ],
)
def test_bad_inputs_are_named(inputs: object, d_out: int, num_heads: int, match: str) -> None:
    with pytest.raises(AttentionInputError, match=match):
        compare_fast_paths(inputs, d_out=d_out, num_heads=num_heads, seed=123)


def test_measurement_is_bounded_and_counts_the_books_score_matrices() -> None:
    timings = measure_fast_paths((6, 256), budget_s=60.0, repeats=1, min_seconds=0.0)
    assert timings.token_counts == [6, 256] and not timings.skipped
    matrix_bytes = 1 * 2 * 256 * 256 * 4  # one (b, h, T, T) float32 tensor at 256 tokens
    assert timings.peak_bytes["book"][1] >= 2 * matrix_bytes  # scores and weights at once
    assert timings.peak_bytes["sdpa_is_causal"][1] < matrix_bytes  # never a (T, T) matrix
    assert all(seconds > 0 for seconds in timings.seconds["book"])
    nothing = measure_fast_paths((6, 4096), budget_s=0.0)
    assert nothing.token_counts == [] and nothing.skipped == [6, 4096]
    # a budget of 1 s once took 20 s: a size the budget runs out in stops after one more run
    started = time.perf_counter()
    short = measure_fast_paths((6, 4096), budget_s=1.0)
    assert time.perf_counter() - started < 6.0  # generous: the 4,096 tokens' warm-up at most
    assert short.token_counts + short.skipped == [6, 4096]
    assert all(len(v) == len(short.token_counts) for v in short.seconds.values())
