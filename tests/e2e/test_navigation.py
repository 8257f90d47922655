"""Navigation in a real browser: every page opens, and the shared settings follow the user."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

from playwright.sync_api import Page

from tests.e2e.helpers import assert_no_exception, open_app, wait_settled
from ui.frame import PAGE_SPECS


def _query(page: Page) -> dict[str, list[str]]:
    return parse_qs(urlparse(page.url).query)


def test_every_page_opens_without_an_exception(page: Page, streamlit_server: str) -> None:
    for spec in PAGE_SPECS:
        open_app(page, streamlit_server, f"/{spec.name}?seed=5")
        assert_no_exception(page)
        assert page.locator("[data-testid='stSidebar']").is_visible()
        assert _query(page).get("seed") == ["5"], (spec.name, page.url)


def test_settings_survive_switching_pages(page: Page, streamlit_server: str) -> None:
    open_app(page, streamlit_server, "/?seed=7&dropout=0.5&text=the+cat+sat")
    links = page.locator("[data-testid='stSidebarNavLink']")
    links.filter(has_text="Masking two ways").first.click()
    wait_settled(page)
    assert urlparse(page.url).path.endswith("/masking")
    query = _query(page)
    assert query.get("seed") == ["7"]
    assert query.get("dropout") == ["0.5"]
    assert query.get("text") == ["the cat sat"]
    seed_input = page.locator("[data-testid='stSidebar'] [data-testid='stNumberInput']").filter(
        has_text="Seed"
    )
    assert seed_input.locator("input").first.input_value() == "7"
    sentence = page.locator("[data-testid='stSidebar'] [data-testid='stTextInput'] input")
    assert sentence.first.input_value() == "the cat sat"
    assert_no_exception(page)
