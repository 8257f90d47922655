"""A reader of the book, in a real browser: one click sets up the book's example, the page shows
the book's numbers, and the address then opens the same numbers in a fresh session."""

from __future__ import annotations

import re

import pytest

from tests.e2e.helpers import assert_no_exception, open_app, read_matrix, wait_settled

pytest.importorskip("playwright")
from playwright.sync_api import Page, expect  # noqa: E402

APPEAR_MS = 60_000
STARTS = ["0.3800", "0.3097", "0.3103"]  # the book's 3.5.1, row 3 ("starts")
NBSP = "\u00a0"  # the shape tables keep a shape on one line


def test_the_readers_path_to_the_books_examples(page: Page, streamlit_server: str) -> None:
    # Masking, at the sidebar's seed 123: not the book's rows, until one click
    open_app(page, streamlit_server, "/masking?step=method2")
    assert read_matrix(page, "masking_method2").cells[2][:3] != STARTS
    page.get_by_role("button", name="Set up the book's example (3.5.1)").click()
    wait_settled(page)
    assert read_matrix(page, "masking_method2").cells[2][:3] == STARTS
    expect(page.get_by_text(re.compile("same to its 4 decimals"))).to_be_visible()
    assert "seed=789" in page.url
    # the address opens it in a fresh session, the sidebar untouched
    open_app(page, streamlit_server, "/masking?" + page.url.split("?", 1)[1])
    assert read_matrix(page, "masking_method2").cells[2][:3] == STARTS
    assert_no_exception(page)

    # Multi-head: the book's batch of two, both classes' shapes and first rows
    open_app(page, streamlit_server, "/multi_head")
    page.get_by_role("button", name="Set up the book's example (3.6)").click()
    wait_settled(page)
    tables = page.locator("[data-testid='stTable']")
    for shape in ("(2, 6, 4)", "(2, 6, 2)"):
        expect(tables.filter(has_text=shape.replace(" ", NBSP)).first).to_be_visible(
            timeout=APPEAR_MS
        )
    expect(tables.filter(has_text="0.4772").first).to_contain_text("-0.4519")  # wrapper row 1
    expect(tables.filter(has_text="0.4858").first).to_contain_text("0.3190")  # fused row 1
    assert "heads=2" in page.url and "batch=2" in page.url
    assert_no_exception(page)
