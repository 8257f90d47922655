"""Find the bug's choice is in the link: ``?bug=<gallery name>`` opens it, a choice writes it."""

from __future__ import annotations

from attention.bugs import BUGS
from tests.apptest_support import matrix_tables, page_text, run_page


def test_a_link_opens_its_bug_and_a_choice_goes_into_the_link() -> None:
    at = run_page("find_the_bug", {"bug": "mask_after_softmax"})
    assert not at.exception and not at.warning
    assert at.selectbox(key="find_the_bug_bug").value == "mask_after_softmax"
    assert at.query_params["bug"] == "mask_after_softmax"
    at.selectbox(key="find_the_bug_bug").set_value("no_scaling").run()
    assert at.query_params["bug"] == "no_scaling"
    at.selectbox(key="find_the_bug_bug").set_value(next(iter(BUGS))).run()
    assert "bug" not in at.query_params, "the gallery's first bug is the default"


def test_a_bad_bug_in_a_link_is_named_and_the_first_bug_shown() -> None:
    at = run_page("find_the_bug", {"bug": "<b>nope</b>"})
    assert not at.exception
    assert len(at.warning) == 1  # the label is escaped: shown as text, never markup
    assert "bug=\\<b\\>nope" in at.warning[0].value
    assert at.selectbox(key="find_the_bug_bug").value == next(iter(BUGS))
    assert page_text(at)


def test_the_kv_cache_slip_shows_where_it_bites_in_both_languages() -> None:
    """``?bug=kv_cache_mask_slice``: through a cache the first rows agree, the last differs."""
    at = run_page("find_the_bug", {"bug": "kv_cache_mask_slice", "heads": "2"})
    assert not at.exception and not at.warning and not at.error
    text = page_text(at)
    assert (
        "mask[start : start + q, :n].bool()" in text and "mask[:q, :n].bool()" in text
    )  # the diff
    assert "attention/kv_cache.py" in text and "PR #697" in text
    assert "the first 5 in one pass, then “step” alone" in text.replace("\\", "")
    gap = matrix_tables(at)["find_the_bug_difference"]  # (6, d_out): bug − book
    assert (gap.iloc[:5] == "0.0000").all().all() and (gap.iloc[5] != "0.0000").any()
    zh = run_page("find_the_bug", {"bug": "kv_cache_mask_slice", "lang": "zh"})
    assert not zh.exception and "这个错误只在用缓存时出现" in page_text(zh)  # the hint
    assert "从第 0 行开始（PR #697 的失误）" in page_text(zh)  # the diff's comment, in Chinese


def test_a_window_in_the_link_is_said_to_be_unused_here() -> None:
    """The bugs are slips in the book's classes, which have no window: the page says so."""
    text = page_text(run_page("find_the_bug", {"window": "2"}))
    assert "sliding window (window = 2) is not used on this page" in text
    assert "not used on this page" not in page_text(run_page("find_the_bug", {}))
    zh = page_text(run_page("find_the_bug", {"window": "2", "lang": "zh"}))
    assert "本页不使用侧边栏的滑动窗口（window = 2）" in zh
