"""Find the bug is bounded by the trace's size rule and cached like the traces (issue 27, item 1).

``compare_bug`` holds the book's and the bug's steps beside the passes of its checks, so it keeps
to the memory of one trace at the limit: ``check_attention_size(..., traces=4)``, the rule every
trace uses, refused before anything is computed. The page shows the refusal in the user's language
and keeps showing the last comparison that could run; equal requests share one cached comparison.
"""

from __future__ import annotations

import pytest

from attention import AttentionConfig, AttentionInputError
from attention.bugs import compare_bug
from attention.examples import BOOK_EMBEDDINGS
from attention.validate import MAX_ATTENTION_CELLS, check_attention_size
from tests.apptest_support import run_page
from ui.computation import compute_bug_comparison
from ui.input_errors import explain
from ui.table_state import book_table, random_words

WIDE = [[0.5, -0.25, 1.0]] * 4096  # the audit's 4,096 tokens (d_in = 3)


def test_four_traces_worth_is_the_limit_of_the_same_rule() -> None:
    quarter = MAX_ATTENTION_CELLS // 4
    check_attention_size(1, 1, 4096, traces=4)  # 4096² is exactly a quarter of the limit
    with pytest.raises(AttentionInputError) as caught:
        check_attention_size(1, 1, 4097, traces=4)
    assert caught.value.params["maximum"] == quarter
    check_attention_size(1, 4, 4096)  # one trace may hold four times as much


@pytest.mark.parametrize(
    ("name", "heads", "tokens", "counted_heads"),
    [
        ("heads_without_transpose", 8, 4096, 8),  # the audit's case: 62 s and 6.6 GB before
        ("no_out_proj", 1, 2897, 2),  # a multi-head bug runs two heads when one is asked
    ],
)
def test_compare_bug_refuses_what_is_too_large_before_computing(
    name: str, heads: int, tokens: int, counted_heads: int
) -> None:
    cfg = AttentionConfig(d_out=2 * heads, num_heads=heads)
    with pytest.raises(AttentionInputError) as caught:
        compare_bug(name, WIDE[:tokens], cfg)
    error = caught.value
    assert error.code == "too_large_to_trace"
    assert error.params["heads"] == counted_heads and error.params["tokens"] == tokens
    chinese = explain(error, "zh")
    assert "无法追踪" in chinese and f"{tokens}²" in chinese


def test_equal_requests_share_one_cached_comparison() -> None:
    table, cfg = book_table(), AttentionConfig(seed=123)
    first = compute_bug_comparison("no_scaling", table, cfg)
    assert compute_bug_comparison("no_scaling", table, cfg) is first
    assert compute_bug_comparison("mask_inverted", table, cfg) is not first
    assert compute_bug_comparison("no_scaling", table, AttentionConfig(seed=7)) is not first
    assert first.changed_steps == compare_bug("no_scaling", BOOK_EMBEDDINGS, cfg).changed_steps


def test_the_page_refuses_a_large_view_in_words_and_keeps_the_last_comparison() -> None:
    at = run_page("find_the_bug", {"heads": "8", "d_out": "16"})
    at.selectbox(key="find_the_bug_bug").set_value("heads_without_transpose").run()
    assert not at.exception and not at.error
    shown = [metric.value for metric in at.metric]
    at.text_input(key="text").set_value(" ".join(random_words(1500))).run()  # 8 × 1500² cells
    assert not at.exception
    assert any("too large to trace" in error.value for error in at.error)
    assert any("last comparison" in caption.value for caption in at.caption)
    assert [metric.value for metric in at.metric] == shown  # the book's six tokens, still shown
