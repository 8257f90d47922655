"""A class leaves the Train page running: closed tabs leave their trainings, every run is bounded.

Each test starts its own server: one whose sessions end 2 s after their tab closes
(``server.disconnectedSessionTTL``), one whose trainings may use 3 s of CPU. The trainings asked for
are the largest the page allows (hours of work), so a test passes only if the server stops them.
"""

from __future__ import annotations

import time

from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import VIEWPORT, StreamlitFactory
from tests.e2e.helpers import assert_no_exception, open_app, wait_settled
from tests.e2e.server import DEFAULT_APP
from ui.i18n import t

APPEAR_MS = 120_000
LARGEST = "/train?train_task=sort&train_layers=4&train_heads=8&train_width=256&train_steps=20000"


def _press_train(page: Page) -> None:
    page.locator(".st-key-train_run button").click()
    expect(page.locator("[data-testid='stProgress']")).to_be_visible(timeout=APPEAR_MS)


def test_closed_tabs_leave_their_trainings_and_a_new_visitor_trains_at_once(
    streamlit_factory: StreamlitFactory, browser: Browser
) -> None:
    server = streamlit_factory(DEFAULT_APP, ("--server.disconnectedSessionTTL", "2"))
    contexts = []
    for seed in (101, 102, 103):  # two run (one per worker), the third waits
        context = browser.new_context(viewport=VIEWPORT)
        page = context.new_page()
        open_app(page, server.url, f"{LARGEST}&train_seed={seed}")
        _press_train(page)
        contexts.append(context)
    waiting = contexts[-1].pages[0]
    expect(waiting.get_by_text("place 1 in the queue")).to_be_visible(timeout=APPEAR_MS)
    for context in contexts:
        context.close()

    # A newcomer's short training: before the fix it waited behind hours of abandoned work.
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    time.sleep(3)  # the closed tabs' sessions end (TTL 2 s)
    open_app(page, server.url, "/train?train_steps=50&train_seed=104")
    page.locator(".st-key-train_run button").click()
    expect(page.get_by_role("heading", name=t("train.maps.title"))).to_be_visible(timeout=APPEAR_MS)
    wait_settled(page, timeout=APPEAR_MS)
    assert_no_exception(page)
    context.close()


def test_a_training_over_its_budget_stops_keeps_its_model_and_says_why(
    streamlit_factory: StreamlitFactory, page: Page
) -> None:
    server = streamlit_factory(DEFAULT_APP, env={"ATTENTION_LAB_JOB_CPU_S": "3"})
    open_app(page, server.url, "/train?train_steps=20000&train_seed=105")
    page.locator(".st-key-train_run button").click()
    said = page.get_by_text("each training on this shared server may use 3 s of CPU")
    expect(said).to_be_visible(timeout=APPEAR_MS)
    wait_settled(page, timeout=APPEAR_MS)
    assert_no_exception(page)
    expect(page.locator(".st-key-train_fig_maps .js-plotly-plot")).to_be_visible()
    expect(page.locator(".st-key-train_run button")).to_be_enabled()
