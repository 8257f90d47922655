"""The app as a lesson, in a real browser: links to a step, nothing cut, what changed.

An edit marking the rows it changed: tests/e2e/test_step_by_step.py (one session of the editor).

Presenter mode (every screen at 1280×720, 1024×768 and 853×480, the clicker's keys, Esc) is
``test_presenter.py``'s.

Sizes: a projector (1280×720), the projector at 150 % zoom (853×480 CSS pixels) and a phone
(390×844); a laptop (1400×1000) where it adds proof. Streamlit's breakpoints (576, 640 and
768 px) and the app's own (640 px) are all below 1280, so at 1400 the layout is the same, only
wider, except where a row of columns holding a matrix wraps at 1280 (the one way a narrower
window gives a table more room: ``matrix_table.css``) and may not at 1400. So a step is
measured at 1400 exactly when a row wraps at 1280; elsewhere every column is wider at 1400.
"""

from __future__ import annotations

import re

import pytest

from attention.steps import STEPS, step_number
from tests.e2e.helpers import (
    assert_no_exception,
    open_app,
    read_matrix,
    step_choice,
    wait_settled,
)

pytest.importorskip("playwright")
from playwright.sync_api import Page, expect  # noqa: E402

LAPTOP = {"width": 1400, "height": 1000}
SIZES = {
    "projector": {"width": 1280, "height": 720},
    "projector_150": {"width": 853, "height": 480},
    "phone": {"width": 390, "height": 844},
}
APPEAR_MS = 60_000

# Every matrix table in the main area: is it inside the window, does it fit its box, and if it
# must scroll (a phone), is the "scroll sideways" hint shown?
_TABLE_FIT_JS = """
() => [...document.querySelectorAll('[data-testid="stMain"] div.al-matrix-scroll')]
  .filter((box) => box.offsetParent !== null)
  .map((box) => {
    const rect = box.getBoundingClientRect();
    const hint = box.parentElement.querySelector('.al-matrix-hint');
    const block = box.closest('[class*="st-key-matrix_"]');
    return {
      key: block ? (block.className.match(/st-key-matrix_(\\S+)/) || [])[1] : '?',
      left: rect.left, right: rect.right, width: window.innerWidth,
      scrolls: box.scrollWidth > box.clientWidth + 1,
      hint: !!hint && !hint.hidden && hint.textContent.length > 0,
      boxWidth: rect.width,
      tableWidth: box.scrollWidth,
    };
  })
"""

# Rows of columns holding a matrix table whose columns wrapped onto more than one line.
_WRAPPED_ROWS_JS = """
() => [...document.querySelectorAll('[data-testid="stMain"] [data-testid="stHorizontalBlock"]')]
  .filter((row) => row.offsetParent !== null && row.querySelector('table.al-matrix'))
  .filter((row) => new Set([...row.querySelectorAll(':scope > [data-testid="stColumn"]')]
    .map((column) => Math.round(column.getBoundingClientRect().top))).size > 1)
  .length
"""

# Resolves once the tables' boxes have kept the same place and widths for ``quiet`` ms: the
# columns take their tables' widths on the frames after a rerun or a resize.
_TABLES_STILL_JS = """
(quiet) => {
  const now = performance.now();
  const shape = JSON.stringify([...document.querySelectorAll(
    '[data-testid="stMain"] div.al-matrix-scroll')].map((box) => {
      const rect = box.getBoundingClientRect();
      return [rect.left, rect.width, box.scrollWidth];
    }));
  if (shape !== window.__attentionLabTableShape) {
    window.__attentionLabTableShape = shape;
    window.__attentionLabTableSince = now;
    return false;
  }
  return now - window.__attentionLabTableSince >= quiet;
}
"""


def _assert_tables_fit(page: Page, where: str, *, phone: bool) -> int:
    first_row = page.locator('[data-testid="stMain"] table.al-matrix tbody tr').first
    first_row.wait_for(state="visible", timeout=APPEAR_MS)
    page.evaluate("() => { window.__attentionLabTableShape = null; }")
    page.wait_for_function(_TABLES_STILL_JS, arg=150, timeout=APPEAR_MS, polling=50)
    tables = page.evaluate(_TABLE_FIT_JS)
    assert tables, f"{where}: no matrix table drawn"
    for table in tables:
        inside = table["left"] >= -1 and table["right"] <= table["width"] + 1
        assert inside, f"{where}: matrix {table['key']} reaches past the window: {table}"
        if phone:
            assert not table["scrolls"] or table["hint"], f"{where}: {table['key']} scrolls unsaid"
        else:
            assert not table["scrolls"], f"{where}: matrix {table['key']} is cut: {table}"
    return len(tables)


def _press_right(page: Page, expected: str) -> None:
    page.keyboard.press("ArrowRight")
    wait_settled(page)
    expect(page).to_have_url(re.compile(rf"step={expected}\b"), timeout=APPEAR_MS)


