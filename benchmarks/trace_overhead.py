"""How much does tracing cost? ``trace_attention`` against the book's plain recipe.

The recipe is what chapter 3 runs::

    torch.manual_seed(seed)
    module = CausalAttention(d_in, d_out, context_length, dropout)   # training mode
    with torch.no_grad():
        context_vecs = module(batch)

``trace_attention`` does the same and also validates the input, isolates the RNG and keeps every
intermediate tensor. Both run on one sequence of T tokens (batch 1), ``d_in = d_out = 64``,
dropout 0.1, training mode.

Time: the two are run alternately, after a warm-up, and the median of each is reported. The
ratio is the median of the per-repetition ratios (each trace against the recipe run just before
it), which holds up better than a ratio of medians when other processes share the CPU; the load
average is printed before and after so that a noisy run can be recognised.

Memory: each (method, tokens) pair runs once in a fresh subprocess. The child resets its peak
resident set size (``echo 5 > /proc/self/clear_refs`` resets ``VmHWM`` on Linux), runs the case and
reports ``VmHWM`` after minus ``VmRSS`` before: the extra memory the call needed at its peak, counting
every byte torch's CPU allocator took from the operating system (``tracemalloc`` cannot see those).
Where ``clear_refs`` is not writable it falls back to ``ru_maxrss`` (after minus before), which can
under-report when an earlier peak was higher.

Run from the repository root::

    python benchmarks/trace_overhead.py                          # wall clock, torch's threads
    python benchmarks/trace_overhead.py --threads 1 --clock cpu  # CPU time: steadier when busy
    python benchmarks/trace_overhead.py --quick                  # a fifth of the repetitions

``--clock cpu`` times with ``time.process_time`` (CPU seconds of all this process's threads), which
other processes on a busy machine barely disturb; with one thread it is the work done.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))  # run as a script from anywhere

import torch  # noqa: E402

from attention import AttentionConfig, CausalAttention, trace_attention  # noqa: E402

D_MODEL = 64  # d_in = d_out
DROPOUT = 0.1
SEED = 123
TOKEN_COUNTS = (6, 256, 1024, 4096)
REPETITIONS = {6: 300, 256: 60, 1024: 20, 4096: 7}  # per method, after warm-up
TARGET_RATIO = {6: 3.0, 256: 1.5, 1024: 1.5, 4096: 1.5}


def make_batch(num_tokens: int) -> torch.Tensor:
    """``(1, T, 64)`` embeddings in [0, 1), from a private generator."""
    generator = torch.Generator().manual_seed(num_tokens)
    return torch.rand(1, num_tokens, D_MODEL, generator=generator)


def run_recipe(batch: torch.Tensor) -> torch.Tensor:
    """The book's recipe: seed, build ``CausalAttention``, forward without gradients."""
    torch.manual_seed(SEED)
    module = CausalAttention(D_MODEL, D_MODEL, batch.shape[1], DROPOUT)
    module.train()
    with torch.no_grad():
        return module(batch)


def run_trace(batch: torch.Tensor) -> torch.Tensor:
    """The same forward pass through ``trace_attention`` (every step kept)."""
    cfg = AttentionConfig(d_out=D_MODEL, dropout=DROPOUT, seed=SEED, training=True)
    return trace_attention(batch, cfg).output


METHODS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "recipe": run_recipe,
    "trace": run_trace,
}


@dataclass(frozen=True)
class Row:
    tokens: int
    recipe_ms: float  # median
    trace_ms: float  # median
    ratio: float  # median of paired trace/recipe ratios
    recipe_peak_mb: float
    trace_peak_mb: float


CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.process_time}


def time_methods(
    num_tokens: int, repetitions: int, clock: Callable[[], float] = time.perf_counter
) -> tuple[float, float, float]:
    """Median ms of the recipe and of the trace (run alternately), and the median paired ratio."""
    batch = make_batch(num_tokens)
    assert torch.equal(run_recipe(batch), run_trace(batch)), "trace and recipe disagree"
    for _ in range(2):  # warm-up: lazy initialisation, thread pool, allocator caches
        run_recipe(batch)
        run_trace(batch)
    times: dict[str, list[float]] = {"recipe": [], "trace": []}
    for _ in range(repetitions):
        for name, method in METHODS.items():
            start = clock()
            method(batch)
            times[name].append((clock() - start) * 1000.0)
    ratios = [t / r for r, t in zip(times["recipe"], times["trace"], strict=True)]
    return (
        statistics.median(times["recipe"]),
        statistics.median(times["trace"]),
        statistics.median(ratios),
    )


