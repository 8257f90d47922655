"""How the Train page's jobs are bounded: one job's time, its size on the pipe, a class that leaves.

Usage (from the repository root)::

    python benchmarks/bounded_training.py sizes         # what the largest outcomes weigh as data
    python benchmarks/bounded_training.py budget        # the largest training under the budget
    python benchmarks/bounded_training.py worker        # a short training in-process vs a worker
    python benchmarks/bounded_training.py tabs --tabs 15  # 15 tabs train the largest, then close
    python benchmarks/bounded_training.py rss --root DIR  # the server's memory around a training
    python benchmarks/bounded_training.py closed --root DIR  # a closed tab's trainings: time to stop

- ``sizes``: trains the largest model of each task for a few steps (a model's size does not depend
  on its steps) and prints the bytes its outcome is on the worker's pipe (pickled plain data), and
  the text task with a 1 MB upload.
- ``budget``: runs the largest training the page allows in a worker with the page's
  ``JOB_BUDGET``, and prints the worker's CPU seconds, the wall-clock seconds, the steps done.
- ``worker``: the same short training (copy, 300 steps) in this process and in a worker of a
  ``JobPool`` at the same priority (its first job starts the forkserver; later ones fork
  it), alternated; prints
  the medians and their ratio, and this process's resident memory after the worker's training.
- ``rss``: a real server of the tree at ``--root`` (another checkout, to compare designs) and one
  tab that trains the page's default (copy, 300 steps; ``--query "&train_task=text"`` for
  others) three times with seeds 1, 2, 3; prints the
  server's resident memory after the first visit, after each training's results are drawn
  (+3 s), and 20 s after the tab closed (``server.disconnectedSessionTTL`` 2 s).
- ``closed``: a real server of the tree at ``--root`` (Streamlit's default session TTL, 120 s) and
  two tabs that train the largest settings; once both workers run, the tabs leave; prints the
  seconds until both workers are gone (a zombie counts as gone: its memory is back) and the
  server's resident memory before and after.
- ``tabs``: a real server (``server.disconnectedSessionTTL`` 2 s) and ``--tabs`` Chromium tabs
  that each press Train on the largest settings with their own seed, then close together. Prints
  the server's resident memory (``VmRSS``) before, with the tabs training, and after they left;
  then a newcomer's 50-step training: the seconds from its click to its results.
"""

from __future__ import annotations

import argparse
import pickle
import statistics
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from attention.training import LIMITS, TrainConfig, train  # noqa: E402
from ui.jobs import JobPool  # noqa: E402
from ui.train_jobs import JOB_BUDGET, QUEUE, TRAIN_THREADS, outcome_of, run_job  # noqa: E402

LARGEST = {"layers": LIMITS["layers"][1], "heads": LIMITS["heads"][1], "width": LIMITS["width"][1]}
LARGEST_URL = (
    "/train?train_task=sort&train_layers={layers}&train_heads={heads}&train_width={width}"
    "&train_steps={steps}".format(steps=LIMITS["steps"][1], **LARGEST)
)


def outcome_sizes() -> None:
    upload = ("A story of a lamp that turns. " * 40_000)[:1_000_000]
    for task, text in (("copy", None), ("sort", None), ("induction", None), ("text", None),
                       ("text", upload)):  # fmt: skip
        cfg = TrainConfig(task=task, steps=3, log_every=3, text=text, **LARGEST)
        size = len(pickle.dumps(outcome_of(train(cfg))))
        name = task + (" (1 MB upload)" if text else "")
        print(f"{name:24} {size / 2**20:7.2f} MiB on the pipe")
    print(f"the server keeps the {QUEUE.max_cached} most recently used outcomes")