def test_the_arrow_keys_walk_every_step_and_no_matrix_is_cut_at_any_size(
    page: Page, streamlit_server: str, subtests: pytest.Subtests
) -> None:
    """Dropout 0.5 (the widest step): ←/→ walk the ten tabs through their reruns, and each step
    is measured at every size of ``SIZES`` (the window resized; the layout follows the width),
    in turn forwards and backwards, so a step starts at the size the last one ended at, and at
    the ``LAPTOP`` size where a row of columns wraps at the projector's.
    The walk starts from a link to the first step: its tab and heading open."""
    open_app(page, streamlit_server, f"/?dropout=0.5&step={STEPS[0].name}")
    first = page.get_by_role("heading", name=re.compile(rf"^Step {step_number(STEPS[0].name)} · "))
    expect(first).to_be_visible(timeout=APPEAR_MS)
    for index, step in enumerate(STEPS):
        tab = step_choice(page, re.compile(rf"^{step_number(step.name)} · "))
        expect(tab).to_have_attribute("aria-checked", "true", timeout=APPEAR_MS)
        sizes = list(SIZES) if index % 2 == 0 else list(reversed(SIZES))
        for size in sizes:
            with subtests.test(step=step.name, size=size):
                if page.viewport_size != SIZES[size]:
                    page.set_viewport_size(SIZES[size])
                tab.scroll_into_view_if_needed()
                _assert_tables_fit(page, f"step {step.name}, {size}", phone=size == "phone")
            if size == "projector" and page.evaluate(_WRAPPED_ROWS_JS) > 0:
                with subtests.test(step=step.name, size="laptop"):  # right after the projector
                    page.set_viewport_size(LAPTOP)
                    tab.scroll_into_view_if_needed()
                    _assert_tables_fit(page, f"step {step.name}, laptop", phone=False)
        if index + 1 < len(STEPS):
            _press_right(page, STEPS[index + 1].name)
    assert_no_exception(page)


def test_a_link_opens_its_step(page: Page, streamlit_server: str) -> None:
    """A split step (every name is read by the same code, which
    ``tests/test_lesson_step_page.py`` and ``tests/test_walk.py`` check without a browser; the
    first step's link starts the arrow keys' walk above, the last step's link starts
    ``test_step_by_step.py``'s slider test, a misspelt step is named in
    ``test_hostile_and_xss.py``'s bad link). The same link carries a dropout between the
    slider's steps: it is rounded, the note says so, and the address bar and the slider show
    the rounded value (the rounding itself: ``tests/test_frame_state.py``)."""
    name = "dropout"
    open_app(page, streamlit_server, f"/?step={name}&dropout=0.123456")
    tab = step_choice(page, re.compile(rf"^{step_number(name)} · "))
    expect(tab).to_have_attribute("aria-checked", "true", timeout=APPEAR_MS)
    heading = page.get_by_role("heading", name=re.compile(rf"^Step {step_number(name)} · "))
    expect(heading).to_be_visible()
    note = page.get_by_test_id("stAlert").filter(has_text="dropout=0.123456")
    expect(note).to_contain_text("was rounded to 0.12", timeout=APPEAR_MS)
    expect(page).to_have_url(re.compile(r"dropout=0\.12(&|$)"), timeout=APPEAR_MS)
    slider = page.get_by_test_id("stSlider").filter(has_text="Dropout rate p")
    expect(slider.get_by_role("slider")).to_have_value("0.12")  # an <input type=range>
    assert_no_exception(page)


def test_the_chapter_path_prints_the_books_numbers(page: Page, streamlit_server: str) -> None:
    open_app(page, streamlit_server, "/chapter_path")
    scores = read_matrix(page, "chapter_query_rows")
    assert scores.cells[0] == ["0.9544", "1.4950", "1.4754", "0.8434", "0.7070", "1.0865"]
    assert scores.cells[2] == ["0.1385", "0.2379", "0.2333", "0.1240", "0.1082", "0.1581"]
    assert read_matrix(page, "chapter_query_context").cells[0] == ["0.4419", "0.6515", "0.5683"]
    v1 = read_matrix(page, "chapter_selfattention_v1_context")
    assert v1.cells[1] == ["0.3061", "0.8210"]
    v2 = read_matrix(page, "chapter_selfattention_v2_context")
    assert v2.cells[0] == ["−0.0739", "0.0713"]
    masked = read_matrix(page, "chapter_masked_weights")
    assert masked.cells[1][:2] == ["0.5517", "0.4483"]
    expect(page.get_by_text("[0.4306, 1.4551]", exact=False)).to_be_visible()
    expect(page.locator("code").filter(has_text="register_buffer").first).to_be_attached()
    assert_no_exception(page)


def test_the_arrow_keys_walk_a_page_that_draws_its_own_tabs(
    page: Page, streamlit_server: str
) -> None:
    """Why √d_k draws its two views as ``st.tabs`` under its walk's key: → opens the second."""
    open_app(page, streamlit_server, "/why_sqrt_dk")
    tabs = page.get_by_test_id("stMain").get_by_role("tab")
    expect(tabs.nth(0)).to_have_attribute("aria-selected", "true", timeout=APPEAR_MS)
    page.keyboard.press("ArrowRight")
    expect(tabs.nth(1)).to_have_attribute("aria-selected", "true", timeout=APPEAR_MS)
    assert_no_exception(page)
