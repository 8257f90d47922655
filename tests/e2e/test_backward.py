"""The backward page in a real browser, offline: the loss, the autograd graph drawn as SVG, and a
learning step that lowers the loss shown, in English and Chinese."""

from __future__ import annotations

from urllib.parse import urlparse

import pytest
from playwright.sync_api import Locator, Page, Route, expect

from attention import AttentionConfig
from attention.examples import BOOK_EMBEDDINGS
from attention.gradients import gradient_descent
from tests.e2e.helpers import assert_no_exception, open_app, step_strip, wait_settled
from ui.i18n import t


def _offline(page: Page) -> list[str]:
    """Refuse every request that does not go to this machine; return the refused URLs."""
    refused: list[str] = []

    def handle(route: Route) -> None:
        host = urlparse(route.request.url).hostname or ""
        if host in ("127.0.0.1", "localhost") or route.request.url.startswith(("data:", "blob:")):
            route.continue_()
        else:
            refused.append(route.request.url)
            route.abort()

    page.route("**/*", handle)
    return refused


def _metric(page: Page, label: str) -> Locator:
    metric = page.locator("[data-testid='stMetric']").filter(has_text=label)
    return metric.locator("[data-testid='stMetricValue']")


def _shown(value: float) -> str:
    return f"{value:.4f}".replace("-", "−")


# In Chinese only: the flow is the same in both languages; English opens in
# test_navigation.py's walk of every page, and tests/test_page_backward.py runs both languages.
@pytest.mark.parametrize("lang", ["zh"])
def test_backward_page_shows_loss_graph_and_a_falling_loss(
    page: Page, streamlit_server: str, lang: str
) -> None:
    refused = _offline(page)
    open_app(page, streamlit_server, f"/backward?lang={lang}&dropout=0.5")
    assert_no_exception(page)
    expect(page.locator("h1").first).to_have_text(t("page.backward.title", lang=lang))
    start = gradient_descent(BOOK_EMBEDDINGS, AttentionConfig(dropout=0.5), steps=2)
    expect(_metric(page, t("backward.loss.value", lang=lang))).to_have_text(
        _shown(start.losses[0]), timeout=60_000
    )

    step_strip(page).get_by_role("radio").nth(
        2
    ).click()  # lazy tabs: the graph is drawn once opened
    graph = page.locator("[data-testid='stGraphVizChart'] svg")
    expect(graph).to_have_count(1, timeout=60_000)  # drawn in the browser, without internet
    graph.scroll_into_view_if_needed()
    expect(graph.locator("g.node")).to_have_count(34, timeout=60_000)
    expect(graph).to_contain_text("UnsafeViewBackward0")
    expect(graph).to_contain_text("SoftmaxBackward0")

    step_strip(page).get_by_role("radio").nth(3).click()  # the learning steps
    after = _metric(page, t("backward.learn.loss_after", lang=lang, step=1))
    expect(after).to_have_text(_shown(start.losses[1]))
    page.get_by_role("button", name=t("backward.learn.another", lang=lang)).click()
    wait_settled(page)
    assert_no_exception(page)
    after_two = _metric(page, t("backward.learn.loss_after", lang=lang, step=2))
    expect(after_two).to_have_text(_shown(start.losses[2]))
    shown_one, shown_two = start.losses[1], float(after_two.inner_text().replace("−", "-"))
    assert shown_two < shown_one  # the loss on screen fell with the step
    assert "grad_steps=2" in page.url
    assert not refused, refused
