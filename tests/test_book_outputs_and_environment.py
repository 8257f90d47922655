"""The live "matches the book" checks and the environment helpers behind the Reproducibility page."""

from __future__ import annotations

import dataclasses

import pytest
import torch
import torch.nn as nn

import attention.book_outputs as book_outputs
from attention import AttentionConfig, trace_attention
from attention.book_outputs import PRINT_TOLERANCE, BookCheck, check_book_outputs
from attention.environment import (
    differing_fields,
    dropout_on_ones,
    environment_info,
    recompute_check,
)
from attention.examples import BOOK_EMBEDDINGS

EXPECTED_NAMES = [
    "causal_seed_123",
    "self_attention_v1_seed_123",
    "self_attention_v2_seed_789",
    "masked_weights_seed_789",
    "wrapper_seed_123",
    "multi_head_seed_123",
    "dropout_ones_seed_123",
    "dropout_weights_seed_123",
]


def test_every_book_example_agrees_to_four_decimals_on_this_machine() -> None:
    checks = check_book_outputs()
    assert [check.name for check in checks] == EXPECTED_NAMES
    for check in checks:
        assert check.passed, (check.name, check.max_abs_difference)
        assert check.max_abs_difference <= PRINT_TOLERANCE


def test_the_seed_documents_context_vectors_are_pinned() -> None:
    assert book_outputs.CAUSAL_SEED_123 == (
        (-0.4519, 0.2216),
        (-0.5874, 0.0058),
        (-0.6300, -0.0632),
        (-0.5675, -0.0843),
        (-0.5526, -0.0981),
        (-0.5299, -0.1081),
    )
    causal = check_book_outputs()[0]
    rounded = [[round(v, 4) for v in row] for row in causal.actual]
    assert rounded == [list(row) for row in book_outputs.CAUSAL_SEED_123]


def test_check_reports_a_wrong_printed_number(monkeypatch: pytest.MonkeyPatch) -> None:
    recipe, expected, compute = book_outputs.BOOK_CHECKS["causal_seed_123"]
    wrong = ((-0.4529, 0.2216), *expected[1:])  # one digit off
    monkeypatch.setitem(book_outputs.BOOK_CHECKS, "causal_seed_123", (recipe, wrong, compute))
    causal = check_book_outputs()[0]
    assert not causal.passed
    assert causal.max_abs_difference == pytest.approx(0.001, abs=1e-4)


def test_book_check_passes_exactly_within_half_a_printed_unit() -> None:
    check = BookCheck("x", "", ((0.0,),), ((0.0,),), 0.00005)
    assert check.passed
    assert not dataclasses.replace(check, max_abs_difference=0.00006).passed


def test_checks_leave_the_callers_random_state_alone() -> None:
    torch.manual_seed(42)
    expected = torch.rand(3)
    torch.manual_seed(42)
    check_book_outputs()
    dropout_on_ones()
    assert torch.equal(torch.rand(3), expected)


def test_dropout_on_ones_is_the_books_recipe_run_here() -> None:
    torch.manual_seed(123)
    expected = nn.Dropout(0.5)(torch.ones(6, 6))
    mask = dropout_on_ones(seed=123, p=0.5, size=6)
    assert torch.equal(mask, expected)
    assert set(mask.unique().tolist()) == {0.0, 2.0}


def test_environment_info_names_versions_platform_and_threads() -> None:
    info = environment_info()
    assert info["torch_version"] == torch.__version__
    assert info["torch_threads"] == torch.get_num_threads()
    for key in ("python_version", "os", "machine", "platform", "cpu_count", "default_dtype"):
        assert info[key] not in ("", None), key


def test_recomputing_a_trace_is_bitwise_equal() -> None:
    cfg = AttentionConfig(dropout=0.5, seed=11, qkv_bias=True)
    reference = trace_attention(BOOK_EMBEDDINGS, cfg)
    result = recompute_check(BOOK_EMBEDDINGS, cfg, reference=reference)
    assert result.reproducible
    assert result.runs == 3
    assert result.fields_compared == len(reference.tensors())


def test_differing_fields_names_what_changed() -> None:
    first = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(dropout=0.5, seed=1))
    second = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(dropout=0.5, seed=2))
    different = differing_fields(first, second)
    assert "W_query" in different and "context" in different and "config" in different
    assert "mask" not in different and "inputs" not in different
    no_dropout = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(seed=1))
    assert "dropout_mask" in differing_fields(first, no_dropout)  # None vs a tensor
    assert differing_fields(first, first) == []


def test_the_books_dropout_demo_drops_the_journey_row_whole() -> None:
    """Section 3.5.2 as the book runs it: after seed 123 the second row ("journey") of the
    masked weights is dropped entirely, so its context vector would be 0 in that pass."""
    from attention.chapter import dropout_demo

    demo = dropout_demo(BOOK_EMBEDDINGS, seed=123, p=0.5)
    assert demo.vanished_rows == (1,)
    (journey,) = demo.vanished  # row 2 sees two keys: it vanishes with chance 0.5²
    assert (journey.query, journey.visible, journey.chance) == (1, 2, 0.25)
    kept = demo.dropped_weights != 0
    assert torch.allclose(demo.dropped_weights[kept], demo.attn_weights[kept] * 2.0)
    assert set(demo.ones.unique().tolist()) == {0.0, 2.0}


def test_a_trace_is_compared_with_the_books_printout_only_when_it_is_the_books_run() -> None:
    """ "= the book" is a comparison: the book's runs (one head; two heads of either class, a
    batch of two) agree to 4 decimals; other seeds, dropout acting or other inputs get None."""
    from attention.book_outputs import book_comparison

    batch = torch.stack((BOOK_EMBEDDINGS, BOOK_EMBEDDINGS))  # the book's (2, 6, 3) batch
    for inputs, cfg, name in (
        (BOOK_EMBEDDINGS, AttentionConfig(), "causal_seed_123"),
        (batch, AttentionConfig(dropout=0.5, training=False), "causal_seed_123"),
        (BOOK_EMBEDDINGS, AttentionConfig(num_heads=2), "multi_head_seed_123"),
        (BOOK_EMBEDDINGS, AttentionConfig(num_heads=2, variant="wrapper"), "wrapper_seed_123"),
    ):
        check = book_comparison(trace_attention(inputs, cfg))
        assert check is not None and check.name == name and check.passed, (cfg, check)
    for inputs, cfg in (
        (BOOK_EMBEDDINGS, AttentionConfig(seed=124)),
        (BOOK_EMBEDDINGS, AttentionConfig(dropout=0.5)),
        (BOOK_EMBEDDINGS, AttentionConfig(qkv_bias=True)),
        (BOOK_EMBEDDINGS + 0.01, AttentionConfig()),
        (BOOK_EMBEDDINGS[:5], AttentionConfig()),
        (BOOK_EMBEDDINGS, AttentionConfig(num_heads=3, d_out=3, variant="wrapper")),
    ):
        assert book_comparison(trace_attention(inputs, cfg)) is None, cfg
