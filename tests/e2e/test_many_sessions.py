"""Several browser sessions at once against one server: each sees exactly its own numbers.

Streamlit serves every browser tab from a thread of one process, and the app caches traces in a
cache shared by all sessions. This test opens several sessions *at the same time* (all navigations
start before any is waited for), with different seeds, dropout rates and sentences, then changes
one session's slider while the others stay put, and reads each page's context table back: it
must equal ``trace_attention`` for *that* session's settings, never another's.
"""

from __future__ import annotations

from urllib.parse import urlencode

import torch
from playwright.sync_api import Page, expect

from attention import AttentionConfig, trace_attention
from attention.examples import BOOK_EMBEDDINGS, embed_words
from tests.e2e.helpers import APP_SELECTOR, assert_no_exception, wait_settled
from ui.table_state import random_words

APPEAR_MS = 60_000
# seed, dropout, sentence (None: the book's six tokens). Two sessions share the book's table and
# differ only in seed and dropout (a cache keyed on the table alone would show one the other's
# numbers); the third has its own sentence and length.
SESSIONS = [
    (1, 0.0, None),
    (2, 0.3, None),
    (123, 0.7, random_words(12)),
]


def _inputs(sentence: list[str] | None) -> torch.Tensor:
    return BOOK_EMBEDDINGS if sentence is None else embed_words(sentence)


def _expected(seed: int, dropout: float, sentence: list[str] | None) -> list[list[str]]:
    trace = trace_attention(_inputs(sentence), AttentionConfig(seed=seed, dropout=dropout))
    return [[f"{v:.4f}" for v in row] for row in trace.context[0].tolist()]


def _path(seed: int, dropout: float, sentence: list[str] | None) -> str:
    query = {"seed": str(seed), "dropout": str(dropout)}
    if sentence is not None:
        query["text"] = " ".join(sentence)
    return "/?" + urlencode(query)


def _context_rows(page: Page) -> list[list[str]]:
    table = page.get_by_test_id("stTable").first
    expect(table.locator("tbody tr").first).to_be_visible(timeout=APPEAR_MS)
    return [row.locator("td").all_inner_texts() for row in table.locator("tbody tr").all()]


def test_concurrent_sessions_each_show_their_own_numbers(page: Page, streamlit_server: str) -> None:
    # Tabs of one browser context: each opens its own websocket, so its own Streamlit session.
    others = [page.context.new_page() for _ in SESSIONS[1:]]
    try:
        pages = [page, *others]
        for tab, settings in zip(pages, SESSIONS, strict=True):  # all start before any waits
            tab.goto(streamlit_server + _path(*settings), wait_until="commit")
        for tab in pages:
            tab.wait_for_selector(APP_SELECTOR, state="attached", timeout=APPEAR_MS)
            wait_settled(tab, timeout=APPEAR_MS)
        expected = [_expected(*settings) for settings in SESSIONS]
        assert len({str(rows) for rows in expected}) == len(SESSIONS)  # all different
        for tab, rows in zip(pages, expected, strict=True):
            assert_no_exception(tab)
            assert _context_rows(tab) == rows

        # one session moves its dropout slider; the others are left exactly as they were
        first = pages[0]
        first.get_by_role("slider", name="Dropout rate").first.focus()
        for tab in others:  # reruns of the others, started at the same time
            tab.reload(wait_until="commit")
        first.keyboard.press("ArrowRight")
        for tab in pages:
            tab.wait_for_selector(APP_SELECTOR, state="attached", timeout=APPEAR_MS)
            wait_settled(tab, timeout=APPEAR_MS)
        seed, dropout, sentence = SESSIONS[0]
        assert _context_rows(first) == _expected(seed, round(dropout + 0.01, 2), sentence)
        for tab, rows in zip(others, expected[1:], strict=True):
            assert _context_rows(tab) == rows
    finally:
        for tab in others:
            tab.close()
