"""How long a seed change's script run takes on the server, against the floor's whole click.

Usage (from the repository root; Playwright and /usr/bin/chromium, like the browser tests)::

    python benchmarks/script_time.py                          # every page, 7 clicks (about 3 min)
    python benchmarks/script_time.py --pages step quiz --repeats 11

Two ``streamlit run benchmarks/script_time_app.py`` servers, one running the floor
(``benchmarks/floor_app.py``) and one the app's frame and pages, each appending the duration of
every script run to a file (``benchmarks/script_time_app.py``). One headless Chromium tab per
page clicks the sidebar's seed "+" (``benchmarks/latency.py``'s ``measure_seed``: click to
settled page), in turn, round by round (round 0 warms up). For each page it prints the median
click and the median server-side script run of those clicks, and both as ratios to the floor's
*whole click* in the same run.

What it shows: a click can settle no sooner than the script run it asks for ends. Where the
script run alone, before the browser draws anything, is already above 1.2× the floor's whole
click, no change of what the browser draws brings that page to issue 9's goal.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from benchmarks import latency  # noqa: E402
from tests.e2e.conftest import CHROMIUM_ARGS, DEFAULT_CHROMIUM  # noqa: E402
from tests.e2e.server import start_streamlit  # noqa: E402
from ui.frame import PAGE_SPECS  # noqa: E402

APP = REPO_ROOT / "benchmarks" / "script_time_app.py"


def new_runs(log: Path, seen: int) -> tuple[list[tuple[float, str]], int]:
    """The runs logged after the first ``seen`` lines, and the new line count."""
    lines = log.read_text(encoding="utf-8").splitlines()
    runs = [(float(ms), ended) for ms, ended in (line.split() for line in lines[seen:])]
    return runs, len(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    names = [spec.name for spec in PAGE_SPECS]
    parser.add_argument("--pages", nargs="+", default=names, choices=names, metavar="PAGE")
    parser.add_argument("--repeats", type=int, default=7, help="counted rounds (default 7)")
    parser.add_argument("--quiet", type=float, default=500.0, help="ms without DOM change")
    args = parser.parse_args()
    settings = latency.Settings(quiet_ms=args.quiet)
    print("machine:", latency.machine())
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        logs = {server: Path(folder) / f"{server}.txt" for server in ("floor", "app")}
        for log in logs.values():
            log.touch()
        with (
            start_streamlit(
                APP, env={"SCRIPT_TIME_TARGET": "floor", "SCRIPT_TIME_LOG": str(logs["floor"])}
            ) as floor,
            start_streamlit(
                APP, env={"SCRIPT_TIME_TARGET": "app", "SCRIPT_TIME_LOG": str(logs["app"])}
            ) as app,
        ):
            browser = playwright.chromium.launch(
                executable_path=DEFAULT_CHROMIUM, args=CHROMIUM_ARGS
            )
            targets = {"floor": (floor, "floor", latency.FLOOR)}
            for name in args.pages:
                targets[name] = (app, "app", latency.app_target(name))
            tabs = {
                name: latency.new_page(browser, server.url, target.path, settings)
                for name, (server, _, target) in targets.items()
            }
            clicks: dict[str, list[float]] = {name: [] for name in targets}
            scripts: dict[str, list[float]] = {name: [] for name in targets}
            seen = {server: new_runs(log, 0)[1] for server, log in logs.items()}
            for round_number in range(args.repeats + 1):  # round 0 warms up
                for name, (_, server, target) in targets.items():
                    seconds = latency.measure_seed(tabs[name], target, settings)
                    runs, seen[server] = new_runs(logs[server], seen[server])
                    if round_number and seconds is not None and runs:
                        clicks[name].append(seconds)
                        scripts[name].append(sum(ms for ms, _ in runs) / 1000)
            browser.close()
    print("load average at end:", latency.load_average())
    floor_click = statistics.median(clicks["floor"])
    print(
        "\n| page | n | click, median s | script run, median s | click × floor | script run × floor's click |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    for name in targets:
        click, script = statistics.median(clicks[name]), statistics.median(scripts[name])
        print(
            f"| {name} | {len(clicks[name])} | {click:.3f} | {script:.3f} "
            f"| {click / floor_click:.2f}× | {script / floor_click:.2f}× |"
        )


if __name__ == "__main__":
    main()
