"""Find the bug's choice is in the link: ``?bug=<gallery name>`` opens it, a choice writes it."""

from __future__ import annotations

from attention.bugs import BUGS
from tests.apptest_support import page_text, run_page


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