def _status_kib(key: str) -> int:
    with open("/proc/self/status") as status:
        match = re.search(rf"^{key}:\s+(\d+) kB", status.read(), re.MULTILINE)
    assert match, key
    return int(match.group(1))


def probe_memory(method: str, num_tokens: int) -> float:
    """In this (fresh) process: peak extra resident memory, in MB, of one call of ``method``."""
    run = METHODS[method]
    run(make_batch(6))  # load lazy code paths so they do not count as the case's memory
    batch = make_batch(num_tokens)
    try:
        with open("/proc/self/clear_refs", "w") as clear_refs:
            clear_refs.write("5")  # reset the peak (VmHWM) to the current RSS
        before_kib = _status_kib("VmRSS")
        result = run(batch)
        peak_kib = _status_kib("VmHWM")
    except OSError:
        before_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
        result = run(batch)
        peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    del result
    return max(peak_kib - before_kib, 0) / 1024.0


def measure_memory(method: str, num_tokens: int, threads: int) -> float:
    """Run :func:`probe_memory` in a fresh Python process and return its MB."""
    probe = ["--memory-probe", method, str(num_tokens), "--threads", str(threads)]
    completed = subprocess.run(
        [sys.executable, __file__, *probe],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO_ROOT,
    )
    return float(completed.stdout.strip().splitlines()[-1])


def format_table(rows: list[Row]) -> str:
    """A Markdown table, one row per token count."""
    lines = [
        "| tokens | recipe median ms | trace median ms | ratio | target | "
        "recipe peak MB | trace peak MB |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        target = TARGET_RATIO[row.tokens]
        verdict = "ok" if row.ratio <= target else "MISSED"
        lines.append(
            f"| {row.tokens} | {row.recipe_ms:.3f} | {row.trace_ms:.3f} | {row.ratio:.2f}× | "
            f"≤ {target:g}× {verdict} | {row.recipe_peak_mb:.1f} | {row.trace_peak_mb:.1f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a fifth of the repetitions")
    parser.add_argument("--tokens", type=int, nargs="*", default=list(TOKEN_COUNTS))
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    parser.add_argument("--clock", choices=list(CLOCKS), default="wall", help="wall or cpu time")
    parser.add_argument("--memory-probe", nargs=2, metavar=("METHOD", "TOKENS"), help="internal")
    args = parser.parse_args(argv)
    if args.threads > 0:
        torch.set_num_threads(args.threads)

    if args.memory_probe:
        method, tokens = args.memory_probe
        print(f"{probe_memory(method, int(tokens)):.3f}")
        return 0

    print(
        f"torch {torch.__version__}, {torch.get_num_threads()} threads, {args.clock} clock; "
        f"d_in = d_out = {D_MODEL}, dropout {DROPOUT}, training, batch 1; "
        f"load average {os.getloadavg()[0]:.2f}",
        flush=True,
    )
    rows = []
    for tokens in args.tokens:
        repetitions = max(3, REPETITIONS.get(tokens, 10) // (5 if args.quick else 1))
        recipe_ms, trace_ms, ratio = time_methods(tokens, repetitions, CLOCKS[args.clock])
        rows.append(
            Row(
                tokens=tokens,
                recipe_ms=recipe_ms,
                trace_ms=trace_ms,
                ratio=ratio,
                recipe_peak_mb=measure_memory("recipe", tokens, torch.get_num_threads()),
                trace_peak_mb=measure_memory("trace", tokens, torch.get_num_threads()),
            )
        )
        print(f"  {tokens} tokens done ({repetitions} repetitions each)", flush=True)
    print(f"load average at the end {os.getloadavg()[0]:.2f}")
    print(format_table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
