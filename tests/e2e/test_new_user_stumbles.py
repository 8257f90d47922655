"""What a new user stumbled on, in a real browser: a new table row, a stale table, Compare's link,
value-vector labels on top of each other. (A rounded URL
value: ``tests/e2e/test_lesson.py``'s link to a step, and ``tests/test_frame_state.py``.)

Each test drives the real app (``streamlit run``) in Chromium and reads what is drawn: the page's
text, the URL, and for the figures the boxes the browser laid out (``getBoundingClientRect``).
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

from playwright.sync_api import Page, expect

from attention.examples import BOOK_SENTENCE
from tests.e2e.helpers import assert_no_exception, open_app, open_first_row_cell, wait_settled

APPEAR_MS = 60_000


def _sentence(page: Page) -> str:
    box = page.locator("[data-testid='stSidebar'] [data-testid='stTextInput'] input").first
    return box.input_value()


def _query(page: Page) -> dict[str, str]:
    return {key: values[0] for key, values in parse_qs(urlparse(page.url).query).items()}


# --- the embedding table ------------------------------------------------------------------------


def test_an_added_row_starts_as_a_word_and_a_bad_table_is_announced_on_other_pages(
    page: Page, frame_loaded: str
) -> None:
    open_app(page, frame_loaded, "/embeddings")
    grid = page.get_by_test_id("stDataFrame").first
    grid.locator("canvas").first.wait_for(state="visible", timeout=APPEAR_MS)
    grid.hover()
    page.get_by_role("button", name="Add row").click()
    wait_settled(page)
    expect(page).to_have_url(re.compile(r"text=.*token7"), timeout=APPEAR_MS)
    assert _sentence(page) == f"{BOOK_SENTENCE} token7"
    assert page.get_by_test_id("stAlert").count() == 0  # no red error for the fresh row
    assert_no_exception(page)

    # a bad cell: the editor names it, and every page says its numbers are the last valid ones
    cell = open_first_row_cell(page, arrows_left=2)  # row 1, x1
    expect(cell).to_have_value("0.43", timeout=10_000)
    cell.fill("abc")
    cell.press("Enter")
    wait_settled(page)
    notice = page.get_by_test_id("stAlert").filter(has_text="still computed from the last valid")
    expect(notice).to_be_visible(timeout=APPEAR_MS)
    expect(notice).to_contain_text("7 tokens")
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Masking two ways").click()
    wait_settled(page)
    expect(page.get_by_role("heading", name="Masking two ways")).to_be_visible(timeout=APPEAR_MS)
    expect(notice).to_be_visible(timeout=APPEAR_MS)
    link = page.get_by_role("link", name="Fix the table on the Embeddings page")
    expect(link).to_be_visible()
    link.click()
    wait_settled(page)
    expect(page.get_by_role("heading", name="Embeddings").first).to_be_visible(timeout=APPEAR_MS)
    expect(page.get_by_test_id("stAlert").filter(has_text="abc").first).to_be_visible()
    assert_no_exception(page)


# --- the URL ------------------------------------------------------------------------------------


def test_compare_b_settings_round_trip_through_the_link(page: Page, frame_loaded: str) -> None:
    open_app(page, frame_loaded, "/compare?seed=7&b_seed=8&b_dropout=0.5")
    seed_b = page.get_by_test_id("stNumberInput").filter(has_text="B: seed").locator("input")
    expect(seed_b).to_have_value("8", timeout=APPEAR_MS)
    expect(
        page.get_by_text("B differs from A in: Seed (torch.manual_seed), Dropout rate p.")
    ).to_be_visible()
    seed_b.fill("9")
    seed_b.press("Enter")
    wait_settled(page)
    expect(page).to_have_url(re.compile(r"b_seed=9"), timeout=APPEAR_MS)
    link = urlparse(page.url)
    assert link.path == "/compare"
    assert _query(page) == {"seed": "7", "b_seed": "9", "b_dropout": "0.5"}

    # the shared link, opened afresh (a new page load: a new session that knows only the link)
    open_app(page, frame_loaded, f"{link.path}?{link.query}")
    seed_again = page.get_by_test_id("stNumberInput").filter(has_text="B: seed").locator("input")
    expect(seed_again).to_have_value("9", timeout=APPEAR_MS)
    expect(
        page.get_by_text("B differs from A in: Seed (torch.manual_seed), Dropout rate p.")
    ).to_be_visible()
    assert _query(page) == {"seed": "7", "b_seed": "9", "b_dropout": "0.5"}
    assert_no_exception(page)


# --- the figures --------------------------------------------------------------------------------

_LABEL_BOXES = """
(chart) => [...chart.querySelectorAll('g.al-chart-label')].map(label => {
  const b = label.querySelector('rect').getBoundingClientRect();  // the box behind the text
  return [label.textContent, b.left, b.top, b.right, b.bottom];
})
"""


def test_value_vector_labels_do_not_overlap(page: Page, frame_loaded: str) -> None:
    open_app(page, frame_loaded, "/one_query")
    query_box = page.get_by_role("combobox", name="Query token (position: token)")
    expect(query_box).to_be_visible(timeout=APPEAR_MS)
    query_box.click()
    page.get_by_role("option", name="6: step").click()
    wait_settled(page)
    expect(query_box).to_have_value("6: step")
    chart = page.locator(".st-key-al-chart-one_query_vectors")
    expect(chart.locator("g.al-chart-label")).to_have_count(6, timeout=APPEAR_MS)
    boxes = chart.evaluate(_LABEL_BOXES)
    assert sorted(re.sub(r"\s+", " ", text.replace("\u200b", "")) for text, *_ in boxes) == [
        f"v{'₀₁₂₃₄₅₆'[k]} · {word}" for k, word in enumerate(BOOK_SENTENCE.split(), start=1)
    ]
    overlaps = [
        (a[0], b[0])
        for i, a in enumerate(boxes)
        for b in boxes[i + 1 :]
        if a[1] < b[3] and b[1] < a[3] and a[2] < b[4] and b[2] < a[4]
    ]
    assert overlaps == []
    assert_no_exception(page)
