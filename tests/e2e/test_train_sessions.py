"""Every training is bounded: one over its budget stops, keeps its model and says why.

The server of this test lets each training use 3 s of CPU (``ATTENTION_LAB_JOB_CPU_S``); the
training asked for takes far longer, so the test passes only if the server stops it. Closed tabs
leaving their trainings: tests/e2e/test_memory_release.py.
"""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.e2e.conftest import StreamlitFactory
from tests.e2e.helpers import assert_no_exception, open_app, wait_settled
from tests.e2e.server import DEFAULT_APP

APPEAR_MS = 120_000


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
