"""The server's memory with many sessions: idle, 20 sessions open at once, and after closing them.

Usage (from the repository root; Playwright and /usr/bin/chromium, like the browser tests)::

    python benchmarks/server_memory.py                       # 20 sessions at 6 and 1024 tokens
    python benchmarks/server_memory.py --sessions 20 --tokens 6 1024 4096 --json /tmp/mem.json

Starts one real ``streamlit run app.py`` and reads its resident memory (``VmRSS`` of
``/proc/PID/status``; ``VmHWM`` is the peak). For each token count it opens ``--sessions`` browser
sessions at once on the step-by-step page, each with its *own* seed and dropout (the worst case
for the shared trace cache: no two sessions share a trace), waits until every one has settled,
reads the memory, closes them all and reads it again once the server has dropped the sessions
(``server.disconnectedSessionTTL`` is set to ``--ttl`` seconds instead of the default 120 so the
run is short; sessions are released the same way either way).

With ``--rounds 2`` every size is opened and closed twice: the second round must not end higher
than the first (nothing grows per session; caches are bounded).

With ``--watch S`` the memory after closing is read every ``--every`` seconds for ``S`` seconds
(at least ``--ttl`` + 20), and "back after" is the first time it was within ``BACK_MB`` of the
level before the sessions opened (``never`` if it was not within ``S``)::

    python benchmarks/server_memory.py --sessions 8 --tokens 2048 --ttl 120 --watch 720

"Server CPU per session" is the server process's user + system time while the sessions load,
÷ sessions: the browsers run on the same machine, so wall-clock times say little about what a
server alone can serve, CPU time does.

"Per session" is (memory with the sessions open − memory before) ÷ sessions: what one more
student costs the server, cache share included.

With ``--abandoned N`` it measures abandoned work instead (issue 27): ``N`` tabs open the Train
page on the largest model it allows, press Train and close; the memory is read before, while
they train, and every ``--every`` seconds after the tabs closed (their sessions end after
``--ttl``, the trainings stop then) until ``--watch`` seconds. Then one tab opens Find the bug on
``--bug-tokens`` words (the largest comparison the size rule lets through) and closes: the peak
while it computes and the memory after::

    python benchmarks/server_memory.py --abandoned 2 --ttl 15 --watch 120
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import urllib.parse
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from benchmarks.page_load import CHROMIUM, CHROMIUM_ARGS, VIEWPORT, machine  # noqa: E402
from tests.e2e.helpers import APP_SELECTOR, wait_settled  # noqa: E402
from tests.e2e.server import start_streamlit  # noqa: E402
from ui.table_state import random_words  # noqa: E402

# glibc keeps freed memory of its per-thread arenas for reuse, and raises its mmap threshold up to
# 32 MB after big frees, so a long-running multi-threaded server's RSS stays at its high-water
# mark. These settings make freed memory go back to the system (see benchmarks/README.md).
MALLOC_ENV = {"MALLOC_ARENA_MAX": "2", "MALLOC_MMAP_THRESHOLD_": "131072"}
BACK_MB = 50  # "back": resident memory within this of the level before the sessions opened


def memory_mb(pid: int) -> dict[str, float]:
    """Resident (VmRSS) and peak resident (VmHWM) memory of process ``pid``, in MB."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            fields[name] = int(value.split()[0]) / 1024  # kB → MB
    return fields


