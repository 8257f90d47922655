"""Every bug's "how to spot it" sentence, checked against that bug's own numbers.

The gallery (``attention.bugs.BUGS``) tells a learner what each bug does to the numbers; each test
below runs the bug beside the book's class (``compare_bug``) and asserts exactly what its sentence
claims, so a sentence that stops being true fails here.
"""

from __future__ import annotations

import torch

from attention import AttentionConfig
from attention.bugs import BUGS, BugComparison, compare_bug
from attention.examples import BOOK_EMBEDDINGS
from attention.forward import run_forward
from attention.modules import MultiHeadAttention

BOOK = AttentionConfig(d_out=2, seed=123)
DROPOUT = AttentionConfig(d_out=2, seed=123, dropout=0.5)
ROWS = torch.arange(6)


def weights(result: BugComparison, which: str = "buggy") -> torch.Tensor:
    """Attention weights after softmax, ``(T, T)`` (head 0 with several heads)."""
    w = getattr(result, which)["attn_weights"]
    return w[0] if w.dim() == 3 else w


def entropy(w: torch.Tensor) -> torch.Tensor:
    """Each row's entropy, ``(T,)``: lower is sharper (closer to 0 and 1)."""
    return -(w * w.clamp_min(1e-30).log()).sum(dim=-1)


def test_every_bug_has_a_test_of_its_hint() -> None:
    tested = {name.removeprefix("test_") for name in globals() if name.startswith("test_")}
    assert set(BUGS) <= tested, f"no hint test for {sorted(set(BUGS) - tested)}"


def test_mask_inverted() -> None:
    result = compare_bug("mask_inverted", BOOK_EMBEDDINGS, BOOK)
    w = weights(result)
    assert bool(w[:-1].tril().eq(0).all()), "the weights sit above the diagonal"
    assert bool(w[-1].isnan().all()), "the last row is NaN: every key hidden"
    assert result.future_leak


def test_mask_diagonal() -> None:
    result = compare_bug("mask_diagonal", BOOK_EMBEDDINGS, BOOK)
    w = weights(result)
    assert bool(w[0].isnan().all()), "the first token gets NaN"
    assert bool(w.diagonal()[1:].eq(0).all()), "a token never attends to itself"


def test_no_scaling() -> None:
    result = compare_bug("no_scaling", BOOK_EMBEDDINGS, BOOK)
    assert bool((entropy(weights(result)) <= entropy(weights(result, "book")) + 1e-6).all())
    assert torch.allclose(weights(result).sum(dim=-1), torch.ones(6))
    assert not result.future_leak
    wide = compare_bug("no_scaling", BOOK_EMBEDDINGS, AttentionConfig(d_out=8, seed=123))
    assert wide.max_difference > result.max_difference, "the gap grows with d_out"


def test_wrong_scaling() -> None:
    result = compare_bug("wrong_scaling", BOOK_EMBEDDINGS, BOOK)  # d_in 3, d_k 2: flatter
    assert result.max_difference > 0
    assert torch.allclose(weights(result).sum(dim=-1), torch.ones(6))
    same = compare_bug("wrong_scaling", BOOK_EMBEDDINGS, AttentionConfig(d_out=3, seed=123))
    assert same.max_difference == 0, "the same when d_in = d_out"


def test_scale_by_d_k() -> None:
    result = compare_bug("scale_by_d_k", BOOK_EMBEDDINGS, BOOK)
    assert bool((entropy(weights(result)) >= entropy(weights(result, "book")) - 1e-6).all())
    assert result.max_difference > 0
    assert torch.allclose(weights(result).sum(dim=-1), torch.ones(6))
    same = compare_bug("scale_by_d_k", BOOK_EMBEDDINGS, AttentionConfig(d_out=1, seed=123))
    assert same.max_difference == 0, "the same only when d_k = 1"


def test_softmax_wrong_dim() -> None:
    result = compare_bug("softmax_wrong_dim", BOOK_EMBEDDINGS, BOOK)
    w = weights(result)
    assert torch.allclose(w.sum(dim=0), torch.ones(6)), "columns sum to 1"
    assert not torch.allclose(w.sum(dim=-1), torch.ones(6)), "rows do not"
    assert float(w[-1, -1]) == 1.0, "the last key is seen by the last query alone"
    assert float(w[0, 0]) < 1.0, "the first row is not all 1s"
    assert result.future_leak


def test_mask_after_softmax() -> None:
    result = compare_bug("mask_after_softmax", BOOK_EMBEDDINGS, BOOK)
    sums = weights(result).sum(dim=-1)
    assert bool((sums[:-1] < 1 - 1e-6).all()) and abs(float(sums[-1]) - 1) < 1e-6
    assert result.future_leak


def test_dropout_before_softmax() -> None:
    result = compare_bug("dropout_before_softmax", BOOK_EMBEDDINGS, DROPOUT)
    w = weights(result)
    assert torch.allclose(w.sum(dim=-1), torch.ones(6)), "rows still sum to 1 in training"
    visible = torch.ones(6, 6).tril().bool()
    assert bool(w[visible].gt(0).all()), "no visible weight is exactly 0"
    assert result.train_eval["eval"] == 0 and result.train_eval["train"] > 0


