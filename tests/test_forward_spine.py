"""The one step-by-step forward pass (attention.forward) and its variants, declared as overrides.

The trace, the backward pass and the bug gallery run the same steps; a variant replaces a step by
name. Pinned here: the sliding window (a mask override) on known sizes and against the book, the
runner's refusals, and the gallery bug ``mask_not_applied``.
"""

from __future__ import annotations

import contextlib
import io

import pytest
import torch

from attention import AttentionConfig, AttentionInputError, sliding_window_mask, trace_attention
from attention.bugs import BUGS, compare_bug, run_steps
from attention.examples import BOOK_EMBEDDINGS, BOOK_TOKENS
from attention.export import reproduce_snippet
from attention.forward import run_forward
from attention.gradients import gradient_facts, trace_gradients
from attention.modules import CausalAttention
from attention.randomness import draws_from, private_generator
from attention.steps import STEPS
from tests.cases import subcases


def test_window_of_two_on_six_tokens_shows_each_token_itself_and_the_one_before() -> None:
    mask = sliding_window_mask(6, 2)  # True = hidden
    assert mask.dtype == torch.bool and mask.shape == (6, 6)
    assert (~mask[5]).nonzero().flatten().tolist() == [4, 5]
    assert (~mask[0]).nonzero().flatten().tolist() == [0]
    assert torch.equal(sliding_window_mask(4, 1), ~torch.eye(4, dtype=torch.bool))


def test_a_window_as_long_as_the_text_is_the_books_causal_mask() -> None:
    causal = torch.triu(torch.ones(6, 6), diagonal=1).bool()
    assert torch.equal(sliding_window_mask(6, 6), causal)
    assert torch.equal(sliding_window_mask(6, 100), causal)


@subcases(
    ("num_tokens", "window", "field"),
    [(6, 0, "window"), (6, 2.5, "window"), (6, True, "window"), (0, 2, "num_tokens")],
)
def test_sliding_window_mask_refuses_bad_sizes_by_name(
    num_tokens: object, window: object, field: str
) -> None:
    with pytest.raises(AttentionInputError) as error:
        sliding_window_mask(num_tokens, window)  # type: ignore[arg-type]
    assert error.value.field == field


def test_window_none_is_the_book_and_a_full_window_changes_nothing_bitwise() -> None:
    cfg = AttentionConfig(seed=123, dropout=0.5)
    book = trace_attention(BOOK_EMBEDDINGS, cfg)
    assert AttentionConfig().window is None
    full = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(seed=123, dropout=0.5, window=6))
    for name, tensor in book.tensors().items():
        assert torch.equal(getattr(full, name), tensor), name


def test_a_window_hides_the_distant_past_in_every_head_and_its_gradient() -> None:
    cfg = AttentionConfig(d_out=4, num_heads=2, window=2)
    trace = trace_attention(BOOK_EMBEDDINGS, cfg)
    hidden = sliding_window_mask(6, 2)
    assert torch.equal(trace.mask, hidden)
    assert bool((trace.attn_weights[..., hidden] == 0).all())  # (b, h, hidden cells)
    assert torch.allclose(trace.attn_weights.sum(dim=-1), torch.ones(1, 2, 6))
    grads = trace_gradients(BOOK_EMBEDDINGS, AttentionConfig(window=3))
    facts = gradient_facts(grads)
    assert facts.hidden_cells == int(sliding_window_mask(6, 3).sum()) and facts.hidden_max_abs == 0


def test_config_refuses_a_window_that_is_not_a_positive_whole_number() -> None:
    with pytest.raises(AttentionInputError) as error:
        trace_attention(BOOK_EMBEDDINGS, AttentionConfig(window=0))
    assert error.value.field == "window"


def test_the_runner_refuses_unknown_steps_and_steps_that_make_other_tensors() -> None:
    with draws_from(private_generator(123)):
        layer = CausalAttention(3, 2, 6, 0.0)
    x = BOOK_EMBEDDINGS.unsqueeze(0)
    with pytest.raises(AttentionInputError, match="name no step: masking"):
        run_forward(layer, x, overrides={"masking": lambda state: {}})
    with pytest.raises(AttentionInputError, match="The mask step must make mask"):
        run_forward(layer, x, overrides={"mask": lambda state: {"hidden": None}})
    made = run_forward(layer, x)
    assert set(made) >= {field.name for step in STEPS for field in step.fields}
    assert torch.equal(made["output"], layer(x))  # the book's class, bitwise


def test_every_bug_overrides_one_or_two_steps_and_its_class_runs_them() -> None:
    x = BOOK_EMBEDDINGS.unsqueeze(0)
    for bug in BUGS.values():
        assert 1 <= len(bug.steps) <= 2, bug.name
        if bug.multi_head or bug.forward_class is not None:
            continue  # the SDPA classes call SDPA (tests/test_check.py compares their steps)
        with draws_from(private_generator(5)):
            layer = bug.cls(3, 2, 6, 0.0)
        layer.eval()
        expected = run_steps(layer, x, None)["output"]
        torch.testing.assert_close(layer(x), expected, rtol=0, atol=0, equal_nan=True)


def test_mask_not_applied_lets_every_token_see_the_future() -> None:
    comparison = compare_bug("mask_not_applied", BOOK_EMBEDDINGS, AttentionConfig(seed=123))
    assert BUGS["mask_not_applied"].steps == ("masked",)
    assert comparison.changed_steps[0] == "masked_scores"  # the mask itself is the book's
    assert torch.equal(comparison.buggy["mask"], comparison.book["mask"])
    assert comparison.future_leak and bool(comparison.moved.all())
    assert torch.allclose(comparison.row_sums, torch.ones(6))
    assert bool((comparison.buggy["attn_weights"][comparison.book["mask"]] > 0).all())
    diff = BUGS["mask_not_applied"].diff
    assert diff.startswith("- attn_scores.masked_fill_(") and "\n+ # attn_scores" in diff


def test_the_trace_script_of_a_windowed_trace_sets_the_window_and_the_book_script_refuses() -> None:
    trace = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(window=2))
    script = reproduce_snippet(trace, list(BOOK_TOKENS), "trace")
    namespace: dict[str, object] = {}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(script, "reproduce.py", "exec"), namespace)  # noqa: S102 (our own script)
    assert torch.equal(namespace["context_vecs"], trace.output)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="no sliding window"):
        reproduce_snippet(trace, list(BOOK_TOKENS), "book")
