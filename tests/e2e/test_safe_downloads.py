"""What the app hands out, downloaded in a real browser: safe CSV files and scripts that run alone.

- The Embeddings CSV of a table with tokens a spreadsheet would run (``=HYPERLINK(…)``,
  ``+SUM(A1)``, ``@cmd``) has them neutralised, and uploads back as the same table.
- Streamlit's own "Download as CSV" of tables (which writes cells as they are) is switched off.
- The Export page's script download follows the chosen style; the book-style file runs with
  ``python -I`` in an empty folder outside the repository and prints the app's context vectors.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

import pytest
import torch
from playwright.sync_api import expect

from attention import AttentionConfig, trace_attention
from attention.examples import BOOK_EMBEDDINGS, BOOK_TOKENS
from attention.export import PACKAGE_INSTALL, SNIPPET_FILE_NAMES, reproduce_snippet
from tests.e2e.helpers import assert_no_exception, open_app, wait_settled
from tests.isolated_script import printed_context, run_isolated
from ui.chart import CHART_CLASS
from ui.i18n import t
from ui.table_state import table_for_words

if TYPE_CHECKING:
    from playwright.sync_api import Page

WAIT_MS = 60_000
HOSTILE_TOKENS = ['=HYPERLINK("http://example.com","click")', "+SUM(A1)", "@cmd", "-2+3", "cat"]
SIDEBAR_SENTENCE = "[data-testid='stSidebar'] [data-testid='stTextInput'] input"


def download(page: Page, label: str, folder: Path) -> Path:
    """Click the download button labelled ``label``; return the saved file."""
    with page.expect_download() as download_info:
        page.get_by_role("button", name=label).click()
    saved = download_info.value
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / saved.suggested_filename
    saved.save_as(path)
    return path


def test_embeddings_csv_neutralises_formulas_and_uploads_back_and_tables_offer_no_other_csv(
    page: Page, frame_loaded: str, tmp_path: Path, subtests: pytest.Subtests
) -> None:
    """One visit of Embeddings with hostile tokens: the table's toolbar offers no unguarded CSV,
    the page's CSV guards the tokens and uploads back as the same table."""
    open_app(page, frame_loaded, "/embeddings?text=" + quote(" ".join(HOSTILE_TOKENS)))
    points = page.locator(f"svg.{CHART_CLASS} circle")  # the page's plot: drawn, run over
    expect(points).to_have_count(len(HOSTILE_TOKENS), timeout=WAIT_MS)
    assert_no_exception(page)
    with subtests.test("tables offer no unguarded CSV export"):
        grid = page.locator("[data-testid='stDataFrame']").first
        expect(grid).to_be_visible(timeout=WAIT_MS)
        grid.hover()
        toolbar = page.locator("[data-testid='stElementToolbar']").first
        expect(toolbar.get_by_role("button", name="Search")).to_be_visible()  # the toolbar shows
        expect(toolbar.get_by_role("button", name="Download as CSV")).to_have_count(0)
    with subtests.test("the page's CSV neutralises formulas and uploads back"):
        saved = download(page, t("embeddings.download", lang="en"), tmp_path)
        data = saved.read_bytes()
        assert data.startswith(b"\xef\xbb\xbf")  # UTF-8 with a byte-order mark, like the zip's
        rows = list(csv.reader(io.StringIO(data.decode("utf-8-sig"))))
        assert rows[0] == ["token", "x1", "x2", "x3"]
        assert [row[0] for row in rows[1:]] == [
            "'" + token if token[0] in "=+-@" else token for token in HOSTILE_TOKENS
        ]
        values = tuple(tuple(float(cell) for cell in row[1:]) for row in rows[1:])
        assert values == table_for_words(HOSTILE_TOKENS).values  # plain numbers, every bit
        # the same file, uploaded: the same tokens (the guard is removed), no error
        page.locator(
            "[data-testid='stMainBlockContainer'] [data-testid='stFileUploader'] input[type='file']"
        ).set_input_files(str(saved))
        wait_settled(page)
        expect(page.get_by_text("Loaded the file: 5 tokens with d_in = 3.")).to_be_visible()
        assert page.locator(SIDEBAR_SENTENCE).first.input_value() == " ".join(HOSTILE_TOKENS)
        assert_no_exception(page)


def test_script_download_follows_the_style_and_the_book_script_runs_alone(
    page: Page, frame_loaded: str, tmp_path: Path
) -> None:
    open_app(page, frame_loaded, "/export?seed=7&dropout=0.5")
    assert_no_exception(page)
    trace = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(seed=7, dropout=0.5))
    tokens = list(BOOK_TOKENS)
    label = t("export.py.label", lang="en")

    book = download(page, label, tmp_path / "book")
    assert book.name == SNIPPET_FILE_NAMES["book"]
    assert book.read_text(encoding="utf-8") == reproduce_snippet(trace, tokens, style="book")
    assert torch.equal(
        printed_context(run_isolated(book.read_bytes(), book.parent)), trace.output[0]
    )

    page.get_by_text(t("export.style.trace", lang="en"), exact=True).click()
    wait_settled(page)
    assert_no_exception(page)
    traced = download(page, label, tmp_path / "trace")
    assert traced.name == SNIPPET_FILE_NAMES["trace"]
    assert traced.read_bytes() != book.read_bytes()
    assert traced.read_text(encoding="utf-8") == reproduce_snippet(trace, tokens, style="trace")
    assert PACKAGE_INSTALL[0] in "\n".join(traced.read_text(encoding="utf-8").splitlines()[:8])
    # without the package it says what to install instead of a traceback (the installed
    # package runs it: tests/test_package_install.py)
    completed = run_isolated(traced.read_bytes(), traced.parent, traced.name)
    assert completed.returncode == 1 and PACKAGE_INSTALL[0] in completed.stderr
