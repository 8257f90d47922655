"""How long does one full garbage collection hold the GIL in the app's server process?

Streamlit serves every session from threads of one process, and by default it runs
``gc.collect()`` after every script run (``runner.postScriptGC``). A full collection walks every
object the collector tracks while holding the GIL: for that long no session, and not the server's
event loop, can run. This script measures that pause in a fresh process that imports what the app
imports, before and after ``gc.freeze()`` (which ``ui/frame.py`` does once at import), and prints
the two side by side with their ratio.

    python benchmarks/gc_pause.py            # 7 collections each
    python benchmarks/gc_pause.py --repeat 3
"""

from __future__ import annotations

import argparse
import gc
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent


def _pause_ms(repeat: int) -> float:
    """Median wall time of ``gc.collect()`` (all generations), in ms."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        gc.collect()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def measure(repeat: int) -> dict[str, float]:
    """In this process: import the app's modules, time collections, freeze, time again."""
    sys.path.insert(0, str(REPO_ROOT))
    from ui.preload import import_page_modules  # the frame's list (importing ui.frame freezes)

    import_page_modules()
    tracked_before = len(gc.get_objects())
    before = _pause_ms(repeat)
    gc.freeze()
    tracked_after = len(gc.get_objects())
    after = _pause_ms(repeat)
    return {
        "before_ms": before,
        "after_ms": after,
        "tracked_before": tracked_before,
        "tracked_after": tracked_after,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7, help="collections per measurement")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        result = measure(args.repeat)
        print(" ".join(f"{key}={value}" for key, value in result.items()))
        return
    # a fresh process: nothing else imported, nothing frozen yet
    out = subprocess.run(
        [sys.executable, __file__, "--child", "--repeat", str(args.repeat)],
        check=True,
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
    ).stdout.split()
    result = {key: float(value) for key, value in (item.split("=") for item in out)}
    print(
        f"machine: {platform.machine()}, {platform.python_implementation()} {platform.python_version()}"
    )
    print(f"{'':28}{'without freeze':>16}{'with gc.freeze()':>18}{'ratio':>10}")
    print(
        f"{'objects the GC walks':28}{result['tracked_before']:>16,.0f}"
        f"{result['tracked_after']:>18,.0f}"
        f"{result['tracked_after'] / result['tracked_before']:>10.4f}"
    )
    print(
        f"{'full collection (ms)':28}{result['before_ms']:>16.1f}{result['after_ms']:>18.2f}"
        f"{result['after_ms'] / result['before_ms']:>10.4f}"
    )


if __name__ == "__main__":
    main()
