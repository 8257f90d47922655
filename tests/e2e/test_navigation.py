"""Navigation in a real browser: every page opens, and the shared settings follow the user."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.helpers import assert_no_exception, open_app, wait_settled
from ui.frame import PAGE_SPECS
from ui.i18n import LANGUAGES, t


def _query(page: Page) -> dict[str, list[str]]:
    return parse_qs(urlparse(page.url).query)


@pytest.mark.parametrize("lang", sorted(LANGUAGES))
def test_every_page_opens_from_the_sidebar(
    lang: str, page: Page, streamlit_server: str, subtests: pytest.Subtests
) -> None:
    """Every page of the registry (``ui.frame.PAGE_SPECS``), reached by its sidebar link in one
    session: no exception, the page's own title in the language, the sidebar, and the shared
    settings kept in the URL. (Opening a page by its URL is ``test_masking_and_multi_head``'s.)"""
    open_app(page, streamlit_server, f"/?seed=5&lang={lang}")
    nav = page.get_by_test_id("stSidebarNav")
    for spec in PAGE_SPECS:
        with subtests.test(page=spec.name, lang=lang):
            title = t(f"page.{spec.name}.title", lang=lang)
            nav.get_by_role("link", name=title, exact=True).click()
            wait_settled(page)
            assert_no_exception(page)
            expect(page.locator("[data-testid='stMain'] h1").first).to_have_text(title)
            sidebar = page.locator("[data-testid='stSidebar']")
            expect(sidebar).to_be_visible()
            expect(sidebar).to_contain_text(t("sidebar.lang", lang=lang))
            assert _query(page).get("seed") == ["5"], (spec.name, page.url)


def test_settings_survive_switching_pages(page: Page, streamlit_server: str) -> None:
    """The sidebar shows the session's settings on every page, not the widgets' minimums.

    A browser can lose its copy of a widget's value on a page switch and fall back to the
    widget's minimum (seed 0); the next click would then send that back. Switch several times.
    """
    open_app(page, streamlit_server, "/?seed=7&dropout=0.5&text=the+cat+sat")
    links = page.locator("[data-testid='stSidebarNavLink']")
    sidebar = page.locator("[data-testid='stSidebar']")
    seed_input = sidebar.locator("[data-testid='stNumberInput']").filter(has_text="Seed")
    sentence = sidebar.locator("[data-testid='stTextInput'] input")
    dropout = sidebar.locator("[data-testid='stSlider']").filter(has_text="Dropout rate p")
    for title, path in [
        ("Masking two ways", "/masking"),
        ("One query, by hand", "/one_query"),
        ("Attention, step by step", "/"),
    ]:
        links.filter(has_text=title).first.click()
        wait_settled(page)
        assert urlparse(page.url).path.endswith(path), (title, page.url)
        query = _query(page)
        assert query.get("seed") == ["7"], (title, page.url)
        assert query.get("dropout") == ["0.5"], (title, page.url)
        assert query.get("text") == ["the cat sat"], (title, page.url)
        assert seed_input.locator("input").first.input_value() == "7", title
        assert dropout.get_by_role("slider").input_value() == "0.5", title
        assert sentence.first.input_value() == "the cat sat", title
        assert_no_exception(page)
