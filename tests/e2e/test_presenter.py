"""Presenter mode as a deck, in a real browser: every screen fits the canvas with type read from
the back row, one counter over the deck, a clicker walks a link (and a lecture across pages) with
PageDown alone, the bar is on a screen whose settings cannot be computed and offers the fix, a
language switch keeps the screen; and a phone's ``step=`` link shows its tab first.

The deck lays a screen out on one logical canvas (``ui.step_link.CANVAS``) and scales it to the
window, so a screen that fits the canvas fits every window: each screen is measured once, on the
canvas; the scale is checked at each size. Sizes: an old projector (1024×768, scale 1), a
projector (1280×720) and 1280×720 at 150 % (853×480 CSS pixels); a phone (390×844).
"""

from __future__ import annotations

import math
import re
from urllib.parse import parse_qs, urlparse

import pytest

from tests.e2e.helpers import (
    SIDEBAR_SELECTOR,
    assert_no_exception,
    open_app,
    read_matrix,
    step_choice,
    wait_settled,
)
from ui.frame import PAGE_SPECS
from ui.i18n import t
from ui.step_link import CANVAS, STEP_PAGE, WALK_NAMES

pytest.importorskip("playwright")
from playwright.sync_api import Browser, Page, expect  # noqa: E402

APPEAR_MS = 60_000
SIZES = ((1024, 768), (1280, 720), (853, 480))  # an old projector, a projector, 1280×720 at 150 %
PROSE_PX = 20  # the least prose size at 1024×768 (the canvas at scale 1)
COUNTER = ".st-key-present_counter"

# Waits until the main area's layout has stopped moving (its height, its tables, charts and
# code blocks the same for 4 frames in a row).
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

# On the canvas (sizes in its own pixels, times the scale: what the room sees): its content's
# height, the smallest prose, table number and code, what is cut, and what is covered.
_MEASURE_JS = """
() => {
  const canvas = document.querySelector('[data-testid="stMainBlockContainer"]');
  const scale = canvas.getBoundingClientRect().width / canvas.offsetWidth;
  const shown = (e) => e.offsetParent !== null && !e.closest('.st-key-present_bar');
  const size = (e) => scale * parseFloat(getComputedStyle(e).fontSize);
  const least = (selector) => Math.min(...[...canvas.querySelectorAll(selector)].filter(shown)
    .map(size));
  const prose = [...canvas.querySelectorAll('[data-testid="stMarkdownContainer"] p')]
    .filter(shown);
  const boxes = [...canvas.querySelectorAll(
    '.katex-display, [data-testid="stCode"] pre, div.al-matrix-scroll')];
  const rect = canvas.getBoundingClientRect();
  return {
    scale, height: canvas.scrollHeight, canvas: __H__,
    inside: rect.left >= -1 && rect.top >= -1 && rect.right <= innerWidth + 1
      && rect.bottom <= innerHeight + 1 + (canvas.scrollHeight - __H__) * scale,
    prose: least('[data-testid="stMarkdownContainer"] p'),
    number: least('table.al-matrix td, [data-testid="stTable"] td'),
    code: least('[data-testid="stCode"] pre code'),
    cut: boxes.filter(shown).filter((e) => e.scrollWidth > e.clientWidth + 1
      || e.scrollHeight > e.clientHeight + 1).map((e) => e.textContent.slice(0, 40)),
    corners: [...canvas.querySelectorAll('table.al-matrix thead th:first-child')].filter(shown)
      .filter((e) => e.scrollWidth > e.clientWidth + 1).map((e) => e.textContent),
    covered: prose.filter((e) => {
      const box = e.closest('[data-testid="stElementContainer"]');
      return box && e.getBoundingClientRect().bottom > 1 + box.getBoundingClientRect().bottom;
    }).map((e) => e.textContent.slice(0, 40)),
  };
}
""".replace("__H__", str(CANVAS[1]))


def _walking_pages() -> list[tuple[str, str]]:
    """Every page that walks screens, from the walk registry, English and Chinese by turns."""
    for spec in PAGE_SPECS:
        spec.render()  # imports the page, whose ``Walk`` registers itself
    walks = [STEP_PAGE, *sorted(name for name in WALK_NAMES if name != STEP_PAGE)]
    return [(name, ("en", "zh")[index % 2]) for index, name in enumerate(walks)]


