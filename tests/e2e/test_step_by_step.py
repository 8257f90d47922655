"""The page "Attention, step by step" in a real browser: numbers, links, editing, the slider.

The embedding editor is a canvas grid; its edits are checked in one session of ``/``.

Expected numbers are computed here with ``trace_attention`` (or are the seed document's for the
book's default) and read back from the page's text: the always-visible context table.
"""

from __future__ import annotations

import re
from dataclasses import replace
from urllib.parse import parse_qs, quote, urlparse

import pytest
import torch
from playwright.sync_api import Page, expect

from attention import AttentionConfig, trace_attention
from attention.examples import BOOK_EMBEDDINGS, BOOK_TOKENS
from attention.steps import STEPS, step_number
from tests.e2e.helpers import (
    CELL_EDITOR_SELECTOR,
    MATRIX_BLOCK_SELECTOR,
    assert_no_exception,
    click_first_row_last_cell,
    eventually_equal,
    open_app,
    open_first_row_cell,
    read_matrix,
    shown_matrix_keys,
    step_choice,
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


def type_into_x1(page: Page, text: str, *, before: str, row: int = 1, attempts: int = 3) -> None:
    """Edit column x1 of data row ``row`` of the page's embedding editor (a canvas grid) as a
    person would.

    Click row 1's last column (x3), then the arrow keys: two left to x1, ``row - 1`` down; Enter
    opens the cell. Its editor must hold ``before`` (so the test knows it edits the right cell).
    A click or key that lands during a redraw opens nothing or another cell: close it and try
    again. A wrong cell is never edited. Replace the text, press Enter to commit.
    """
    cell = page.locator(CELL_EDITOR_SELECTOR)
    seen: list[str] = []
    for _ in range(attempts):
        click_first_row_last_cell(page, appear_ms=APPEAR_MS)
        for key in ["ArrowLeft"] * 2 + ["ArrowDown"] * (row - 1) + ["Enter"]:
            page.keyboard.press(key)
        try:
            expect(cell).to_have_value(before, timeout=10_000)
        except AssertionError:
            seen.append(cell.input_value(timeout=1_000) if cell.is_visible() else "(closed)")
            page.keyboard.press("Escape")
            continue
        cell.fill(text)
        cell.press("Enter")
        wait_settled(page)
        return
    raise AssertionError(f"row {row}, x1 should hold {before!r}; the editor showed {seen}")


GRID = "[data-testid='stMain'] [data-testid='stDataFrame']"
MARK_GRID = f'() => {{ document.querySelector("{GRID}").__editorMark = true; }}'
SAME_GRID = f'() => document.querySelector("{GRID}").__editorMark === true'


def _context_with(edits: dict[tuple[int, int], float]) -> list[list[str]]:
    """The context vectors of the book's embeddings with the cells ``(row, column)`` edited."""
    inputs = BOOK_EMBEDDINGS.clone()  # (6, 3)
    for (row, column), value in edits.items():
        inputs[row, column] = value
    return expected_context(inputs, AttentionConfig())


def _go_to(page: Page, title: str) -> None:
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=title).click()
    wait_settled(page)
    expect(page.get_by_role("heading", name=title).first).to_be_visible(timeout=APPEAR_MS)


