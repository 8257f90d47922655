"""Grey placeholders after a page's script has finished: which element kinds, how long.

Usage (from the repository root; Playwright and /usr/bin/chromium, like the browser tests)::

    python benchmarks/lazy_elements.py --pages step masking --repeats 4
    python benchmarks/lazy_elements.py --root /work/other_worktree --pages step   # another tree

Streamlit's browser code loads most element kinds on their first use in a page load (``React.lazy``:
a code block, a checkbox or toggle, a number input, a button, a table, a Plotly chart…); until
its code has arrived and run, an element is drawn as a grey bar (``[data-testid='stSkeleton']``). This
starts one server of ``--root``'s ``app.py`` and visits each page ``--repeats`` times, each in a
fresh browser context (nothing cached, as a student's first visit). An observer installed before
Streamlit loads notes every placeholder: when it appeared, when it went and which element took
its place, and when the script state last became ``notRunning``. Prints, per page, when the
script was done and when the last placeholder went (seconds from navigation start), then per page
and kind how many placeholders a visit showed and how long the last of them stayed after the
script had finished (the browser's own clock; medians over the visits). ``--verbose`` prints each
visit's placeholders and the last files it loaded.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from tests.e2e.conftest import CHROMIUM_ARGS, DEFAULT_CHROMIUM, VIEWPORT  # noqa: E402
from tests.e2e.server import start_streamlit  # noqa: E402
from ui.frame import DEFAULT_PAGE, PAGE_SPECS  # noqa: E402

OBSERVE_JS = """
(() => {
  const rec = {placeholders: [], lastNotRunning: -1, lastMutation: performance.now()};
  window.__lazy = rec;
  const open = new Map();  // element container -> its record
  const kindOf = (container) => {
    for (const el of container.querySelectorAll("[data-testid]")) {
      const id = el.getAttribute("data-testid");
      if (!id.startsWith("stSkeleton")) return id;
    }
    return container.isConnected ? "(empty)" : "(removed)";
  };
  const scan = () => {
    const now = performance.now();
    rec.lastMutation = now;
    const app = document.querySelector("[data-testid='stApp']");
    const state = app && app.getAttribute("data-test-script-state");
    if (state === "notRunning" && rec.state !== "notRunning") rec.lastNotRunning = now;
    rec.state = state;
    const seen = new Set();
    for (const bar of document.querySelectorAll("[data-testid='stSkeleton']")) {
      const container = bar.closest("[data-testid='stElementContainer']") || bar.parentElement;
      seen.add(container);
      if (!open.has(container)) {
        const item = {start: now, end: null, kind: null};
        open.set(container, item);
        rec.placeholders.push(item);
      }
    }
    for (const [container, item] of open) {
      if (!seen.has(container)) { item.end = now; item.kind = kindOf(container); open.delete(container); }
    }
  };
  const watch = () => new MutationObserver(scan).observe(document, {subtree: true, childList: true,
    attributes: true, characterData: true});
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", watch);
  else watch();
})();
"""

DONE_JS = """
(quiet) => {
  const rec = window.__lazy;
  const app = document.querySelector("[data-testid='stApp']");
  if (!rec || !app || app.getAttribute("data-test-script-state") !== "notRunning") return false;
  if (document.querySelector("[data-testid='stSkeleton']")) return false;
  if (!document.querySelector("[data-testid='stMain'] [data-testid='stElementContainer']")) return false;
  return performance.now() - rec.lastMutation >= quiet;
}
"""


def visit(browser, url: str, timeout_s: float) -> dict:
    context = browser.new_context(viewport=VIEWPORT)
    try:
        page = context.new_page()
        page.add_init_script(OBSERVE_JS)
        page.goto(url, wait_until="commit")
        page.wait_for_function(DONE_JS, arg=1500, timeout=timeout_s * 1000, polling=100)
        rec = page.evaluate("window.__lazy")
        rec["scripts"] = page.evaluate(
            """performance.getEntriesByType("resource").filter((e) => !e.name.includes("data:"))
               .map((e) => [e.name.split("/").pop(), e.startTime, e.responseEnd])"""
        )
        return rec
    finally:
        context.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=REPO_ROOT, help="tree whose app.py to serve")
    parser.add_argument("--pages", nargs="+", default=[spec.name for spec in PAGE_SPECS])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--verbose", action="store_true", help="every visit's timeline")
    args = parser.parse_args()
    root = args.root.resolve()
    # kind -> page -> per visit: (count, seconds the last one stayed after the script's end)
    after: dict[tuple[str, str], list[tuple[int, float]]] = defaultdict(list)
    visits: dict[str, int] = defaultdict(int)
    # page -> per visit: (script done, last placeholder gone), seconds from navigation start
    timeline: dict[str, list[tuple[float, float]]] = defaultdict(list)
    with (
        start_streamlit(root / "app.py", cwd=root) as server,
        sync_playwright() as pw,
    ):
        browser = pw.chromium.launch(executable_path=DEFAULT_CHROMIUM, args=CHROMIUM_ARGS)
        started = time.time()
        for _ in range(args.repeats):
            for name in args.pages:
                path = "" if name == DEFAULT_PAGE else name
                rec = visit(browser, f"{server.url}/{path}", args.timeout)
                visits[name] += 1
                done = rec["lastNotRunning"]
                if args.verbose:
                    print(
                        f"{name}: script done at {done / 1000:.3f} s, skeleton ends",
                        sorted(
                            {
                                (
                                    round(i["start"] / 1000, 3),
                                    round((i["end"] or 0) / 1000, 3),
                                    i["kind"],
                                )
                                for i in rec["placeholders"]
                            }
                        ),
                    )
                    for file, begin, end in sorted(rec["scripts"], key=lambda r: r[2])[-14:]:
                        print(f"   {begin / 1000:7.3f} {end / 1000:7.3f} {file}")
                per_kind: dict[str, list[float]] = defaultdict(list)
                for item in rec["placeholders"]:
                    end = item["end"] if item["end"] is not None else done
                    per_kind[item["kind"] or "(open)"].append(max(0.0, end - done) / 1000)
                for kind, stays in per_kind.items():
                    after[(name, kind)].append((len(stays), max(stays)))
                ends = [item["end"] or done for item in rec["placeholders"]]
                timeline[name].append((done / 1000, max([done, *ends]) / 1000))
        browser.close()
    print(f"root {root}, {args.repeats} visits per page, {time.time() - started:.0f} s\n")
    print(
        "| page | script done, median s | last placeholder gone, median s | difference, median s |"
    )
    print("|---|---:|---:|---:|")
    for name, rows in timeline.items():
        print(
            f"| {name} | {statistics.median(d for d, _ in rows):.3f} | "
            f"{statistics.median(g for _, g in rows):.3f} | "
            f"{statistics.median(g - d for d, g in rows):.3f} |"
        )
    print()
    print(
        "| page | element kind | visits with it | placeholders per visit | "
        "after the script, median s | max s |"
    )
    print("|---|---|---:|---:|---:|---:|")
    for (name, kind), rows in sorted(after.items()):
        counts = [count for count, _ in rows]
        stays = [stay for _, stay in rows] + [0.0] * (visits[name] - len(rows))
        print(
            f"| {name} | {kind} | {len(rows)}/{visits[name]} | {statistics.median(counts):.0f} | "
            f"{statistics.median(stays):.3f} | {max(stays):.3f} |"
        )


if __name__ == "__main__":
    main()