def _open_presenting(page: Page, server: str, query: str, path: str = "/") -> None:
    open_app(page, server, f"{path}?{query}&present=1")
    page.wait_for_selector(".al-step-keys-present", state="attached", timeout=APPEAR_MS)
    page.wait_for_function(  # the key listener is on the window and knows it is presenting
        "() => window.__alStepKeysInstalled && window.__alStepKeys?.mode === 'present'",
        timeout=APPEAR_MS,
    )


def _counter(page: Page) -> str:
    """ "Screen 7 of 17 · Softmax" (or "第 7 屏，共 17 屏 · …")."""
    return page.locator(COUNTER).first.inner_text()


def _press(page: Page, key: str, expected: str) -> None:
    page.keyboard.press(key)
    wait_settled(page)
    expect(page.locator(COUNTER).first).to_contain_text(expected, timeout=APPEAR_MS)


def _problems(shown: dict, where: str) -> list[str]:
    problems = []
    if shown["height"] > shown["canvas"]:
        problems.append(f"{where}: {shown['height']} px tall on a {shown['canvas']} px canvas")
    if shown["cut"]:
        problems.append(f"{where}: cut {shown['cut']}")
    if shown["corners"]:  # a table's corner label running into its first column's header
        problems.append(f"{where}: corner {shown['corners']}")
    if shown["covered"]:
        problems.append(f"{where}: covered {shown['covered']}")
    if not math.isfinite(shown["prose"]):  # a screen of a chart and numbers, without prose
        return problems
    if shown["prose"] < PROSE_PX - 0.01:
        problems.append(f"{where}: prose {shown['prose']:.1f} px < {PROSE_PX} px")
    if shown["number"] < shown["prose"] - 0.01:  # Infinity when the screen has no table
        problems.append(f"{where}: numbers {shown['number']} px < prose {shown['prose']} px")
    if shown["code"] < 0.9 * shown["prose"] - 0.01:
        problems.append(f"{where}: code {shown['code']} px < 0.9 × prose {shown['prose']} px")
    return problems


def _measured(page: Page, where: str) -> list[str]:
    page.evaluate(_LAID_OUT_JS)
    found = _problems(page.evaluate(_MEASURE_JS), where)
    if found:  # a component's new height can arrive after 4 still frames on a busy machine
        page.wait_for_timeout(1500)
        page.evaluate(_LAID_OUT_JS)
        found = _problems(page.evaluate(_MEASURE_JS), where)
    return found


@pytest.mark.parametrize(("walk", "lang"), _walking_pages())
def test_every_screen_of_every_walk_fits_the_canvas_with_type_the_back_row_reads(
    page: Page, streamlit_server: str, walk: str, lang: str
) -> None:
    """Dropout 0.5, a clicker's PageDown from a freshly opened link, screen by screen, at
    1024×768 (the canvas at scale 1): each screen fits, prose ≥ 20 px, numbers ≥ prose, code ≥
    0.9 × prose; the counter counts every screen of the deck once. Then the last screen at
    1280×720 and 853×480: the canvas scaled inside the window."""
    path = "/" if walk == STEP_PAGE else f"/{walk}"
    page.set_viewport_size({"width": SIZES[0][0], "height": SIZES[0][1]})
    _open_presenting(page, streamlit_server, f"dropout=0.5&lang={lang}", path)
    problems: list[str] = []
    counters: list[str] = []
    steps = {WALK_NAMES[walk][0]}
    while True:
        counters.append(_counter(page))
        steps.add(parse_qs(urlparse(page.url).query).get("step", [WALK_NAMES[walk][0]])[0])
        problems += _measured(page, f"{walk} ({lang}) {counters[-1]}")
        if page.locator(".st-key-present_next button:visible").first.is_disabled():
            break
        page.keyboard.press("PageDown")
        wait_settled(page, quiet=200)
        expect(page.locator(COUNTER).first).not_to_have_text(counters[-1])
    for width, height in SIZES[1:]:
        page.set_viewport_size({"width": width, "height": height})
        page.evaluate(_LAID_OUT_JS)
        shown = page.evaluate(_MEASURE_JS)
        expected = min(width / CANVAS[0], height / CANVAS[1])
        assert abs(shown["scale"] - expected) < 0.01 and shown["inside"], (width, shown)
    assert not problems, "\n".join(problems)
    numbers = [int(re.search(r"\d+", counter).group()) for counter in counters]
    totals = {re.findall(r"\d+", counter)[1] for counter in counters}
    assert numbers == list(range(1, len(counters) + 1)) and totals == {str(len(counters))}
    assert steps == set(WALK_NAMES[walk])
    assert_no_exception(page)