def run_budget() -> None:
    cfg = TrainConfig(task="sort", steps=LIMITS["steps"][1], **LARGEST).resolved()
    queue = JobPool(run_job, budget=JOB_BUDGET, preload=("ui.train_jobs", "torch._dynamo"))
    start = time.perf_counter()
    job = queue.submit(cfg, "benchmark")
    job.wait()
    wall = time.perf_counter() - start
    result = job.outcome.result
    print(f"budget: {JOB_BUDGET.cpu_seconds:g} s CPU, {JOB_BUDGET.wall_seconds:g} s wall")
    print(f"largest training: stop reason {job.stop_reason}, {result.steps_done} of {cfg.steps}")
    print(f"worker CPU {result.cpu_seconds:.1f} s while training, wall {wall:.1f} s in all")
    print(f"{result.steps_done / result.cpu_seconds:.2f} steps per CPU second while training")


def run_worker(repeats: int = 5) -> None:
    cfg = TrainConfig(task="copy", seed=1).resolved()
    # nice 0 as this process: the figure is the process's cost, not the priority's (the app runs
    # its workers at ATTENTION_LAB_TRAIN_NICE, so pages come first on a busy machine)
    queue = JobPool(run_job, budget=JOB_BUDGET, preload=("ui.train_jobs", "torch._dynamo"))
    torch.set_num_threads(TRAIN_THREADS)
    start = time.perf_counter()
    first = queue.submit(cfg, "first")  # starts the forkserver (imports torch once)
    first.wait()
    print(f"first job (forkserver start): {time.perf_counter() - start:.2f} s")
    here, there = [], []
    for repeat in range(repeats):
        key = replace(cfg, seed=100 + repeat)
        start = time.perf_counter()
        outcome_of(train(key))
        here.append(time.perf_counter() - start)
        start = time.perf_counter()
        job = queue.submit(key, repeat)
        job.wait()
        there.append(time.perf_counter() - start)
    print(f"in-process: median {statistics.median(here):.2f} s  {[round(s, 2) for s in here]}")
    print(f"in a worker: median {statistics.median(there):.2f} s  {[round(s, 2) for s in there]}")
    print(f"worker / in-process: {statistics.median(there) / statistics.median(here):.2f}")


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def run_tabs(tabs: int) -> None:
    from playwright.sync_api import expect, sync_playwright

    from tests.e2e.server import start_streamlit

    launch = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
              "--disable-background-networking", "--disable-component-update", "--disable-sync"]  # fmt: skip
    with start_streamlit(ROOT / "app.py", ("--server.disconnectedSessionTTL", "2")) as server:
        pid = server.process.pid
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=launch)
            print(f"server before: {_rss_mb(pid):.0f} MB")
            contexts, refused = [], 0
            for seed in range(tabs):
                context = browser.new_context(viewport={"width": 1400, "height": 1000})
                page = context.new_page()
                page.goto(f"{server.url}{LARGEST_URL}&train_seed={7000 + seed}")
                page.locator(".st-key-train_run button").click(timeout=120_000)
                full = page.get_by_text("The training queue is full")
                answered = page.locator("[data-testid='stProgress']").or_(full)
                expect(answered.first).to_be_visible(timeout=120_000)
                refused += full.count() > 0
                contexts.append(context)
            time.sleep(10)
            print(
                f"{tabs} tabs pressed Train: {tabs - refused} queued or running, {refused} told "
                "the queue is full"
            )
            print(f"server with {tabs} tabs training: {_rss_mb(pid):.0f} MB")
            for context in contexts:
                context.close()
            time.sleep(40)  # the sessions end (2 s) and the memory releases run (3 s, 30 s)
            print(f"server 40 s after the tabs closed: {_rss_mb(pid):.0f} MB")
            page = browser.new_context().new_page()
            page.goto(f"{server.url}/train?train_steps=50&train_seed=99")
            page.locator(".st-key-train_run button").click(timeout=120_000)
            start = time.perf_counter()
            expect(page.get_by_text("Held-out accuracy")).to_be_visible(timeout=600_000)
            print(
                f"a newcomer's 50-step training: results after {time.perf_counter() - start:.1f} s"
            )
            browser.close()
        log = server.read_log()
        print("server log mentions a traceback:", "Traceback" in log)


