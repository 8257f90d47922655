"""``python -m attention --json`` at many tokens: wall time, peak memory and bytes written.

Usage (from the repository root)::

    python benchmarks/cli_json.py                    # 4096 tokens: legacy, --json, --json --matrices
    python benchmarks/cli_json.py --tokens 1024 --skip-legacy

Each run is a fresh ``python -m attention --text "<T words>" --json`` subprocess (the words are
``ui.table_state.random_words(T)``, what the app's "Random tokens" gives). Its standard output is read
through a pipe in 1 MB chunks and counted, never kept; its peak resident memory is ``ru_maxrss`` of
that child alone (``os.wait4``).

The reference, measured in the same run, is the **legacy** ``--json`` (before streaming): the same
trace, then ``print(json.dumps({..., "trace": trace.to_dict()}))``, which builds every tensor as
nested Python lists and the whole document as one string before writing a byte. It is run from the
code below (``LEGACY``), a copy of what ``attention/__main__.py`` did.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from ui.table_state import random_words  # noqa: E402

LEGACY = """
import json, sys, torch
from attention import AttentionConfig, trace_attention
from attention.examples import embed_words, split_words
words = split_words(sys.argv[1])
inputs = embed_words(words, d_in=3)
batch = torch.stack((inputs, inputs), dim=0)
trace = trace_attention(batch, AttentionConfig())
print(json.dumps({
    "tokens": words,
    "batch_shape": list(batch.shape),
    "context_length": trace.config.context_length,
    "context_vecs": trace.output.tolist(),
    "shape": list(trace.output.shape),
    "trace": trace.to_dict(),
}))
"""


def run(argv: list[str]) -> dict[str, float]:
    """Run ``argv``; its wall time (s), peak resident memory (MB) and stdout size (MB)."""
    started = time.monotonic()
    child = subprocess.Popen(argv, cwd=REPO_ROOT, stdout=subprocess.PIPE)
    assert child.stdout is not None
    written = 0
    while chunk := child.stdout.read(1 << 20):
        written += len(chunk)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise SystemExit(f"{argv[:3]} failed with status {child.returncode}")
    return {
        "seconds": round(time.monotonic() - started, 1),
        "peak_mb": round(usage.ru_maxrss / 1024),  # kB on Linux
        "output_mb": round(written / 1e6, 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokens", type=int, default=4096)
    parser.add_argument("--skip-legacy", action="store_true", help="skip the reference run")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args(argv)

    text = " ".join(random_words(args.tokens))
    cli = [sys.executable, "-m", "attention", "--text", text, "--json"]
    runs = {} if args.skip_legacy else {"legacy --json": [sys.executable, "-c", LEGACY, text]}
    runs |= {"--json": cli, "--json --matrices": [*cli, "--matrices"]}
    rows = {}
    for name, command in runs.items():
        rows[name] = run(command)
        print(name, json.dumps(rows[name]), flush=True)

    reference = rows.get("legacy --json")
    print(f"\n{args.tokens} tokens, load average {os.getloadavg()[0]:.1f}")
    print("| run | time | peak memory | output | time ratio | memory ratio | output ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, row in rows.items():
        ratios = ["—"] * 3
        if reference:
            ratios = [
                f"{row[key] / reference[key]:.3f}" for key in ("seconds", "peak_mb", "output_mb")
            ]
        print(
            f"| `{name}` | {row['seconds']} s | {row['peak_mb']} MB | {row['output_mb']} MB | "
            + " | ".join(ratios)
            + " |"
        )
    if args.json:
        args.json.write_text(json.dumps({"tokens": args.tokens, "rows": rows}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
