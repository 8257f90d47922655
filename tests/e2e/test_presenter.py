"""Presenter mode on a projector, in a real browser: every screen fits, numbers read from the back
row, a clicker walks it from a freshly opened link, the strip changes the numbers; and a phone's
``step=`` link shows its tab on the first screen.

Sizes: a projector (1280×720), an old one (1024×768) and 1280×720 at 150 % zoom (853×480 CSS
pixels); a phone (390×844). One server for the whole session (``streamlit_server``).
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

import pytest

from tests.e2e.helpers import (
    SIDEBAR_SELECTOR,
    assert_no_exception,
    open_app,
    read_matrix,
    wait_settled,
)
from ui.frame import PAGE_SPECS
from ui.step_link import STEP_PAGE, WALK_NAMES

pytest.importorskip("playwright")
from playwright.sync_api import Browser, Page, expect  # noqa: E402

APPEAR_MS = 60_000
STEP_SCREENS = 16  # the step page, dropout on: 10 steps; 2 and 3 in 3 parts, 5 and 9 in 2
SIZES = ((1280, 720), (1024, 768), (853, 480))  # a projector, an old one, 1280×720 at 150 %

# Waits until the main area's layout has stopped moving (its height, its tables, charts and
# code blocks the same for 4 frames in a row): a new window size moves columns, fits formulas
# and redraws charts over a frame or two.
_LAID_OUT_JS = """
async () => {
  const main = document.querySelector('[data-testid="stMain"]');
  const shape = () => [main.scrollHeight, main.scrollWidth,
    main.querySelectorAll('table.al-matrix td, svg, [data-testid="stCode"], .katex').length]
    .join();
  let last = '', same = 0;
  for (let frame = 0; frame < 120 && same < 4; frame += 1) {
    await new Promise((done) => requestAnimationFrame(done));
    const now = shape();
    same = now === last ? same + 1 : 0;
    last = now;
  }
}
"""

# The main scrolling container's heights, the largest prose and the smallest table number in it,
# every formula, code block or matrix table that is cut (its content wider or taller than its
# box), and every paragraph the block below it covers.
_MEASURE_JS = """
() => {
  const main = document.querySelector('[data-testid="stMain"]');
  const shown = (e) => e.offsetParent !== null && !e.closest('.st-key-present_bar');
  const size = (e) => parseFloat(getComputedStyle(e).fontSize);
  const prose = [...main.querySelectorAll('[data-testid="stMarkdownContainer"] p')].filter(shown);
  const numbers = [...main.querySelectorAll('table.al-matrix td, [data-testid="stTable"] td')]
    .filter(shown);
  const boxes = [...main.querySelectorAll(
    '.katex-display, [data-testid="stCode"] pre, div.al-matrix-scroll')];
  return {
    scroll: main.scrollHeight, height: main.clientHeight,
    prose: Math.max(...prose.map(size)), number: Math.min(...numbers.map(size)),
    numbers: numbers.length,
    cut: boxes.filter(shown).filter((e) => e.scrollWidth > e.clientWidth + 1
      || e.scrollHeight > e.clientHeight + 1).map((e) => e.textContent.slice(0, 40)),
    // a Markdown box whose text runs past its element's box: the next block covers it
    covered: prose.filter((e) => {
      const box = e.closest('[data-testid="stElementContainer"]');
      return box && e.getBoundingClientRect().bottom > 1 + box.getBoundingClientRect().bottom;
    }).map((e) => e.textContent.slice(0, 40)),
  };
}
"""


def _walking_pages() -> list[tuple[str, str]]:
    """Every page that walks steps, from the walk registry (each page registers its walk when
    its module is imported), with the language it is walked in: English and Chinese by turns,
    the step page first, in English."""
    for spec in PAGE_SPECS:
        spec.render()  # imports the page, whose ``Walk`` registers itself
    others = sorted(name for name in WALK_NAMES if name != STEP_PAGE)
    walks = [STEP_PAGE, *others]
    return [(name, ("en", "zh")[index % 2]) for index, name in enumerate(walks)]


def _open_presenting(page: Page, server: str, query: str, path: str = "/") -> None:
    open_app(page, server, f"{path}?{query}&present=1")
    page.wait_for_selector(".al-step-keys-present", state="attached", timeout=APPEAR_MS)
    page.wait_for_function(  # the key listener is on the window and knows it is presenting
        "() => window.__alStepKeysInstalled && window.__alStepKeys?.mode === 'present'",
        timeout=APPEAR_MS,
    )


def _screen(page: Page) -> str:
    """The open screen's number ("2a"), the bold word of the bar in either language."""
    return page.locator(".st-key-present_bar strong").first.inner_text()


