"""A teaching extra in a real browser: the quiz reveals, with its row drawn.

(That every page opens, with its title, is tests/e2e/test_navigation.py's walk of the registry.
That a new B seed changes Compare's difference is tests/test_page_compare.py's
``test_changing_b_seed_changes_the_difference``; typing B's seed in the browser is
tests/e2e/test_new_user_stumbles.py's ``test_compare_b_settings_round_trip_through_the_link``.)
"""

from __future__ import annotations

from playwright.sync_api import Locator, Page, expect

from attention import AttentionConfig, trace_attention
from attention.examples import BOOK_EMBEDDINGS, BOOK_TOKENS
from tests.e2e.helpers import assert_no_exception, open_app, wait_settled


def _metric(page: Page, label: str) -> Locator:
    metric = page.locator("[data-testid='stMetric']").filter(has_text=label)
    return metric.locator("[data-testid='stMetricValue']")


def test_quiz_reveal_flow(page: Page, streamlit_server: str) -> None:
    open_app(page, streamlit_server, "/quiz?seed=7")
    row = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(seed=7)).attn_weights[0, 5]
    best = int(row.argmax())  # question 1 asks which token "step" (the last query) attends to most
    options = page.locator("[data-testid='stRadio'] [role='radiogroup'] label")
    expect(options).to_have_count(len(BOOK_TOKENS), timeout=60_000)
    reveal = page.locator(".st-key-quiz_reveal button").first
    expect(reveal).to_be_disabled()  # no answer picked yet
    options.nth(best).click()
    wait_settled(page)
    reveal.click()
    wait_settled(page)
    assert_no_exception(page)
    expect(page.locator("[data-testid='stAlert']").first).to_contain_text("Right!")
    expect(_metric(page, "Score")).to_have_text("1 / 1")
    expect(page.locator(".st-key-al-chart-quiz_row svg.al-chart")).to_have_count(1)  # the row

    page.locator(".st-key-quiz_next button").first.click()
    wait_settled(page)
    expect(page.get_by_text("after softmax")).to_be_visible()
    expect(page.locator("[data-testid='stAlert']")).to_have_count(0)
    expect(reveal).to_be_disabled()  # the new question has no answer yet