def test_the_default_page_and_its_editor(
    page: Page, streamlit_server: str, subtests: pytest.Subtests
) -> None:
    """One session of ``/``, each edit building on the last: the seed document's numbers; an edit
    marks the rows it changed; a bad value is named and the last valid numbers stay; cell edits
    keep the grid (a canvas drawn by the browser: a new widget key would make it throw the grid
    away and mount a new one, so the test marks the grid's DOM node and checks it is still there)
    and the Embeddings page shows the draft; a number too large for a float is named and kept."""
    open_app(page, streamlit_server, "/")
    edits: dict[tuple[int, int], float] = {}
    with subtests.test("the seed document's context vectors"):
        expect(page.get_by_role("heading", name="Attention, step by step")).to_be_visible(
            timeout=APPEAR_MS
        )
        assert context_numbers(page) == SEED_DOCUMENT_CONTEXT
        expect(step_choice(page, "10 · Context")).to_be_visible(timeout=APPEAR_MS)
        assert_no_exception(page)

    with subtests.test("an edit marks the rows it changed and says why"):
        type_into_x1(page, "0.1", before="0.77", row=5)  # "one"
        edits[4, 0] = 0.1
        table = page.get_by_test_id("stTable").first
        expect(table.locator("tbody tr th").nth(4)).to_have_text("● one", timeout=APPEAR_MS)
        labels = table.locator("tbody tr th").all_inner_texts()
        assert labels == ["Your", "journey", "starts", "with", "● one", "● step"]
        expect(page.get_by_text("only sees itself and the tokens before it")).to_be_visible()
        outlined = page.locator(".st-key-matrix_step_fig_inputs td.al-matrix-changed")
        expect(outlined).to_have_count(1)
        expect(outlined).to_have_text("0.1000")
        assert_no_exception(page)

    page.locator(GRID).locator("canvas").first.wait_for(state="visible", timeout=APPEAR_MS)
    page.evaluate(MARK_GRID)

    with subtests.test("cell edits update the numbers and keep the grid"):
        for before, typed in (("0.43", "0.9"), ("0.9", "0.8")):  # the grid shows the last edit
            type_into_x1(page, typed, before=before)
            edits[0, 0] = float(typed)
            got, want = eventually_equal(
                lambda: context_numbers(page), lambda: _context_with(edits)
            )
            assert got == want
            assert page.evaluate(SAME_GRID), "the edit mounted a new grid"
        assert_no_exception(page)

    with subtests.test("a bad value is named, the last valid numbers stay"):
        type_into_x1(page, "abc", before="0.8")
        alert = page.get_by_test_id("stAlert").filter(has_text="abc")
        expect(alert).to_be_visible(timeout=APPEAR_MS)
        expect(alert).to_contain_text("Row 1")
        expect(alert).to_contain_text("x1")
        assert context_numbers(page) == _context_with(edits)  # the last valid numbers stay
        assert_no_exception(page)

        type_into_x1(page, "0.9", before="abc")
        edits[0, 0] = 0.9
        expect(page.get_by_test_id("stAlert").filter(has_text="abc")).to_have_count(
            0, timeout=APPEAR_MS
        )
        assert context_numbers(page) == _context_with(edits)
        assert "emb=0.9" in page.url
        assert_no_exception(page)

    with subtests.test("the Embeddings page's editor starts from the draft"):
        _go_to(page, t("page.embeddings.title", "en"))
        type_into_x1(page, "0.7", before="0.9")
        edits[0, 0] = 0.7
        _go_to(page, t("page.step.title", "en"))  # its edit reaches the step page
        got, want = eventually_equal(lambda: context_numbers(page), lambda: _context_with(edits))
        assert got == want
        type_into_x1(page, "0.6", before="0.7")  # the step page's grid shows it too
        edits[0, 0] = 0.6
        got, want = eventually_equal(lambda: context_numbers(page), lambda: _context_with(edits))
        assert got == want
        assert_no_exception(page)

    with subtests.test("a number too large is named and kept in its cell"):
        assert open_first_row_cell(page).input_value() == "0.89"  # the book's x3 of "Your"
        cell = page.locator(CELL_EDITOR_SELECTOR)
        cell.fill("1e309")
        cell.press("Enter")
        wait_settled(page)
        # the rerun may start after a quiet spell on a loaded machine: wait for the message
        page.get_by_test_id("stAlert").filter(has_text="1e309").first.wait_for(timeout=60000)
        wait_settled(page)
        alerts = " ".join(page.get_by_test_id("stAlert").all_inner_texts())
        assert "Row 1" in alerts and "x3" in alerts and "1e309" in alerts, alerts
        assert context_numbers(page) == _context_with(edits)  # the last valid table
        assert open_first_row_cell(page).input_value() == "1e309"  # what was typed stays
        page.keyboard.press("Escape")


MAX_TABS = 80


def _focused() -> str:
    return """() => {
        const element = document.activeElement;
        const widget = element && element.closest('[data-testid]');
        return {
            tag: element ? element.tagName : null,
            label: element ? element.getAttribute('aria-label') : null,
            widget: widget ? widget.getAttribute('data-testid') : null,
            inSidebar: !!(element && element.closest("[data-testid='stSidebar']")),
        };
    }"""


