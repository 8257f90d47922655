"""Plain Playwright helpers for driving a Streamlit app (no pytest dependency)."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ui.i18n import t
from ui.matrix_table import TABLE_CLASS

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

APP_SELECTOR = "[data-testid='stApp']"
SETTLED_SELECTOR = "[data-testid='stApp'][data-test-script-state='notRunning']"
EXCEPTION_SELECTOR = "[data-testid='stException']"
SIDEBAR_SELECTOR = "[data-testid='stSidebar']"

# Resolves once the app has been 'notRunning', with no loading skeleton on the page,
# for `quiet` ms in a row. Any other state (initial, running, rerunRequested, ...)
# restarts the clock, so a rerun that starts shortly after an interaction is waited
# for, not raced.
_SETTLED_JS = """
(quiet) => {
  const el = document.querySelector("[data-testid='stApp']");
  const now = performance.now();
  const loading = document.querySelector("[data-testid='stSkeleton']");
  if (!el || loading || el.getAttribute("data-test-script-state") !== "notRunning") {
    window.__attentionLabSettledSince = null;
    return false;
  }
  if (window.__attentionLabSettledSince == null) {
    window.__attentionLabSettledSince = now;
  }
  return now - window.__attentionLabSettledSince >= quiet;
}
"""


def wait_settled(page: Page, timeout: float = 60000, *, quiet: float = 400) -> None:
    """Wait until the script run triggered by the last action has finished.

    Requires ``data-test-script-state='notRunning'`` to hold for ``quiet`` ms
    without interruption (a rerun starting in that window resets the clock),
    then returns. ``timeout`` is in ms, like Playwright's.
    """
    page.evaluate("() => { window.__attentionLabSettledSince = null; }")
    page.wait_for_function(_SETTLED_JS, arg=quiet, timeout=timeout, polling=50)


def open_app(
    page: Page, base_url: str, path_and_query: str = "/", *, timeout: float = 60000
) -> None:
    """Go to ``base_url + path_and_query`` and wait for the first run to finish."""
    if not path_and_query.startswith("/"):
        path_and_query = "/" + path_and_query
    page.goto(base_url.rstrip("/") + path_and_query, wait_until="domcontentloaded")
    page.wait_for_selector(APP_SELECTOR, state="attached", timeout=timeout)
    wait_settled(page, timeout=timeout)


def exception_texts(page: Page) -> list[str]:
    """Return the text of every Streamlit exception box on the page."""
    return page.locator(EXCEPTION_SELECTOR).all_inner_texts()


def assert_no_exception(page: Page) -> None:
    """Fail if the page shows any ``st.exception`` / uncaught-error box."""
    texts = exception_texts(page)
    if texts:
        joined = "\n---\n".join(texts)
        print(f"Streamlit exception(s) on {page.url}:\n{joined}")
        raise AssertionError(f"{len(texts)} Streamlit exception(s) on {page.url}:\n{joined}")


GRID_ROW_HEIGHT = 35  # px: the data editor's header row and every data row are 35 px high
CELL_EDITOR_SELECTOR = "textarea.gdg-input"


def click_first_row_last_cell(page: Page, *, appear_ms: float = 60_000) -> None:
    """Once the page has settled, click the last column of data row 1 of the page's first data
    editor (a canvas grid: a position, not an element), which selects that cell."""
    wait_settled(page)
    grid = page.get_by_test_id("stDataFrame").first
    grid.locator("canvas").first.wait_for(state="visible", timeout=appear_ms)
    grid.scroll_into_view_if_needed()
    box = grid.bounding_box()
    assert box is not None
    grid.click(position={"x": box["width"] - 25, "y": GRID_ROW_HEIGHT * 1.5})


def open_first_row_cell(
    page: Page, *, arrows_left: int = 0, attempts: int = 3, appear_ms: float = 60_000
) -> Locator:
    """Open the cell editor of the first data row of the page's first data editor (a canvas grid).

    Click the last column of row 1, press ArrowLeft ``arrows_left`` times, press Enter. The grid
    is drawn again by every rerun; a click that lands during a redraw opens nothing, so close
    and try again (``attempts`` times). Returns the editor's textarea.
    """
    cell = page.locator(CELL_EDITOR_SELECTOR)
    for _ in range(attempts):
        click_first_row_last_cell(page, appear_ms=appear_ms)
        for _ in range(arrows_left):
            page.keyboard.press("ArrowLeft")
        page.keyboard.press("Enter")
        try:
            cell.wait_for(state="visible", timeout=5000)
        except Exception:  # noqa: BLE001 - a Playwright timeout: click again
            page.keyboard.press("Escape")
            continue
        return cell
    raise AssertionError("the cell editor of row 1 did not open")


def eventually_equal(
    read: Callable[[], object], want: Callable[[], object], timeout_s: float = 60
) -> tuple[object, object]:
    """Poll until ``read() == want()`` (both re-evaluated each time); return the last pair.

    A page that is still settling (a late rerun) gets time; a page that stays wrong fails.
    """
    deadline = time.monotonic() + timeout_s
    while True:
        got, expected = read(), want()
        if got == expected or time.monotonic() > deadline:
            return got, expected
        time.sleep(0.5)


# --- matrices drawn as coloured tables (ui.show.show_matrix, viz.table_heatmap) ------------------

MATRIX_BLOCK_SELECTOR = "[class*='st-key-matrix_']"  # the one element of each matrix
_MATRIX_KEY = re.compile(r"(?:^|\s)st-key-matrix_(\S+)")

# What a person reads in a matrix table (the first table of its container, ui.matrix_table): the
# corner (axis names), the column and row labels, the cells' texts and their computed colours,
# the alt text, and every element inside a label or cell that Markdown/HTML would have created.
_READ_MATRIX_JS = """
(table) => {
  const text = (el) => el.innerText.trim();
  const head = [...table.querySelectorAll('thead th')];
  const rows = [...table.querySelectorAll('tbody tr')];
  const labels = [...head, ...rows.map(r => r.querySelector('th'))];
  return {
    corner: head.length ? text(head[0]) : '',
    columns: head.slice(1).map(text),
    rows: rows.map(r => text(r.querySelector('th'))),
    cells: rows.map(r => [...r.querySelectorAll('td')].map(text)),
    backgrounds: rows.map(r => [...r.querySelectorAll('td')]
      .map(td => getComputedStyle(td).backgroundColor)),
    alt: table.getAttribute('aria-label'),
    // the corner's axis titles are the table's own text-only spans (matrix_table.js, cornerCell)
    made: [...labels, ...table.querySelectorAll('td')].flatMap(cell =>
      [...cell.querySelectorAll('*')]
        .filter(el => !(cell === head[0] && el.matches('span[class$="-axis"]')
          && el.children.length === 0))
        .map(el => el.tagName.toLowerCase())),
  };
}
"""


@dataclass(frozen=True)
class ShownMatrix:
    """A matrix table as the browser shows it (texts with Unicode minus signs, ``rgb(…)`` colours)."""

    corner: str
    columns: list[str]
    rows: list[str]
    cells: list[list[str]]
    backgrounds: list[list[str]]
    alt: str | None
    made: list[str]  # tags of any element inside a label or cell (plain text: none)

    def numbers(self) -> list[list[str]]:
        """The cells with ASCII minus signs, as ``f"{v:.4f}"`` writes them."""
        return [[cell.replace("−", "-") for cell in row] for row in self.cells]


def matrix_tables_of(page: Page, key: str) -> Locator:
    """The tables of ``show_matrix(..., key=key)``'s element: the matrix, its legend."""
    return _element(page, key).locator(f"table.{TABLE_CLASS}")


