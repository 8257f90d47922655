"""The page "Train it" in a real browser: a short run shows curves and maps (in English, then
the same run in Chinese), the progress is live and Stop stops it, a bad upload is named (in
Chinese, then English) and a good one is used.

Runs are tiny (a few dozen steps, distinct seeds so that no test sees another's cached result).
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, expect

from attention.tasks import check_text
from attention.validate import AttentionInputError
from tests.e2e.helpers import assert_no_exception, choose, open_app, step_choice, wait_settled
from ui.i18n import t
from ui.input_errors import explain
from ui.matrix_table import TABLE_CLASS
from ui.train_settings import TEXT_CONTEXT

APPEAR_MS = 120_000  # a training plus its first drawing on a busy machine


def _train(page: Page, lang: str) -> None:
    page.locator(".st-key-train_run button").click()
    expect(page.get_by_role("heading", name=t("train.maps.title", lang=lang))).to_be_visible(
        timeout=APPEAR_MS
    )
    wait_settled(page, timeout=APPEAR_MS)
    assert_no_exception(page)


def test_a_short_run_shows_curves_maps_and_the_trained_head_in_english_then_chinese(
    page: Page, streamlit_server: str
) -> None:
    open_app(page, streamlit_server, "/train?train_task=reverse&train_steps=30&train_seed=21")
    expect(page.locator("h1").first).to_have_text("Train it")
    _train(page, "en")
    curves = page.locator("svg#al-chart-train_fig_curves")  # the app's own chart (ui.chart)
    expect(curves).to_be_visible()
    expect(curves.locator("g.al-chart-line")).to_have_count(3)  # training, validation, accuracy
    first_map = page.locator(".st-key-matrix_train_fig_maps_0_0")  # the one matrix component
    expect(first_map.locator(f"img.{TABLE_CLASS}-image")).to_be_visible()
    expect(first_map.get_by_text("Layer 1 · head 1 · after training")).to_have_count(1)
    before = page.locator(".st-key-matrix_train_fig_maps_0_0_untrained")
    expect(before.get_by_text("Layer 1 · head 1 · before training")).to_have_count(1)
    expect(page.get_by_text("Held-out accuracy")).to_be_visible(timeout=APPEAR_MS)
    expect(step_choice(page, "8 · Softmax")).to_be_visible()
    expect(page.get_by_role("button", name="Retrain-and-check script (.py)")).to_be_visible()
    query = parse_qs(urlparse(page.url).query)
    assert query["train_task"] == ["reverse"] and query["train_steps"] == ["30"]

    choose(page, t("sidebar.lang", lang="en"), "中文")  # the same run, now in Chinese
    assert_no_exception(page)
    expect(page.locator("h1").first).to_have_text("动手训练")
    expect(page.get_by_role("heading", name=t("train.maps.title", lang="zh"))).to_be_visible()
    expect(page.get_by_text("留出集准确率")).to_be_visible(timeout=APPEAR_MS)
    expect(first_map.get_by_text("第 1 层 · 头 1 · 训练之后")).to_have_count(1)


_RUNNING = re.compile(r"step (\d+) of 20000")


def _shown_step(page: Page, above: int) -> int:
    """Wait until the progress line names a step greater than `above`; return that step."""
    line = page.get_by_text(_RUNNING)
    deadline = time.monotonic() + APPEAR_MS / 1000
    while time.monotonic() < deadline:
        try:
            found = _RUNNING.search(line.first.inner_text(timeout=1000))
        except PlaywrightError:  # the line is being redrawn, or not there yet
            found = None
        if found and int(found.group(1)) > above:
            return int(found.group(1))
        page.wait_for_timeout(200)
    raise AssertionError(f"no training step above {above} was shown in {APPEAR_MS / 1000:.0f} s")


def test_progress_is_live_and_stop_stops_the_training(page: Page, streamlit_server: str) -> None:
    open_app(page, streamlit_server, "/train?train_steps=20000&train_seed=23")
    page.locator(".st-key-train_run button").click()
    expect(page.locator("[data-testid='stProgress']")).to_be_visible(timeout=APPEAR_MS)
    # A live record: some step above 0 is shown, then a later one (the exact numbers depend on speed).
    first = _shown_step(page, above=0)
    _shown_step(page, above=first)
    page.locator(".st-key-train_stop button").click()
    stopped = page.get_by_text("Stopped early, after step")
    expect(stopped).to_be_visible(timeout=APPEAR_MS)
    wait_settled(page, timeout=APPEAR_MS)
    assert_no_exception(page)
    expect(
        page.locator(f".st-key-matrix_train_fig_maps_0_0 img.{TABLE_CLASS}-image")
    ).to_be_visible()
    expect(page.locator(".st-key-train_stop button")).to_be_disabled()


def test_a_bad_upload_is_explained_in_chinese_then_english_and_a_good_text_is_used(
    page: Page, streamlit_server: str, tmp_path: Path
) -> None:
    binary = bytes(range(256)) * 40
    with pytest.raises(AttentionInputError) as caught:
        check_text(binary, TEXT_CONTEXT)
    reason = caught.value
    open_app(page, streamlit_server, "/train?train_task=text&lang=zh")
    page.get_by_text(t("train.source.upload", lang="zh")).click()
    wait_settled(page)
    picture = tmp_path / "picture.txt"
    picture.write_bytes(binary)
    page.locator(
        "[data-testid='stMainBlockContainer'] [data-testid='stFileUploader'] input[type='file']"
    ).set_input_files(str(picture))
    wait_settled(page)
    assert_no_exception(page)
    alert = page.locator("[data-testid='stAlertContentError']")
    expect(alert).to_contain_text("文件“picture.txt”无法使用")
    expect(alert).to_contain_text(explain(reason, "zh"))
    expect(alert).not_to_contain_text(reason.message)

    expect(page.locator(".st-key-train_run button")).to_be_disabled()

    choose(page, t("sidebar.lang", lang="zh"), "English")  # the same upload, now in English
    assert_no_exception(page)
    expect(alert).to_contain_text("The file “picture.txt” cannot be used")
    expect(alert).to_contain_text(reason.message)
    expect(alert).not_to_contain_text(explain(reason, "zh"))
    expect(page.locator(".st-key-train_run button")).to_be_disabled()

    good = tmp_path / "story.txt"  # a good text replaces it: the message goes, Train is enabled
    good.write_text("A small story about a keeper and a clock. " * 20, encoding="utf-8")
    page.locator(
        "[data-testid='stMainBlockContainer'] [data-testid='stFileUploader'] input[type='file']"
    ).set_input_files(str(good))
    wait_settled(page)
    assert_no_exception(page)
    expect(page.get_by_text("Training on “story.txt”")).to_be_visible()
    expect(page.get_by_text("The file “picture.txt” cannot be used")).to_have_count(0)
    expect(page.locator(".st-key-train_run button")).to_be_enabled()
