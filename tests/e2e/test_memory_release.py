"""A class opens large views and leaves: the server stays in its memory budget and gives it back.

Four tabs open the issue's link at once (4,096 words, batch 4, dropout 0.5, the dropout step:
about 2 GB each) on a server whose budget (``ATTENTION_LAB_MEMORY_BUDGET_MB``) holds one such view:
no page shows a traceback, the server's resident memory stays under its budget plus its idle
level, the tabs that do not fit say so in words, and once the tabs are closed (their sessions end
2 s later, ``server.disconnectedSessionTTL``) the memory goes back near idle, with the deployed
allocator settings and no trim.

Trainings: a closed tab's running training is killed once its tab has been gone
``ui.sessions.AWAY_S`` seconds, long before its session ends (Streamlit's default
``server.disconnectedSessionTTL``, 120 s), and a newcomer trains at once.

Leaving a page closes its websocket just as closing the tab does, so the worker's shared tab leaves
by going to ``about:blank``; the other tabs are pages of its context (each its own websocket, so
its own Streamlit session). The trainings asked for are the largest the page allows (hours of
work), so the test passes only if the server stops them.
"""

from __future__ import annotations

import math
import os
import re
import threading
import time
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.e2e.conftest import StreamlitFactory
from tests.e2e.helpers import APP_SELECTOR, assert_no_exception, open_app, wait_settled
from tests.e2e.server import DEFAULT_APP, StreamlitServer
from ui.computation import LARGE_TRACE_CELLS
from ui.i18n import t
from ui.table_state import random_words

APPEAR_MS = 120_000
RELEASED = re.compile(  # ui.ops_log's line for the event
    r"event=memory_released rss_before_mb=[\d.]+ rss_after_mb=[\d.]+ collected=\d+ "
    r"large_traces_dropped=True"
)
# The allocator settings deploy/Dockerfile and deploy/serve.sh set: blocks from 128 KiB on are
# mapped and unmapped directly, so a freed view's memory goes back without a trim.
DEPLOYED_MALLOC = {"MALLOC_ARENA_MAX": "2", "MALLOC_MMAP_THRESHOLD_": "131072"}
BUDGET_MB = 2600  # one 4,096-word batch-4 view with dropout (about 2 GB), not two
# Resident memory after the last session ended, above the idle level: measured 28 and 37 MB
# (benchmarks/README.md, "A memory budget"); the rest is what the large pages needed first.
NEAR_IDLE_MB = 50
STARTED = re.compile(r"event=training_started job=(\d+) slot=train pid=(\d+)")
CANCELLED = re.compile(r"event=training_stopped job=(\d+) slot=train why=cancelled")
CLOSED_TAB_S = 10  # the promise: a closed tab's running training ends within this
SESSION_LINES = (  # ui.ops_log's lines for one tab's session, in order
    re.compile(r"event=session_opened session=([0-9a-f]{8})"),
    re.compile(r"event=session_disconnected session=([0-9a-f]{8})"),
    re.compile(r"event=session_closed session=([0-9a-f]{8})"),
)
LARGEST = "/train?train_task=sort&train_layers=4&train_heads=8&train_width=256&train_steps=20000"


def _log_after(server: StreamlitServer, mark: int) -> str:
    return server.read_log()[mark:]


def _wait_for_line(
    server: StreamlitServer, mark: int, line: re.Pattern[str], bound_s: float
) -> None:
    """Until ``line`` is in the log after ``mark``; the bound is a hang guard, not a measurement."""
    deadline = time.monotonic() + bound_s
    while not line.search(_log_after(server, mark)) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert line.search(_log_after(server, mark)), _log_after(server, mark)[-3000:]


def _resident_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def _large_view(seed: int) -> str:
    """The issue's link (random tokens, then batch 4, at the dropout step), a seed per tab."""
    words = "+".join(random_words(4096, seed=seed))
    return f"/?text={words}&batch=4&dropout=0.5&step=dropout&seed={seed}"