def test_dropout_in_eval() -> None:
    result = compare_bug("dropout_in_eval", BOOK_EMBEDDINGS, DROPOUT)
    assert result.train_eval["train"] == 0, "in training mode it is the book's class"
    assert result.train_eval["eval"] > 0, "after model.eval() weights are still dropped"


def test_dropout_unscaled() -> None:
    result = compare_bug("dropout_unscaled", BOOK_EMBEDDINGS, DROPOUT)
    dropped, before = result.buggy["dropped_weights"], result.buggy["attn_weights"]
    kept = dropped != 0
    assert bool(kept.any()) and torch.equal(dropped[kept], before[kept]), "kept keep their value"
    book_output = result.book["output"]
    assert torch.allclose(result.buggy["output"], book_output * (1 - 0.5), atol=1e-7), "(1−p)×"
    assert result.train_eval["eval"] == 0 and result.train_eval["train"] > 0


def test_values_from_keys() -> None:
    result = compare_bug("values_from_keys", BOOK_EMBEDDINGS, BOOK)
    assert torch.equal(weights(result), weights(result, "book")), "every weight is right"
    assert result.changed_steps == ("context", "output")
    layer, x = BUGS["values_from_keys"].cls(3, 2, 6, 0.0), BOOK_EMBEDDINGS[None]
    with torch.no_grad():
        before = layer(x)
        layer.W_value.weight.mul_(-3.0)
        assert torch.equal(layer(x), before), "W_value has no effect at all"


def test_sdpa_bool_mask() -> None:
    result = compare_bug("sdpa_bool_mask", BOOK_EMBEDDINGS, BOOK)
    assert result.future_leak, "each token sees only later tokens"
    assert bool(weights(result).tril().eq(0).all()), "no weight on itself or earlier tokens"
    assert torch.equal(result.buggy["output"][-1], torch.zeros(2)), "the last output is zeros"


def test_sdpa_dropout_in_eval() -> None:
    result = compare_bug("sdpa_dropout_in_eval", BOOK_EMBEDDINGS, DROPOUT)
    assert result.train_eval["train"] < 1e-6, "in training mode it is the book's class"
    assert result.train_eval["eval"] > 1e-3, "eval outputs keep dropping"


def test_heads_without_transpose() -> None:
    result = compare_bug("heads_without_transpose", BOOK_EMBEDDINGS, BOOK)
    assert result.future_leak, "a later token changes earlier outputs"
    assert result.buggy["output"].shape == result.book["output"].shape, "the shapes are right"


def test_no_out_proj() -> None:
    result = compare_bug("no_out_proj", BOOK_EMBEDDINGS, BOOK)
    assert torch.equal(weights(result), weights(result, "book"))
    assert not result.future_leak
    assert result.max_difference > 0
    layer = BUGS["no_out_proj"].cls(3, 2, 6, 0.0, num_heads=2)
    layer(BOOK_EMBEDDINGS[None]).sum().backward()
    assert layer.W_query.weight.grad is not None
    assert layer.out_proj.weight.grad is None, "out_proj gets no gradient"


def test_scale_by_d_out() -> None:
    result = compare_bug("scale_by_d_out", BOOK_EMBEDDINGS, BOOK)
    assert bool((entropy(weights(result)) >= entropy(weights(result, "book")) - 1e-6).all())
    assert result.max_difference > 0
    assert torch.allclose(weights(result).sum(dim=-1), torch.ones(6))
    book, buggy = MultiHeadAttention(3, 2, 6, 0.0, 1), BUGS["scale_by_d_out"].cls(3, 2, 6, 0.0, 1)
    buggy.load_state_dict(book.state_dict())
    with torch.no_grad():
        x = BOOK_EMBEDDINGS[None]
        assert torch.allclose(buggy(x), book(x), rtol=0, atol=1e-7), "the same with one head"


def test_mask_not_applied() -> None:
    result = compare_bug("mask_not_applied", BOOK_EMBEDDINGS, BOOK)
    w = weights(result)
    assert torch.allclose(w.sum(dim=-1), torch.ones(6)), "every row sums to 1"
    assert bool(w.triu(diagonal=1).gt(0)[:-1].any(dim=-1).all()), "weights above the diagonal"
    moved = result.moved
    assert bool(moved.all()), "a later token changes every earlier output"


def test_kv_cache_mask_slice() -> None:
    layer = MultiHeadAttention(3, 2, 6, 0.0, num_heads=2)
    x = BOOK_EMBEDDINGS[None]  # (1, 6, 3)
    full_pass = run_forward(layer, x, overrides=BUGS["kv_cache_mask_slice"].overrides)["output"]
    assert torch.equal(full_pass, layer(x)), "a full pass (q = n) is the book's"
    result = compare_bug("kv_cache_mask_slice", BOOK_EMBEDDINGS, DROPOUT)  # training, p = 0.5
    gap = result.output_difference  # (6, 2): through a cache, the slip minus the right slice
    assert bool(gap[:-1].eq(0).all()), "the first rows agree"
    assert float(gap[-1].abs().max()) > 0.01, "the last row differs"
    assert weights(result)[-1].tolist() == [1.0, 0.0, 0.0, 0.0, 0.0, 0.0], "only the first key"
    assert result.buggy["mask"][-1].tolist() == [False] + [True] * 5  # row 0 of the mask
    assert not result.future_leak and min(result.train_eval.values()) > 0.01
    assert result.full_pass_difference is not None and result.full_pass_difference < 1e-6