def tab_until(page: Page, label: str) -> dict[str, object]:
    """Press Tab until the focused element is labelled ``label``; fail after MAX_TABS presses.

    Waits for the app to settle after each press: leaving an input can start a rerun, and a
    rerun that redraws the sidebar must not swallow the next key press.
    """
    visited = []
    for _ in range(MAX_TABS):
        page.keyboard.press("Tab")
        wait_settled(page, quiet=150)
        focused = page.evaluate(_focused())
        visited.append(focused["label"] or focused["widget"])
        if focused["label"] == label:
            return focused
    pytest.fail(f"Tab never reached {label!r}; focus went through {visited}")


def test_moving_the_dropout_slider_updates_the_url_and_the_numbers(
    page: Page, streamlit_server: str
) -> None:
    """A learner watching step 9 moves the slider: the URL, the numbers and step 9 follow.

    The session starts from a link to the last step (its tab and heading open; a split step's
    link is ``test_lesson.py``'s); a click opens step 9. The slider moves first by keyboard
    alone: the sidebar's seed input and dropout slider can be reached with Tab, and an arrow key
    moves the slider one notch (the URL follows); then thirty more.
    """
    last = step_number(STEPS[-1].name)
    open_app(page, streamlit_server, f"/?step={STEPS[-1].name}")
    last_tab = step_choice(page, re.compile(rf"^{last} · "))
    expect(last_tab).to_have_attribute("aria-checked", "true", timeout=APPEAR_MS)
    expect(page.get_by_role("heading", name=re.compile(rf"^Step {last} · "))).to_be_visible()
    assert_no_exception(page)
    dropout_tab = step_choice(page, "9 · Dropout")
    dropout_tab.click()
    expect(page.get_by_text("Dropout does nothing here: p = 0")).to_be_visible(timeout=APPEAR_MS)

    page.locator("body").focus()
    seed = tab_until(page, "Seed (torch.manual_seed)")
    assert seed["inSidebar"] and seed["widget"] == "stNumberInputField"
    dropout = tab_until(page, "Dropout rate p")
    assert dropout["inSidebar"]
    page.keyboard.press("ArrowRight")
    wait_settled(page)
    assert_no_exception(page)
    assert parse_qs(urlparse(page.url).query).get("dropout") == ["0.01"]
    slider = page.get_by_test_id("stSidebar").get_by_test_id("stSlider")
    slider = slider.filter(has_text="Dropout rate p")
    expect(slider).to_contain_text("0.01")

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
    expect(dropout_tab).to_have_attribute("aria-checked", "true")  # still on step 9
    expect(page.get_by_text("Keep-mask: ✓ kept, ✗ dropped")).to_be_visible()
    assert_no_exception(page)


def test_a_link_shows_its_numbers_and_only_the_open_tab_is_drawn(
    page: Page, streamlit_server: str
) -> None:
    """A link with settings and embeddings shows the trace's numbers; the tabs are lazy: one
    matrix in the page, and a tab switch draws that tab's step.

    Small matrices are coloured tables (``ui.show.show_matrix``): every matrix container in the
    page is counted, drawn or hidden, so a tab that sent its matrices while closed would fail.
    """
    rows = [[0.2, -0.1, 0.7], [0.5, 0.5, -0.3], [1.25, 0.0, 0.4], [-0.6, 0.9, 0.1]]
    rows += [[0.33, 0.66, 0.99], [0.05, -0.8, 0.55]]
    emb = ";".join(",".join(str(v) for v in row) for row in rows)
    open_app(page, streamlit_server, f"/?seed=7&dropout=0.5&d_out=3&emb={quote(emb)}")
    inputs = torch.tensor(rows)  # (6, 3)
    config = AttentionConfig(seed=7, dropout=0.5, d_out=3)
    assert context_numbers(page) == expected_context(inputs, config)
    assert_no_exception(page)
    trace = trace_attention(inputs, config)
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
        step_choice(page, tab).click()
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
    seed_8 = trace_attention(inputs, replace(config, seed=8)).attn_scores[0]
    got, expected = eventually_equal(
        lambda: read_matrix(page, "step_fig_attn_scores").numbers(),
        lambda: [[f"{v:.4f}" for v in row] for row in seed_8.tolist()],
    )
    assert got == expected
    expect(page.locator("table.al-matrix")).to_have_count(2)  # the matrix and its legend, once
    assert_no_exception(page)