def _click(page: Page, key: str) -> None:
    """Click the button keyed ``key`` once the rerun has left one of it shown (no stale copy)."""
    button = page.locator(f".st-key-{key} button:visible")
    expect(button).to_have_count(1, timeout=APPEAR_MS)
    button.click()
    wait_settled(page)


def _press(page: Page, key: str, expected: str) -> None:
    page.keyboard.press(key)
    wait_settled(page)
    expect(page.locator(".st-key-present_bar strong").first).to_have_text(expected)


def _problems(shown: dict, where: str) -> list[str]:
    problems = []
    if shown["scroll"] > shown["height"]:
        problems.append(f"{where} scrolls: {shown['scroll']} > {shown['height']} px")
    if shown["cut"]:
        problems.append(f"{where}: cut {shown['cut']}")
    if shown["covered"]:
        problems.append(f"{where}: covered {shown['covered']}")
    if shown["numbers"] and shown["number"] < shown["prose"]:
        problems.append(f"{where}: numbers {shown['number']} px < prose {shown['prose']} px")
    return problems


@pytest.mark.parametrize(("walk", "lang"), _walking_pages())
def test_every_screen_of_every_walk_fits_and_its_numbers_are_as_large_as_its_prose(
    page: Page, streamlit_server: str, walk: str, lang: str
) -> None:
    """Dropout 0.5, a clicker's PageDown from a freshly opened link, screen by screen; each
    screen measured at the three sizes (the window resized, the page laid out again: no rerun;
    one of the three is the size the screen was drawn at).

    Every page of the walk registry, each step of it seen (its name in the link).
    """
    path = "/" if walk == STEP_PAGE else f"/{walk}"
    size = SIZES[0]
    page.set_viewport_size({"width": size[0], "height": size[1]})  # opened at the first size
    _open_presenting(page, streamlit_server, f"dropout=0.5&lang={lang}", path)
    problems: list[str] = []
    screens: list[str] = []
    steps = {WALK_NAMES[walk][0]}
    while True:
        screens.append(_screen(page))
        steps.add(parse_qs(urlparse(page.url).query).get("step", [WALK_NAMES[walk][0]])[0])
        # The sizes there and back by turns: a screen starts at the size the last one ended
        # at (the new screen drawn at that size), so the window moves twice a screen, not three
        # times; every screen is still measured at all three.
        order = SIZES if len(screens) % 2 else SIZES[::-1]
        for width, height in order:
            if (width, height) != size:
                size = (width, height)
                page.set_viewport_size({"width": width, "height": height})
            page.evaluate(_LAID_OUT_JS)
            where = f"{walk} ({lang}) {width}×{height} screen {screens[-1]}"
            found = _problems(page.evaluate(_MEASURE_JS), where)
            if found:  # a component's new height can arrive after 4 still frames on a busy
                page.wait_for_timeout(1500)  # machine: a real overflow is still there after
                page.evaluate(_LAID_OUT_JS)
                found = _problems(page.evaluate(_MEASURE_JS), where)
            problems += found
        if page.locator(".st-key-present_next button").first.is_disabled():
            break
        page.keyboard.press("PageDown")
        wait_settled(page, quiet=200)
        expect(page.locator(".st-key-present_bar strong").first).not_to_have_text(screens[-1])
    assert not problems, "\n".join(problems)
    assert steps == set(WALK_NAMES[walk]) and len(set(screens)) == len(screens), screens
    if walk == STEP_PAGE:
        assert len(screens) == STEP_SCREENS and screens[-1] == "10"
    assert_no_exception(page)