def cpu_seconds(pid: int) -> float:
    """User + system CPU time the process has used so far (``/proc/PID/stat``), in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of the line)
    return ticks / os.sysconf("SC_CLK_TCK")


def session_path(tokens: int, index: int) -> str:
    query = {"seed": str(1000 + index), "dropout": f"{(index % 9) / 10:.1f}"}
    if tokens != 6:
        query["text"] = " ".join(random_words(tokens))
    return "/?" + urllib.parse.urlencode(query, quote_via=urllib.parse.quote)


LARGEST_TRAINING = (
    "/train?train_task=sort&train_layers=4&train_heads=8&train_width=256&train_steps=20000"
)


def _watch(pid: int, seconds: float, every: float, before: float) -> tuple[list, int | None]:
    """Resident memory every ``every`` s for ``seconds`` s; when it was back near ``before``."""
    started, timeline = time.monotonic(), []
    while time.monotonic() - started < seconds:
        time.sleep(every)
        timeline.append((round(time.monotonic() - started), round(memory_mb(pid)["VmRSS"])))
    back = next((at for at, mb in timeline if mb <= before + BACK_MB), None)
    return timeline, back


def abandoned_work(browser, server, args) -> dict:  # noqa: ANN001 - Playwright objects
    """Tabs that press Train and close, then one large Find the bug: memory before, during, after."""
    pid = server.process.pid
    before = memory_mb(pid)["VmRSS"]
    contexts = []
    for index in range(args.abandoned):
        context = browser.new_context(viewport=VIEWPORT)
        page = context.new_page()
        page.goto(f"{server.url}{LARGEST_TRAINING}&train_seed={200 + index}", wait_until="commit")
        page.wait_for_selector(APP_SELECTOR, state="attached", timeout=args.timeout * 1000)
        wait_settled(page, timeout=args.timeout * 1000)
        page.locator(".st-key-train_run button").click()
        page.locator("[data-testid='stProgress']").wait_for(timeout=args.timeout * 1000)
        contexts.append(context)
    time.sleep(args.train_for)
    during = memory_mb(pid)["VmRSS"]
    for context in contexts:
        context.close()
    timeline, back = _watch(pid, max(args.watch, args.ttl + 40), args.every, before)
    after = memory_mb(pid)["VmRSS"]

    peak_before_bug = memory_mb(pid)["VmHWM"]
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    words = " ".join(random_words(args.bug_tokens))
    query = urllib.parse.urlencode({"text": words}, quote_via=urllib.parse.quote)
    started = time.monotonic()
    page.goto(f"{server.url}/find_the_bug?{query}", wait_until="commit")
    page.wait_for_selector(APP_SELECTOR, state="attached", timeout=args.timeout * 1000)
    wait_settled(page, timeout=args.timeout * 1000)
    bug_seconds = time.monotonic() - started
    bug_open = memory_mb(pid)
    context.close()
    bug_timeline, bug_back = _watch(pid, args.ttl + 40, args.every, before)
    return {
        "abandoned_tabs": args.abandoned,
        "before_mb": round(before),
        "training_mb": round(during),
        "after_trainings_mb": round(after),
        "back_after_s": back,
        "timeline": timeline,
        "bug_tokens": args.bug_tokens,
        "bug_settled_s": round(bug_seconds, 1),
        "bug_open_mb": round(bug_open["VmRSS"]),
        "bug_peak_mb": round(max(bug_open["VmHWM"], peak_before_bug)),
        "after_bug_mb": bug_timeline[-1][1],
        "bug_back_after_s": bug_back,
        "bug_timeline": bug_timeline,
    }


def _report_abandoned(idle: dict[str, float], row: dict, json_path: Path | None) -> None:
    print(json.dumps(row), flush=True)
    print(
        f"idle {idle['VmRSS']:.0f} MB; {row['abandoned_tabs']} tabs training: "
        f"{row['training_mb']} MB; after they closed: {row['after_trainings_mb']} MB "
        f"(back after {row['back_after_s']} s); Find the bug on {row['bug_tokens']} words: "
        f"{row['bug_settled_s']} s, peak {row['bug_peak_mb']} MB, after "
        f"{row['after_bug_mb']} MB (back after {row['bug_back_after_s']} s)"
    )
    if json_path:
        json_path.write_text(json.dumps({"machine": machine(), "idle": idle, **row}))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--tokens", type=int, nargs="+", default=[6, 1024])
    parser.add_argument("--ttl", type=int, default=15, help="server.disconnectedSessionTTL (s)")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds to settle")
    parser.add_argument(
        "--malloc-env",
        action="store_true",
        help=f"run the server with {' '.join(f'{k}={v}' for k, v in MALLOC_ENV.items())}",
    )
    parser.add_argument(
        "--rounds", type=int, default=1, help="open and close the sessions this many times"
    )
    parser.add_argument("--watch", type=float, default=0.0, help="seconds to watch after closing")
    parser.add_argument("--every", type=float, default=10.0, help="seconds between readings")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--abandoned", type=int, default=0, help="tabs that train and close")
    parser.add_argument("--train-for", type=float, default=20.0, help="seconds they train")
    parser.add_argument("--bug-tokens", type=int, default=4096, help="Find the bug's words")
    parser.add_argument("--log", type=Path, help="keep the server's log in this file")
    args = parser.parse_args(argv)

    rows = []
    extra = ["--server.disconnectedSessionTTL", str(args.ttl)]
    env = MALLOC_ENV if args.malloc_env else None
    with (
        sync_playwright() as playwright,
        start_streamlit(extra_args=extra, env=env, log_path=args.log) as server,
    ):
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        pid = server.process.pid
        warm = browser.new_context(viewport=VIEWPORT)  # imports and first run, then idle
        page = warm.new_page()
        page.goto(server.url + "/", wait_until="commit")
        page.wait_for_selector(APP_SELECTOR, state="attached", timeout=60_000)
        wait_settled(page, timeout=60_000)
        warm.close()
        time.sleep(args.ttl + 10)
        idle = memory_mb(pid)
        print(f"idle: {idle}", flush=True)
        if args.abandoned:
            row = abandoned_work(browser, server, args)
            browser.close()
            _report_abandoned(idle, row, args.json)
            return 0
        for tokens in [t for t in args.tokens for _ in range(args.rounds)]:
            before = memory_mb(pid)
            cpu_before = cpu_seconds(pid)
            contexts = [browser.new_context(viewport=VIEWPORT) for _ in range(args.sessions)]
            pages = [context.new_page() for context in contexts]
            started = time.monotonic()
            for index, page in enumerate(pages):  # all at once
                page.goto(server.url + session_path(tokens, index), wait_until="commit")
            for page in pages:
                page.wait_for_selector(APP_SELECTOR, state="attached", timeout=args.timeout * 1000)
                wait_settled(page, timeout=args.timeout * 1000)
            all_settled = time.monotonic() - started
            opened = memory_mb(pid)
            server_cpu = cpu_seconds(pid) - cpu_before
            for context in contexts:
                context.close()
            closed_at = time.monotonic()
            closed_after = args.ttl + 20  # the server drops disconnected sessions after the TTL
            timeline: list[tuple[float, float]] = []
            closed = None
            while time.monotonic() - closed_at < max(closed_after, args.watch):
                time.sleep(args.every)
                elapsed = time.monotonic() - closed_at
                reading = memory_mb(pid)
                timeline.append((round(elapsed), round(reading["VmRSS"])))
                if closed is None and elapsed >= closed_after:
                    closed = reading
            back_after = next((at for at, mb in timeline if mb <= before["VmRSS"] + BACK_MB), None)
            row = {
                "tokens": tokens,
                "sessions": args.sessions,
                "before_mb": round(before["VmRSS"]),
                "open_mb": round(opened["VmRSS"]),
                "closed_mb": round(closed["VmRSS"]),
                "peak_mb": round(closed["VmHWM"]),
                "per_session_mb": round((opened["VmRSS"] - before["VmRSS"]) / args.sessions, 1),
                "all_settled_s": round(all_settled, 1),
                "server_cpu_per_session_s": round(server_cpu / args.sessions, 2),
                "back_after_s": back_after,
                "timeline": timeline,
            }
            rows.append(row)
            print(json.dumps(row), flush=True)
        browser.close()

    print()
    print(f"idle after one visit: {idle['VmRSS']:.0f} MB; malloc settings: {env or 'default'}")
    print("| tokens | sessions | before | open | after closing | peak | per session | "
          "all settled in | server CPU per session | back after |")  # fmt: skip
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        back = "never" if row["back_after_s"] is None else f"{row['back_after_s']} s"
        print(
            f"| {row['tokens']} | {row['sessions']} | {row['before_mb']} MB | "
            f"{row['open_mb']} MB | {row['closed_mb']} MB | {row['peak_mb']} MB | "
            f"{row['per_session_mb']} MB | {row['all_settled_s']} s | "
            f"{row['server_cpu_per_session_s']} s | {back} (watched {row['timeline'][-1][0]} s) |"
        )
    if args.json:
        args.json.write_text(
            json.dumps({"machine": machine(), "idle": idle, "rows": rows}, indent=2)
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
