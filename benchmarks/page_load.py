"""Bytes and time to a settled page, the app's step-by-step page against a straightforward page.

Usage (from the repository root; needs Playwright and /usr/bin/chromium, like the browser tests)::

    python benchmarks/page_load.py                         # 6, 256, 1024, 4096 tokens
    python benchmarks/page_load.py --tokens 6 1024 --json /tmp/page_load.json

Starts two real ``streamlit run`` servers on loopback ports: the app (``app.py``) and the baseline
(``benchmarks/baseline_app.py``: every matrix of the trace as a numeric ``px.imshow(text_auto)``
heatmap). For each token count it opens each page in a fresh headless Chromium context with the
same ``N`` made-up words (the app's "Random tokens", ``ui.table_state.random_words``) and dropout 0.1, so
that every step of the page, dropout included, is drawn. Then it measures:

- **load**: bytes received on the websocket (every frame's payload, as Chromium delivers it) from
  navigation until the page is settled, and the time to settled;
- **step**: the same for one step of the dropout slider (ArrowRight: 0.10 → 0.11).

"Settled" means: Streamlit's script is not running *and* nothing in the page's DOM has changed for
``--quiet`` ms (a MutationObserver watches the whole document, so Plotly drawing counts). The time
reported is that of the last change, so the quiet period itself is not counted. A page that does
not settle within the timeout is reported as such ("> 120 s"), with the bytes received so far.
Streamlit's message size limit (``server.maxMessageSize``, 200 MB) is checked by looking for its
error text on the page and by the largest single frame.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import platform
import re
import subprocess
import sys
import time
import urllib.parse
from dataclasses import asdict, dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from playwright.sync_api import Browser, Page, sync_playwright  # noqa: E402

from tests.e2e.server import start_streamlit  # noqa: E402
from ui.table_state import random_words  # noqa: E402

BASELINE_APP = REPO_ROOT / "benchmarks" / "baseline_app.py"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic"]
VIEWPORT = {"width": 1366, "height": 768}
DROPOUT = 0.1
MESSAGE_LIMIT_TEXT = "exceeds the message size limit"

# Installed before any page script: remembers when the DOM last changed and when Streamlit's
# script last started running, and counts every websocket message's payload bytes. (Counting in
# the page is exact and reliable; Playwright's `websocket` event sometimes attaches too late and
# misses a whole connection.)
WATCH_JS = """
(() => {
  window.__lastMutation = performance.now();
  window.__lastRunning = -1;
  window.__ws = {bytes: 0, frames: 0, largest: 0};
  const Native = window.WebSocket;
  function Counted(url, protocols) {
    const socket = protocols === undefined ? new Native(url) : new Native(url, protocols);
    socket.addEventListener("message", (event) => {
      const data = event.data;
      const size = data instanceof ArrayBuffer ? data.byteLength
        : (data && data.size !== undefined) ? data.size
        : new TextEncoder().encode(String(data)).length;
      window.__ws.bytes += size;
      window.__ws.frames += 1;
      window.__ws.largest = Math.max(window.__ws.largest, size);
    });
    return socket;
  }
  Counted.prototype = Native.prototype;
  Object.assign(Counted, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});
  window.WebSocket = Counted;
  const watch = () => {
    new MutationObserver((records) => {
      window.__lastMutation = performance.now();
      for (const r of records) {
        // A quick run can go running -> notRunning before this callback: the old value counts.
        if (r.type === "attributes" && r.attributeName === "data-test-script-state"
            && (r.oldValue === "running"
                || r.target.getAttribute("data-test-script-state") === "running")) {
          window.__lastRunning = performance.now();
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

# True once the script is idle, it ran after `mark`, and the DOM has been quiet for `quiet` ms.
SETTLED_JS = """
([mark, quiet]) => {
  const app = document.querySelector("[data-testid='stApp']");
  if (!app || app.getAttribute("data-test-script-state") !== "notRunning") return false;
  if (window.__lastRunning < mark) return false;
  return performance.now() - window.__lastMutation >= quiet;
}
"""


@dataclass
class Measurement:
    """One load or one step: bytes on the websocket and time to settled (None: did not settle)."""

    bytes: int = 0
    frames: int = 0
    largest_frame: int = 0
    seconds: float | None = None
    note: str = ""


@dataclass
class Result:
    page: str  # "app" or "baseline"
    tokens: int
    load: Measurement = field(default_factory=Measurement)
    step: Measurement = field(default_factory=Measurement)


class FrameCounter:
    """Reads the page's websocket byte counter; :meth:`take` returns what arrived since last."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.seen = {"bytes": 0, "frames": 0}

    def take(self) -> Measurement:
        try:
            now = self.page.evaluate("() => window.__ws")
        except Exception:  # noqa: BLE001 - a crashed tab: nothing more can be read
            return Measurement()
        taken = Measurement(
            bytes=now["bytes"] - self.seen["bytes"],
            frames=now["frames"] - self.seen["frames"],
            largest_frame=now["largest"],
        )
        self.seen = {"bytes": now["bytes"], "frames": now["frames"]}
        return taken


def app_path(tokens: int, page: str = "") -> str:
    """An app page (default: step by step) with ``tokens`` made-up words and dropout 0.1."""
    query = {"dropout": str(DROPOUT), "text": " ".join(random_words(tokens))}
    return f"/{page}?" + urllib.parse.urlencode(query, quote_via=urllib.parse.quote)


def baseline_path(tokens: int) -> str:
    return f"/?n={tokens}&dropout={DROPOUT}"


def wait_settled(page: Page, mark: float, quiet: float, timeout_s: float) -> float | None:
    """Seconds from ``mark`` to the last DOM change before the page settled, or None."""
    try:
        page.wait_for_function(SETTLED_JS, arg=[mark, quiet], timeout=timeout_s * 1000, polling=100)
    except Exception:  # noqa: BLE001 - a timeout (or a crashed tab) is a result, not an error
        return None
    last_change = page.evaluate("() => window.__lastMutation")
    return max(0.0, (last_change - mark) / 1000)


def _message_limit_hit(page: Page) -> bool:
    try:
        return MESSAGE_LIMIT_TEXT in page.inner_text("body", timeout=5000)
    except Exception:  # noqa: BLE001
        return False


def measure(
    browser: Browser,
    base_url: str,
    path: str,
    page_name: str,
    tokens: int,
    *,
    quiet: float,
    timeout_s: float,
    slider_name: re.Pattern[str],
) -> Result:
    """Load ``path`` in a fresh context, then step the dropout slider once; measure both."""
    result = Result(page_name, tokens)
    context = browser.new_context(viewport=VIEWPORT)
    context.add_init_script(WATCH_JS)
    page = context.new_page()
    counter = FrameCounter(page)
    try:
        page.goto(base_url + path, wait_until="commit", timeout=timeout_s * 1000)
        seconds = wait_settled(page, 0.0, quiet, timeout_s)
        result.load = counter.take()
        result.load.seconds = seconds
        if _message_limit_hit(page):
            result.load.note = "exceeded message size"
        elif seconds is None:
            result.load.note = f"did not settle in {timeout_s:g} s"
        if seconds is None:
            return result
        slider = page.get_by_role("slider", name=slider_name).first
        slider.focus()
        mark = page.evaluate("() => performance.now()")
        page.keyboard.press("ArrowRight")
        seconds = wait_settled(page, mark, quiet, timeout_s)
        result.step = counter.take()
        result.step.seconds = seconds
        if _message_limit_hit(page):
            result.step.note = "exceeded message size"
        elif seconds is None:
            result.step.note = f"did not settle in {timeout_s:g} s"
    except Exception as error:  # noqa: BLE001 - report, keep measuring the other sizes
        result.load.note = result.load.note or f"failed: {type(error).__name__}: {error}"[:200]
    finally:
        context.close()
    return result


def baseline_offline(tokens: int) -> Result:
    """The bytes the baseline page would send (its figures' JSON), without a browser.

    At 4096 tokens the baseline's (T, T) figures are about 90 MB of JSON each (16.7 million
    float32 values in base64), over a gigabyte in all: loading that into headless Chromium on a
    shared 2-core machine only measures how the tab dies, so its size is computed instead.
    """
    import plotly.io as pio

    from benchmarks.baseline_app import baseline_figure, baseline_matrices

    result = Result("baseline", tokens)
    for matrix in baseline_matrices(tokens, DROPOUT).values():
        size = len(pio.to_json(baseline_figure(matrix), validate=False))
        result.load.bytes += size
        result.load.frames += 1
        result.load.largest_frame = max(result.load.largest_frame, size)
    result.load.note = "not loaded: figure JSON only"
    return result


def machine() -> dict[str, str]:
    """What the figures were measured on."""
    cpu = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        memory = Path("/proc/meminfo").read_text().splitlines()[0].split()[1]
        ram = f"{int(memory) / 1024 / 1024:.1f} GiB"
    except OSError:
        ram = "?"
    import plotly
    import streamlit
    import torch

    chromium = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--version"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    return {
        "date": time.strftime("%Y-%m-%d %H:%M %Z"),
        "cpu": cpu,
        "cores": str(os.cpu_count()),
        "ram": ram,
        "python": platform.python_version(),
        "streamlit": streamlit.__version__,
        "plotly": plotly.__version__,
        "torch": torch.__version__,
        "chromium": chromium,
    }


def _mb(count: int) -> str:
    return f"{count / 1e6:.2f} MB"


def _seconds(item: Measurement) -> str:
    return "—" if item.seconds is None else f"{item.seconds:.2f} s"


def _ratio(app: Measurement, base: Measurement, attr: str) -> str:
    a, b = getattr(app, attr), getattr(base, attr)
    if a is None:
        return "—"
    if b is None:
        return "baseline did not settle"
    return f"{a / b:.2f}" if b else "—"


def table(results: list[Result]) -> str:
    """A Markdown table: app and baseline side by side, with app ÷ baseline ratios."""
    lines = [
        "| tokens | app load | app time | baseline load | baseline time | bytes ratio | "
        "time ratio | app step | app step time | baseline step | baseline step time |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    by_key = {(r.page, r.tokens): r for r in results}
    for tokens in sorted({r.tokens for r in results}):
        app, base = by_key.get(("app", tokens)), by_key.get(("baseline", tokens))
        if app is None or base is None:
            continue

        def seconds(item: Measurement) -> str:
            return item.note or _seconds(item)

        lines.append(
            f"| {tokens} | {_mb(app.load.bytes)} | {seconds(app.load)} | "
            f"{_mb(base.load.bytes)} | {seconds(base.load)} | "
            f"{app.load.bytes / max(base.load.bytes, 1):.3f} | "
            f"{_ratio(app.load, base.load, 'seconds')} | {_mb(app.step.bytes)} | "
            f"{seconds(app.step)} | {_mb(base.step.bytes)} | {seconds(base.step)} |"
        )
    for result in results:
        if result.page not in ("app", "baseline"):
            lines.append(
                f"| {result.tokens} ({result.page}) | {_mb(result.load.bytes)} | "
                f"{result.load.note or _seconds(result.load)} | | | | | "
                f"{_mb(result.step.bytes)} | {result.step.note or _seconds(result.step)} | | |"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokens", type=int, nargs="+", default=[6, 256, 1024, 4096])
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per load or step")
    parser.add_argument(
        "--baseline-timeout", type=float, default=300.0, help="the same, for the baseline page"
    )
    parser.add_argument("--quiet", type=float, default=500.0, help="ms without DOM changes")
    parser.add_argument("--skip-baseline", action="store_true")
    parser.add_argument(
        "--pages", nargs="*", default=[], help="also measure these pages (url paths: masking …)"
    )
    parser.add_argument(
        "--baseline-max-tokens",
        type=int,
        default=1024,
        help="above this, the baseline is not opened in a browser; its bytes are computed",
    )
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args(argv)

    results: list[Result] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        with start_streamlit() as app_server, start_streamlit(BASELINE_APP) as baseline_server:
            servers = [("app", app_server.url, app_path, re.compile("Dropout rate"))]
            for other in args.pages:  # other pages of the app, same measurements
                servers.append(
                    (other, app_server.url, functools.partial(app_path, page=other),
                     re.compile("Dropout rate"))
                )  # fmt: skip
            if not args.skip_baseline:
                servers.append(
                    ("baseline", baseline_server.url, baseline_path, re.compile("dropout"))
                )
            for name, url, path, slider in servers:  # warm-up: imports, first run, Chromium
                measure(browser, url, path(6), name, 6, quiet=args.quiet,
                        timeout_s=args.timeout, slider_name=slider)  # fmt: skip
            for tokens in args.tokens:
                for name, url, path, slider in servers:
                    if name == "baseline" and tokens > args.baseline_max_tokens:
                        result = baseline_offline(tokens)
                        results.append(result)
                        print(json.dumps(asdict(result)), flush=True)
                        continue
                    timeout = args.baseline_timeout if name == "baseline" else args.timeout
                    result = measure(browser, url, path(tokens), name, tokens, quiet=args.quiet,
                                     timeout_s=timeout, slider_name=slider)  # fmt: skip
                    results.append(result)
                    print(json.dumps(asdict(result)), flush=True)
        browser.close()
    print()
    print(table(results))
    if args.json:
        args.json.write_text(
            json.dumps({"machine": machine(), "results": [asdict(r) for r in results]}, indent=2)
        )
    print()
    print(json.dumps(machine(), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
