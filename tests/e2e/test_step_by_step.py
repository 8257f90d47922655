"""The page "Attention, step by step" in a real browser: numbers, links, editing, the slider.

Expected numbers are computed here with ``trace_attention`` (or are the seed document's for the
book's default) and read back from the page's text: the always-visible context table.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, quote, urlparse

import torch
from playwright.sync_api import Page, expect

from attention import AttentionConfig, trace_attention
from attention.examples import BOOK_EMBEDDINGS, BOOK_TOKENS
from tests.e2e.helpers import (
    MATRIX_BLOCK_SELECTOR,
    assert_no_exception,
    eventually_equal,
    open_app,
    open_first_row_cell,
    read_matrix,
    shown_matrix_keys,
    wait_settled,
)
from ui.i18n import t

SEED_DOCUMENT_CONTEXT = [
    ["-0.4519", "0.2216"],
    ["-0.5874", "0.0058"],
    ["-0.6300", "-0.0632"],
    ["-0.5675", "-0.0843"],
    ["-0.5526", "-0.0981"],
    ["-0.5299", "-0.1081"],
]
# Streamlit loads an element's code on first use and shows a skeleton meanwhile: on a busy machine
# that can outlast Playwright's 5 s default for expect(), so first appearances get longer.
APPEAR_MS = 60_000


def context_numbers(page: Page) -> list[list[str]]:
    """The context table (the page's first st.table): one list of cell texts per token."""
    table = page.get_by_test_id("stTable").first
    expect(table.locator("tbody tr").first).to_be_visible(timeout=APPEAR_MS)
    rows = table.locator("tbody tr")
    return [row.locator("td").all_inner_texts() for row in rows.all()]


def expected_context(inputs: torch.Tensor, cfg: AttentionConfig) -> list[list[str]]:
    context = trace_attention(inputs, cfg).context[0]  # (T, d_out)
    return [[f"{v:.4f}" for v in row] for row in context.tolist()]


def type_into_first_x1(page: Page, text: str, *, before: str, attempts: int = 3) -> None:
    """Edit row 1, column x1 of the embedding editor (a canvas grid) as a person would.

    Open the cell two columns left of x3 (arrow keys, as a person would); the editor must hold
    ``before`` (so the test knows it edits the right cell). A click or key that lands during a
    redraw can select another cell: close it and try again. A wrong cell is never edited.
    Replace the text, press Enter to commit.
    """
    seen: list[str] = []
    for _ in range(attempts):
        cell_editor = open_first_row_cell(page, arrows_left=2)
        try:
            expect(cell_editor).to_have_value(before, timeout=10_000)
        except AssertionError:
            seen.append(cell_editor.input_value())
            page.keyboard.press("Escape")
            continue
        cell_editor.fill(text)
        cell_editor.press("Enter")
        wait_settled(page)
        return
    raise AssertionError(f"row 1, x1 should hold {before!r}; the editor showed {seen}")


def test_default_page_shows_the_seed_documents_context_vectors(
    page: Page, streamlit_server: str
) -> None:
    open_app(page, streamlit_server, "/")
    expect(page.get_by_role("heading", name="Attention, step by step")).to_be_visible(
        timeout=APPEAR_MS
    )
    assert context_numbers(page) == SEED_DOCUMENT_CONTEXT
    expect(page.get_by_role("tab", name="10 · Context")).to_be_visible(timeout=APPEAR_MS)
    assert_no_exception(page)


def test_a_link_with_settings_and_embeddings_shows_the_traces_numbers(
    page: Page, streamlit_server: str
) -> None:
    rows = [[0.2, -0.1, 0.7], [0.5, 0.5, -0.3], [1.25, 0.0, 0.4], [-0.6, 0.9, 0.1]]
    rows += [[0.33, 0.66, 0.99], [0.05, -0.8, 0.55]]
    emb = ";".join(",".join(str(v) for v in row) for row in rows)
    open_app(page, streamlit_server, f"/?seed=7&dropout=0.5&d_out=3&emb={quote(emb)}")
    expected = expected_context(torch.tensor(rows), AttentionConfig(seed=7, dropout=0.5, d_out=3))
    assert context_numbers(page) == expected
    assert_no_exception(page)


def test_editing_a_cell_updates_the_result_and_a_bad_value_is_named(
    page: Page, streamlit_server: str
) -> None:
    open_app(page, streamlit_server, "/")
    assert context_numbers(page) == SEED_DOCUMENT_CONTEXT

    type_into_first_x1(page, "abc", before="0.43")
    alert = page.get_by_test_id("stAlert").filter(has_text="abc")
    expect(alert).to_be_visible(timeout=APPEAR_MS)
    expect(alert).to_contain_text("Row 1")
    expect(alert).to_contain_text("x1")
    assert context_numbers(page) == SEED_DOCUMENT_CONTEXT  # the last valid numbers stay
    assert_no_exception(page)

    type_into_first_x1(page, "0.9", before="abc")
    expect(page.get_by_test_id("stAlert").filter(has_text="abc")).to_have_count(
        0, timeout=APPEAR_MS
    )
    inputs = BOOK_EMBEDDINGS.clone()
    inputs[0, 0] = 0.9
    assert context_numbers(page) == expected_context(inputs, AttentionConfig())
    assert "emb=0.9" in page.url
    assert_no_exception(page)


def test_moving_the_dropout_slider_updates_the_url_and_the_numbers(
    page: Page, streamlit_server: str
) -> None:
    """A learner watching step 9 moves the slider: the URL, the numbers and step 9 follow."""
    open_app(page, streamlit_server, "/")
    dropout_tab = page.get_by_role("tab", name="9 · Dropout")
    dropout_tab.click()
    expect(page.get_by_text("Dropout does nothing here: p = 0")).to_be_visible(timeout=APPEAR_MS)
    slider = page.get_by_test_id("stSlider").filter(has_text="Dropout rate p")
    thumb = slider.get_by_role("slider")
    expect(thumb).to_be_visible(timeout=APPEAR_MS)
    thumb.focus()
    for _ in range(30):
        page.keyboard.press("ArrowRight")
    wait_settled(page)
    expect(page).to_have_url(re.compile(r"dropout=0\.\d+"), timeout=APPEAR_MS)
    expect(thumb).to_have_value(re.compile(r"^0\.\d+$"), timeout=APPEAR_MS)  # an <input type=range>

    def url_dropout() -> float:
        return float(parse_qs(urlparse(page.url).query)["dropout"][0])

    # the URL, the slider and the numbers must all end on one and the same dropout rate
    got, expected = eventually_equal(
        lambda: (url_dropout(), float(thumb.input_value())),
        lambda: (url_dropout(), url_dropout()),
    )
    assert got == expected, f"URL and slider disagree: {got}"
    assert url_dropout() > 0
    query = parse_qs(urlparse(page.url).query)
    assert query.keys() == {"dropout", "step"}  # nothing else moved (the link keeps step 9 open)
    assert query["step"] == ["dropout"]
    got, expected = eventually_equal(
        lambda: context_numbers(page),
        lambda: expected_context(BOOK_EMBEDDINGS, AttentionConfig(dropout=url_dropout())),
    )
    assert got == expected
    expect(dropout_tab).to_have_attribute("aria-selected", "true")  # still on step 9
    expect(page.get_by_text("Keep-mask: ✓ kept, ✗ dropped")).to_be_visible()
    assert_no_exception(page)


def test_only_the_open_tab_is_drawn_and_a_switch_shows_the_new_steps_numbers(
    page: Page, streamlit_server: str
) -> None:
    """The tabs are lazy: one matrix in the page, and a tab switch draws that tab's step.

    Small matrices are coloured tables (``ui.show.show_matrix``): every matrix container in the
    page is counted, drawn or hidden, so a tab that sent its matrices while closed would fail.
    """
    open_app(page, streamlit_server, "/?seed=5")
    trace = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(seed=5))
    tokens = list(BOOK_TOKENS)
    matrices = page.locator(MATRIX_BLOCK_SELECTOR)
    charts = page.get_by_test_id("stPlotlyChart")
    expect(matrices).to_have_count(1, timeout=APPEAR_MS)  # step 1's embeddings, nothing hidden
    expect(charts).to_have_count(0)
    assert shown_matrix_keys(page) == ["step_fig_inputs"]
    steps = page.get_by_role("heading", name=re.compile(r"^Step \d+ · "))
    expect(steps).to_have_text(["Step 1 · The embedding table X"])

    def open_tab(tab: str, heading: str, key: str) -> None:
        """Click ``tab``; then only its step is drawn: one matrix table (``key``), no chart."""
        page.get_by_role("tab", name=tab).click()
        expect(steps).to_have_text([heading], timeout=APPEAR_MS)
        wait_settled(page)
        expect(matrices).to_have_count(1)
        expect(charts).to_have_count(0)
        assert shown_matrix_keys(page) == [key]

    open_tab("8 · Softmax", "Step 8 · Softmax: the attention weights", "step_fig_attn_weights")
    weights = read_matrix(page, "step_fig_attn_weights")
    assert (weights.rows, weights.columns) == (tokens, tokens)
    weight = float(trace.attn_weights[0, 5, 2])  # row 6, column 3: visible, between 0 and 1
    assert weights.numbers()[5][2] == f"{weight:.4f}"

    open_tab("4 · Scores", "Step 4 · Raw attention scores Q Kᵀ", "step_fig_attn_scores")
    scores = read_matrix(page, "step_fig_attn_scores")
    assert (scores.rows, scores.columns) == (tokens, tokens)
    # every score in its cell (none is within 0.00005 of 0, where the sign could be spelt apart)
    assert float(trace.attn_scores[0].abs().min()) > 5e-5
    assert scores.numbers() == [[f"{v:.4f}" for v in row] for row in trace.attn_scores[0].tolist()]

    # a new seed redraws the same table in place with the new trace's numbers
    seed_input = (
        page.get_by_test_id("stSidebar")
        .get_by_test_id("stNumberInput")
        .filter(has=page.get_by_label(t("sidebar.seed", "en"), exact=True))
    )
    seed_input.get_by_test_id("stNumberInputStepUp").click()
    wait_settled(page)
    seed_6 = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(seed=6)).attn_scores[0]
    got, expected = eventually_equal(
        lambda: read_matrix(page, "step_fig_attn_scores").numbers(),
        lambda: [[f"{v:.4f}" for v in row] for row in seed_6.tolist()],
    )
    assert got == expected
    expect(page.locator("table.al-matrix")).to_have_count(2)  # the matrix and its legend, once
    assert_no_exception(page)
