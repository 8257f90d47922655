"""A class of simulated students on one server: how long each rerun takes, and what it costs.

Usage (from the repository root)::

    python benchmarks/class_load.py --students 30 --seconds 60            # its own server
    python benchmarks/class_load.py --students 10 --tokens 1024 --json /tmp/class.json
    python benchmarks/class_load.py --students 30 --url http://127.0.0.1:8080   # e.g. deploy/serve.sh
    python benchmarks/class_load.py --students 300 --replicas 2   # starts deploy/serve.sh itself
    python benchmarks/class_load.py --students 10 --browsers 3              # + 3 real Chromium tabs
    python benchmarks/class_load.py --students 10 --trainings 2             # while 2 trainings run

Each student is a :class:`benchmarks.streamlit_protocol.StudentTab`: no browser, Streamlit's own
websocket protocol (the protobuf messages the browser sends and receives). Students arrive at
random moments of the first ``--ramp`` seconds (default: one interval) and open the app on the
same link (the book's six tokens, or ``--tokens T`` made-up words of ``ui.table_state.random_words``,
what "Random tokens" gives), the way a class follows the teacher's link. Then, every
``--interval`` seconds on average (uniformly 0.5 to 1.5 intervals apart, so they do not click in
step), each one changes a setting in turn: a new seed, a new dropout rate, a cell of the
embedding table (when the page shows the editor; otherwise a seed), the page (from the
step-by-step page to another page and back), and waits until the rerun has finished before the
next. A student whose rerun is slow clicks less often, as a real one would. Every student who
opened the app makes at least one change, even one whose page took until after ``--seconds``
to open (so a short class still measures each student's changes).

A rerun's *latency* is the time from sending the change to the server's ``script_finished``:
what a student waits before the page is complete (the browser adds its own drawing). A rerun is
an *error* if it does not finish within ``--timeout`` seconds, ends in an exception or an error
box, loses the connection, or if the URL the app writes from the session's state does not show
exactly this student's seed, dropout and cells (one session showing another's numbers).

Without ``--url`` the script starts its own ``streamlit run app.py`` on a free loopback port
(``tests/e2e/server.py``; with ``--replicas N``, ``deploy/serve.sh --replicas N``: N servers
behind nginx, their CPU and memory summed), opens one tab to warm it up (the first run imports the pages), and
reads the server's CPU time and memory from ``/proc`` over the measured part. "Server cores" is
its CPU time ÷ the wall time: one Streamlit process runs the pages' Python under one GIL, so it
cannot use much more than one core for them however many students there are.

``--browsers K`` adds K real headless Chromium tabs (Playwright, ``/usr/bin/chromium``) doing
the same kind of thing (alternately the dropout slider's arrow key and the seed's "+" button),
timed from the key press to Streamlit's ``data-test-script-state`` going back to
``notRunning``, and at the frame level (``rerun_script`` sent to ``script_finished`` received,
Playwright's websocket events): the comparison with the simulated students shows what share of a
browser's wait is the server's (``benchmarks/README.md``: the rest is the browser's own work).

``--trainings K`` first starts K trainings of "Train it" (K Chromium tabs on ``/train`` with their
own seeds and ``--train-steps`` steps, Train pressed; the server runs two at once and queues the
rest), then runs the class while they train, and stops them after; the JSON's
``training_steps_during_class`` gives the steps each made meanwhile (that they really ran).

The reference of each run, measured just before the class arrives: one student alone makes each
kind of change twice. The output gives the class's p50 and p95 as ratios to that student's
median (how much the class slows a change down).

The JSON (``--json FILE``) holds ``reruns``, ``errors``, ``p50_s``, ``p95_s``, ``max_s`` (over the
students' setting changes), ``alone_p50_s`` and the ratios ``p50_vs_alone``, ``p95_vs_alone``,
the same per kind of change and for the first page load (``open``),
the server's ``server_cpu_s``, ``server_cores``, ``server_cpu_per_run_s``, ``server_rss_mb`` (start and end) and
``server_peak_rss_mb`` when it started the server, the load average before and after, and this
script's own CPU time (it runs on the same machine).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import urllib.parse
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
SERVE_SCRIPT = REPO_ROOT / "deploy" / "serve.sh"
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from google.protobuf.message import DecodeError  # noqa: E402
from streamlit.proto.BackMsg_pb2 import BackMsg  # noqa: E402
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402

from benchmarks.page_load import CHROMIUM, CHROMIUM_ARGS, VIEWPORT, machine  # noqa: E402
from benchmarks.server_memory import cpu_seconds, memory_mb  # noqa: E402
from benchmarks.streamlit_protocol import FINISHED, RunFailed, RunResult, StudentTab, warm_up  # noqa: E402
from tests.e2e.helpers import SETTLED_SELECTOR  # noqa: E402
from tests.e2e.server import free_port, healthy, start_streamlit  # noqa: E402
from ui.i18n import t  # noqa: E402
from ui.table_state import random_words  # noqa: E402
from ui.train_jobs import QUEUE  # noqa: E402

BOOK_TOKENS = 6
STEP_PAGE = ""  # url path of the default page (the step-by-step page)
ACTIONS = ("seed", "dropout", "cell", "page")
MAX_ERROR_SAMPLES = 10


@dataclass(frozen=True)
class ClassPlan:
    """What the simulated class does."""

    students: int = 10
    seconds: float = 60.0  # no student's second or later change starts after this (from the start)
    interval: float = 10.0  # mean seconds between one student's changes
    tokens: int = BOOK_TOKENS
    ramp: float | None = None  # arrivals spread over this many seconds (None: one interval)
    timeout: float = 60.0  # a rerun that takes longer is an error
    browsers: int = 0
    trainings: int = 0  # "Train it" runs started in Chromium tabs before the class arrives
    train_steps: int = 20_000  # long enough to outlast the class (each is stopped at the end)
    seed: int = 0  # of the students' random choices

    @property
    def arrival_seconds(self) -> float:
        return self.interval if self.ramp is None else self.ramp

    def query(self) -> str:
        """The link the class opens: the book's example, or ``--tokens`` made-up words."""
        if self.tokens == BOOK_TOKENS:
            return ""
        return urllib.parse.urlencode(
            {"text": " ".join(random_words(self.tokens))}, quote_via=urllib.parse.quote
        )


