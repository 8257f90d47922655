"""Click to settled page: the app against the floor and a straightforward page, in one run.

Usage (from the repository root; needs Playwright and /usr/bin/chromium, like the browser tests)::

    python benchmarks/latency.py                       # everything, 5 repeats (about 20 min on 2 busy cores)
    python benchmarks/latency.py --quick               # default page only, 1 repeat (about 5 min)
    python benchmarks/latency.py --pages step masking --measures seed first --repeats 3
    python benchmarks/latency.py --json /tmp/latency.json

It starts real ``streamlit run`` servers on free loopback ports (``tests/e2e/server.py``: headless,
file watcher off, the repository's ``.streamlit/config.toml``) and drives them with headless
Chromium (``/usr/bin/chromium``, the launch arguments of ``tests/e2e/conftest.py``):

- **floor** (``benchmarks/floor_app.py``): the smallest Streamlit page with a seed number input
  and a 6×2 table: what any Streamlit rerun costs on this machine;
- **editing floor** (``benchmarks/editing_floor_app.py``): the smallest page with an editable 6×3
  text table (``st.data_editor``, dynamic rows) and a 6×2 table computed from it: what a cell edit
  costs in any Streamlit page (the reference of ``cell``);
- **sidebar floor** (``benchmarks/sidebar_floor_app.py``): the floor's 6×2 table under the app's
  whole sidebar (its ``seed`` is measured, no page drawn): what the sidebar alone adds to every
  page, so a page's seed change can be read against it too;
- **bare step** (``benchmarks/bare_step_app.py``): the step page's kinds and number of
  Streamlit elements (the sidebar's settings, the tables, the strip of steps in a fragment, the
  open step) in Streamlit alone, no app code: what a page of this shape costs in Streamlit itself
  (its ``seed`` and ``tab`` are measured);
- **straightforward** (``benchmarks/straightforward_app.py``): one page, the same trace, the
  context table and eight annotated ``px.imshow`` heatmaps, nothing cached;
- **app** (``app.py``): every page of ``ui.frame.PAGE_SPECS`` (``--pages`` to choose).

Measures (``--measures``), each repeated ``--repeats`` times, all targets interleaved round by
round so that a change of the machine's load hits them alike (a first round is a warm-up and is
not counted):

- ``seed``: one click on the sidebar's seed "+" button, on every page with the sidebar;
- ``tab``: a switch between the step page's steps "4 · Scores" and "8 · Softmax" (its strip of
  steps; tabs until 2026-12-04), and between the same steps of the bare step page;
- ``slider``: one ArrowRight on the sidebar's dropout slider (the app's step page and the
  straightforward page);
- ``cell``: an edit of row 1, x1 of the step page's embedding table (type, Enter), and the same
  edit on the editing floor;
- ``seed1024``: the seed click on the step page showing 1024 made-up words (``/?text=…``, the
  words of the sidebar's "Random tokens" generator for 1024, ``ui.table_state.random_words``);
- ``first``: the first visit of each page (``/``, ``/masking``…) on a fresh server, from
  navigation start (loading Streamlit's JavaScript, the first script run, its imports);
- ``burst``: 30 quick ArrowRight presses on the dropout slider; the time from the last press until
  the page is consistent (slider at the last value, its context numbers shown, script idle).

**Click to settled.** A listener installed before Streamlit loads notes the time of the
interaction's own ``pointerdown``/``keydown`` event. The page counts as settled when, all at once:
Streamlit's script state is ``notRunning`` and it ran since the interaction (the state was seen
``running``, or a server message arrived: a quick run can start and end within one browser frame,
and then the state never shows ``running``; ``tab`` needs no run), no ``stSkeleton`` is shown, the watched element's text
differs from before the interaction (the context table on the step page and the two reference
pages; the whole main area elsewhere; the selected tab for ``tab``), every visible Plotly chart
has drawn its SVG, and nothing in the DOM has changed for ``--quiet`` ms (400 by default) (a MutationObserver
watches the whole document, so Plotly drawing counts). The time reported is that of the last DOM
change before the quiet period, minus the interaction's event time: the quiet period is not
counted. A measurement that does not settle within ``--timeout`` s is reported as missing.

Prints the machine, the load average before and after, and a Markdown table: medians (with min
and max), ratios of medians to the floor's seed change (first visits: to the floor's first visit;
cell edits: to the editing floor's cell edit; seed changes also to the sidebar floor's) and the
default page against the straightforward page, next to the goals of issue 21; then one line per
goal: the worst page, its ratio, met or not.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from playwright.sync_api import Browser, Page, sync_playwright  # noqa: E402

from attention import AttentionConfig, trace_attention  # noqa: E402
from attention.examples import BOOK_EMBEDDINGS  # noqa: E402
from benchmarks import bare_step_app, floor_app, straightforward_app  # noqa: E402
from tests.e2e.conftest import CHROMIUM_ARGS, DEFAULT_CHROMIUM, VIEWPORT  # noqa: E402
from tests.e2e.helpers import open_first_row_cell  # noqa: E402
from tests.e2e.server import DEFAULT_APP, StreamlitServer, start_streamlit  # noqa: E402
from ui.frame import PAGE_SPECS  # noqa: E402
from ui.i18n import t  # noqa: E402
from ui.table_state import random_words  # noqa: E402

FLOOR_APP = REPO_ROOT / "benchmarks" / "floor_app.py"
EDITING_FLOOR_APP = REPO_ROOT / "benchmarks" / "editing_floor_app.py"
SIDEBAR_FLOOR_APP = REPO_ROOT / "benchmarks" / "sidebar_floor_app.py"
BARE_STEP_APP = REPO_ROOT / "benchmarks" / "bare_step_app.py"
STRAIGHTFORWARD_APP = REPO_ROOT / "benchmarks" / "straightforward_app.py"
DEFAULT_PAGE = "step"  # ui.frame.run_app's default page, served at /
MEASURES = ("seed", "tab", "slider", "cell", "seed1024", "first", "burst")
BURST_PRESSES = 30
LONG_TOKENS = 1024
# Pages that show nothing computed with the sidebar's seed (the embedding table; the quiz before a
# reveal; Train it, whose model has its own seed): there a seed change is settled when its run is
# over, with no changed text to wait for.
SEED_INDEPENDENT_PAGES = frozenset({"embeddings", "quiz", "train"})
TABS = (3, 7)  # 0-based: "4 · Scores" and "8 · Softmax", both with a (T, T) heatmap
CONTEXT_TABLE = "[data-testid='stMain'] [data-testid='stTable']"  # the first one: context_vec
MAIN = "[data-testid='stMain']"
STEP_STRIP = f"[role='radiogroup'][aria-label='{t('walk.strip_label', 'en')}'] [role='radio']"
SELECTED_TAB = STEP_STRIP + "[aria-checked='true']"

# Installed before any page script. Notes the time of the armed interaction's first
# pointerdown/keydown, of every keydown, of the last DOM change and of the last time Streamlit's
# script state became "running".
WATCH_JS = """
(() => {
  const lat = {armed: false, actionAt: null, lastKey: null,
               lastMutation: performance.now(), lastRunning: -1, lastMessage: -1};
  window.__latency = lat;
  // The server's messages: a quick run can start and end within one frame of the browser, and
  // React then never writes data-test-script-state="running"; a message after the interaction
  // is the other proof that the script ran.
  const Native = window.WebSocket;
  function Watched(url, protocols) {
    const socket = protocols === undefined ? new Native(url) : new Native(url, protocols);
    socket.addEventListener("message", () => { lat.lastMessage = performance.now(); });
    return socket;
  }
  Watched.prototype = Native.prototype;
  Object.assign(Watched, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});
  window.WebSocket = Watched;
  const onInput = (event) => {
    const now = performance.now();
    if (event.type === "keydown") lat.lastKey = now;
    if (lat.armed) { lat.actionAt = now; lat.armed = false; }
  };
  window.addEventListener("pointerdown", onInput, true);
  window.addEventListener("keydown", onInput, true);
  const watch = () => {
    new MutationObserver((records) => {
      const now = performance.now();
      lat.lastMutation = now;
      for (const r of records) {
        // A quick run can go running -> notRunning before this callback: both records arrive
        // together and the element already says notRunning, so the old value counts too.
        if (r.type === "attributes" && r.attributeName === "data-test-script-state"
            && (r.oldValue === "running"
                || r.target.getAttribute("data-test-script-state") === "running")) {
          lat.lastRunning = now;
        }
      }
    }).observe(document, {subtree: true, childList: true, attributes: true,
                          attributeOldValue: true, characterData: true});
  };
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", watch);
  } else { watch(); }
})();
"""

# True once the page is settled (see the module docstring). `since`: the interaction's time
# (0: navigation start); `before`: the watched element's text before it (null: anything);
# `cells`: the exact texts the watched table's cells must show (null: any); `slider`: a
# [selector, value] pair the slider input's value must equal (null: no check).
SETTLED_JS = """
([since, selector, before, cells, slider, requireRun, quiet]) => {
  const lat = window.__latency;
  if (!lat) return false;
  const app = document.querySelector("[data-testid='stApp']");
  if (!app || app.getAttribute("data-test-script-state") !== "notRunning") return false;
  if (requireRun && lat.lastRunning < since && lat.lastMessage < since) return false;
  if (document.querySelector("[data-testid='stSkeleton']")) return false;
  const watched = document.querySelector(selector);
  if (!watched) return false;
  const text = watched.textContent;
  if (!text || (before !== null && text === before)) return false;
  if (cells !== null) {
    const shown = [...watched.querySelectorAll("tbody td")].map((td) => td.textContent.trim());
    if (shown.join("|") !== cells.join("|")) return false;
  }
  if (slider !== null) {
    const thumb = document.querySelector(slider[0]);
    if (!thumb || Number(thumb.value) !== slider[1]) return false;
  }
  for (const chart of document.querySelectorAll("[data-testid='stPlotlyChart']")) {
    if (chart.getClientRects().length && !chart.querySelector(".main-svg")) return false;
  }
  return performance.now() - lat.lastMutation >= quiet;
}
"""


@dataclass(frozen=True)
class Target:
    """One page to measure: which server, which URL, which labels, what to watch."""

    name: str  # as printed: "floor", "straightforward", or an app page's name
    server: str  # "floor", "straightforward" or "app"
    path: str
    seed_label: str
    dropout_label: str | None = None
    watched: str = MAIN
    seed_changes_text: bool = True  # False: nothing on the page depends on the seed


@dataclass
class Settings:
    quiet_ms: float = 400.0
    timeout_s: float = 90.0


@dataclass
class Results:
    """Seconds per (measure, target name); None where a measurement did not settle."""

    times: dict[tuple[str, str], list[float | None]] = field(default_factory=dict)
    notes: dict[tuple[str, str], set[str]] = field(default_factory=dict)

    def note(self, measure: str, target: str, text: str) -> None:
        self.notes.setdefault((measure, target), set()).add(text)

    def add(self, measure: str, target: str, seconds: float | None) -> None:
        self.times.setdefault((measure, target), []).append(seconds)

    def median(self, measure: str, target: str) -> float | None:
        values = [v for v in self.times.get((measure, target), []) if v is not None]
        return statistics.median(values) if values else None


APP_SEED_LABEL = t("sidebar.seed", "en")
APP_DROPOUT_LABEL = t("sidebar.dropout", "en")


def app_target(name: str, path: str | None = None) -> Target:
    """An app page; the default page (``/``) is watched through its context table."""
    url = path or ("/" if name == DEFAULT_PAGE else f"/{name}")
    watched = CONTEXT_TABLE if name.startswith(DEFAULT_PAGE) else MAIN
    changes = name not in SEED_INDEPENDENT_PAGES
    return Target(name, "app", url, APP_SEED_LABEL, APP_DROPOUT_LABEL, watched, changes)


FLOOR = Target("floor", "floor", "/", floor_app.SEED_LABEL, None, CONTEXT_TABLE)
SIDEBAR_FLOOR = Target("sidebar floor", "sidebar floor", "/", APP_SEED_LABEL, None, CONTEXT_TABLE)
EDITING_FLOOR = Target("editing floor", "editing floor", "/", "", None, CONTEXT_TABLE)
BARE_STEP = Target("bare step", "bare step", "/", bare_step_app.SEED_LABEL, None, CONTEXT_TABLE)
STRAIGHTFORWARD = Target(
    "straightforward",
    "straightforward",
    "/",
    straightforward_app.SEED_LABEL,
    straightforward_app.DROPOUT_LABEL,
    CONTEXT_TABLE,
)


def long_path(tokens: int) -> str:
    query = {"text": " ".join(random_words(tokens))}
    return "/?" + urllib.parse.urlencode(query, quote_via=urllib.parse.quote)


# --- measuring one interaction -------------------------------------------------------------


def new_page(browser: Browser, base_url: str, path: str, settings: Settings) -> Page:
    """A fresh context with the watcher, opened at ``path`` and waited for (not measured)."""
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(settings.timeout_s * 1000)
    context.add_init_script(WATCH_JS)
    page = context.new_page()
    page.goto(base_url + path, wait_until="commit")
    settle(page, 0.0, MAIN, None, settings, require_run=True)
    close_dialogs(page)
    return page


def close_dialogs(page: Page) -> None:
    """Close a dialog shown on the way (Streamlit's "Page not found" for a deep link on a fresh
    server, which still runs the page): while it is open the page is inert and takes no click."""
    dialogs = page.locator("[role='dialog']")
    for _ in range(3):
        if not dialogs.count():
            return
        close = dialogs.first.get_by_role("button", name="Close")
        if close.count():
            close.first.click()
        else:
            page.keyboard.press("Escape")
        with contextlib.suppress(Exception):  # a Playwright timeout: try again
            dialogs.first.wait_for(state="detached", timeout=10_000)


def settle(
    page: Page,
    since: float,
    selector: str,
    before: str | None,
    settings: Settings,
    *,
    require_run: bool,
    cells: list[str] | None = None,
    slider: tuple[str, float] | None = None,
) -> float | None:
    """The time (page clock, ms) of the last DOM change before the page settled, or None."""
    try:
        page.wait_for_function(
            SETTLED_JS,
            arg=[since, selector, before, cells, slider, require_run, settings.quiet_ms],
            timeout=settings.timeout_s * 1000,
            polling=50,
        )
    except Exception:  # noqa: BLE001 - a timeout (or a crashed tab) is a result, not an error
        return None
    return float(page.evaluate("() => window.__latency.lastMutation"))


def timed(
    page: Page,
    act: Callable[[], None],
    selector: str,
    settings: Settings,
    *,
    require_run: bool = True,
    require_change: bool = True,
) -> float | None:
    """Seconds from ``act``'s own input event to the settled page (None: did not settle)."""
    before = page.evaluate("(s) => document.querySelector(s)?.textContent ?? null", selector)
    if not require_change:
        before = None
    armed_at = page.evaluate(
        "() => { window.__latency.armed = true; window.__latency.actionAt = null;"
        " return performance.now(); }"
    )
    act()
    action_at = page.evaluate("() => window.__latency.actionAt") or armed_at
    done = settle(page, action_at, selector, before, settings, require_run=require_run)
    return None if done is None else max(0.0, (done - action_at) / 1000)