def run_rss(root: Path, query: str) -> None:
    from playwright.sync_api import expect, sync_playwright

    from tests.e2e.server import start_streamlit

    args = ("--server.disconnectedSessionTTL", "2")
    with start_streamlit(root / "app.py", args, cwd=root) as server:
        pid = server.process.pid
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path="/usr/bin/chromium", args=["--headless", "--no-sandbox"]
            )
            page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
            page.goto(f"{server.url}/train")
            page.locator(".st-key-train_run button").wait_for(timeout=120_000)
            time.sleep(3)
            print(f"{root}: server after the first visit: {_rss_mb(pid):.0f} MB")
            for seed in (1, 2, 3):
                page.goto(f"{server.url}/train?train_seed={seed}{query}")
                page.locator(".st-key-train_run button").click(timeout=120_000)
                start = time.perf_counter()
                maps = page.get_by_role("heading", name="Attention maps", exact=False)
                expect(maps).to_be_visible(timeout=600_000)
                seconds = time.perf_counter() - start
                time.sleep(3)
                print(f"after training {seed} ({seconds:.1f} s to results): {_rss_mb(pid):.0f} MB")
            page.close()
            time.sleep(20)
            print(f"20 s after the tab closed: {_rss_mb(pid):.0f} MB")
            browser.close()


def _gone(pid: int) -> bool:
    status = Path(f"/proc/{pid}/status")
    return not status.exists() or "State:\tZ" in status.read_text()


def run_closed(root: Path) -> None:
    import re

    from playwright.sync_api import sync_playwright

    from tests.e2e.server import start_streamlit

    started = re.compile(r"event=training_started job=\d+ slot=train pid=(\d+)")
    with start_streamlit(root / "app.py", (), cwd=root) as server:
        pid = server.process.pid
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path="/usr/bin/chromium", args=["--headless", "--no-sandbox"]
            )
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            tabs = [context.new_page(), context.new_page()]
            mark = len(server.read_log())
            for seed, tab in enumerate(tabs, start=101):
                tab.goto(f"{server.url}{LARGEST_URL}&train_seed={seed}")
                tab.locator(".st-key-train_run button").click(timeout=180_000)
            deadline = time.monotonic() + 300
            while len(started.findall(server.read_log()[mark:])) < 2:
                assert time.monotonic() < deadline, "the trainings did not start"
                time.sleep(0.2)
            workers = {int(found) for found in started.findall(server.read_log()[mark:])}
            time.sleep(5)
            print(
                f"{root}: two trainings' workers {sorted(workers)} (server {pid}): {_rss_mb(pid):.0f} MB"
            )
            closed = time.monotonic()
            for tab in tabs:
                tab.goto("about:blank")  # the tab's websocket closes, as when it is closed
            while not all(map(_gone, workers)) and time.monotonic() - closed < 120:
                time.sleep(0.05)
            print(f"the closed tabs' workers gone after {time.monotonic() - closed:.1f} s")
            time.sleep(5)
            print(f"server 5 s later: {_rss_mb(pid):.0f} MB")
            browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=("sizes", "budget", "worker", "tabs", "rss", "closed"))
    parser.add_argument("--tabs", type=int, default=15)
    parser.add_argument("--root", type=Path, default=ROOT, help="the tree whose server runs")
    parser.add_argument("--query", default="", help="more of the Train page's URL, &train_task=…")
    args = parser.parse_args()
    threading.current_thread().name = "benchmark"
    modes = {"sizes": outcome_sizes, "budget": run_budget, "worker": run_worker}
    modes |= {
        "tabs": lambda: run_tabs(args.tabs),
        "rss": lambda: run_rss(args.root.resolve(), args.query),
        "closed": lambda: run_closed(args.root.resolve()),
    }
    modes[args.what]()


if __name__ == "__main__":
    main()