def test_a_clicker_walks_a_fresh_link_and_space_never_presses_next_twice(
    page: Page, streamlit_server: str
) -> None:
    _open_presenting(page, streamlit_server, "step=weights")
    expect(page.locator(SIDEBAR_SELECTOR)).to_be_hidden()
    assert _counter(page) == "Screen 2 of 15 · Weights"
    _press(page, " ", "Screen 3 of 15")  # nothing clicked or focused yet
    page.locator(".st-key-present_next button:visible").click()
    wait_settled(page)
    _press(page, " ", "Screen 5 of 15 · Q, K, V")  # one step: the click left no focus on Next
    _press(page, "Shift+Space", "Screen 4 of 15")
    _press(page, "PageUp", "Screen 3 of 15")
    _press(page, "End", "Screen 15 of 15")
    _press(page, "Home", "Screen 1 of 15")
    _press(page, "ArrowRight", "Screen 2 of 15")
    page.locator(".st-key-present_strip input").first.focus()  # Esc leaves from a field too
    page.keyboard.press("Escape")
    wait_settled(page)
    expect(step_choice(page, "2 · Weights")).to_have_attribute(
        "aria-checked", "true", timeout=APPEAR_MS
    )
    assert "present=1" not in page.url and "step=weights" in page.url
    assert_no_exception(page)


def test_the_strip_and_the_language_change_the_screen_not_the_place(
    page: Page, streamlit_server: str
) -> None:
    _open_presenting(page, streamlit_server, "step=dropout")
    expect(page.get_by_text("Press 0.5 beside “p =” above")).to_be_visible(timeout=APPEAR_MS)
    strip = page.locator(".st-key-present_strip")
    strip.get_by_role("button", name="0.5", exact=True).click()
    wait_settled(page)
    read_matrix(page, "step_fig_dropout_attn_weights")  # dropout's first screen: the weights
    _press(page, "PageDown", "Screen 15 of 17")  # the coin flips
    keep = read_matrix(page, "step_fig_dropout_mask")
    assert {cell for row in keep.cells for cell in row} >= {"✓", "✗"}
    _press(page, "PageDown", "Screen 16 of 17")  # the result
    before = read_matrix(page, "step_fig_dropped_weights").cells
    seed = strip.locator("input").first
    seed.fill("124")
    seed.press("Enter")
    wait_settled(page)
    expect(page.locator(COUNTER).first).to_contain_text("Screen 16 of 17")
    after = read_matrix(page, "step_fig_dropped_weights").cells
    assert after != before
    assert "seed=124" in page.url and "dropout=0.5" in page.url
    strip.get_by_role("button", name="中文").click()
    wait_settled(page)
    expect(page.locator(COUNTER).first).to_contain_text("第 16 屏，共 17 屏", timeout=APPEAR_MS)
    assert read_matrix(page, "step_fig_dropped_weights").cells == after
    assert "lang=zh" in page.url and "step=dropout" in page.url and "present=1" in page.url
    assert_no_exception(page)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_screen_that_cannot_be_computed_keeps_the_bar_and_its_fix_works(
    page: Page, streamlit_server: str, lang: str
) -> None:
    """Multi-head's 4 heads brought to the KV cache at d_out 2: the reason, the bar (which says
    the strip's dropout does not change this page), the fix."""
    page.set_viewport_size({"width": 1024, "height": 768})
    _open_presenting(page, streamlit_server, f"heads=4&d_out=2&lang={lang}", "/kv_cache")
    expect(page.locator("[data-testid='stAlertContentError']")).to_contain_text("d_out = 2")
    expect(page.locator(".st-key-present_leave button:visible")).to_be_visible()
    # the strip's dropout and train / eval do not reach the cache: the bar says so
    expect(page.get_by_text(t("present.ignores.dropout_train", lang))).to_be_visible()
    page.locator(".st-key-fix_heads_2 button:visible").click()
    wait_settled(page)
    expect(page.locator("[data-testid='stAlertContentError']")).to_have_count(0)
    expect(page.locator("table.al-matrix").first).to_be_visible(timeout=APPEAR_MS)
    assert "heads=2" in page.url and "present=1" in page.url
    page.keyboard.press("Escape")
    wait_settled(page)
    assert "present=1" not in page.url
    assert_no_exception(page)


