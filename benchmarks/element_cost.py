"""What one way of drawing a small matrix costs a seed change, in real Chromium, as ratios.

Usage (from the repository root; Playwright and /usr/bin/chromium, like the browser tests)::

    python benchmarks/element_cost.py                 # 7 rounds after 1 warm-up (about 2 min)
    python benchmarks/element_cost.py --repeats 11

One ``streamlit run benchmarks/element_cost_app.py`` server, one headless Chromium tab per way of
drawing (``element_cost_app.WAYS``: nothing, the annotated Plotly heatmap the app used to draw,
the same heatmap without its numbers, the coloured ``st.table`` it drew next (alone and with the
numbers table it used to repeat), its own table component that it draws now, and the app's
sidebar controls without any matrix, rerun in full or with the table in a fragment). Each round
clicks the sidebar's seed "+" once in every tab, in turn, and times click to settled page
exactly as ``benchmarks/latency.py`` does (its ``measure_seed``: script idle, the watched table
changed, every Plotly chart drawn, no DOM change for ``--quiet`` ms). Prints the medians and each way's ratio to the floor (``none``) of the same
run, so that the machine's load cancels out.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from benchmarks import latency  # noqa: E402
from benchmarks.element_cost_app import WAYS  # noqa: E402
from benchmarks.floor_app import SEED_LABEL  # noqa: E402
from tests.e2e.conftest import CHROMIUM_ARGS, DEFAULT_CHROMIUM  # noqa: E402
from tests.e2e.server import start_streamlit  # noqa: E402

APP = REPO_ROOT / "benchmarks" / "element_cost_app.py"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=7, help="counted rounds (default 7)")
    parser.add_argument("--quiet", type=float, default=500.0, help="ms without DOM change")
    args = parser.parse_args()
    settings = latency.Settings(quiet_ms=args.quiet)
    print("machine:", latency.machine())
    print("load average at start:", latency.load_average())
    with start_streamlit(APP) as server, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=DEFAULT_CHROMIUM, args=CHROMIUM_ARGS)
        tabs = {}
        for way in WAYS:
            path = f"/?draw={way}"
            target = latency.Target(
                way, "element_cost", path, SEED_LABEL, None, latency.CONTEXT_TABLE
            )
            tabs[way] = (latency.new_page(browser, server.url, path, settings), target)
        times = latency.seed_rounds(tabs, args.repeats, settings)
        browser.close()
    latency.print_ratios(times, "none", "way (the floor plus…)")


if __name__ == "__main__":
    main()
