"""Several tabs open one large view at once: the server's memory against its budget, and after.

Usage (from the repository root; Playwright and /usr/bin/chromium, like the browser tests)::

    python benchmarks/memory_budget.py                          # 4 tabs, 4,096 words, batch 4
    python benchmarks/memory_budget.py --tabs 4 --budget-mb 2600 --ttl 2 --json /tmp/budget.json

Starts one real ``streamlit run app.py`` with ``ATTENTION_LAB_MEMORY_BUDGET_MB=--budget-mb`` and
``server.disconnectedSessionTTL=--ttl``, reads its idle memory (``VmRSS``) after one visit, then
opens ``--tabs`` tabs at once on ``/?text=<N random words>&batch=4&dropout=0.5&step=dropout``
(each its own seed, so no two share a trace), samples the server's resident memory every 0.25 s
until every tab has settled, counts the tabs that waited for or were refused memory, closes
them all and reads the memory every second for ``--watch`` seconds. Prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from benchmarks.page_load import CHROMIUM, CHROMIUM_ARGS, VIEWPORT, machine  # noqa: E402
from tests.e2e.helpers import APP_SELECTOR, exception_texts, wait_settled  # noqa: E402
from tests.e2e.server import start_streamlit  # noqa: E402
from ui.table_state import random_words  # noqa: E402


def resident_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def large_view(tokens: int, seed: int) -> str:
    """The issue's link: one click on the sidebar's random tokens, then batch 4, at dropout."""
    words = "+".join(random_words(tokens, seed=seed))
    return f"/?text={words}&batch=4&dropout=0.5&step=dropout&seed={seed}"


class Sampler:
    """The server's resident memory every ``every`` s on a thread; ``peak`` is the largest."""

    def __init__(self, pid: int, every: float = 0.25) -> None:
        self.pid, self.every, self.peak = pid, every, 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, resident_mb(self.pid))
            self._stop.wait(self.every)

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tabs", type=int, default=4)
    parser.add_argument("--tokens", type=int, default=4096)
    parser.add_argument("--budget-mb", type=int, default=2600)
    parser.add_argument("--ttl", type=int, default=2)
    parser.add_argument("--watch", type=float, default=60.0)
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds to settle")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--log", type=Path, help="keep the server's log in this file")
    parser.add_argument("--app", type=Path, default=REPO_ROOT / "app.py", help="(diagnostics)")
    args = parser.parse_args(argv)

    extra = ["--server.disconnectedSessionTTL", str(args.ttl)]
    env = {"ATTENTION_LAB_MEMORY_BUDGET_MB": str(args.budget_mb)}
    with (
        sync_playwright() as playwright,
        start_streamlit(args.app, extra_args=extra, env=env, log_path=args.log) as server,
    ):
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        pid = server.process.pid
        warm = browser.new_context(viewport=VIEWPORT)
        page = warm.new_page()
        page.goto(server.url + "/", wait_until="commit")
        page.wait_for_selector(APP_SELECTOR, state="attached", timeout=60_000)
        wait_settled(page, timeout=60_000)
        warm.close()
        time.sleep(args.ttl + 15)
        idle = resident_mb(pid)
        print(f"idle {idle:.0f} MB", flush=True)
        contexts = [browser.new_context(viewport=VIEWPORT) for _ in range(args.tabs)]
        pages = [context.new_page() for context in contexts]
        started = time.monotonic()
        with Sampler(pid) as sampler:
            for index, tab in enumerate(pages):
                tab.goto(server.url + large_view(args.tokens, 100 + index), wait_until="commit")
            for tab in pages:
                tab.wait_for_selector(APP_SELECTOR, state="attached", timeout=args.timeout * 1e3)
                wait_settled(tab, timeout=args.timeout * 1e3)
        settled_s = time.monotonic() - started
        texts = [tab.locator("[data-testid='stMain']").inner_text() for tab in pages]
        tracebacks = sum(bool(exception_texts(tab)) for tab in pages)
        open_mb = resident_mb(pid)
        for context in contexts:
            context.close()
        closed_at, timeline = time.monotonic(), []
        while time.monotonic() - closed_at < args.watch:
            time.sleep(1.0)
            timeline.append((round(time.monotonic() - closed_at), round(resident_mb(pid))))
        browser.close()
    row = {
        "tabs": args.tabs,
        "tokens": args.tokens,
        "budget_mb": args.budget_mb,
        "idle_mb": round(idle),
        "peak_mb": round(sampler.peak),
        "open_mb": round(open_mb),
        "after_mb": timeline[-1][1],
        "back_within_50_after_s": next((at for at, mb in timeline if mb <= idle + 50), None),
        "settled_s": round(settled_s, 1),
        "refused_tabs": sum("not computed" in text for text in texts),
        "tabs_with_traceback": tracebacks,
        "timeline": timeline,
    }
    print(json.dumps(row), flush=True)
    if args.json:
        args.json.write_text(json.dumps({"machine": machine(), **row}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
