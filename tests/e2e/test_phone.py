"""A phone (360×640, touch) in a real browser, in English and Chinese: every touch target is at
least 44 px, the sidebar opens at its top, the first edit of the table is kept, no heading breaks
inside a word, the step page's dropout presets are in the page; a laptop keeps its compact
controls and its sidebar's own presets only, and a projector's squeezed table corners stay in
their cells.

What is measured: every visible element a finger can press on every page and the open sidebar (buttons, links, inputs, tabs, check boxes and radio choices by
their label, a slider by its track, help icons), its box at least 44 × 44 px. Left out, as the
WCAG's target-size rule leaves them out: a link inside a sentence, and the "skip to content"
link that only a keyboard's Tab shows.
"""

from __future__ import annotations

import re
import time

import pytest

from tests.e2e.helpers import (
    CELL_EDITOR_SELECTOR,
    GRID_ROW_HEIGHT,
    assert_no_exception,
    open_app,
    wait_settled,
)
from ui.frame import PAGE_SPECS
from ui.i18n import t
from ui.matrix_table import TABLE_CLASS
from ui.phone import PHONE_CLASS

pytest.importorskip("playwright")
from playwright.sync_api import Browser, Page, expect  # noqa: E402

APPEAR_MS = 60_000
PHONE = {"width": 360, "height": 640}
TARGET_PX = 44
SIDEBAR_BUTTON = "[data-testid='stExpandSidebarButton']"
CLOSE_BUTTON = "[data-testid='stSidebarCollapseButton'] button"
SIDEBAR_SCROLLER = "[data-testid='stSidebarContent']"
PHONE_PRESETS = ".st-key-phone_dropout_presets"

# Every element a finger can press in `root` that is shown (not hidden, inside the window's
# width), as the box a finger meets: a check box's or radio choice's label, a slider's track.
_SMALL_TARGETS_JS = """
([root, least]) => {
  const scope = document.querySelector(root);
  const pressable = 'button, a[href], input:not([type="hidden"]), select, textarea, summary, '
    + '[role="button"], [role="tab"], [role="radio"], [role="checkbox"], [role="switch"], '
    + '[role="combobox"], [role="option"], [role="slider"]';
  const target = (e) => {
    if (e.matches('input[type="range"]')) return e.closest('[role="group"] > div');
    if (e.matches('input[type="checkbox"], input[type="radio"]')) return e.closest('label') || e;
    return e;
  };
  const inSentence = (e) => e.matches('a') && e.closest('[data-testid="stMarkdownContainer"] :is(p, li)');
  const small = [];
  for (const element of new Set([...scope.querySelectorAll(pressable)].map(target))) {
    if (!element || inSentence(element)) continue;
    if (element.closest('[data-testid="stSkipToContent"]')) continue;
    if (!element.checkVisibility({opacityProperty: true, visibilityProperty: true})) continue;
    const box = element.getBoundingClientRect();
    if (box.width === 0 || box.height === 0 || box.right <= 0 || box.left >= innerWidth) continue;
    if (Math.min(box.width, box.height) + 0.5 < least) {
      const name = element.getAttribute('aria-label') || element.innerText
        || element.getAttribute('data-testid') || element.tagName;
      small.push(`${name.trim().slice(0, 40)} (${Math.round(box.width)}×${Math.round(box.height)})`);
    }
  }
  return small;
}
"""

# Words of headings (runs of non-CJK letters; Chinese breaks between any two characters) drawn
# on more than one line: a word broken in its middle.
_BROKEN_WORDS_JS = """
() => {
  const broken = [];
  const headings = document.querySelectorAll(
    ':is([data-testid="stHeading"], [data-testid="stMarkdownContainer"]) :is(h1, h2, h3, h4, h5, h6)');
  for (const heading of headings) {
    if (heading.offsetParent === null) continue;
    const walker = document.createTreeWalker(heading, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const word = /[^\\s\\u2E80-\\u9FFF\\uF900-\\uFAFF\\uFF00-\\uFFEF]+/g;
      for (let match = word.exec(node.data); match; match = word.exec(node.data)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0)
          .map((r) => Math.round(r.top)));
        if (lines.size > 1) broken.push(match[0]);
      }
    }
  }
  return broken;
}
"""