def sidebar_seed_up(page: Page, target: Target) -> Callable[[], None]:
    sidebar = page.get_by_test_id("stSidebar")
    field_ = sidebar.get_by_test_id("stNumberInput").filter(
        has=page.get_by_label(target.seed_label, exact=True)
    )
    button = field_.get_by_test_id("stNumberInputStepUp")
    return lambda: button.click()


def dropout_thumb_selector(target: Target) -> str:
    return f"[data-testid='stSidebar'] input[type='range'][aria-label='{target.dropout_label}']"


def measure_seed(page: Page, target: Target, settings: Settings) -> float | None:
    page.bring_to_front()
    return timed(
        page,
        sidebar_seed_up(page, target),
        target.watched,
        settings,
        require_change=target.seed_changes_text,
    )


def measure_slider(page: Page, target: Target, settings: Settings) -> float | None:
    page.bring_to_front()
    thumb = page.locator(dropout_thumb_selector(target))
    thumb.focus()
    return timed(page, lambda: page.keyboard.press("ArrowRight"), target.watched, settings)


def measure_tab(page: Page, round_number: int, settings: Settings) -> float | None:
    page.bring_to_front()
    tab = page.locator(STEP_STRIP).nth(TABS[round_number % 2])
    return timed(page, lambda: tab.click(), SELECTED_TAB, settings, require_run=False)


