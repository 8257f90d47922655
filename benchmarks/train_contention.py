"""Does a student on another page still get answers while the class trains?

Usage (from the repository root; needs Playwright and /usr/bin/chromium, like the browser tests)::

    python benchmarks/train_contention.py                        # copy task, 3 trainings, 10 steps
    python benchmarks/train_contention.py --task text --reruns 12
    python benchmarks/train_contention.py --train-threads 2      # trainings with 2 torch threads
    python benchmarks/train_contention.py --train-nice 0         # trainings at normal priority

Starts one real ``streamlit run`` server. A "student" opens the default page (Attention, step by
step) in headless Chromium and presses → on the dropout slider ``--reruns`` times (0.00 → 0.01 →
…): each press is one rerun, timed from the key press to the page settled again (script idle and
the DOM quiet for 300 ms; the time of the last change counts, as in ``page_load.py``). That is
done three times, in this order:

1. **idle**: nothing else runs on the server;
2. **busy**: ``--trainings`` (3) other browser sessions have each pressed Train on /train with
   ``--train-steps`` steps and different seeds (so nothing is shared or cached): two run on the
   server's training queue, the third waits with its place in the queue shown;
3. **idle again** after all are stopped (brackets drift in the machine's load).

It prints the median rerun time of each round, the ratio busy ÷ idle (idle = the median of both
idle rounds), what the third training's page said about its place, and the load average before
and after. ``--json FILE`` keeps the raw times. The browsers run on the same cores as the server
in every round, so the ratio is the robust figure.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from playwright.sync_api import Browser, Page, sync_playwright  # noqa: E402

from benchmarks.page_load import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    VIEWPORT,
    WATCH_JS,
    machine,
    wait_settled,
)
from tests.e2e.server import start_streamlit  # noqa: E402

QUIET_MS = 300
TIMEOUT_S = 120
SLIDER_NAME = re.compile("Dropout rate")


def open_student(browser: Browser, base_url: str) -> Page:
    context = browser.new_context(viewport=VIEWPORT)
    context.add_init_script(WATCH_JS)
    page = context.new_page()
    page.goto(base_url + "/", wait_until="commit", timeout=TIMEOUT_S * 1000)
    if wait_settled(page, 0.0, QUIET_MS, TIMEOUT_S) is None:
        raise RuntimeError("the default page did not settle")
    return page


def reruns(page: Page, count: int, direction: str) -> list[float]:
    """Press ``direction`` on the dropout slider ``count`` times; seconds to settled for each."""
    times: list[float] = []
    slider = page.get_by_role("slider", name=SLIDER_NAME).first
    for _ in range(count):
        slider.focus()
        mark = page.evaluate("() => performance.now()")
        page.keyboard.press(direction)
        seconds = wait_settled(page, mark, QUIET_MS, TIMEOUT_S)
        if seconds is None:
            raise RuntimeError("a rerun did not settle")
        times.append(seconds)
    return times


def start_trainings(browser: Browser, base_url: str, args: argparse.Namespace) -> list[Page]:
    pages = []
    for index in range(args.trainings):
        page = browser.new_context(viewport=VIEWPORT).new_page()
        query = f"train_task={args.task}&train_steps={args.train_steps}&train_seed={900 + index}"
        page.goto(f"{base_url}/train?{query}", wait_until="domcontentloaded")
        page.locator(".st-key-train_run button").wait_for(timeout=TIMEOUT_S * 1000)
        page.wait_for_selector(
            "[data-testid='stApp'][data-test-script-state='notRunning']", timeout=TIMEOUT_S * 1000
        )
        page.locator(".st-key-train_run button").click()
        page.get_by_test_id("stProgress").wait_for(timeout=TIMEOUT_S * 1000)
        pages.append(page)
    return pages


def queue_text(page: Page) -> str:
    try:
        return page.get_by_text(re.compile("in the queue")).first.inner_text(timeout=20_000)
    except Exception:  # noqa: BLE001 - reported as not seen
        return "(no place in the queue shown)"


def training_status(page: Page) -> str:
    """The status line a training page shows now ("Training · step 400 of 20000 · 31 s")."""
    try:
        return page.get_by_text(re.compile(r"^Training · ")).first.inner_text(timeout=20_000)
    except Exception:  # noqa: BLE001 - reported as not seen
        return "(no status)"


def stop_trainings(pages: list[Page]) -> None:
    for page in pages:
        page.locator(".st-key-train_stop button").click()
    for page in pages:
        page.wait_for_selector(
            "[data-testid='stApp'][data-test-script-state='notRunning']", timeout=TIMEOUT_S * 1000
        )
        page.context.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--task", default="copy")
    parser.add_argument("--trainings", type=int, default=3)
    parser.add_argument("--train-steps", type=int, default=20000)
    parser.add_argument("--reruns", type=int, default=10)
    parser.add_argument("--train-threads", type=int, default=None)
    parser.add_argument("--train-nice", type=int, default=None)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    env = {}
    if args.train_nice is not None:
        env["ATTENTION_LAB_TRAIN_NICE"] = str(args.train_nice)
    if args.train_threads is not None:
        env["ATTENTION_LAB_TRAIN_THREADS"] = str(args.train_threads)
    load_before = os.getloadavg()
    with (
        start_streamlit(env=env, log_path="/tmp/train_contention_server.log") as server,
        sync_playwright() as pw,
    ):
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        student = open_student(browser, server.url)
        reruns(student, 2, "ArrowRight")  # warm-up: first figures, first trace cache entries
        idle = reruns(student, args.reruns, "ArrowRight")
        trainers = start_trainings(browser, server.url, args)
        time.sleep(2)
        place = queue_text(trainers[-1]) if args.trainings > 2 else "(no queue)"
        busy_start = time.monotonic()
        busy = reruns(student, args.reruns, "ArrowLeft")
        progress = [training_status(page) for page in trainers]
        busy_seconds = time.monotonic() - busy_start
        stop_trainings(trainers)
        idle_again = reruns(student, args.reruns, "ArrowRight")
        browser.close()
    load_after = os.getloadavg()
    idle_median = statistics.median(idle + idle_again)
    busy_median = statistics.median(busy)
    results = {
        "machine": machine(),
        "task": args.task,
        "trainings": args.trainings,
        "train_threads": args.train_threads or 1,
        "idle_s": idle,
        "busy_s": busy,
        "idle_again_s": idle_again,
        "queue_text": place,
        "train_nice": args.train_nice,
        "training_status": progress,
        "busy_round_s": busy_seconds,
        "load_before": load_before,
        "load_after": load_after,
    }
    print(f"machine: {results['machine']}")
    print(
        f"task {args.task}, {args.trainings} trainings, {results['train_threads']} thread(s) each"
    )
    print("| round | median rerun | reruns |")
    print("|---|---:|---:|")
    print(f"| idle | {statistics.median(idle):.2f} s | {len(idle)} |")
    print(f"| {args.trainings} trainings running | {busy_median:.2f} s | {len(busy)} |")
    print(f"| idle again | {statistics.median(idle_again):.2f} s | {len(idle_again)} |")
    print(f"busy ÷ idle: {busy_median / idle_median:.2f}×  (target ≤ 2×)")
    print(f"third training's page: {place}")
    print(f"trainings at the end of the busy round ({busy_seconds:.0f} s): {progress}")
    print(f"load average before {load_before}, after {load_after}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