# Matrix tables' corners whose text runs past their cell (into the first column's label).
_CORNERS_RUNNING_OVER_JS = """
(table) => [...document.querySelectorAll(`table.${table} thead th:first-child`)]
  .filter((corner) => corner.offsetParent !== null && corner.scrollWidth > corner.clientWidth + 1)
  .map((corner) => corner.textContent)
"""


def _small_targets(page: Page, root: str) -> list[str]:
    return page.evaluate(_SMALL_TARGETS_JS, [root, TARGET_PX])


def _settled_small_targets(page: Page, root: str, wait_s: float = 2.0) -> list[str]:
    """The small targets once an opening list has finished its animation: its parts grow from a
    few pixels, so a target still small after ``wait_s`` is small for good."""
    stop = time.monotonic() + wait_s
    while (small := _small_targets(page, root)) and time.monotonic() < stop:
        _settle_layout(page)
    return small


def _settle_layout(page: Page) -> None:
    """Two frames: phone.js fits the headings one frame after a rerun's last change."""
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")


def _check_page(page: Page, where: str) -> None:
    _settle_layout(page)
    assert _small_targets(page, "[data-testid='stMain']") == [], f"{where}: under 44 px"
    assert page.evaluate(_BROKEN_WORDS_JS) == [], f"{where}: a heading broken inside a word"
    assert page.evaluate(_CORNERS_RUNNING_OVER_JS, TABLE_CLASS) == [], f"{where}: a table's corner"
    assert_no_exception(page)


def _first_edit_is_kept(page: Page, base: str, lang: str) -> None:
    """The step page's first cell edit: tap x1 of "Your" (0.43), Enter, type 0.9, Enter: the
    table (and the link) has it. A tap's mouse events come after its touch events; when the grid
    had focused itself by then, their mousedown moved the focus to the page, and Enter and the
    number went nowhere (in some runs: the grid focuses itself at the touch's end or at its
    click). Here the grid has the focus before the tap, so each tap meets that case."""
    open_app(page, base, f"/?lang={lang}")
    # phone.js is a file the page imports once (ui/components): its listeners are in place
    page.wait_for_function(f"() => window[{PHONE_CLASS!r}] === true", timeout=APPEAR_MS)
    grid = page.get_by_test_id("stDataFrame").first
    grid.locator("canvas").first.wait_for(state="visible", timeout=APPEAR_MS)
    grid.scroll_into_view_if_needed()
    box = grid.bounding_box()
    assert box is not None
    # columns: row number, token, x1, x2, x3; row 1 is "Your" (0.43, 0.15, 0.89)
    row = box["y"] + GRID_ROW_HEIGHT * 1.5
    page.touchscreen.tap(box["x"] + box["width"] * 0.75, row)  # x2: the grid takes the focus
    page.wait_for_function("() => document.activeElement.tagName === 'CANVAS'")
    page.touchscreen.tap(box["x"] + box["width"] * 0.55, row)  # x1
    page.keyboard.press("Enter")
    cell = page.locator(CELL_EDITOR_SELECTOR)
    expect(cell).to_have_value("0.43")
    expect(cell).to_be_focused()  # what is typed next goes into the cell, not to the page
    page.keyboard.type("0.9")
    expect(cell).to_have_value("0.9")
    cell.press("Enter")
    wait_settled(page)
    expect(page).to_have_url(re.compile(r"emb=0\.9%2C0\.15%2C0\.89"), timeout=APPEAR_MS)


def _sidebar_opens_at_its_top(page: Page, where: str) -> None:
    """Open the sidebar, tap the dropout preset far down it, close it by tapping the page
    beside it, open it again: it shows its top, its close button on screen."""
    page.locator(SIDEBAR_BUTTON).tap()
    sidebar_preset = page.locator("[class*='st-key-dropout_preset'] button").last
    sidebar_preset.tap()
    wait_settled(page)
    assert page.locator(SIDEBAR_SCROLLER).evaluate("e => e.scrollTop") > PHONE["height"] / 2
    page.touchscreen.tap(PHONE["width"] - 10, PHONE["height"] / 2)  # beside the sidebar
    expect(page.locator(SIDEBAR_BUTTON)).to_be_visible(timeout=APPEAR_MS)
    page.locator(SIDEBAR_BUTTON).tap()
    close = page.locator(CLOSE_BUTTON)
    expect(close).to_be_in_viewport(timeout=APPEAR_MS)
    assert page.locator(SIDEBAR_SCROLLER).evaluate("e => e.scrollTop") == 0, where
    assert _small_targets(page, "[data-testid='stSidebar']") == [], f"{where}: sidebar"
    close.tap()
    expect(page.locator(SIDEBAR_BUTTON)).to_be_visible(timeout=APPEAR_MS)