def measure_cell(page: Page, round_number: int, settings: Settings) -> float | None:
    """Type a new value into row 1, x1 of the page's editor; time the Enter that commits it.

    x1 is the third column from the right both in the app's table (x1, x2, x3) and on the
    editing floor (x1, x2, x3).
    """
    page.bring_to_front()
    editor = open_first_row_cell(page, arrows_left=2)
    editor.fill(f"{0.50 + 0.01 * round_number:.2f}")  # a value not typed before in this session
    return timed(page, lambda: editor.press("Enter"), CONTEXT_TABLE, settings)


def expected_context_cells(seed: int, dropout: float) -> list[str]:
    """The step page's context table for the book's table at ``seed`` and ``dropout``, as text."""
    trace = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(seed=seed, dropout=dropout))
    return [f"{value:.4f}" for row in trace.context[0].tolist() for value in row]


def measure_burst(
    browser: Browser, base_url: str, target: Target, round_number: int, settings: Settings
) -> float | None:
    """30 quick ArrowRight presses from dropout 0; seconds from the last until consistent."""
    seed = 200 + round_number  # a trace no earlier round has cached
    page = new_page(browser, base_url, f"{target.path.split('?')[0]}?seed={seed}", settings)
    try:
        thumb_selector = dropout_thumb_selector(target)
        page.locator(thumb_selector).focus()
        for _ in range(BURST_PRESSES):
            page.keyboard.press("ArrowRight")
        last_key = page.evaluate("() => window.__latency.lastKey")
        dropout = round(0.01 * BURST_PRESSES, 2)
        done = settle(
            page,
            last_key,
            target.watched,
            None,
            settings,
            require_run=False,
            cells=expected_context_cells(seed, dropout),
            slider=(thumb_selector, dropout),
        )
        return None if done is None else max(0.0, (done - last_key) / 1000)
    finally:
        page.context.close()


