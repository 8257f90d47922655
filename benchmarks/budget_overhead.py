"""What the memory budget costs the book's six tokens: the default page's server time, A/B.

Usage (from the repository root)::

    python benchmarks/budget_overhead.py --other /path/to/a/checkout/without/the/budget

Runs, in fresh processes alternating between this checkout and ``--other`` (``--rounds`` each, so
that the machine's load hits both alike): ``--reruns`` ``AppTest`` reruns of the default page
(frame, sidebar and step page, the same script run a click makes, without the browser) and 2,000
calls of ``ui.computation.compute_trace`` on the book's six tokens (a cache hit: the path every
rerun of every page takes). Prints the median of each per round and checkout (wall clock and the
process's CPU time, steadier on a busy machine); who goes first alternates between rounds.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent


def _script() -> str:
    return """
import json, statistics, sys, time
sys.path.insert(0, ".")
from streamlit.testing.v1 import AppTest
from attention import AttentionConfig
from ui import computation
from ui.table_state import book_table

app = AppTest.from_file("tests/page_harness.py", default_timeout=120)
app.run()
assert not app.exception
runs, cpu = [], []
for _ in range(int(sys.argv[1])):
    started, started_cpu = time.perf_counter(), time.process_time()
    app.run()
    runs.append(time.perf_counter() - started)
    cpu.append(time.process_time() - started_cpu)
table = book_table()
cfg = AttentionConfig()
computation.compute_trace(table, cfg)
calls = []
for _ in range(2000):
    started = time.perf_counter()
    computation.compute_trace(table, cfg)
    calls.append(time.perf_counter() - started)
print(json.dumps({"rerun_ms": statistics.median(runs) * 1e3,
                  "rerun_cpu_ms": statistics.median(cpu) * 1e3,
                  "compute_trace_us": statistics.median(calls) * 1e6}))
"""


def measure(root: Path, reruns: int) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", _script(), str(reruns)],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
        timeout=900,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--other", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--reruns", type=int, default=30)
    args = parser.parse_args(argv)
    results: dict[str, list[dict[str, float]]] = {"this": [], "other": []}
    checkouts = [("this", REPO_ROOT), ("other", args.other.resolve())]
    for round_ in range(args.rounds):
        for name, root in checkouts[:: 1 if round_ % 2 == 0 else -1]:  # who goes first alternates
            results[name].append(measure(root, args.reruns))
            print(name, json.dumps(results[name][-1]), flush=True)
    for name, rows in results.items():
        rerun = statistics.median(row["rerun_ms"] for row in rows)
        cpu = statistics.median(row["rerun_cpu_ms"] for row in rows)
        call = statistics.median(row["compute_trace_us"] for row in rows)
        print(
            f"{name}: default page rerun {rerun:.1f} ms ({cpu:.1f} ms CPU), "
            f"compute_trace {call:.1f} µs"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
