"""The click-to-settled measurement of ``benchmarks/latency.py`` (no timing asserted), on the
sidebar floor: the floor's table under the app's whole sidebar. The floor page itself (its seed
input and the numbers one "+" shows) is checked by ``tests/test_latency_floor.py`` (AppTest):
the measurement finds both pages' seed "+" and table with the same selectors."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Browser

from benchmarks import floor_app, latency


def test_a_seed_click_is_timed_until_the_new_numbers_are_shown(
    browser: Browser, streamlit_factory: Callable[..., object]
) -> None:
    target = latency.SIDEBAR_FLOOR
    server = streamlit_factory(latency.SIDEBAR_FLOOR_APP)
    settings = latency.Settings(timeout_s=60)
    page = latency.new_page(browser, server.url, target.path, settings)  # type: ignore[attr-defined]
    try:
        seconds = latency.measure_seed(page, target, settings)
        shown = page.get_by_test_id("stTable").locator("tbody td").all_inner_texts()
        sidebar_widgets = page.get_by_test_id("stSidebar").locator("[data-testid^='stWidget']")
        labels = sidebar_widgets.all_inner_texts()
    finally:
        page.context.close()
    assert seconds is not None, f"the {target.name} did not settle after one seed click"
    assert shown == floor_app.numbers(124).to_numpy().ravel().tolist()  # seed 123 + 1
    # The app's own sidebar, with its seed and dropout.
    assert {latency.APP_SEED_LABEL, latency.APP_DROPOUT_LABEL} <= set(labels)
    results = latency.Results()
    results.add("seed", target.name, seconds)
    assert f"| seed | {target.name} | 1 | {seconds:.3f} |" in latency.table(results)