def test_a_clicker_walks_a_fresh_link_and_space_never_presses_next_twice(
    page: Page, streamlit_server: str
) -> None:
    _open_presenting(page, streamlit_server, "step=weights")
    expect(page.locator(SIDEBAR_SELECTOR)).to_be_hidden()
    assert _screen(page) == "2a"
    _press(page, " ", "2b")  # nothing clicked or focused yet
    _click(page, "present_next")
    expect(page.locator(".st-key-present_bar")).to_contain_text("Step 2c of")
    _press(page, " ", "3a")  # one step: the click left no focus on Next
    _press(page, "Shift+Space", "2c")
    _press(page, "PageUp", "2b")
    _press(page, "End", "10")
    _press(page, "Home", "1")
    _press(page, "ArrowRight", "2a")
    page.keyboard.press("Escape")
    wait_settled(page)
    expect(page.get_by_role("tab", name="2 · Weights")).to_have_attribute(
        "aria-selected", "true", timeout=APPEAR_MS
    )
    assert "present=1" not in page.url and "step=weights" in page.url
    assert_no_exception(page)


def test_the_strips_seed_and_p_change_the_numbers(page: Page, streamlit_server: str) -> None:
    _open_presenting(page, streamlit_server, "step=dropout")
    expect(page.get_by_text("Press 0.5 beside “p =” above")).to_be_visible(timeout=APPEAR_MS)
    strip = page.locator(".st-key-present_strip")
    strip.get_by_role("button", name="0.5", exact=True).click()
    wait_settled(page)
    keep = read_matrix(page, "step_fig_dropout_mask")
    assert {cell for row in keep.cells for cell in row} >= {"✓", "✗"}
    _press(page, "PageDown", "9b")
    before = read_matrix(page, "step_fig_dropped_weights").cells
    _click(page, "present_seed_up")
    expect(page.locator(".st-key-present_strip")).to_contain_text("seed 124")
    after = read_matrix(page, "step_fig_dropped_weights").cells
    assert after != before
    assert "seed=124" in page.url and "dropout=0.5" in page.url
    assert_no_exception(page)


def test_a_phone_shows_a_step_links_tab_first_and_closes_the_sidebar_after_a_link(
    browser: Browser, page: Page, streamlit_server: str
) -> None:
    """A phone (390×844, touch) opens a ``step=`` link with its tab on the first screen, and
    tapping a page link in the open sidebar (it covers most of a phone) closes it on the new
    page. A laptop (the worker's tab at 1400×1000, a mouse) keeps its open sidebar. (A phone's
    44 px targets: tests/e2e/test_phone.py.)"""
    phone = browser.new_context(
        viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True
    )
    try:
        touch = phone.new_page()
        open_app(touch, streamlit_server, "/?step=context")
        tab = touch.get_by_role("tab", name=re.compile(r"^10 · "))
        expect(tab).to_have_attribute("aria-selected", "true", timeout=APPEAR_MS)
        touch.wait_for_function(
            """() => { const t = document.querySelector('[role="tab"][aria-selected="true"]');
              const r = t.getBoundingClientRect();
              return r.top >= 0 && r.bottom <= innerHeight && r.left >= 0
                && r.right <= innerWidth; }""",
            timeout=APPEAR_MS,
        )
        assert_no_exception(touch)
        touch.locator("[data-testid='stExpandSidebarButton']").click()
        touch.locator("[data-testid='stSidebarNavLink']", has_text="Embeddings").tap()
        touch.wait_for_url(re.compile(r"/embeddings"))
        expect(touch.locator("[data-testid='stExpandSidebarButton']")).to_be_visible(
            timeout=APPEAR_MS
        )
    finally:
        phone.close()

    page.set_viewport_size({"width": 1400, "height": 1000})
    open_app(page, streamlit_server, "/")
    page.locator("[data-testid='stSidebarNavLink']", has_text="Embeddings").click()
    page.wait_for_url(re.compile(r"/embeddings"))
    wait_settled(page)
    expect(page.locator("[data-testid='stSidebarCollapseButton']")).to_be_attached()
