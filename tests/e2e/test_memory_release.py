"""A real browser closes its tab: the server releases memory (see ui/memory.py).

Streamlit ends a session's resources when its websocket closes; the app's session marker then
schedules :func:`ui.memory.release_memory`, which logs what it did on the server's console. A
closed tab's training stops only when its session ends, later: its end asks for a release again.
"""

from __future__ import annotations

import re
import time

from playwright.sync_api import Browser, expect

from tests.e2e.conftest import VIEWPORT, StreamlitFactory
from tests.e2e.helpers import APP_SELECTOR, open_app, wait_settled
from tests.e2e.server import DEFAULT_APP
from ui.table_state import random_words

RELEASED = re.compile(
    r"Released memory after sessions ended: \d+ MB -> \d+ MB \(collected \d+ objects, "
    r"large traces dropped: True, malloc_trim: True\)"
)


def test_closing_the_last_session_releases_memory_on_the_server(
    streamlit_factory: StreamlitFactory, browser: Browser
) -> None:
    server = streamlit_factory(DEFAULT_APP)
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    words = "+".join(random_words(300))  # a large trace (300² cells), cached until released
    page.goto(f"{server.url}/?text={words}", wait_until="commit")
    page.wait_for_selector(APP_SELECTOR, state="attached", timeout=60_000)
    wait_settled(page, timeout=120_000)
    assert not RELEASED.search(server.read_log())
    context.close()  # the websocket closes: Streamlit ends the session

    deadline = time.monotonic() + 90  # bounds the wait; nothing here is a measurement
    while not RELEASED.search(server.read_log()) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert RELEASED.search(server.read_log()), server.read_log()[-3000:]


JOB_RELEASED = re.compile(
    r"Released memory after a job ended with nobody watching: (\d+) MB -> (\d+) MB"
)
LARGEST = "/train?train_task=sort&train_layers=4&train_heads=8&train_width=256&train_steps=20000"


def test_a_closed_tabs_training_stops_and_then_its_memory_is_given_back(
    streamlit_factory: StreamlitFactory, browser: Browser
) -> None:
    # sessions end 2 s after their tab closes; the training (hours of work) stops then
    server = streamlit_factory(DEFAULT_APP, ("--server.disconnectedSessionTTL", "2"))
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    open_app(page, server.url, LARGEST)
    page.locator(".st-key-train_run button").click()
    expect(page.locator("[data-testid='stProgress']")).to_be_visible(timeout=120_000)
    assert not JOB_RELEASED.search(server.read_log())
    context.close()

    deadline = time.monotonic() + 120  # bounds the wait; nothing here is a measurement
    while not JOB_RELEASED.search(server.read_log()) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert JOB_RELEASED.search(server.read_log()), server.read_log()[-3000:]
