"""Real-browser tests of the pages “Masking two ways” and “Multi-head”."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import expect

from attention.examples import BOOK_TOKENS as BOOK_TOKENS_TUPLE
from tests.e2e.helpers import (
    MATRIX_BLOCK_SELECTOR,
    assert_no_exception,
    open_app,
    read_matrix,
    shown_matrix_keys,
    step_strip,
    wait_settled,
)
from ui.i18n import t

if TYPE_CHECKING:
    from collections.abc import Callable

    from playwright.sync_api import Page

BOOK_FUSED = ["0.3190", "0.4858", "0.2943", "0.3897", "0.2575", "0.4028"]
BOOK_WRAPPER_FIRST_ROW = ["-0.4519", "0.2216", "0.4772", "0.1063"]
BOOK_TOKENS = list(BOOK_TOKENS_TUPLE)
WAIT_MS = 60_000


# Masking's lazy stage tabs and the matrix tables each one draws (raw scores, method 1, method 2)
MASKING_STAGES = (
    ["masking_scores"],
    ["masking_unmasked", "masking_zeroed", "masking_row_sums", "masking_method1"],
    ["masking_neg_inf", "masking_method2"],
)


def _tables_text(page: Page) -> str:
    """The text of the page's tables of numbers (``st.table``; matrices are drawn otherwise)."""
    return "\n".join(page.get_by_test_id("stTable").all_inner_texts())


def test_masking_page_opens_with_both_methods(page: Page, frame_loaded: str) -> None:
    open_app(page, frame_loaded, "/masking")
    charts = page.locator("[data-testid='stPlotlyChart']")
    matrices = page.locator(MATRIX_BLOCK_SELECTOR)  # drawn or hidden: a closed tab sends none
    # Lazy stage tabs: raw scores (1 matrix), method 1 (4), method 2 (2); 7 in all, as before.
    for tab, keys in enumerate(MASKING_STAGES):
        if tab:
            step_strip(page).get_by_role("radio").nth(tab).click()
        expect(matrices).to_have_count(len(keys), timeout=WAIT_MS)  # a busy machine starts late
        wait_settled(page)
        assert shown_matrix_keys(page) == keys
        expect(charts).to_have_count(0)  # six tokens: every matrix is a coloured table
        assert_no_exception(page)
    value = page.locator("[data-testid='stMetricValue']").first.inner_text()
    # viz.vocabulary.format_difference: 0 when equal, else one decimal and the exponent
    assert re.fullmatch(r"0|\d\.\de[-+]\d\d", value.strip()), value


def test_first_visit_of_a_page_url_runs_the_frame_and_multi_head_shows_the_books_numbers(
    page: Page, streamlit_factory: Callable[..., object], subtests: pytest.Subtests
) -> None:
    """A fresh server's first visit of ``/multi_head?heads=2``: the frame runs (its sidebar, no
    "Page not found"), and the page shows the book's numbers."""
    from tests.e2e.server import DEFAULT_APP

    server = streamlit_factory(DEFAULT_APP)
    open_app(page, server.url, "/multi_head?heads=2")  # type: ignore[attr-defined]
    fused_table = page.locator("[data-testid='stTable']").filter(has_text="0.4858")
    expect(fused_table).to_have_count(1, timeout=WAIT_MS)
    assert_no_exception(page)
    with subtests.test("the first visit runs the frame"):
        sidebar = page.locator("[data-testid='stSidebar']")
        seed_input = sidebar.get_by_role("spinbutton", name=t("sidebar.seed", "en"))
        expect(seed_input).to_be_visible(timeout=WAIT_MS)  # the frame's sidebar, not the page
        # the legacy pages-folder mode hands over to st.navigation without Streamlit's notice
        assert "Page not found" not in page.locator("[data-testid='stApp']").inner_text()
        assert page.get_by_text("Page not found").count() == 0
    with subtests.test("multi-head shows the book's numbers"):
        wait_settled(page)
        assert_no_exception(page)
        text = _tables_text(page)
        for number in BOOK_FUSED + BOOK_WRAPPER_FIRST_ROW:
            assert number in text, number
        # one table of weights per head and class, each 6 × 6 with the tokens on both sides
        heads = [
            f"multi_head_{variant}_weights_{head}"
            for variant in ("wrapper", "fused")
            for head in (0, 1)
        ]
        expect(page.locator(MATRIX_BLOCK_SELECTOR)).to_have_count(len(heads))
        assert sorted(shown_matrix_keys(page)) == sorted(heads)
        for key in heads:
            shown = read_matrix(page, key)
            assert (shown.rows, shown.columns) == (BOOK_TOKENS, BOOK_TOKENS), key
            assert all(0.0 <= float(cell) <= 1.0 for row in shown.numbers() for cell in row), key
        expect(page.locator("[data-testid='stPlotlyChart']")).to_have_count(0)


def test_first_visit_of_the_first_listed_page_has_no_page_not_found_dialog(
    page: Page, streamlit_factory: Callable[..., object]
) -> None:
    from tests.e2e.server import DEFAULT_APP
    from ui.frame import DEFAULT_PAGE, PAGE_SPECS

    first = PAGE_SPECS[0].name  # listed first, but not the page at "/"
    assert first != DEFAULT_PAGE, "the case this test is about"
    server = streamlit_factory(DEFAULT_APP)
    open_app(page, server.url, f"/{first}")  # type: ignore[attr-defined]
    expect(page.locator("h1").first).to_have_text(t(f"page.{first}.title", "en"), timeout=WAIT_MS)
    wait_settled(page, timeout=WAIT_MS)
    assert_no_exception(page)
    expect(page.get_by_role("dialog")).to_have_count(0)
    assert page.get_by_text("Page not found").count() == 0
