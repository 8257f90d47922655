"""A class leaves: closed tabs give back the server's memory, and their trainings' workers end.

Streamlit ends a session's resources when its websocket closes; the app's session marker then
schedules :func:`ui.memory.release_memory`, which logs what it did on the server's console. A
closed tab's running training is killed once its tab has been gone ``ui.memory.AWAY_S`` seconds,
long before its session ends (Streamlit's default ``server.disconnectedSessionTTL``, 120 s).

Leaving a page closes its websocket just as closing the tab does, so the worker's shared tab leaves
by going to ``about:blank``; the other tabs are pages of its context (each its own websocket, so
its own Streamlit session). The trainings asked for are the largest the page allows (hours of
work), so the test passes only if the server stops them.
"""

from __future__ import annotations

import math
import os
import re
import time

from playwright.sync_api import Page, expect

from tests.e2e.conftest import StreamlitFactory
from tests.e2e.helpers import APP_SELECTOR, assert_no_exception, open_app, wait_settled
from tests.e2e.server import DEFAULT_APP, StreamlitServer
from ui.computation import LARGE_TRACE_CELLS
from ui.i18n import t
from ui.table_state import random_words

APPEAR_MS = 120_000
RELEASED = re.compile(
    r"Released memory after sessions ended: \d+ MB -> \d+ MB \(collected \d+ objects, "
    r"large traces dropped: True, malloc_trim: True\)"
)
STARTED = re.compile(r"event=training_started job=(\d+) slot=train pid=(\d+)")
CANCELLED = re.compile(r"event=training_stopped job=(\d+) slot=train why=cancelled")
CLOSED_TAB_S = 10  # the promise: a closed tab's running training ends within this
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
