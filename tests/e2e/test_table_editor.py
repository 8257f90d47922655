"""The embedding editor in a real browser: a cell edit keeps the grid, both pages show the draft.

The grid is a canvas drawn by the browser; a new widget key would make it throw the grid away and
mount a new one. The test marks the grid's DOM node and checks that the same node is still there
after each edit, while the context vectors (computed here with ``trace_attention``) follow.
"""

from __future__ import annotations

from playwright.sync_api import Page, expect

from attention import AttentionConfig
from attention.examples import BOOK_EMBEDDINGS
from tests.e2e.helpers import assert_no_exception, eventually_equal, open_app, wait_settled
from tests.e2e.test_step_by_step import (
    APPEAR_MS,
    SEED_DOCUMENT_CONTEXT,
    context_numbers,
    expected_context,
    type_into_first_x1,
)
from ui.i18n import t

GRID = "[data-testid='stMain'] [data-testid='stDataFrame']"
MARK_GRID = f'() => {{ document.querySelector("{GRID}").__editorMark = true; }}'
SAME_GRID = f'() => document.querySelector("{GRID}").__editorMark === true'


def _context_with_x1(value: float) -> list[list[str]]:
    inputs = BOOK_EMBEDDINGS.clone()  # (6, 3)
    inputs[0, 0] = value
    return expected_context(inputs, AttentionConfig())


def _go_to(page: Page, title: str) -> None:
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=title).click()
    wait_settled(page)
    expect(page.get_by_role("heading", name=title).first).to_be_visible(timeout=APPEAR_MS)


def test_cell_edits_keep_the_grid_and_the_other_page_shows_the_draft(
    page: Page, streamlit_server: str
) -> None:
    open_app(page, streamlit_server, "/")
    assert context_numbers(page) == SEED_DOCUMENT_CONTEXT
    page.locator(GRID).locator("canvas").first.wait_for(state="visible", timeout=APPEAR_MS)
    page.evaluate(MARK_GRID)

    for before, typed in (("0.43", "0.9"), ("0.9", "0.8")):  # the grid shows the first edit
        type_into_first_x1(page, typed, before=before)
        got, want = eventually_equal(
            lambda: context_numbers(page), lambda typed=typed: _context_with_x1(float(typed))
        )
        assert got == want
        assert page.evaluate(SAME_GRID), "the edit mounted a new grid"
    assert_no_exception(page)

    # the Embeddings page's editor starts from the draft; its edit reaches the step page
    _go_to(page, t("page.embeddings.title", "en"))
    type_into_first_x1(page, "0.7", before="0.8")
    _go_to(page, t("page.step.title", "en"))
    got, want = eventually_equal(lambda: context_numbers(page), lambda: _context_with_x1(0.7))
    assert got == want
    type_into_first_x1(page, "0.6", before="0.7")  # the step page's grid shows it too
    got, want = eventually_equal(lambda: context_numbers(page), lambda: _context_with_x1(0.6))
    assert got == want
    assert_no_exception(page)
