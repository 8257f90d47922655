"""attention.one_query: the in-between numbers of one row agree with the trace."""

from __future__ import annotations

import math

import pytest
import torch

from attention import AttentionConfig, trace_attention
from attention.examples import BOOK_EMBEDDINGS
from attention.one_query import (
    SHIFT_ABOVE,
    dot_product_terms,
    softmax_by_hand,
    weighted_value_terms,
)


@pytest.fixture(scope="module")
def book_trace():
    return trace_attention(BOOK_EMBEDDINGS, AttentionConfig(d_out=3, seed=123, dropout=0.5))


def test_dot_product_terms_sum_to_the_trace_scores(book_trace) -> None:
    queries, keys = book_trace.queries[0], book_trace.keys[0]  # (T, d_out)
    for i in range(book_trace.num_tokens):
        for j in range(book_trace.num_tokens):
            terms = dot_product_terms(queries[i], keys[j])  # (d_out,)
            assert terms.dtype == torch.float64
            assert terms.shape == (3,)
            assert math.isclose(
                float(terms.sum()), float(book_trace.attn_scores[0, i, j]), abs_tol=1e-6
            ), (i, j)


def test_dot_product_terms_are_products_of_components() -> None:
    terms = dot_product_terms(torch.tensor([1.0, -2.0]), torch.tensor([3.0, 0.5]))
    assert terms.tolist() == [3.0, -1.0]


def test_dot_product_terms_reject_mismatched_vectors() -> None:
    with pytest.raises(ValueError, match="one size"):
        dot_product_terms(torch.ones(2), torch.ones(3))


def test_softmax_by_hand_matches_the_trace_weights_row_by_row(book_trace) -> None:
    for i in range(book_trace.num_tokens):
        steps = softmax_by_hand(book_trace.scaled_scores[0, i], book_trace.mask[i])
        assert steps.shift == 0.0  # small scores: plain exp
        assert torch.allclose(
            steps.weights, book_trace.attn_weights[0, i].to(torch.float64), atol=1e-6
        )
        assert math.isclose(float(steps.exps.sum()), steps.total)
        assert math.isclose(float(steps.weights.sum()), 1.0, abs_tol=1e-12)
        hidden = book_trace.mask[i]
        assert bool((steps.exps[hidden] == 0).all()), "exp(−∞) is 0 for masked keys"
        visible = ~hidden
        expected = torch.exp(book_trace.scaled_scores[0, i][visible].to(torch.float64))
        assert torch.allclose(steps.exps[visible], expected)


def test_softmax_by_hand_shifts_huge_scores_and_keeps_the_weights() -> None:
    scores = torch.tensor([1000.0, 999.0, -float("inf")])  # exp(1000) overflows
    hidden = torch.tensor([False, False, True])
    steps = softmax_by_hand(scores, hidden)
    assert steps.shift == 1000.0 > SHIFT_ABOVE
    assert steps.exps.tolist()[0] == 1.0
    assert math.isclose(steps.exps.tolist()[1], math.exp(-1.0))
    expected = torch.softmax(scores.to(torch.float64), dim=0)
    assert torch.allclose(steps.weights, expected)


def test_softmax_by_hand_shifts_very_negative_scores_too() -> None:
    scores = torch.tensor([-2000.0, -2001.0])  # exp underflows to 0 without a shift
    steps = softmax_by_hand(scores, torch.tensor([False, False]))
    assert steps.shift == -2000.0
    assert torch.allclose(steps.weights, torch.softmax(scores.to(torch.float64), dim=0))


def test_softmax_by_hand_refuses_an_all_hidden_row() -> None:
    with pytest.raises(ValueError, match="every key is hidden"):
        softmax_by_hand(torch.zeros(2), torch.tensor([True, True]))


def test_weighted_value_terms_sum_to_the_context_vector(book_trace) -> None:
    values = book_trace.values[0]  # (T, d_out)
    for i in range(book_trace.num_tokens):
        terms = weighted_value_terms(book_trace.dropped_weights[0, i], values)  # (T, d_out)
        assert terms.shape == values.shape
        assert torch.allclose(
            terms.sum(dim=0), book_trace.context[0, i].to(torch.float64), atol=1e-6
        )


def test_weighted_value_terms_check_shapes() -> None:
    with pytest.raises(ValueError, match="need weights"):
        weighted_value_terms(torch.ones(3), torch.ones(2, 2))
