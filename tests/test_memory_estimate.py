"""The memory estimate of a computation against the peak it really reaches.

Each case runs in a fresh Python process: it warms the code path on four tokens, resets the peak
of resident memory (``echo 5 > /proc/self/clear_refs`` resets ``VmHWM``), runs the computation and
reports ``VmHWM`` minus the resident memory before. The estimate may not be below that peak (it
admits computations against a budget: an estimate under the truth lets the server past it) beyond
the measurement's noise, nor above 1.5 times it (a budget that turns away views that would fit).
Sizes are large enough (tens of MB) for the allocator's rounding to be noise.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from attention.memory_estimate import TraceSize, comparison_bytes, trace_bytes
from tests.cases import subcases

REPO_ROOT = Path(__file__).resolve().parent.parent
NOISE = 0.95  # the measured peak varies by a few MB between runs (pages, allocator arenas)
AT_MOST = 1.5

MEASURE = """
import gc, json, sys
from pathlib import Path
import torch
from attention import AttentionConfig, trace_attention
from attention.bugs import compare_bug

def status(field):
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024

bug, tokens, batch, heads, variant, p, d_in, d_out = json.loads(sys.argv[1])
torch.set_num_threads(1)
gen = torch.Generator().manual_seed(7)
cfg = AttentionConfig(d_out=d_out, dropout=p, training=True, num_heads=heads, variant=variant)
def run(x):
    return compare_bug(bug, x[0], cfg) if bug else trace_attention(x, cfg)
run(torch.randn(batch, 4, d_in, generator=gen))  # imports and first-call allocations
x = torch.randn(batch, tokens, d_in, generator=gen)
gc.collect()
Path("/proc/self/clear_refs").write_text("5")
before = status("VmRSS")
result = run(x)
print(status("VmHWM") - before)
"""

CASES = [  # (bug or "", tokens, batch, heads, variant, dropout p, d_in, d_out)
    ("", 1024, 2, 1, "fused", 0.0, 3, 2),
    ("", 1024, 2, 4, "fused", 0.5, 3, 8),
    ("", 512, 2, 4, "wrapper", 0.5, 3, 2),
    ("", 1024, 1, 1, "fused", 0.5, 768, 64),
    ("mask_inverted", 1024, 1, 1, "fused", 0.5, 3, 2),
    ("kv_cache_mask_slice", 1024, 1, 1, "fused", 0.5, 3, 2),
]


def _estimate(bug: str, tokens: int, batch: int, heads: int, variant: str, p: float,
              d_in: int, d_out: int) -> int:  # fmt: skip
    size = TraceSize(tokens, d_in, d_out, heads, batch, p > 0, variant == "wrapper")
    if bug:
        return comparison_bytes(size, through_cache=bug == "kv_cache_mask_slice")
    return trace_bytes(size)


@pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(), reason="needs Linux /proc")
@subcases("case", CASES, ids=lambda case: "-".join(map(str, case)).strip("-"))
def test_the_estimate_bounds_the_measured_peak(case: tuple) -> None:
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, json.dumps(case)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    peak = int(done.stdout.split()[-1])
    estimate = _estimate(*case)
    assert peak > 16 * 2**20, peak  # large enough to measure
    assert NOISE * peak <= estimate <= AT_MOST * peak, (estimate / 2**20, peak / 2**20)


def test_the_estimate_grows_with_what_the_trace_keeps() -> None:
    base = TraceSize(4096, batch=4, dropout=True)
    assert trace_bytes(base) > 4 * 4096 * 4096 * 25  # five float32 and one bool per cell
    assert trace_bytes(TraceSize(4096, batch=4)) < trace_bytes(base)  # no keep-mask, no copy
    wrapper = TraceSize(4096, heads=4, dropout=True, wrapper=True)
    fused = TraceSize(4096, d_out=8, heads=4, dropout=True)
    assert trace_bytes(wrapper) > 1.5 * trace_bytes(fused)  # heads kept, then stacked
