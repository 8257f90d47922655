"""Training at the defaults: time and accuracy per task, and the evidence that dropout narrows the gap.

For every task, ``train(TrainConfig(task=..., seed=s))`` runs at its defaults for several seeds and
reports, per seed, the CPU time of the whole ``train`` call (``time.process_time``: what this
process computed, barely disturbed by other processes on a shared machine), the wall time and
``result.evaluate(n=1000, seed=7)`` — accuracy on 1000 freshly drawn held-out sequences — against
the issue's targets (copy, reverse, sort: ≥ 99% within 20 s of CPU; induction: ≥ 90% within 60 s;
text: a run within 60 s).

**Reference, measured in the same run**: a plain stack of ``nn.Linear(width, width)`` layers with
as many parameters as the task's model, trained with the same optimiser (AdamW) on as many token
vectors per step as the task's batch holds (``batch_size × T``) — the cost of a forward, backward
and update of an equally sized network that does no attention, no embedding lookup, no data
generation and no evaluation. The ratio ``train ms/step ÷ reference ms/step`` says how much the
rest costs.

**Dropout evidence**: ``compare_dropout`` on the text task at its defaults (the same data, the
same initial weights, with and without attention dropout) for several seeds: the gap between
validation and training loss at the end (both measured in eval mode), the final and best
validation loss. ``--dropout-sweep`` adds other dropout rates (0.1, 0.2, 0.3) and a short run.

Run from the repository root::

    python benchmarks/training.py                 # 5 seeds per task, 5 dropout seeds, 1 thread
    python benchmarks/training.py --quick         # 1 seed per task, 2 dropout seeds
    python benchmarks/training.py --threads 2     # torch's default on this machine
    python benchmarks/training.py --dropout-sweep # also p = 0.1, 0.2, 0.3 and a 300-step run
    python benchmarks/training.py --tasks copy sort --no-dropout

``--threads`` calls ``torch.set_num_threads`` in this script (the library never does).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))  # run as a script from anywhere

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402

from attention.tasks import TASK_NAMES  # noqa: E402
from attention.training import (  # noqa: E402
    TrainConfig,
    compare_dropout,
    train,
)

TARGETS = {  # task: (accuracy at least, CPU seconds at most); text: time only
    "copy": (0.99, 20.0),
    "reverse": (0.99, 20.0),
    "sort": (0.99, 20.0),
    "induction": (0.90, 60.0),
    "text": (None, 60.0),
}
REFERENCE_STEPS = 60


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"{one:.1f} (1 min), {five:.1f} (5 min)"


def machine() -> str:
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (
        f"{os.cpu_count()} CPUs ({model}), Python {platform.python_version()}, "
        f"torch {torch.__version__}, {torch.get_num_threads()} intra-op thread(s)"
    )


def reference_ms_per_step(parameters: int, width: int, tokens_per_step: int) -> float:
    """CPU ms per AdamW step of an nn.Linear(width, width) stack with ``parameters`` parameters."""
    layers = max(1, round(parameters / (width * width + width)))
    generator = torch.Generator().manual_seed(0)
    stack = nn.Sequential(*[nn.Linear(width, width) for _ in range(layers)])
    with torch.no_grad():
        for p in stack.parameters():
            p.uniform_(-0.1, 0.1, generator=generator)
    optimizer = torch.optim.AdamW(stack.parameters(), lr=1e-3)
    x = torch.randn(tokens_per_step, width, generator=generator)

    def step() -> None:
        loss = stack(x).pow(2).mean()
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()

    for _ in range(5):
        step()
    start = time.process_time()
    for _ in range(REFERENCE_STEPS):
        step()
    return (time.process_time() - start) / REFERENCE_STEPS * 1000


def bench_task(task: str, seeds: list[int]) -> dict[str, object]:
    rows = []
    for seed in seeds:
        result = train(TrainConfig(task=task, seed=seed))
        accuracy = result.evaluate(n=1000, seed=7)
        rows.append((seed, result.cpu_seconds, result.wall_seconds, accuracy, result))
        print(
            f"  {task:9s} seed {seed}: cpu {result.cpu_seconds:6.1f} s, wall "
            f"{result.wall_seconds:6.1f} s, held-out accuracy {accuracy:.4f}",
            flush=True,
        )
    cfg = rows[0][4].config
    model = rows[0][4].model
    parameters = sum(p.numel() for p in model.parameters())
    tokens = cfg.batch_size * rows[0][4].task.context_length
    reference = reference_ms_per_step(parameters, cfg.width, tokens)
    cpu = [r[1] for r in rows]
    accuracies = [r[3] for r in rows]
    per_step = statistics.median(cpu) / cfg.steps * 1000
    target_accuracy, target_seconds = TARGETS[task]
    ok_time = max(cpu) <= target_seconds
    ok_accuracy = target_accuracy is None or min(accuracies) >= target_accuracy
    return {
        "task": task,
        "config": cfg,
        "parameters": parameters,
        "cpu_median": statistics.median(cpu),
        "cpu_max": max(cpu),
        "wall_median": statistics.median(r[2] for r in rows),
        "accuracy_min": min(accuracies),
        "accuracy_median": statistics.median(accuracies),
        "ms_per_step": per_step,
        "reference_ms": reference,
        "ratio": per_step / reference,
        "ok": ok_time and ok_accuracy,
        "target": (
            f"≥ {target_accuracy:.0%} in ≤ {target_seconds:.0f} s"
            if target_accuracy is not None
            else f"≤ {target_seconds:.0f} s"
        ),
        "scores": rows[0][4].pattern_scores(),
    }


def print_task_table(results: list[dict[str, object]], seeds: list[int]) -> None:
    print(f"\n### Time and accuracy at the defaults ({len(seeds)} seeds: {seeds})\n")
    print(
        "| task | layers×heads, width | steps | params | CPU s median (max) | wall s median "
        "| held-out acc. min (median) | train ms/step | ref. ms/step | ratio | target |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for r in results:
        cfg = r["config"]
        accuracy = (
            f"{r['accuracy_min']:.4f} ({r['accuracy_median']:.4f})"
            if r["task"] != "text"
            else f"next char {r['accuracy_min']:.3f}"
        )
        print(
            f"| {r['task']} | {cfg.layers}×{cfg.heads}, {cfg.width} | {cfg.steps} | "
            f"{r['parameters']:,} | {r['cpu_median']:.1f} ({r['cpu_max']:.1f}) | "
            f"{r['wall_median']:.1f} | {accuracy} | {r['ms_per_step']:.2f} | "
            f"{r['reference_ms']:.2f} | {r['ratio']:.1f}× | {r['target']} "
            f"{'ok' if r['ok'] else 'MISSED'} |"
        )
    print("\nPattern scores (seed 0, 200 held-out sequences; rows = layers, columns = heads):\n")
    for r in results:
        for name, values in r["scores"].items():
            table = "; ".join(
                "[" + ", ".join(f"{v:.2f}" for v in row) + "]" for row in values.tolist()
            )
            print(f"- {r['task']} `{name}`: {table}")


def bench_dropout(seeds: list[int], cfg: TrainConfig, label: str) -> None:
    resolved = cfg.resolved()
    p = resolved.dropout if resolved.dropout > 0 else None
    rows = []
    for seed in seeds:
        comparison = compare_dropout(replace(cfg, seed=seed), dropout=p)
        rows.append((seed, comparison))
        print(
            f"  {label} seed {seed}: gap {comparison.gap_without:.3f} -> {comparison.gap_with:.3f}",
            flush=True,
        )
    dropout = rows[0][1].dropout
    print(
        f"\n### Dropout: {label} (p = {dropout}, {resolved.steps} steps, "
        f"{resolved.layers}×{resolved.heads}, width {resolved.width})\n"
    )
    print(
        "| seed | train loss without | val loss without | gap without | train loss with "
        "| val loss with | gap with | best val without | best val with |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for seed, c in rows:
        print(
            f"| {seed} | {c.train_loss_without[-1]:.3f} | {c.val_loss_without[-1]:.3f} | "
            f"{c.gap_without:.3f} | {c.train_loss_with[-1]:.3f} | {c.val_loss_with[-1]:.3f} | "
            f"{c.gap_with:.3f} | {min(c.val_loss_without):.3f} | {min(c.val_loss_with):.3f} |"
        )
    differences = [c.gap_without - c.gap_with for _, c in rows]
    val_differences = [c.val_loss_without[-1] - c.val_loss_with[-1] for _, c in rows]
    narrowed = sum(1 for _, c in rows if c.gap_narrowed)
    spread = statistics.stdev(differences) if len(differences) > 1 else 0.0
    print(
        f"\nGap narrowed in {narrowed} of {len(rows)} seeds; gap without − gap with: mean "
        f"{statistics.mean(differences):.3f} (sd {spread:.3f}, min {min(differences):.3f}); "
        f"final val loss without − with: mean {statistics.mean(val_differences):.3f} "
        f"(min {min(val_differences):.3f})."
    )
    cpu = [c.without.cpu_seconds + c.with_dropout.cpu_seconds for _, c in rows]
    print(f"CPU s per comparison (two runs): median {statistics.median(cpu):.1f}.")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="1 seed per task, 2 dropout seeds")
    parser.add_argument("--threads", type=int, default=1, help="torch.set_num_threads (1)")
    parser.add_argument("--tasks", nargs="*", default=list(TASK_NAMES), choices=TASK_NAMES)
    parser.add_argument("--seeds", type=int, default=5, help="seeds per task (5)")
    parser.add_argument("--no-dropout", action="store_true", help="skip the dropout evidence")
    parser.add_argument("--dropout-sweep", action="store_true", help="other rates, a short run")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    seeds = list(range(1 if args.quick else args.seeds))
    dropout_seeds = list(range(2 if args.quick else 5))
    print(f"Machine: {machine()}")
    print(f"Load average at the start: {load()}")
    start_wall, start_cpu = time.perf_counter(), time.process_time()
    results = [bench_task(task, seeds) for task in args.tasks]
    if results:
        print_task_table(results, seeds)
    if not args.no_dropout:
        default = TrainConfig(task="text")
        bench_dropout(dropout_seeds, default, "text task at its defaults")
        if args.dropout_sweep:
            for p in (0.1, 0.2, 0.3, 0.5):
                if p == default.resolved().dropout:
                    continue
                bench_dropout(dropout_seeds, replace(default, dropout=p), f"text, p = {p}")
            short = replace(default, steps=300, log_every=50)
            bench_dropout(dropout_seeds, short, "text, a short run (300 steps)")
    print(
        f"\nTotal: {time.process_time() - start_cpu:.0f} s CPU, "
        f"{time.perf_counter() - start_wall:.0f} s wall. Load average at the end: {load()}"
    )


if __name__ == "__main__":
    main()