def test_four_large_views_stay_in_the_budget_and_give_memory_back(
    streamlit_factory: StreamlitFactory, page: Page
) -> None:
    server = streamlit_factory(
        DEFAULT_APP,
        ("--server.disconnectedSessionTTL", "2"),
        env={
            "ATTENTION_LAB_MEMORY_BUDGET_MB": str(BUDGET_MB),
            "ATTENTION_LAB_MEMORY_WAIT_S": "10",
            **DEPLOYED_MALLOC,
        },
    )
    pid = server.process.pid
    open_app(page, server.url)  # the book's example: the pages' first run, then idle
    _leave(page)
    time.sleep(8)  # the session ends (2 s) and its release runs (3 s later)
    idle = _resident_mb(pid)

    peak, sampling = [idle], threading.Event()

    def sample() -> None:
        while not sampling.wait(0.2):
            peak[0] = max(peak[0], _resident_mb(pid))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    tabs = [page, *(page.context.new_page() for _ in range(3))]
    try:
        for seed, tab in enumerate(tabs, start=1):
            tab.goto(server.url + _large_view(seed), wait_until="commit")
        for tab in tabs:
            tab.wait_for_selector(APP_SELECTOR, state="attached", timeout=APPEAR_MS)
            wait_settled(tab, timeout=APPEAR_MS * 2)
    finally:
        sampling.set()
        sampler.join()
    for tab in tabs:
        assert_no_exception(tab)
        assert ".py" not in tab.locator("[data-testid='stMain']").inner_text()
    assert peak[0] < idle + BUDGET_MB, (peak[0], idle)
    refused = [
        tab for tab in tabs if tab.get_by_text("This view is not computed", exact=False).count()
    ]
    assert 1 <= len(refused) <= 3  # one view fits; the others waited, then were told why
    expect(refused[0].get_by_text(f"{BUDGET_MB:,} MB", exact=False)).to_be_visible()
    expect(refused[0].get_by_text("Waiting for memory", exact=False)).to_have_count(0)
    for tab in refused:  # each fits the budget alone: it waited its turn, then was told why
        expect(tab.get_by_text("Try again in a minute", exact=False)).to_be_visible()

    for tab in tabs[1:]:
        tab.close()
    _leave(page)
    deadline = time.monotonic() + 60  # a hang guard: the release comes seconds after the TTL
    while _resident_mb(pid) > idle + NEAR_IDLE_MB and time.monotonic() < deadline:
        time.sleep(1)
    assert _resident_mb(pid) <= idle + NEAR_IDLE_MB, (_resident_mb(pid), idle)


def _press_train(page: Page) -> None:
    page.locator(".st-key-train_run button").click()
    expect(page.locator("[data-testid='stProgress']")).to_be_visible(timeout=APPEAR_MS)


def _leave(page: Page) -> None:
    """Close the tab's websocket (Streamlit ends its session); the worker's shared tab stays open."""
    page.goto("about:blank")


def test_the_last_sessions_end_releases_memory(
    streamlit_factory: StreamlitFactory, page: Page
) -> None:
    server = streamlit_factory(DEFAULT_APP, ("--server.disconnectedSessionTTL", "1"))
    mark = len(server.read_log())
    # The smallest large trace (one head, batch 1: T² cells just over the large caches'
    # threshold), cached until released. The export page computes it and draws little of
    # it (the step page would draw every matrix: twice the browser's work).
    words = "+".join(random_words(math.isqrt(LARGE_TRACE_CELLS) + 1))
    page.goto(f"{server.url}/export?text={words}", wait_until="commit")
    page.wait_for_selector(APP_SELECTOR, state="attached", timeout=60_000)
    wait_settled(page, timeout=APPEAR_MS)
    assert not RELEASED.search(_log_after(server, mark))
    _leave(page)
    _wait_for_line(server, mark, RELEASED, 90)
    _wait_for_line(server, mark, SESSION_LINES[-1], 30)  # the TTL (1 s) is long past
    log = _log_after(server, mark)
    found = [line.search(log) for line in SESSION_LINES]
    assert all(found) and len({match.group(1) for match in found}) == 1, log[-3000:]
    assert found[0].start() < found[1].start() < found[2].start(), log[-3000:]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_closed_tabs_running_trainings_end_within_seconds_and_a_newcomer_trains_at_once(
    streamlit_factory: StreamlitFactory, page: Page
) -> None:
    server = streamlit_factory(DEFAULT_APP)  # sessions outlive their tabs by 120 s
    mark = len(server.read_log())
    tabs = [page, page.context.new_page()]  # two trainings: both workers busy
    for tab, seed in zip(tabs, (101, 102), strict=True):
        open_app(tab, server.url, f"{LARGEST}&train_seed={seed}")
    for tab in tabs:
        _press_train(tab)
    deadline = time.monotonic() + APPEAR_MS / 1000
    while len(STARTED.findall(_log_after(server, mark))) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    workers = {int(pid) for _job, pid in STARTED.findall(_log_after(server, mark))}
    assert len(workers) == 2 and server.process.pid not in workers, "each in its own process"
    assert all(_alive(pid) for pid in workers)

    closed = time.monotonic()
    tabs[1].close()
    _leave(page)
    while (
        len(CANCELLED.findall(_log_after(server, mark))) < 2 or any(map(_alive, workers))
    ) and time.monotonic() - closed < CLOSED_TAB_S:
        time.sleep(0.1)
    assert len(CANCELLED.findall(_log_after(server, mark))) == 2, _log_after(server, mark)[-3000:]
    assert not any(map(_alive, workers)), "the workers were killed"

    # A newcomer's short training starts at once: nothing trains for the closed tabs.
    open_app(page, server.url, "/train?train_steps=50&train_seed=104")
    page.locator(".st-key-train_run button").click()
    heading = page.get_by_role("heading", name=t("train.maps.title"))
    expect(heading).to_be_visible(timeout=APPEAR_MS)
    wait_settled(page, timeout=APPEAR_MS)
    assert_no_exception(page)
    assert "Traceback" not in _log_after(server, mark)
