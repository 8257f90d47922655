"""Figures and numbers a teacher takes out of the app, in a real browser.

- A chart has a "Download as SVG" link (``test_svg_charts.py``).
- A large matrix's picture has a "Download as PNG" link (one pixel per cell).
- A coloured matrix table has a "Download as CSV" link (inside the table's own component) whose
  file holds the trace's numbers and the tokens guarded against spreadsheet formulas.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from urllib.parse import quote

import torch
from PIL import Image
from playwright.sync_api import Page, expect

from attention import AttentionConfig, trace_attention
from tests.e2e.helpers import assert_no_exception, open_app, step_choice
from ui.i18n import t
from ui.matrix_table import TABLE_CLASS
from ui.table_state import table_for_words

APPEAR_MS = 60_000


def test_a_large_matrix_downloads_its_picture_as_png(
    page: Page, streamlit_server: str, tmp_path: Path
) -> None:
    thirteen = "+".join(f"w{k}" for k in range(1, 14))  # 13 tokens: wider than a table
    open_app(page, streamlit_server, f"/multi_head?text={thirteen}")
    block = page.locator("[class*='st-key-matrix_multi_head_wrapper_weights_0']")
    expect(block.locator(f"img.{TABLE_CLASS}-image")).to_be_visible(timeout=APPEAR_MS)
    link = block.locator(f"a.{TABLE_CLASS}-csv")
    expect(link).to_have_text(t("show.image_png", "en"), timeout=APPEAR_MS)
    with page.expect_download(timeout=APPEAR_MS) as download_info:
        link.click()
    saved = download_info.value
    assert saved.suggested_filename == "multi_head_wrapper_weights_0.png"
    path = tmp_path / saved.suggested_filename
    saved.save_as(path)
    with Image.open(path) as image:
        assert image.format == "PNG" and image.size == (13, 13)  # one pixel per cell
    assert_no_exception(page)


def test_a_matrix_tables_csv_link_downloads_the_traces_numbers(
    page: Page, streamlit_server: str, tmp_path: Path
) -> None:
    words = ["=1+1", "@cmd", "cat", "<b>x</b>"]
    # the link opens the masked scores' tab (step 6): no click and rerun to get there
    open_app(page, streamlit_server, "/?lang=zh&step=masked&text=" + quote(" ".join(words)))
    expect(step_choice(page, re.compile(r"^6 · "))).to_have_attribute(
        "aria-checked", "true", timeout=APPEAR_MS
    )
    block = page.locator("[class*='st-key-matrix_step_fig_masked_scores']")
    link = block.locator(f"a.{TABLE_CLASS}-csv")
    expect(link).to_have_text(t("show.table_csv", "zh"), timeout=APPEAR_MS)
    expect(block.locator(f"a.{TABLE_CLASS}-csv")).to_have_count(1)  # the legend row has none
    with page.expect_download(timeout=APPEAR_MS) as download_info:
        link.click()
    saved = download_info.value
    assert saved.suggested_filename == "step_fig_masked_scores.csv"
    path = tmp_path / saved.suggested_filename
    saved.save_as(path)
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf")  # UTF-8 with a byte-order mark, as every app CSV
    rows = list(csv.reader(io.StringIO(data.decode("utf-8-sig"))))
    guarded = ["'=1+1", "'@cmd", "cat", "<b>x</b>"]  # a formula start gets a leading '
    assert rows[0][1:] == guarded and [row[0] for row in rows[1:]] == guarded
    inputs = torch.tensor(table_for_words(words).values)  # (4, 3): the app's embeddings
    expected = trace_attention(inputs, AttentionConfig()).masked_scores[0]  # (4, 4), −inf above
    values = torch.tensor([[float(cell) for cell in row[1:]] for row in rows[1:]])
    assert torch.equal(values.to(torch.float32), expected)  # every bit, −inf included
    assert_no_exception(page)
