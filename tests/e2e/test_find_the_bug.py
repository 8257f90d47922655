"""Real-browser test of the page “Find the bug”, in English and Chinese."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import expect

from attention.bugs import compare_bug
from attention.examples import BOOK_EMBEDDINGS
from attention.trace import AttentionConfig
from pages.find_the_bug import TABLE_DECIMALS
from tests.e2e.helpers import assert_no_exception, open_app, read_matrix, wait_settled
from ui.i18n import t
from viz.vocabulary import cell_texts

if TYPE_CHECKING:
    from playwright.sync_api import Page

WAIT_MS = 60_000


def _choose_bug(page: Page, lang: str, name: str) -> None:
    box = page.get_by_test_id("stSelectbox").filter(has_text=t("find_the_bug.choose", lang))
    box.get_by_role("combobox").click()
    page.get_by_role("option", name=t(f"find_the_bug.bug.{name}", lang), exact=True).click()
    wait_settled(page)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_find_the_bug_shows_the_diff_the_steps_and_the_leak(
    streamlit_server: str, page: Page, lang: str
) -> None:
    open_app(page, streamlit_server, f"/find_the_bug?lang={lang}")
    assert_no_exception(page)
    expect(page.locator("h1").first).to_have_text(t("page.find_the_bug.title", lang))

    # The first bug, the inverted mask: its diff, its sentence, the masked scores side by side.
    code = page.get_by_test_id("stCode").first
    expect(code).to_contain_text("- attn_scores.masked_fill_(")
    expect(code).to_contain_text("+ attn_scores.masked_fill_(~self.mask.bool()")
    expect(page.get_by_test_id("stAlert").first).to_contain_text(
        t("find_the_bug.spot.mask_inverted", lang)[:20]
    )
    comparison = compare_bug("mask_inverted", BOOK_EMBEDDINGS, AttentionConfig())
    for key, steps in (("book", comparison.book), ("bug", comparison.buggy)):
        shown = read_matrix(page, f"find_the_bug_{key}_step", timeout=WAIT_MS)
        scores = steps["masked_scores"].numpy()
        assert shown.cells == cell_texts(scores, scores == float("-inf"), TABLE_DECIMALS), key
    assert (
        read_matrix(page, "find_the_bug_book_step").cells[0][1] == "−∞"
    )  # the book hides the future
    assert read_matrix(page, "find_the_bug_bug_step").cells[0][0] == "−∞"  # the bug hides the past

    # Mask after softmax: the future-leak test names the earlier tokens that moved.
    _choose_bug(page, lang, "mask_after_softmax")
    assert_no_exception(page)
    expect(page.get_by_test_id("stCode").first).to_contain_text("masked_fill(self.mask.bool()")
    moved = "Your, journey, starts, with, one"  # every earlier token of the book's sentence
    expect(page.get_by_test_id("stMarkdown").filter(has_text=moved)).to_have_count(1)
    metrics = page.get_by_test_id("stMetricValue")
    expect(metrics.nth(1)).to_have_text(t("find_the_bug.yes", lang))  # future leak
    expect(metrics.nth(2)).to_have_text(t("find_the_bug.no", lang))  # rows sum to 1