def measure_first_visit(
    browser: Browser, target: Target, settings: Settings, results: Results
) -> float | None:
    """A fresh server, a fresh context: seconds from navigation start to the settled page.

    A dialog shown on the way (Streamlit's "Page not found" for a deep link) is noted.
    """
    app = REFERENCE_APPS.get(target.server)
    with start_streamlit(app or DEFAULT_APP) as server:
        context = browser.new_context(viewport=VIEWPORT)
        context.add_init_script(WATCH_JS)
        page = context.new_page()
        try:
            page.goto(server.url + target.path, wait_until="commit")
            done = settle(page, 0.0, target.watched, None, settings, require_run=True)
            for text in page.locator("[role='dialog']").all_inner_texts():
                results.note("first", target.name, "dialog: " + " ".join(text.split())[:80])
            return None if done is None else done / 1000
        finally:
            context.close()


# --- the run -------------------------------------------------------------------------------


def seed_rounds(
    tabs: dict[str, tuple[Page, Target]], repeats: int, settings: Settings
) -> dict[str, list[float]]:
    """Seed clicks in every tab, in turn, round by round (round 0 warms up and is not counted).

    Interleaved, so that a change of the machine's load hits every tab alike. A click that does
    not settle is left out.
    """
    times: dict[str, list[float]] = {name: [] for name in tabs}
    for round_number in range(repeats + 1):
        for name, (page, target) in tabs.items():
            seconds = measure_seed(page, target, settings)
            if round_number and seconds is not None:
                times[name].append(seconds)
    return times