@dataclass
class Tally:
    """Latencies by kind of run, and errors by kind of failure."""

    seconds: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: Counter[str] = field(default_factory=Counter)
    error_samples: list[str] = field(default_factory=list)
    bytes_received: int = 0
    finished: list[tuple[float, float]] = field(default_factory=list)  # (monotonic end, seconds)

    def ok(self, kind: str, result: RunResult) -> None:
        self.seconds[kind].append(result.seconds)
        self.bytes_received += result.bytes
        if kind != "open":
            self.finished.append((time.monotonic(), result.seconds))

    def p95_by_window(self, window_s: float = 10.0) -> list[float]:
        """The changes' p95 in each ``window_s`` of the run, by when they ended: a burst (the
        arrivals, a page's first run) shows in its window, a steady queue in all of them."""
        if not self.finished:
            return []
        start = min(end for end, _ in self.finished)
        windows: dict[int, list[float]] = defaultdict(list)
        for end, seconds in self.finished:
            windows[int((end - start) // window_s)].append(seconds)
        return [percentile(windows[index], 0.95) for index in range(max(windows) + 1)]

    def failed(self, kind: str, error: RunFailed) -> None:
        self.errors[error.kind] += 1
        if len(self.error_samples) < MAX_ERROR_SAMPLES:
            self.error_samples.append(f"{kind}: {error}"[:300])


def percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile: the smallest value with at least ``fraction`` of all at or below."""
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def summary(values: list[float]) -> dict[str, float | int]:
    return {
        "count": len(values),
        "p50_s": percentile(values, 0.50),
        "p95_s": percentile(values, 0.95),
        "max_s": max(values) if values else math.nan,
    }


# --- one simulated student ---------------------------------------------------------------------


def _new_cell_text(rng: random.Random, old: str | None) -> str:
    """A value with three decimals ending in 5 (never one of the book's two-decimal values)."""
    while True:
        text = f"{rng.choice((-1, 1)) * (rng.randrange(1, 100) / 100 + 0.005):.3f}"
        if text != old:
            return text


def _doable(kind: str, tab: StudentTab) -> str:
    """``kind``, or a seed change instead of a cell when the page has no table editor."""
    return "seed" if kind == "cell" and not tab.has_editor() else kind


async def _change(
    tab: StudentTab, kind: str, rng: random.Random, rows: int, other_pages: list[str]
) -> RunResult:
    """Make one change of ``kind`` with new random values; returns its run."""
    if kind == "seed":
        seed = tab.seed
        while seed == tab.seed:
            seed = rng.randrange(0, 2**31)
        return await tab.set_seed(seed)
    if kind == "dropout":
        choices = [p / 100 for p in range(0, 96) if abs(p / 100 - tab.dropout) > 1e-9]
        return await tab.set_dropout(rng.choice(choices))
    if kind == "cell":
        row, column = rng.randrange(min(6, rows)), rng.randrange(3)
        return await tab.edit_cell(row, column, _new_cell_text(rng, tab.cells.get((row, column))))
    target = rng.choice(other_pages) if tab.page == STEP_PAGE else STEP_PAGE
    return await tab.switch_page(target)


async def student(index: int, base_url: str, plan: ClassPlan, start: float, tally: Tally) -> None:
    """Arrive, open the app, then change one setting about every interval until time is up.

    The first change is made however late the page opened: a student who came makes one.
    """
    rng = random.Random(plan.seed * 100_003 + index)
    loop = asyncio.get_running_loop()
    await asyncio.sleep(rng.uniform(0, plan.arrival_seconds))
    tab = StudentTab(base_url, plan.query(), timeout_s=plan.timeout)
    try:
        try:
            tally.ok("open", await tab.open())
        except RunFailed as error:
            tally.failed("open", error)
            return
        other_pages = [path for path in tab.pages if path != STEP_PAGE]
        turn = rng.randrange(len(ACTIONS))
        next_at = loop.time() + rng.uniform(0.5, 1.5) * plan.interval
        first = True
        while True:
            await asyncio.sleep(max(0.0, next_at - loop.time()))
            if not first and loop.time() >= start + plan.seconds:
                return
            first = False
            kind = ACTIONS[turn % len(ACTIONS)]
            turn += 1
            kind = _doable(kind, tab)
            try:
                tally.ok(kind, await _change(tab, kind, rng, plan.tokens, other_pages))
            except RunFailed as error:
                tally.failed(kind, error)
                if error.kind in ("connection", "timeout"):
                    return  # a real student would reload; this one leaves, counted
            next_at = max(next_at + rng.uniform(0.5, 1.5) * plan.interval, loop.time())
    finally:
        await tab.close()


# --- real browsers beside them -----------------------------------------------------------------

_WATCH_SCRIPT_STATE = """
() => {
  window.__labStates = [];
  new MutationObserver((records) => {
    for (const record of records) {
      window.__labStates.push(
        [performance.now(), record.target.getAttribute("data-test-script-state")]);
    }
  }).observe(document.body,
             {attributes: true, subtree: true, attributeFilter: ["data-test-script-state"]});
}
"""
# Seconds from t0 until the first 'notRunning' that follows a run started after t0, or null.
_RUN_DONE_AFTER = """
(t0) => {
  const states = window.__labStates.filter((entry) => entry[0] >= t0);
  const started = states.findIndex((entry) => entry[1] !== "notRunning");
  if (started < 0) return null;
  const done = states.slice(started).find((entry) => entry[1] === "notRunning");
  return done ? (done[0] - t0) / 1000 : null;
}
"""


def _watch_frames(page: Any, sent: list[float], finished: list[float]) -> None:
    """Note when each ``rerun_script`` leaves the browser and each ``script_finished`` arrives.

    Playwright reports websocket frames from the browser's network stack, whatever the page's
    main thread is busy with: send to finish is what a simulated student measures, seen from a
    real browser.
    """
    loop = asyncio.get_running_loop()

    def on_sent(payload: bytes | str) -> None:
        message = BackMsg()
        with contextlib.suppress(DecodeError, TypeError):
            message.ParseFromString(payload)
            if message.WhichOneof("type") == "rerun_script":
                sent.append(loop.time())

    def on_received(payload: bytes | str) -> None:
        if not isinstance(payload, bytes) or len(payload) > 256:  # script_finished is tiny
            return
        message = ForwardMsg()
        with contextlib.suppress(DecodeError):
            message.ParseFromString(payload)
            if (
                message.WhichOneof("type") == "script_finished"
                and message.script_finished != FINISHED.FINISHED_EARLY_FOR_RERUN
            ):
                finished.append(loop.time())

    def on_websocket(websocket: Any) -> None:
        websocket.on("framesent", on_sent)
        websocket.on("framereceived", on_received)

    page.on("websocket", on_websocket)


def _seconds(seconds: float) -> RunResult:
    return RunResult(seconds=seconds, messages=0, bytes=0)


async def browser_student(
    index: int, browser: Any, base_url: str, plan: ClassPlan, start: float, tally: Tally
) -> None:
    """A real Chromium tab: the dropout slider's arrow key and the seed's "+" in turn.

    Each change is timed three ways: from the key press until the page's script state is
    ``notRunning`` again (``browser_dropout`` / ``browser_seed``: what the student waits); from
    the key press until the ``rerun_script`` frame leaves (``browser_press_to_send``: the
    widget's own delay and the page's busy main thread); from that frame until the
    ``script_finished`` frame arrives (``browser_network``: what a simulated student measures).
    """
    rng = random.Random(plan.seed * 100_003 + 50_000 + index)
    loop = asyncio.get_running_loop()
    await asyncio.sleep(rng.uniform(0, plan.arrival_seconds))
    context = await browser.new_context(viewport=VIEWPORT)
    page = await context.new_page()
    sent: list[float] = []
    finished: list[float] = []
    _watch_frames(page, sent, finished)
    timeout_ms = plan.timeout * 1000
    try:
        query = plan.query()
        await page.goto(base_url + "/" + (f"?{query}" if query else ""), timeout=timeout_ms)
        await page.wait_for_selector(SETTLED_SELECTOR, timeout=timeout_ms)
        await page.evaluate(_WATCH_SCRIPT_STATE)
        sidebar = page.get_by_test_id("stSidebar")
        slider = sidebar.get_by_role("slider", name=t("sidebar.dropout", "en"))
        seed_plus = (
            sidebar.get_by_test_id("stNumberInput")
            .filter(has_text=t("sidebar.seed", "en"))
            .get_by_test_id("stNumberInputStepUp")
        )
        turn, key = 0, "ArrowRight"
        next_at = loop.time() + rng.uniform(0.5, 1.5) * plan.interval
        first = True
        while True:
            await asyncio.sleep(max(0.0, next_at - loop.time()))
            if not first and loop.time() >= start + plan.seconds:
                return
            first = False
            kind = ("browser_dropout", "browser_seed")[turn % 2]
            turn += 1
            if kind == "browser_dropout":
                await slider.focus()
            page_t0 = await page.evaluate("() => performance.now()")
            loop_t0 = loop.time()
            if kind == "browser_dropout":
                await page.keyboard.press(key)
            else:
                await seed_plus.click()
            await page.wait_for_function(
                _RUN_DONE_AFTER, arg=page_t0, timeout=timeout_ms, polling=20
            )
            seconds = await page.evaluate(_RUN_DONE_AFTER, page_t0)
            if await page.get_by_test_id("stException").count():
                tally.failed(kind, RunFailed("exception", "an exception box in the browser"))
            else:
                tally.ok(kind, _seconds(seconds))
                sends = [moment for moment in sent if moment > loop_t0]
                if sends:
                    tally.ok("browser_press_to_send", _seconds(sends[0] - loop_t0))
                    arrived = [moment for moment in finished if moment > sends[0]]
                    if arrived:
                        tally.ok("browser_network", _seconds(arrived[0] - sends[0]))
            if kind == "browser_dropout":
                value = float(await slider.get_attribute("aria-valuenow") or 0)
                key = "ArrowLeft" if value >= 0.9 else "ArrowRight" if value <= 0.05 else key
            next_at = max(next_at + rng.uniform(0.5, 1.5) * plan.interval, loop.time())
    except Exception as error:  # noqa: BLE001 - a Playwright timeout or a closed page: counted
        tally.failed("browser", RunFailed("browser", repr(error)))
    finally:
        await context.close()


# --- trainings running beside the class ----------------------------------------------------------

_TRAIN_STEP = re.compile(r"step (\d+) of (\d+)")


async def _training_step(page: Any) -> int | None:
    """The step the tab's progress line shows ("step 812 of 20000"), or None if none is shown."""
    with contextlib.suppress(Exception):  # the line is being redrawn: not seen this time
        texts = await page.get_by_text(_TRAIN_STEP).all_inner_texts()
        steps = [int(m.group(1)) for text in texts if (m := _TRAIN_STEP.search(text))]
        return max(steps) if steps else None
    return None


async def start_trainings(browser: Any, base_url: str, plan: ClassPlan) -> list[Any]:
    """``plan.trainings`` tabs on ``/train``, each with its own seed, Train pressed.

    The Train page runs at most ``ui.train_jobs.QUEUE.max_running`` trainings at once (the others wait
    in its queue), in threads of the same server process as the students' pages, at a low CPU
    priority. Returns the tabs once every one shows its progress bar and the running ones (the
    first ``max_running``) have shown a step above 0.
    """
    timeout_ms = plan.timeout * 1000
    pages = []
    for index in range(plan.trainings):
        context = await browser.new_context(viewport=VIEWPORT)
        page = await context.new_page()
        query = f"train_steps={plan.train_steps}&train_seed={plan.seed * 1000 + 700 + index}"
        await page.goto(f"{base_url}/train?{query}", timeout=timeout_ms)
        await page.wait_for_selector(SETTLED_SELECTOR, timeout=timeout_ms)
        await page.locator(".st-key-train_run button").click()
        await page.get_by_test_id("stProgress").wait_for(timeout=timeout_ms)
        pages.append(page)
    for page in pages[
        : QUEUE.max_running
    ]:  # the ones not queued: wait until each has trained a step
        deadline = asyncio.get_running_loop().time() + plan.timeout
        while not await _training_step(page):
            if asyncio.get_running_loop().time() > deadline:
                raise RunFailed("timeout", f"a training showed no step after {plan.timeout:g} s")
            await asyncio.sleep(0.5)
    return pages


async def stop_trainings(pages: list[Any], timeout_s: float) -> list[int | None]:
    """The step each training had reached, then Stop pressed and the tab closed."""
    reached = [await _training_step(page) for page in pages]
    for page in pages:
        with contextlib.suppress(Exception):  # a finished training has no Stop to press
            await page.locator(".st-key-train_stop button").click(timeout=timeout_s * 1000)
    for page in pages:
        with contextlib.suppress(Exception):
            await page.wait_for_selector(SETTLED_SELECTOR, timeout=timeout_s * 1000)
        await page.context.close()
    return reached


# --- the class -----------------------------------------------------------------------------------


async def run_class(base_url: str, plan: ClassPlan) -> dict[str, Any]:
    """Run the class against ``base_url``; returns the tally as a JSON-ready dict."""
    tally = Tally()
    loop = asyncio.get_running_loop()
    playwright = browser = None
    training_pages: list[Any] = []
    reached: list[int | None] = []
    steps_at_start: list[int | None] = []
    if plan.browsers or plan.trainings:
        from playwright.async_api import async_playwright

        playwright = await async_playwright().start()
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    try:
        if plan.trainings:
            training_pages = await start_trainings(browser, base_url, plan)
            steps_at_start = [await _training_step(page) for page in training_pages]
        start = loop.time()
        tasks = [student(i, base_url, plan, start, tally) for i in range(plan.students)]
        tasks += [
            browser_student(i, browser, base_url, plan, start, tally) for i in range(plan.browsers)
        ]
        await asyncio.gather(*tasks)
        if training_pages:
            reached = await stop_trainings(training_pages, plan.timeout)
    finally:
        if browser is not None:
            await browser.close()
        if playwright is not None:
            await playwright.stop()
    wall = loop.time() - start
    changes = [s for kind in ACTIONS for s in tally.seconds.get(kind, [])]
    errors = sum(tally.errors.values())
    result: dict[str, Any] = {
        "students": plan.students,
        "browsers": plan.browsers,
        "trainings": plan.trainings,
        "tokens": plan.tokens,
        "interval_s": plan.interval,
        "seconds": plan.seconds,
        "wall_s": wall,
        "reruns": len(changes),
        "errors": errors,
        "errors_by_kind": dict(tally.errors),
        "error_samples": tally.error_samples,
        **summary(changes),
        "reruns_per_s": len(changes) / wall if wall else math.nan,
        "opens": len(tally.seconds.get("open", [])),
        "by_kind": {kind: summary(values) for kind, values in sorted(tally.seconds.items())},
        "mb_received": tally.bytes_received / 1e6,
        "p95_by_10s_s": tally.p95_by_window(),
    }
    if plan.trainings:
        # Steps each training made while the class ran (None: its progress line was not read).
        result["training_steps_at_start"] = steps_at_start
        result["training_steps_during_class"] = [
            None if a is None or b is None else b - a
            for a, b in zip(steps_at_start, reached, strict=True)
        ]
    if plan.browsers:
        settled = tally.seconds.get("browser_dropout", []) + tally.seconds.get("browser_seed", [])
        result["browser"] = summary(settled)
        for part in ("browser_press_to_send", "browser_network"):
            result[part] = summary(tally.seconds.get(part, []))
    return result


async def alone(base_url: str, plan: ClassPlan) -> list[float]:
    """The reference: one student alone makes each kind of change twice; their latencies."""
    rng = random.Random(plan.seed - 1)
    tab = StudentTab(base_url, plan.query(), timeout_s=plan.timeout)
    seconds = []
    try:
        await tab.open()
        other_pages = [path for path in tab.pages if path != STEP_PAGE]
        for kind in ACTIONS * 2:
            run = await _change(tab, _doable(kind, tab), rng, plan.tokens, other_pages)
            seconds.append(run.seconds)
    finally:
        await tab.close()
    return seconds


def _with_reference(result: dict[str, Any], reference: list[float]) -> dict[str, Any]:
    median = percentile(reference, 0.5)
    result.update(
        alone_p50_s=median,
        p50_vs_alone=result["p50_s"] / median,
        p95_vs_alone=result["p95_s"] / median,
    )
    return result


@contextlib.contextmanager
def own_server(replicas: int) -> Iterator[tuple[str, list[int]]]:
    """The app on a free loopback port: one ``streamlit run`` (``replicas`` 0), or ``replicas``
    servers behind nginx started by ``deploy/serve.sh`` (as a teacher would run them). Yields the
    URL the students open and the PIDs of the app servers (whose CPU and memory are read)."""
    if replicas == 0:
        with start_streamlit() as server:
            yield server.url, [server.process.pid]
        return
    port = free_port()
    log = tempfile.TemporaryFile()
    command = ["bash", str(SERVE_SCRIPT), "--replicas", str(replicas), "--port", str(port)]
    process = subprocess.Popen(
        [*command, "--host", "127.0.0.1"], stdout=log, stderr=subprocess.STDOUT
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60.0 + 60.0 * replicas
        while not healthy(url):
            if process.poll() is not None or time.monotonic() > deadline:
                log.seek(0)
                raise RuntimeError(f"deploy/serve.sh did not start:\n{log.read().decode()}")
            time.sleep(0.5)
        yield url, _children(process.pid, "streamlit")
    finally:
        process.terminate()  # serve.sh stops nginx and every replica
        process.wait(timeout=60)
        log.close()


def _children(parent: int, word: str) -> list[int]:
    """PIDs of ``parent``'s child processes whose command line holds ``word``."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            command = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            if int(fields[1]) == parent and word in command:
                found.append(int(stat.parent.name))
    return sorted(found)


def measure(plan: ClassPlan, url: str | None, replicas: int = 0) -> dict[str, Any]:
    """Warm up, measure the lone student, run the class; the servers' CPU and memory if ours."""
    load_before = os.getloadavg()
    client_cpu = time.process_time()
    if url is not None:
        warm_up(url)
        reference = asyncio.run(alone(url, plan))
        result = _with_reference(asyncio.run(run_class(url, plan)), reference)
        result["url"] = url
    else:
        with own_server(replicas) as (own_url, pids):
            warm_up(own_url)
            reference = asyncio.run(alone(own_url, plan))
            cpu_start = sum(cpu_seconds(pid) for pid in pids)
            memory_start = [memory_mb(pid) for pid in pids]
            wall_start = time.monotonic()
            result = _with_reference(asyncio.run(run_class(own_url, plan)), reference)
            cpu = sum(cpu_seconds(pid) for pid in pids) - cpu_start
            wall = time.monotonic() - wall_start
            memory_end = [memory_mb(pid) for pid in pids]
        result.update(
            servers=len(pids),
            server_cpu_s=cpu,
            server_cores=cpu / wall,
            server_cpu_per_run_s=cpu / max(1, result["reruns"] + result["opens"]),
            server_rss_mb={
                "start": sum(m["VmRSS"] for m in memory_start),
                "end": sum(m["VmRSS"] for m in memory_end),
            },
            server_peak_rss_mb=sum(m["VmHWM"] for m in memory_end),
        )
    result.update(
        client_cpu_s=time.process_time() - client_cpu,
        load_average={"before": load_before, "after": os.getloadavg()},
        machine=machine(),
    )
    return result


def _format(result: dict[str, Any]) -> str:
    lines = [
        f"{result['students']} students, {result['tokens']} tokens, a change every "
        f"{result['interval_s']:g} s for {result['seconds']:g} s: {result['reruns']} reruns "
        f"({result['reruns_per_s']:.2f}/s), {result['errors']} errors",
        f"  p50 {result['p50_s']:.3f} s   p95 {result['p95_s']:.3f} s   max {result['max_s']:.3f} s"
        f"   (one student alone: p50 {result['alone_p50_s']:.3f} s; the class's p50 "
        f"{result['p50_vs_alone']:.1f}x, p95 {result['p95_vs_alone']:.1f}x that)",
    ]
    lines.append(
        "  p95 by 10 s of the run: "
        + " ".join(f"{value:.2f}" for value in result.get("p95_by_10s_s", []))
        + f" s; received {result['mb_received']:.1f} MB"
    )
    for kind, stats in result["by_kind"].items():
        lines.append(
            f"  {kind:16s} n={stats['count']:4d}  p50 {stats['p50_s']:.3f} s  "
            f"p95 {stats['p95_s']:.3f} s  max {stats['max_s']:.3f} s"
        )
    if "server_cpu_s" in result:
        lines.append(
            f"  {'server' if result['servers'] == 1 else str(result['servers']) + ' servers'}: "
            f"{result['server_cpu_s']:.1f} s CPU ({result['server_cores']:.2f} cores, "
            f"{result['server_cpu_per_run_s']:.3f} s per run), RSS "
            f"{result['server_rss_mb']['start']:.0f} -> {result['server_rss_mb']['end']:.0f} MB, "
            f"peak {result['server_peak_rss_mb']:.0f} MB"
        )
    before, after = result["load_average"]["before"], result["load_average"]["after"]
    lines.append(
        f"  load average {before[0]:.2f} before, {after[0]:.2f} after; this script used "
        f"{result['client_cpu_s']:.1f} s CPU"
    )
    for sample in result["error_samples"]:
        lines.append(f"  error: {sample}")
    return "\n".join(lines)


def _strict(value: Any) -> Any:
    """NaN (a percentile of no runs) as null, so the JSON file is strict JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _strict(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_strict(item) for item in value]
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=ClassPlan.students)
    parser.add_argument("--seconds", type=float, default=ClassPlan.seconds)
    parser.add_argument("--interval", type=float, default=ClassPlan.interval)
    parser.add_argument("--tokens", type=int, default=ClassPlan.tokens)
    parser.add_argument(
        "--ramp", type=float, default=None, help="arrivals over (default: interval)"
    )
    parser.add_argument("--timeout", type=float, default=ClassPlan.timeout)
    parser.add_argument("--browsers", type=int, default=0, help="real Chromium tabs beside them")
    parser.add_argument(
        "--trainings", type=int, default=0, help='"Train it" runs started before the class'
    )
    parser.add_argument("--train-steps", type=int, default=ClassPlan.train_steps)
    parser.add_argument("--seed", type=int, default=0, help="of the students' random choices")
    parser.add_argument("--url", default=None, help="a running app (default: start one)")
    parser.add_argument(
        "--replicas",
        type=int,
        default=0,
        help="start this many app servers behind nginx (deploy/serve.sh) instead of one",
    )
    parser.add_argument("--json", type=Path, default=None, help="write the results here")
    args = parser.parse_args(argv)
    plan = ClassPlan(
        students=args.students,
        seconds=args.seconds,
        interval=args.interval,
        tokens=args.tokens,
        ramp=args.ramp,
        timeout=args.timeout,
        browsers=args.browsers,
        trainings=args.trainings,
        train_steps=args.train_steps,
        seed=args.seed,
    )
    result = measure(plan, args.url.rstrip("/") if args.url else None, args.replicas)
    print(_format(result))
    if args.json is not None:
        text = json.dumps(_strict(result), indent=2, allow_nan=False, default=str)
        args.json.write_text(text + "\n", encoding="utf-8")
        print(f"wrote {args.json}")
    return 1 if result["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
