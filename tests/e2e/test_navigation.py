"""Navigation in a real browser: every page opens, and the shared settings follow the user.

One session, one page load: Chinese from the link, one page switch by its Chinese sidebar link
(``lang`` and the settings stay), the switch to English (the sidebar and titles follow, ``lang``
leaves the URL), then every page by its sidebar link in English: the language chosen in the
sidebar holds on every page, without ``lang`` in the URL. A browser can lose its copy of a
widget's value on a page switch and fall back to the widget's minimum (seed 0), which the next
click would send back: each switch checks the sidebar's seed, dropout and sentence against the
link's. What each page shows in Chinese (it runs, its Chinese title and sidebar, the link's
settings) is ``tests/test_every_page_in_chinese.py``'s, page by page without a browser.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import Page, expect

from tests.apptest_support import SETTINGS_PAGES
from tests.e2e.helpers import assert_no_exception, choose, open_app, wait_settled
from ui.frame import PAGE_SPECS
from ui.i18n import t

CJK = re.compile(r"[\u4e00-\u9fff]")
SETTINGS = {"seed": "7", "dropout": "0.5", "text": "the cat sat"}


def _query(page: Page) -> dict[str, list[str]]:
    return parse_qs(urlparse(page.url).query)


def _h1(page: Page) -> str:
    heading = page.locator("[data-testid='stMain'] h1").first
    expect(heading).to_be_visible()
    return heading.inner_text()


def _assert_sidebar_settings(page: Page, name: str, lang: str) -> None:
    """The link's settings in the URL and, where the page shows them, in the sidebar's widgets."""
    query = _query(page)
    for key, value in SETTINGS.items():
        assert query.get(key) == [value], (name, key, page.url)
    sidebar = page.locator("[data-testid='stSidebar']")
    seed = sidebar.locator("[data-testid='stNumberInput']").filter(
        has_text=t("sidebar.seed", lang=lang)
    )
    dropout = sidebar.locator("[data-testid='stSlider']").filter(
        has_text=t("sidebar.dropout", lang=lang)
    )
    sentence = sidebar.locator("[data-testid='stTextInput']").filter(
        has_text=t("sidebar.text", lang=lang)
    )
    widgets = [
        (seed.locator("input").first, SETTINGS["seed"]),
        (dropout.get_by_role("slider"), SETTINGS["dropout"]),
        (sentence.locator("input").first, SETTINGS["text"]),
    ]
    for widget, value in widgets:
        if name in SETTINGS_PAGES:
            expect(widget).to_be_attached()
        if widget.count():
            assert widget.input_value() == value, (name, lang, value)


def _switch_page(page: Page, name: str, lang: str) -> None:
    """Open page ``name`` of the registry (``ui.frame.PAGE_SPECS``) by its sidebar link: no
    exception, the page's own title in the language, the sidebar, its path, the settings kept."""
    title = t(f"page.{name}.title", lang=lang)
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=title, exact=True).click()
    wait_settled(page)
    assert_no_exception(page)
    expect(page.locator("[data-testid='stMain'] h1").first).to_have_text(title)
    sidebar = page.locator("[data-testid='stSidebar']")
    expect(sidebar).to_be_visible()
    expect(sidebar).to_contain_text(t("sidebar.lang", lang=lang))
    path = "/" if name == "step" else f"/{name}"
    assert urlparse(page.url).path.endswith(path), (name, page.url)
    _assert_sidebar_settings(page, name, lang)


def test_every_page_in_both_languages_keeps_the_settings(
    page: Page, streamlit_server: str, subtests: pytest.Subtests
) -> None:
    """(Opening a page by its URL is ``test_masking_and_multi_head``'s.)"""
    open_app(page, streamlit_server, "/?seed=7&dropout=0.5&text=the+cat+sat&lang=zh")
    sidebar = page.locator("[data-testid='stSidebar']")
    with subtests.test("Chinese from the link"):
        assert_no_exception(page)
        expect(sidebar).to_contain_text("语言")
        expect(sidebar).to_contain_text("随机种子")
        expect(sidebar).to_contain_text("注意力，一步一步")  # the navigation
        assert CJK.search(_h1(page)), _h1(page)
    with subtests.test("a page switch in Chinese"):
        _switch_page(page, "masking", "zh")
        assert _query(page).get("lang") == ["zh"], page.url

    with subtests.test("back to English"):
        choose(page, "语言", "English")
        assert_no_exception(page)
        expect(sidebar).to_contain_text("Language")
        expect(sidebar).to_contain_text("Seed (torch.manual_seed)")
        expect(sidebar).not_to_contain_text("随机种子")
        assert not CJK.search(_h1(page)), _h1(page)
        assert "lang" not in _query(page)
    for spec in PAGE_SPECS:
        with subtests.test(page=spec.name):
            _switch_page(page, spec.name, "en")
            assert "lang" not in _query(page), page.url
