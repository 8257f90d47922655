"""Real-browser tests of the pages “Masking two ways” and “Multi-head”."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import assert_no_exception, open_app, wait_settled
from ui.i18n import t

if TYPE_CHECKING:
    from collections.abc import Callable

    from playwright.sync_api import Page

BOOK_FUSED = ["0.3190", "0.4858", "0.2943", "0.3897", "0.2575", "0.4028"]
BOOK_WRAPPER_FIRST_ROW = ["-0.4519", "0.2216", "0.4772", "0.1063"]
WAIT_MS = 60_000


@pytest.fixture(scope="module")
def frame_loaded(streamlit_server: str) -> str:
    """The shared server (``ui.frame.page`` makes any first visit run the frame)."""
    return streamlit_server


def _tables_text(page: Page) -> str:
    return "\n".join(page.locator("[data-testid='stTable']").all_inner_texts())


def test_masking_page_opens_with_both_methods(page: Page, frame_loaded: str) -> None:
    open_app(page, frame_loaded, "/masking")
    charts = page.locator("[data-testid='stPlotlyChart']")
    # Lazy stage tabs: raw scores (1 heatmap), method 1 (4), method 2 (2); 7 in all, as before.
    for tab, count in zip(range(3), (1, 4, 2), strict=True):
        if tab:
            page.get_by_test_id("stTab").nth(tab).click()
        expect(charts).to_have_count(count, timeout=WAIT_MS)  # a busy machine may start late
        wait_settled(page)
        assert_no_exception(page)
    value = page.locator("[data-testid='stMetricValue']").first.inner_text()
    assert re.fullmatch(r"\d\.\d\de[-+]\d\d", value.strip()), value


def test_multi_head_shows_the_books_numbers(page: Page, frame_loaded: str) -> None:
    open_app(page, frame_loaded, "/multi_head?heads=2")
    fused_table = page.locator("[data-testid='stTable']").filter(has_text="0.4858")
    expect(fused_table).to_have_count(1, timeout=WAIT_MS)
    wait_settled(page)
    assert_no_exception(page)
    text = _tables_text(page)
    for number in BOOK_FUSED + BOOK_WRAPPER_FIRST_ROW:
        assert number in text, number
    expect(page.locator("[data-testid='stPlotlyChart']")).to_have_count(2)  # one grid per class


def test_first_visit_of_a_page_url_runs_the_frame(
    page: Page, streamlit_factory: Callable[..., object]
) -> None:
    from tests.e2e.server import DEFAULT_APP

    server = streamlit_factory(DEFAULT_APP)
    open_app(page, server.url, "/multi_head?heads=2")  # type: ignore[attr-defined]
    expect(page.locator("[data-testid='stTable']").filter(has_text="0.4858")).to_have_count(
        1, timeout=WAIT_MS
    )
    assert_no_exception(page)
    sidebar = page.locator("[data-testid='stSidebar']")
    seed_input = sidebar.get_by_role("spinbutton", name=t("sidebar.seed", "en"))
    expect(seed_input).to_be_visible(timeout=WAIT_MS)  # the frame's sidebar, not the page alone
    # the legacy pages-folder mode hands over to st.navigation without Streamlit's notice
    assert "Page not found" not in page.locator("[data-testid='stApp']").inner_text()
    assert page.get_by_text("Page not found").count() == 0
