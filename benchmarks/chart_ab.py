"""A seed change on chart pages, checkouts side by side: wall time and the browser's own work.

    python benchmarks/chart_ab.py main=/work/wt_main plotly=/work/wt_plotly:AL_PROBE_MODE=lean \\
        --pages one_query embeddings --repeats 7

Each checkout runs its own server (its ``app.py``, in its directory, with the environment given
after ``:``); one Chromium opens each page once per checkout, then clicks the sidebar's seed "+"
round by round, the checkouts alternating within a round (the floor too, as the reference), so
that a load on the shared machine falls on all of them alike. Per click it records:

- *wall*: seconds from the click's own input event to the settled page (``latency.py``'s rule:
  script idle, the page's text changed where it should, every Plotly chart drawn, no DOM change
  for ``--quiet`` ms);
- *cpu*: the CPU seconds (user + system) every Chromium process of the run used over the same
  click (renderer, GPU and browser processes, read from ``/proc`` through psutil before the
  click and after settling): the work the browser did, which another process's load on a
  shared machine barely changes, where it stretches wall time (the pages not clicked are idle);
- *busy*: the clicked page's main-thread task time (Chromium's ``Performance.getMetrics``
  ``TaskDuration`` delta): wall time of its tasks, so a busy machine stretches it too.

Ratios are ratios of medians against the floor of the same run (wall) and against the first
checkout (both).
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
from collections.abc import Callable
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

import psutil  # noqa: E402
from playwright.sync_api import Page, sync_playwright  # noqa: E402

from benchmarks import floor_app  # noqa: E402
from benchmarks.latency import (  # noqa: E402
    FLOOR,
    Settings,
    app_target,
    load_average,
    new_page,
    sidebar_seed_up,
    timed,
)
from tests.e2e.conftest import CHROMIUM_ARGS, DEFAULT_CHROMIUM  # noqa: E402
from tests.e2e.server import start_streamlit  # noqa: E402
from ui.i18n import t  # noqa: E402


def browser_cpu_seconds() -> float:
    """CPU seconds used so far by the Chromium processes under this one."""
    total = 0.0
    for process in psutil.Process().children(recursive=True):
        with contextlib.suppress(psutil.Error):
            if "chrom" in process.name():
                times = process.cpu_times()
                total += times.user + times.system
    return total


def busy_seconds(session) -> float:
    metrics = session.send("Performance.getMetrics")["metrics"]
    return next(m["value"] for m in metrics if m["name"] == "TaskDuration")


def d_in_up(page: Page) -> Callable[[], None]:
    """The Embeddings page's "d_in" "+": every row of the table, so every point, is new."""
    field_ = (
        page.get_by_test_id("stMain")
        .get_by_test_id("stNumberInput")
        .filter(has=page.get_by_label(t("embeddings.d_in", "en"), exact=True))
    )
    button = field_.get_by_test_id("stNumberInputStepUp")
    return lambda: button.click()


def click(
    page: Page, session, target, settings: Settings, action: str
) -> tuple[float | None, float, float]:
    page.bring_to_front()
    before = busy_seconds(session)
    cpu_before = browser_cpu_seconds()
    act = d_in_up(page) if action == "d_in" and target is not FLOOR else None
    wall = timed(
        page,
        act or sidebar_seed_up(page, target),
        target.watched,
        settings,
        require_change=act is not None or target.seed_changes_text,
    )
    return wall, busy_seconds(session) - before, browser_cpu_seconds() - cpu_before


