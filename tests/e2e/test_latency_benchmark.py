"""The click-to-settled measurement of ``benchmarks/latency.py``, on its floor page (no timing asserted)."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Browser

from benchmarks import floor_app, latency


def test_a_seed_click_is_timed_until_the_new_numbers_are_shown(
    browser: Browser, streamlit_factory: Callable[..., object]
) -> None:
    server = streamlit_factory(latency.FLOOR_APP)
    settings = latency.Settings(timeout_s=60)
    page = latency.new_page(browser, server.url, latency.FLOOR.path, settings)  # type: ignore[attr-defined]
    try:
        seconds = latency.measure_seed(page, latency.FLOOR, settings)
        shown = page.get_by_test_id("stTable").locator("tbody td").all_inner_texts()
    finally:
        page.context.close()
    assert seconds is not None, "the floor page did not settle after one seed click"
    assert shown == floor_app.numbers(124).to_numpy().ravel().tolist()  # seed 123 + 1
    results = latency.Results()
    results.add("seed", latency.FLOOR.name, seconds)
    assert f"| seed | floor | 1 | {seconds:.3f} |" in latency.table(results)
