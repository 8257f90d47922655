"""The click-to-settled measurement of ``benchmarks/latency.py``, on its floor pages (no timing
asserted): the floor, and the sidebar floor (the same table under the app's whole sidebar)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Browser

from benchmarks import floor_app, latency
from tests.cases import subcases


@subcases(
    ("app", "target"),
    [(latency.FLOOR_APP, latency.FLOOR), (latency.SIDEBAR_FLOOR_APP, latency.SIDEBAR_FLOOR)],
    ids=["floor", "sidebar floor"],
)
def test_a_seed_click_is_timed_until_the_new_numbers_are_shown(
    browser: Browser,
    streamlit_factory: Callable[..., object],
    app: Path,
    target: latency.Target,
) -> None:
    server = streamlit_factory(app)
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
    if target is latency.SIDEBAR_FLOOR:  # the app's own sidebar, with its seed and dropout
        assert {latency.APP_SEED_LABEL, latency.APP_DROPOUT_LABEL} <= set(labels)
    results = latency.Results()
    results.add("seed", target.name, seconds)
    assert f"| seed | {target.name} | 1 | {seconds:.3f} |" in latency.table(results)