def parse_checkout(text: str) -> tuple[str, Path, dict[str, str]]:
    label, _, rest = text.partition("=")
    path, *assignments = rest.split(":")
    env = dict(a.split("=", 1) for a in assignments)
    return label, Path(path), env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("checkouts", nargs="+", help="label=path[:NAME=value...]")
    parser.add_argument("--pages", nargs="+", required=True)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument(
        "--action", choices=("seed", "d_in"), default="seed", help="d_in: Embeddings' d_in +"
    )
    parser.add_argument("--bare", help="the label of a checkout that draws no chart")
    parser.add_argument("--quiet", type=float, default=400.0)
    args = parser.parse_args()
    settings = Settings(quiet_ms=args.quiet)
    checkouts = [parse_checkout(text) for text in args.checkouts]
    wall: dict[tuple[str, str], list[float]] = {}
    busy: dict[tuple[str, str], list[float]] = {}
    cpu: dict[tuple[str, str], list[float]] = {}
    print(f"load average at start: {load_average()}", flush=True)
    with contextlib.ExitStack() as stack:
        servers = {
            label: stack.enter_context(start_streamlit(path / "app.py", cwd=path, env=env))
            for label, path, env in checkouts
        }
        floor = stack.enter_context(start_streamlit(Path(floor_app.__file__)))
        playwright = stack.enter_context(sync_playwright())
        browser = playwright.chromium.launch(executable_path=DEFAULT_CHROMIUM, args=CHROMIUM_ARGS)
        for name in args.pages:
            target = app_target(name)
            opened = [("floor", FLOOR, new_page(browser, floor.url, FLOOR.path, settings))]
            for label, _, _ in checkouts:
                page = new_page(browser, servers[label].url, target.path, settings)
                opened.append((label, target, page))
            sessions = {}
            for label, _, page in opened:
                sessions[label] = page.context.new_cdp_session(page)
                sessions[label].send("Performance.enable")
            for round_number in range(args.warmup + args.repeats):
                order = opened if round_number % 2 == 0 else opened[::-1]
                for label, tgt, page in order:
                    seconds, work, used = click(page, sessions[label], tgt, settings, args.action)
                    if round_number < args.warmup or seconds is None:
                        continue
                    wall.setdefault((name, label), []).append(seconds)
                    busy.setdefault((name, label), []).append(work)
                    cpu.setdefault((name, label), []).append(used)
            for _, _, page in opened:
                page.context.close()
            print(f"{name} done, load average {load_average()}", flush=True)
        browser.close()
    print(f"load average at end: {load_average()}")
    print()
    print(summary(args.pages, [c[0] for c in checkouts], args.bare, wall, busy, cpu))


def summary(
    pages: list[str],
    labels: list[str],
    bare: str | None,
    wall: dict[tuple[str, str], list[float]],
    busy: dict[tuple[str, str], list[float]],
    cpu: dict[tuple[str, str], list[float]],
) -> str:
    """A Markdown table of medians: wall (× the floor, × the first checkout), busy and CPU (× the
    first checkout) and, with a ``bare`` checkout (one that draws no chart), each checkout's CPU
    above it (the charts' own) and that against the first checkout's."""
    first = labels[0]
    median = statistics.median
    lines = [
        f"| page | checkout | n | wall s | × floor | × {first} | busy s | × {first} "
        f"| browser CPU s | × {first} | charts' CPU s | × {first} |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name in pages:
        floor_wall = median(wall[(name, "floor")])
        base = {
            kind: median(kind_times[(name, first)])
            for kind, kind_times in (("wall", wall), ("busy", busy), ("cpu", cpu))
        }
        bare_cpu = median(cpu[(name, bare)]) if bare else None
        base_own = base["cpu"] - bare_cpu if bare_cpu is not None else None
        for label in ["floor", *labels]:
            w, b, c = (median(times[(name, label)]) for times in (wall, busy, cpu))
            own = own_ratio = ""
            if bare_cpu is not None and label not in ("floor", bare):
                own = f"{c - bare_cpu:.3f}"
                # a ratio to a cost within two clock ticks of nothing says nothing
                own_ratio = f"{(c - bare_cpu) / base_own:.2f}×" if base_own > 0.02 else "—"
            lines.append(
                f"| {name} | {label} | {len(wall[(name, label)])} | {w:.3f} "
                f"| {w / floor_wall:.2f}× | {w / base['wall']:.2f}× | {b:.3f} "
                f"| {b / base['busy']:.2f}× | {c:.3f} | {c / base['cpu']:.2f}× | {own} | {own_ratio} |"
            )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