def _element(page: Page, key: str) -> Locator:
    """The one component element that draws ``show_matrix(..., key=key)``."""
    return page.locator(f".st-key-matrix_{key.replace('__', '-')}")


def matrix_table(page: Page, key: str) -> Locator:
    """The matrix table of ``show_matrix(..., key=key)``."""
    return _element(page, key).locator(f"table.{TABLE_CLASS}:not(.{TABLE_CLASS}-legend)")


def matrix_legend(page: Page, key: str) -> Locator:
    """The legend row under the matrix (table or picture) of ``key``, in the same element."""
    return _element(page, key).locator(f"table.{TABLE_CLASS}-legend")


def read_table(page: Page, component_key: str, *, timeout: float = 60000) -> ShownMatrix:
    """Wait for the table that ``draw_table(..., key=component_key)`` draws, then read it."""
    element = f".st-key-{TABLE_CLASS}-{component_key.replace('__', '-')}"
    table = page.locator(element).locator(f"table.{TABLE_CLASS}:not(.{TABLE_CLASS}-legend)")
    table.locator("tbody tr").first.wait_for(state="visible", timeout=timeout)
    return ShownMatrix(**table.evaluate(_READ_MATRIX_JS))


def read_matrix(page: Page, key: str, *, timeout: float = 60000) -> ShownMatrix:
    """Wait for the matrix table of ``key`` to be drawn, then read it."""
    table = matrix_table(page, key)
    table.locator("tbody tr").first.wait_for(state="visible", timeout=timeout)
    return ShownMatrix(**table.evaluate(_READ_MATRIX_JS))


def shown_matrix_keys(page: Page) -> list[str]:
    """The keys of the matrix tables on the page that are visible, in page order."""
    keys = []
    blocks = page.locator(MATRIX_BLOCK_SELECTOR)
    for index in range(blocks.count()):
        block = blocks.nth(index)
        match = _MATRIX_KEY.search(block.get_attribute("class") or "")
        if match and block.is_visible():
            keys.append(match.group(1))
    return keys


def choose(page: Page, selectbox_label: str, option: str) -> None:
    """Pick ``option`` in the sidebar selectbox labelled ``selectbox_label``, then wait.

    The dropdown can close again if the click lands while the page is still laying out
    (charts resizing), so opening it is retried a few times. A first click right after a click
    in the main area often only focuses the box (its list stays closed, ``aria-expanded`` false)
    while an open list shows its options at once: so the first try waits one second, not three.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    box = page.locator(f"{SIDEBAR_SELECTOR} [data-testid='stSelectbox']").filter(
        has_text=selectbox_label
    )
    combobox = box.get_by_role("combobox")
    wanted = page.get_by_role("option", name=option, exact=True)
    for attempt in range(5):
        combobox.click()
        try:
            wanted.wait_for(state="visible", timeout=3_000 if attempt else 1_000)
            break
        except PlaywrightTimeoutError:
            page.keyboard.press("Escape")
    wanted.click()
    wait_settled(page)


def step_strip(page: Page) -> Locator:
    """The page's strip of steps (``ui.walk``: a radio group, one radio per step or screen)."""
    names = "|".join(re.escape(t("walk.strip_label", lang)) for lang in ("en", "zh"))
    return page.get_by_test_id("stMain").get_by_role("radiogroup", name=re.compile(f"^({names})$"))


def step_choice(page: Page, name: str | re.Pattern[str]) -> Locator:
    """The radio of the strip's step called ``name`` (its label, or a pattern of it)."""
    return step_strip(page).get_by_role("radio", name=name)
