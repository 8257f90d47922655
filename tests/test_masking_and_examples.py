"""The book's two masking methods agree; the example embeddings are the book's and reproducible."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from attention import compare_masking, mask_after_softmax, mask_with_neg_inf
from attention.examples import (
    BOOK_EMBEDDINGS,
    BOOK_SENTENCE,
    BOOK_TOKENS,
    embed_words,
    split_words,
)
from attention.modules import SelfAttention_v2
from tests.book_recipe import random_inputs
from tests.cases import subcases

REPO_ROOT = Path(__file__).resolve().parents[1]


def _book_scores() -> tuple[torch.Tensor, int]:
    """Section 3.5's raw scores: seed-789 ``SelfAttention_v2`` queries times keys."""
    torch.manual_seed(789)
    sa_v2 = SelfAttention_v2(3, 2)
    with torch.no_grad():
        queries = sa_v2.W_query(BOOK_EMBEDDINGS)
        keys = sa_v2.W_key(BOOK_EMBEDDINGS)
    return queries @ keys.T, keys.shape[-1]


# --- masking -----------------------------------------------------------------------------------


def test_both_masking_methods_agree_on_the_book_scores() -> None:
    scores, d_k = _book_scores()
    comparison = compare_masking(scores, d_k)
    assert comparison.max_abs_difference < 1e-6
    assert torch.allclose(
        comparison.neg_inf["attn_weights"][5],
        torch.tensor([0.1935, 0.1663, 0.1666, 0.1542, 0.1666, 0.1529]),
        atol=1e-4,
    )


@subcases(("shape", "d_k"), [((6, 6), 2), ((50, 50), 16), ((3, 2, 9, 9), 4)])
def test_both_masking_methods_agree_on_random_scores(shape: tuple[int, ...], d_k: int) -> None:
    scores = random_inputs(shape, seed=sum(shape)) * 5
    comparison = compare_masking(scores, d_k)
    assert comparison.max_abs_difference < 1e-6
    assert comparison.after_softmax["attn_weights"].shape == shape


def test_mask_after_softmax_rows_sum_to_one_and_hide_the_future() -> None:
    scores, d_k = _book_scores()
    steps = mask_after_softmax(scores, d_k)
    weights = steps["attn_weights"]
    assert torch.allclose(weights.sum(dim=-1), torch.ones(6), atol=1e-6)
    assert bool((weights.triu(diagonal=1) == 0).all())
    assert bool((steps["row_sums"] < 1).flatten()[:-1].all())  # zeroing lowered the sums
    assert torch.allclose(steps["unmasked_weights"].sum(dim=-1), torch.ones(6), atol=1e-6)
    assert torch.equal(steps["masked_simple"], torch.tril(steps["unmasked_weights"]))


def test_mask_with_neg_inf_fills_exactly_the_upper_triangle() -> None:
    scores, d_k = _book_scores()
    steps = mask_with_neg_inf(scores, d_k)
    hidden = torch.triu(torch.ones(6, 6, dtype=torch.bool), diagonal=1)
    assert bool((steps["masked_scores"][hidden] == -torch.inf).all())
    assert torch.equal(steps["masked_scores"][~hidden], scores[~hidden])
    assert torch.allclose(steps["attn_weights"].sum(dim=-1), torch.ones(6), atol=1e-6)


# --- examples ----------------------------------------------------------------------------------


def test_book_embeddings_are_six_by_three_with_the_books_values() -> None:
    expected = torch.tensor(
        [
            [0.43, 0.15, 0.89],
            [0.55, 0.87, 0.66],
            [0.57, 0.85, 0.64],
            [0.22, 0.58, 0.33],
            [0.77, 0.25, 0.10],
            [0.05, 0.80, 0.55],
        ]
    )
    assert BOOK_EMBEDDINGS.shape == (6, 3)
    assert BOOK_EMBEDDINGS.dtype == torch.float32
    assert torch.equal(BOOK_EMBEDDINGS, expected)
    assert BOOK_TOKENS == ("Your", "journey", "starts", "with", "one", "step")
    assert split_words(BOOK_SENTENCE) == list(BOOK_TOKENS)


def test_embedding_the_book_words_gives_the_book_embeddings() -> None:
    assert torch.equal(embed_words(BOOK_TOKENS, 3), BOOK_EMBEDDINGS)


def test_embed_words_returns_a_copy_not_the_book_tensor() -> None:
    vectors = embed_words(["Your"], 3)
    vectors[0, 0] = 99.0
    assert BOOK_EMBEDDINGS[0, 0].item() == pytest.approx(0.43)


def test_same_word_gets_the_same_vector_across_calls_and_positions() -> None:
    first = embed_words(["the", "cat", "the"], 4)
    second = embed_words(["cat", "the"], 4)
    assert torch.equal(first[0], first[2])
    assert torch.equal(first[0], second[1])
    assert torch.equal(first[1], second[0])


def test_different_words_get_different_vectors() -> None:
    words = ["the", "cat", "sat", "on", "mat", "The", "your", "journey!"]
    vectors = embed_words(words, 3)
    assert len({tuple(row.tolist()) for row in vectors}) == len(words)


def test_word_vectors_are_two_decimal_values_in_unit_interval() -> None:
    vectors = embed_words(["alpha", "beta", "gamma"], 8)
    assert bool(((vectors >= 0) & (vectors < 1.0 + 1e-6)).all())
    assert torch.allclose(vectors * 100, torch.round(vectors * 100), atol=1e-4)


@subcases("d_in", [1, 2, 4, 16])
def test_other_d_in_gives_that_many_values_per_word(d_in: int) -> None:
    vectors = embed_words(["Your", "journey", "zebra"], d_in)
    assert vectors.shape == (3, d_in)
    assert torch.equal(vectors, embed_words(["Your", "journey", "zebra"], d_in))


def test_seed_changes_new_words_but_not_book_words() -> None:
    assert not torch.equal(embed_words(["zebra"], 3, seed=0), embed_words(["zebra"], 3, seed=1))
    assert torch.equal(embed_words(["step"], 3, seed=5), BOOK_EMBEDDINGS[5:6])


def test_no_words_give_an_empty_table_and_bad_d_in_is_rejected() -> None:
    assert embed_words([], 4).shape == (0, 4)
    with pytest.raises(ValueError, match="d_in must be between 1 and 4096"):
        embed_words(["a"], 0)


def test_embed_words_leaves_the_global_rng_untouched() -> None:
    torch.manual_seed(11)
    before = torch.get_rng_state()
    embed_words(["hello", "world", "Your"], 5)
    assert torch.equal(torch.get_rng_state(), before)


def test_word_vectors_are_the_same_in_another_process() -> None:
    words = ["hello", "world", "attention", "Your"]
    code = (
        "import json; from attention.examples import embed_words; "
        f"print(json.dumps(embed_words({words!r}, 5).tolist()))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env={**os.environ, "PYTHONHASHSEED": "12345"},  # a different str hash than this process
    )
    other_process = torch.tensor(json.loads(result.stdout))
    assert torch.equal(other_process, embed_words(words, 5))
