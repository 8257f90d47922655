"""A seed change on the app's pages, served with different environment variables, as ratios.

Usage (from the repository root; Playwright and /usr/bin/chromium, like the browser tests)::

    python benchmarks/ab_env.py --variant two:ATTENTION_LAB_PAGE_THREADS=2 \\
        --variant one:ATTENTION_LAB_PAGE_THREADS=1 --pages step backward --long 1024 4096

One ``streamlit run app.py`` server per variant (``NAME:VAR=value[,VAR=value…]``, the variables
added to this process's environment), the floor (``benchmarks/floor_app.py``) beside them, and one
headless Chromium tab per page and variant. Each round clicks the sidebar's seed "+" once in
every tab, in turn (``benchmarks/latency.py``'s ``measure_seed``: click to settled page), so that
a change of the machine's load hits every variant alike; round 0 warms up. ``--long N`` adds the
step page showing N made-up words (latency.py's ``seed1024`` path). Prints the medians and each
one's ratio to the floor of the same run.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from benchmarks import latency  # noqa: E402
from tests.e2e.conftest import CHROMIUM_ARGS, DEFAULT_CHROMIUM  # noqa: E402
from tests.e2e.server import DEFAULT_APP, start_streamlit  # noqa: E402
from ui.frame import PAGE_SPECS  # noqa: E402


def parse_variant(text: str) -> tuple[str, dict[str, str]]:
    """``"one:A=1,B=x"`` → ``("one", {"A": "1", "B": "x"})``."""
    name, _, assignments = text.partition(":")
    env = dict(item.split("=", 1) for item in assignments.split(",") if item)
    if not name or not env:
        raise argparse.ArgumentTypeError(f"a variant is NAME:VAR=value[,VAR=value…], not {text!r}")
    return name, env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    names = [spec.name for spec in PAGE_SPECS]
    parser.add_argument("--variant", type=parse_variant, action="append", required=True)
    parser.add_argument("--pages", nargs="*", default=["step"], choices=names, metavar="PAGE")
    parser.add_argument("--long", nargs="*", type=int, default=[], metavar="TOKENS")
    parser.add_argument("--repeats", type=int, default=8, help="counted rounds (default 8)")
    parser.add_argument("--quiet", type=float, default=400.0, help="ms without DOM change")
    args = parser.parse_args()
    settings = latency.Settings(quiet_ms=args.quiet)
    pages = [latency.app_target(name) for name in args.pages]
    pages += [
        latency.app_target(f"step at {tokens} tokens", latency.long_path(tokens))
        for tokens in args.long
    ]
    print("machine:", latency.machine())
    with contextlib.ExitStack() as stack, sync_playwright() as playwright:
        floor = stack.enter_context(start_streamlit(latency.FLOOR_APP))
        servers = {
            name: stack.enter_context(start_streamlit(DEFAULT_APP, env=env))
            for name, env in args.variant
        }
        browser = playwright.chromium.launch(executable_path=DEFAULT_CHROMIUM, args=CHROMIUM_ARGS)
        tabs = {"floor": (latency.new_page(browser, floor.url, "/", settings), latency.FLOOR)}
        for target in pages:
            for name, server in servers.items():
                page = latency.new_page(browser, server.url, target.path, settings)
                tabs[f"{target.name}, {name}"] = (page, target)
        times = latency.seed_rounds(tabs, args.repeats, settings)
        browser.close()
    latency.print_ratios(times, "floor", "page, variant")


if __name__ == "__main__":
    main()