def test_a_lecture_link_replays_its_screens_across_pages_with_pagedown_alone(
    page: Page, streamlit_server: str
) -> None:
    lecture = "chapter_path.v1,step.softmax,step.dropout,multi_head.difference,kv_cache.slice"
    page.set_viewport_size({"width": 1280, "height": 720})
    _open_presenting(page, streamlit_server, f"lecture={lecture}&dropout=0.5", "/chapter_path")
    seen = [(urlparse(page.url).path, _counter(page))]
    while not page.locator(".st-key-present_next button:visible").first.is_disabled():
        page.keyboard.press("PageDown")
        wait_settled(page, quiet=300)
        expect(page.locator(COUNTER).first).not_to_have_text(seen[-1][1], timeout=APPEAR_MS)
        seen.append((urlparse(page.url).path, _counter(page)))
    # one counter over the 5 items, a dense entry's screens lettered in order, each on its page
    places = [re.search(r"Screen (\d+)([a-z]?) of 5", counter).groups() for _, counter in seen]
    assert [int(number) for number, _ in places] == sorted(int(n) for n, _ in places), seen
    assert {int(number) for number, _ in places} == {1, 2, 3, 4, 5}, seen
    for item in "12345":
        letters = [letter for number, letter in places if number == item]
        assert letters in ([""], list("abcdefgh"[: len(letters)])), (item, seen)
    wanted = {"1": "/chapter_path", "2": "/", "3": "/", "4": "/multi_head", "5": "/kv_cache"}
    assert [path for path, _ in seen] == [wanted[number] for number, _ in places], seen
    assert len([1 for number, _ in places if number == "3"]) == 3, "dropout at p = 0.5: 3"
    assert f"lecture={lecture}".replace(",", "%2C") in page.url or lecture in page.url
    assert_no_exception(page)


# Buttons in the main area drawn cut: outside the window, or their text shortened ("Presen…").
_CUT_BUTTONS_JS = """
() => [...document.querySelectorAll('[data-testid="stMain"] button')]
  .filter((b) => b.offsetParent !== null).filter((b) => {
    const r = b.getBoundingClientRect();
    const text = b.querySelector('p');
    return r.left < 0 || r.right > innerWidth + 1 || (text && text.scrollWidth > text.clientWidth + 1);
  }).map((b) => b.innerText.slice(0, 40))
"""


def test_every_page_can_be_presented_from_a_whole_button_at_1024(
    page: Page, streamlit_server: str, subtests: pytest.Subtests
) -> None:
    """At 1024×768 every teaching page has its Present button, and no button of the page is
    cut; a page without screens of its own keeps ``present=1`` and shows itself as one screen
    with the bar (the teaching pages' ``present=1``: the walks above). The languages alternate
    page by page (the button is one component: each language meets it on half the pages)."""
    page.set_viewport_size({"width": 1024, "height": 768})
    for index, spec in enumerate(PAGE_SPECS):
        lang = ("en", "zh")[index % 2]
        path = "/" if spec.name == STEP_PAGE else f"/{spec.name}"
        with subtests.test(spec.name, lang=lang):
            if spec.teaches:
                open_app(page, streamlit_server, f"{path}?lang={lang}")
                expect(page.locator(".st-key-present_enter button:visible")).to_be_visible(
                    timeout=APPEAR_MS
                )
                assert page.evaluate(_CUT_BUTTONS_JS) == [], (spec.name, lang)
            else:
                open_app(page, streamlit_server, f"{path}?present=1&lang={lang}")
                expect(page.locator(".st-key-present_leave button:visible")).to_be_visible()
                assert re.search(r"\b1\b.*\b1\b", _counter(page)), _counter(page)
                assert "present=1" in page.url
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
        tab = step_choice(touch, re.compile(r"^10 · "))
        expect(tab).to_have_attribute("aria-checked", "true", timeout=APPEAR_MS)
        touch.wait_for_function(
            """() => { const t = document.querySelector(
              '[role="radiogroup"][aria-label="Steps"] [role="radio"][aria-checked="true"]');
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
