"""Hostile input in a real browser: markup in the sentence runs nothing, bad values are told.

The sentence arrives through the link (``text=``, URL-encoded), the way a shared link would bring
it. Each payload would run ``window.__xss = 1`` (or turn bold, or into a link) if any part of the
page (Streamlit's Markdown, a table, a matrix table's row and column labels) interpreted it as
HTML or Markdown. The test checks that nothing ran, that no element was created from it, and that
the text shows up literally; then the same markup is typed into the sentence box. Bad values in
the link (and a misspelt step) are each told by name. (A bad number typed into the embedding
editor: tests/e2e/test_step_by_step.py.)
"""

from __future__ import annotations

import re
from urllib.parse import quote

import torch
from playwright.sync_api import Page, expect

from attention import AttentionConfig, trace_attention
from attention.examples import BOOK_EMBEDDINGS
from tests.e2e.helpers import (
    assert_no_exception,
    open_app,
    read_matrix,
    step_choice,
    wait_settled,
)

APPEAR_MS = 60_000
# One token each (no spaces: the app splits the sentence on whitespace); "/" separates HTML
# attributes just as a space would.
PAYLOADS = [
    "<img/src=x/onerror=window.__xss=1>",
    "<script>window.__xss=1</script>",
    '<a/href="javascript:window.__xss=1">x</a>',
    "<svg/onload=window.__xss=1>",
    "<b>bold</b>",
    "**strong**",  # Markdown: st.table renders every label as Markdown (the context table)
    "[x](javascript:window.__xss=1)",
]
# The same payloads as a person would type them, with spaces, for the sentence box.
SPACED = "<img src=x onerror=window.__xss=1> <svg onload=window.__xss=1>"

NO_INJECTED_ELEMENTS_JS = """
() => ({
  img: document.querySelectorAll('img[src="x"]').length,
  svgOnload: document.querySelectorAll('svg[onload]').length,
  script: [...document.scripts].filter(s => s.textContent.includes('__xss')).length,
  javascriptLinks: document.querySelectorAll('a[href^="javascript"]').length,
  onerror: document.querySelectorAll('[onerror]').length,
  xss: window.__xss,
})
"""


def _context_table_text(page: Page) -> str:
    """The text of the step page's context table (its first st.table), once it is drawn."""
    table = page.get_by_test_id("stTable").first
    expect(table.locator("tbody tr").first).to_be_visible(timeout=APPEAR_MS)
    return table.inner_text()


def _context_rows(page: Page) -> list[list[str]]:
    table = page.get_by_test_id("stTable").first
    expect(table.locator("tbody tr").first).to_be_visible(timeout=APPEAR_MS)
    return [row.locator("td").all_inner_texts() for row in table.locator("tbody tr").all()]


def _expected(inputs: torch.Tensor, **config: object) -> list[list[str]]:
    context = trace_attention(inputs, AttentionConfig(**config)).context[0]  # type: ignore[arg-type]
    return [[f"{v:.4f}" for v in row] for row in context.tolist()]


def _assert_nothing_ran(page: Page) -> None:
    found = page.evaluate(NO_INJECTED_ELEMENTS_JS)
    assert found == {
        "img": 0,
        "svgOnload": 0,
        "script": 0,
        "javascriptLinks": 0,
        "onerror": 0,
        "xss": None,
    }, found


def test_markup_in_the_sentence_runs_nothing_and_shows_literally(
    page: Page, streamlit_server: str
) -> None:
    sentence = " ".join(PAYLOADS)
    open_app(page, streamlit_server, "/?text=" + quote(sentence, safe=""))
    assert_no_exception(page)
    _assert_nothing_ran(page)

    # literally in the sentence box and in the context table (labels of its rows)
    expect(page.get_by_test_id("stTextInput").locator("input").first).to_have_value(
        sentence, timeout=APPEAR_MS
    )
    table_text = _context_table_text(page)
    for payload in PAYLOADS:
        assert payload in table_text, (payload, table_text)

    # literally in the matrix tables' row and column labels (ui.matrix_table writes them as
    # plain text: nothing may become an element, no bold from <b> or **)
    for tab, key, columns in (
        ("1 · Embeddings", "step_fig_inputs", ["x1", "x2", "x3"]),
        ("4 · Scores", "step_fig_attn_scores", PAYLOADS),
    ):
        step_choice(page, tab).click()
        wait_settled(page)
        shown = read_matrix(page, key, timeout=APPEAR_MS)
        assert shown.rows == PAYLOADS, shown.rows
        assert shown.columns == columns, shown.columns
        assert shown.made == [], shown.made  # no element at all inside a label or cell
        _assert_nothing_ran(page)

    # the same markup typed into the sentence box, with spaces, as a person would
    box = page.get_by_test_id("stTextInput").locator("input").first
    box.fill(SPACED)
    box.press("Enter")
    wait_settled(page)
    assert_no_exception(page)
    _assert_nothing_ran(page)
    expect(box).to_have_value(SPACED)
    table_text = _context_table_text(page)
    assert "<img" in table_text and "onerror=window.__xss=1>" in table_text


def test_bad_link_values_are_told_and_the_default_is_shown(
    page: Page, streamlit_server: str
) -> None:
    bad = "/?seed=" + "9" * 30 + "&dropout=NaN&d_out=100000&lang=xx&step=sofmax"
    open_app(page, streamlit_server, bad)
    assert_no_exception(page)
    expect(page.get_by_text(re.compile("“step=sofmax” is not a step"))).to_be_visible()
    alerts = " ".join(page.get_by_test_id("stAlert").all_inner_texts())
    for named in ("seed=999", "dropout=NaN", "d_out=100000", "lang=xx"):
        assert named in alerts, (named, alerts)
    assert _context_rows(page) == _expected(BOOK_EMBEDDINGS)


def test_a_link_of_more_parameters_than_streamlit_reads_is_said_to_be_unread(
    page: Page, streamlit_server: str
) -> None:
    """Streamlit empties a query of more than 1,000 parameters; the browser still has the link
    (ui/link_check.py counts it there), so the page says why it shows the defaults."""
    fields = "&".join(f"p{index}=1" for index in range(1000))
    open_app(page, streamlit_server, f"/?seed=7&{fields}")  # 1,001 parameters
    alert = page.get_by_test_id("stAlert").filter(has_text="1,001 parameters")
    expect(alert).to_have_count(1, timeout=APPEAR_MS)
    assert page.get_by_test_id("stAlert").count() == 1, "one warning, not one per parameter"
    assert_no_exception(page)
    assert _context_rows(page) == _expected(BOOK_EMBEDDINGS), "the defaults: seed 7 unread"