def _phone_pages() -> list[tuple[str, str]]:
    """Find the bug, Embeddings and Multi-head in both languages (their pickers, the grid, the
    long class names in headings); the step page in Chinese (English: the test's start); every
    other page in one language, by turns."""
    both = ["/find_the_bug", "/embeddings", "/multi_head"]
    others = [f"/{spec.name}" for spec in PAGE_SPECS if spec.name != "step"]
    others = [path for path in others if path not in both]
    by_turns = [(path, ("en", "zh")[index % 2]) for index, path in enumerate(others)]
    return [("/", "zh"), *((path, lang) for path in both for lang in ("en", "zh")), *by_turns]


def test_a_phone_gets_44_px_targets_a_kept_first_edit_whole_words_and_presets_in_the_page(
    browser: Browser, page: Page, streamlit_server: str, subtests: pytest.Subtests
) -> None:
    """360×640 touch, every page, the two languages by turns (:func:`_phone_pages`); then the
    worker's laptop tab (1400×1000, a mouse)."""
    lang = "en"
    phone = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    try:
        touch = phone.new_page()
        with subtests.test("the step page", lang=lang):
            open_app(touch, streamlit_server, f"/?lang={lang}&dropout=0.1")
            presets = touch.locator(PHONE_PRESETS)
            expect(presets).to_be_visible()
            presets.get_by_role("radio", name="p = 0.5").tap()
            wait_settled(touch)
            expect(touch).to_have_url(re.compile(r"dropout=0\.5"))
            _check_page(touch, f"step page ({lang})")
        with subtests.test("the sidebar", lang=lang):
            _sidebar_opens_at_its_top(touch, f"step page ({lang})")
        with subtests.test("the first edit is kept", lang=lang):
            _first_edit_is_kept(touch, streamlit_server, lang)
        for path, page_lang in _phone_pages():
            with subtests.test(path, lang=page_lang):
                open_app(touch, streamlit_server, f"{path}?lang={page_lang}")
                _check_page(touch, f"{path} ({page_lang})")
        with subtests.test("the bug picker raises no keyboard", lang="zh"):
            open_app(touch, streamlit_server, "/find_the_bug?lang=zh")
            picker = touch.get_by_role("combobox", name=t("find_the_bug.choose", "zh"))
            expect(picker).to_have_attribute("inputmode", "none")
            picker.tap()
            expect(touch.get_by_role("option").first).to_be_visible()
            # the list's own rows (the page around it was measured above)
            rows = _settled_small_targets(touch, "[role='listbox']")
            assert rows == [], "the open bug list (zh)"
    finally:
        phone.close()

    with subtests.test("a laptop keeps its compact controls", lang=lang):
        page.set_viewport_size({"width": 1400, "height": 1000})
        open_app(page, streamlit_server, f"/?lang={lang}")
        box = page.locator("[data-testid='stNumberInputStepUp']").first.bounding_box()
        assert box is not None and box["height"] < TARGET_PX
        expect(page.locator(PHONE_PRESETS)).to_be_hidden()
    with subtests.test("an old projector: table corners stay in their cells", lang=lang):
        page.set_viewport_size({"width": 1024, "height": 768})  # presenting squeezes columns
        open_app(page, streamlit_server, f"/kv_cache?present=1&lang={lang}")
        page.locator(f"table.{TABLE_CLASS}").first.wait_for(timeout=APPEAR_MS)
        _settle_layout(page)
        assert page.evaluate(_CORNERS_RUNNING_OVER_JS, TABLE_CLASS) == []