def ratio_table(times: dict[str, list[float]], floor: str, heading: str) -> str:
    """A Markdown table of the medians (min–max) and each one's ratio to the median of ``floor``."""
    floor_median = statistics.median(times[floor])
    lines = [f"| {heading} | n | median s | min–max s | × floor |", "|---|---:|---:|---:|---:|"]
    for name, values in times.items():
        median = statistics.median(values)
        lines.append(
            f"| {name} | {len(values)} | {median:.3f} | {min(values):.3f}–{max(values):.3f} "
            f"| {median / floor_median:.2f}× |"
        )
    return "\n".join(lines)


def print_ratios(times: dict[str, list[float]], floor: str, heading: str) -> None:
    """Print the load average now (the run's end) and :func:`ratio_table` of ``times``."""
    print("load average at end:", load_average())
    print("\n" + ratio_table(times, floor, heading))


def load_average() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def machine() -> dict[str, str]:
    """What the figures were measured on."""
    cpu = "?"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    import plotly
    import streamlit
    import torch

    chromium = subprocess.run(
        [DEFAULT_CHROMIUM, "--headless", "--no-sandbox", "--version"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    return {
        "date": time.strftime("%Y-%m-%d %H:%M %Z"),
        "cpu": f"{cpu}, {os.cpu_count()} cores",
        "python": platform.python_version(),
        "streamlit": streamlit.__version__,
        "plotly": plotly.__version__,
        "torch": torch.__version__,
        "chromium": chromium,
        "load average at start": load_average(),
    }


REFERENCE_APPS = {
    "floor": FLOOR_APP,
    "editing floor": EDITING_FLOOR_APP,
    "sidebar floor": SIDEBAR_FLOOR_APP,
    "bare step": BARE_STEP_APP,
    "straightforward": STRAIGHTFORWARD_APP,
}


@contextlib.contextmanager
def servers(names: set[str]) -> Iterator[dict[str, StreamlitServer]]:
    apps = {**REFERENCE_APPS, "app": DEFAULT_APP}
    with contextlib.ExitStack() as stack:
        yield {name: stack.enter_context(start_streamlit(apps[name])) for name in sorted(names)}


def run(args: argparse.Namespace) -> tuple[Results, dict[str, str]]:
    settings = Settings(quiet_ms=args.quiet, timeout_s=args.timeout)
    measures = set(args.measures)
    # the default page first: a fresh server's first session then starts at "/", not at a deep
    # link (which can show Streamlit's "Page not found" on the way)
    app_pages = [app_target(name) for name in sorted(args.pages, key=lambda n: n != DEFAULT_PAGE)]
    step = next((target for target in app_pages if target.name == DEFAULT_PAGE), None)
    seed_targets = [FLOOR, SIDEBAR_FLOOR, BARE_STEP, STRAIGHTFORWARD, *app_pages]
    long_step = app_target(f"step at {LONG_TOKENS} tokens", long_path(LONG_TOKENS))
    results = Results()
    info = machine()
    log = print if args.verbose else (lambda *_: None)

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=DEFAULT_CHROMIUM, args=CHROMIUM_ARGS)
        names = {"floor", "sidebar floor", "bare step", "straightforward", "app"} | (
            {"editing floor"} if "cell" in measures else set()
        )
        with servers(names) as running:
            url = {name: server.url for name, server in running.items()}
            pages: dict[str, Page] = {}
            interactive = measures & {"seed", "tab", "slider", "cell", "seed1024"}
            if interactive:
                for target in seed_targets:
                    pages[target.name] = new_page(
                        browser, url[target.server], target.path, settings
                    )
                if "seed1024" in measures and step is not None:
                    pages[long_step.name] = new_page(browser, url["app"], long_step.path, settings)
                if "cell" in measures and step is not None:
                    pages[EDITING_FLOOR.name] = new_page(
                        browser, url[EDITING_FLOOR.server], EDITING_FLOOR.path, settings
                    )
            for round_number in range(-args.warmup, args.repeats):

                def record(measure: str, target: str, seconds: float | None, n: int) -> None:
                    log(f"round {n} {measure} {target}: {seconds}")
                    if n >= 0:  # rounds below 0 are warm-ups
                        results.add(measure, target, seconds)

                if "seed" in measures:
                    for target in seed_targets:
                        seconds = measure_seed(pages[target.name], target, settings)
                        record("seed", target.name, seconds, round_number)
                if step is not None and "tab" in measures:
                    for name in (BARE_STEP.name, step.name):
                        seconds = measure_tab(pages[name], round_number, settings)
                        record("tab", name, seconds, round_number)
                if "slider" in measures:
                    for target in [STRAIGHTFORWARD, *([step] if step else [])]:
                        seconds = measure_slider(pages[target.name], target, settings)
                        record("slider", target.name, seconds, round_number)
                if step is not None and "cell" in measures:
                    for name in (EDITING_FLOOR.name, step.name):
                        seconds = measure_cell(pages[name], round_number, settings)
                        record("cell", name, seconds, round_number)
                if step is not None and "seed1024" in measures:
                    seconds = measure_seed(pages[long_step.name], long_step, settings)
                    record("seed", long_step.name, seconds, round_number)
                if round_number >= 0 and "burst" in measures:
                    for target in [STRAIGHTFORWARD, *([step] if step else [])]:
                        seconds = measure_burst(
                            browser, url[target.server], target, round_number, settings
                        )
                        record("burst", target.name, seconds, round_number)
            for page in pages.values():
                page.context.close()
        if "first" in measures:
            first_targets = [FLOOR, STRAIGHTFORWARD, *app_pages]
            if args.quick:
                first_targets = [FLOOR, STRAIGHTFORWARD, *([step] if step else [])]
            for round_number in range(args.first_repeats):
                for target in first_targets:
                    seconds = measure_first_visit(browser, target, settings, results)
                    log(f"round {round_number} first {target.name}: {seconds}")
                    results.add("first", target.name, seconds)
        browser.close()
    info["load average at end"] = load_average()
    return results, info


# --- the report ----------------------------------------------------------------------------

GOALS = {  # issue 21: (measure, ratio to what, at most)
    "seed": ("floor", 1.2),
    "tab": ("floor", 1.0),
    "seed1024": ("floor", 1.5),
    "cell": ("editing floor", 1.3),
    "first": ("floor first", 1.5),
}
REFERENCES = (
    FLOOR.name,
    SIDEBAR_FLOOR.name,
    EDITING_FLOOR.name,
    BARE_STEP.name,
    STRAIGHTFORWARD.name,
)


def _seconds(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def _ratio(value: float | None, reference: float | None) -> str:
    if value is None or not reference:
        return "—"
    return f"{value / reference:.2f}×"


def table(results: Results) -> str:
    """The Markdown table of medians and ratios (see the module docstring)."""
    floor_seed = results.median("seed", FLOOR.name)
    floor_first = results.median("first", FLOOR.name)
    floor_cell = results.median("cell", EDITING_FLOOR.name)
    straight = {m: results.median(m, STRAIGHTFORWARD.name) for m in ("seed", "slider", "first")}
    sidebar_seed = results.median("seed", SIDEBAR_FLOOR.name)
    lines = [
        "| measure | page | n | median s | min–max s | × floor | × sidebar floor"
        " | × straightforward | goal |",
        "|---|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    order = {name: position for position, name in enumerate(MEASURES)}
    for (measure, target), values in sorted(
        results.times.items(), key=lambda item: order.get(item[0][0], 99)
    ):
        done = [v for v in values if v is not None]
        median = results.median(measure, target)
        spread = f"{min(done):.3f}–{max(done):.3f}" if done else "—"
        missing = len(values) - len(done)
        count = f"{len(done)}" + (f" ({missing} did not settle)" if missing else "")
        if measure == "burst":
            lines.append(
                f"| {measure} (last press → consistent) | {target} | {count} | {_seconds(median)}"
                f" | {spread} | | | | ≤ 1 s: {'ok' if median is not None and median <= 1 else 'no'} |"
            )
            continue
        reference = {"first": floor_first, "cell": floor_cell}.get(measure, floor_seed)
        is_long = target.startswith("step at")
        goal_key = "seed1024" if is_long else measure
        goal = ""
        if target not in REFERENCES and goal_key in GOALS:
            what, limit = GOALS[goal_key]
            ratio = None if median is None or not reference else median / reference
            verdict = "—" if ratio is None else ("ok" if ratio <= limit else "no")
            goal = f"≤ {limit:g}× {what.removesuffix(' first')}: {verdict}"
        versus = ""
        if target == "step" and straight.get(measure):
            versus = _ratio(median, straight[measure])
            if measure == "seed" and median is not None:
                goal += f"; ≤ 0.6× straightforward: {'ok' if median / straight['seed'] <= 0.6 else 'no'}"
        sidebar = _ratio(median, sidebar_seed) if measure == "seed" else ""
        lines.append(
            f"| {measure} | {target} | {count} | {_seconds(median)} | {spread} | "
            f"{_ratio(median, reference)} | {sidebar} | {versus} | {goal} |"
        )
    return "\n".join(lines)


def goal_of(measure: str, target: str) -> str | None:
    """The key of :data:`GOALS` that a (measure, target) row answers, or None (a reference)."""
    if target in REFERENCES:
        return None
    key = "seed1024" if measure == "seed" and target.startswith("step at") else measure
    return key if key in GOALS else None


def goals_summary(results: Results) -> str:
    """One line per goal of issue 21: the worst page's ratio, how many pages meet it, met or not."""
    references = {
        "floor": results.median("seed", FLOOR.name),
        "floor first": results.median("first", FLOOR.name),
        "editing floor": results.median("cell", EDITING_FLOOR.name),
    }
    lines = []
    for key, (what, limit) in GOALS.items():
        ratios = {}
        for measure, target in results.times:
            median = results.median(measure, target)
            if goal_of(measure, target) == key and median is not None and references[what]:
                ratios[target] = median / references[what]
        if not ratios:
            continue
        worst = max(ratios, key=ratios.__getitem__)
        met = sum(ratio <= limit for ratio in ratios.values())
        verdict = "met" if met == len(ratios) else "not met"
        lines.append(
            f"- {key} ≤ {limit:g}× {what}: {verdict} ({met}/{len(ratios)} pages; worst {worst} "
            f"{ratios[worst]:.2f}×; reference {references[what]:.3f} s)"
        )
    return "\n".join(lines)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    names = [spec.name for spec in PAGE_SPECS]
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5, help="counted rounds (default 5)")
    parser.add_argument(
        "--first-repeats",
        type=int,
        help="first visits per page, each on a fresh server (default: --repeats, at most 3)",
    )
    parser.add_argument("--warmup", type=int, default=1, help="uncounted rounds first (default 1)")
    parser.add_argument("--pages", nargs="+", choices=names, default=names, help="app pages")
    parser.add_argument("--measures", nargs="+", choices=MEASURES, default=list(MEASURES))
    parser.add_argument(
        "--quick",
        action="store_true",
        help="1 round, the default page only, first visits of the floor, straightforward and "
        "default pages only",
    )
    parser.add_argument("--quiet", type=float, default=400.0, help="ms without DOM change")
    parser.add_argument("--timeout", type=float, default=90.0, help="s per measurement")
    parser.add_argument("--json", type=Path, help="also write the raw seconds to this file")
    parser.add_argument("--verbose", action="store_true", help="print every measurement")
    args = parser.parse_args(argv)
    if args.quick:
        args.repeats, args.pages = 1, ["step"]
    if args.first_repeats is None:
        args.first_repeats = min(args.repeats, 3)
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    results, info = run(args)
    print("\n".join(f"- {name}: {value}" for name, value in info.items()))
    print(f"- repeats: {args.repeats} (after {args.warmup} warm-up), quiet {args.quiet:g} ms\n")
    print(table(results))
    print("\n" + goals_summary(results))
    for (measure, target), texts in sorted(results.notes.items()):
        print(f"- {measure}, {target}: " + "; ".join(sorted(texts)))
    if args.json:
        raw = {f"{m} | {t}": v for (m, t), v in results.times.items()}
        args.json.write_text(json.dumps({"machine": info, "seconds": raw}, indent=2))


if __name__ == "__main__":
    main()
