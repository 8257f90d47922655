"""What a result depends on besides the code: versions, platform, threads, and checks of it.

PyTorch's random numbers are reproducible for a seed on the same setup; the book's notebook warns
that dropout masks may differ between operating systems. :func:`environment_info` says what this
machine is, :func:`dropout_on_ones` draws the book's dropout demo here, :func:`recompute_check`
asks whether a trace is bitwise the same when computed again.
"""

from __future__ import annotations

import os
import platform
import sys
from dataclasses import dataclass
from typing import Any

import torch

from .randomness import dropout_noise, private_generator
from .trace import AttentionConfig, AttentionTrace, trace_attention
from .validate import MAX_TOKENS, check_dropout, check_instance, check_int, check_seed

__all__ = [
    "RecomputeCheck",
    "differing_fields",
    "dropout_on_ones",
    "environment_info",
    "recompute_check",
]


def environment_info() -> dict[str, Any]:
    """The facts that decide whether someone else gets the same numbers for the same seed."""
    return {
        "torch_version": torch.__version__,
        "python_version": platform.python_version(),
        "python_implementation": platform.python_implementation(),
        "os": platform.system() or "unknown",
        "os_release": platform.release() or "unknown",
        "machine": platform.machine() or "unknown",
        "platform": platform.platform(),
        "torch_threads": torch.get_num_threads(),
        "torch_interop_threads": torch.get_num_interop_threads(),
        "cpu_count": os.cpu_count() or 0,
        "default_dtype": str(torch.get_default_dtype()).removeprefix("torch."),
        "byteorder": sys.byteorder,
    }


def dropout_on_ones(seed: int = 123, p: float = 0.5, size: int = 6) -> torch.Tensor:
    """``torch.manual_seed(seed); nn.Dropout(p)(torch.ones(size, size))`` drawn on this machine
    from a private generator: compare with this, never with a printed mask.
    """
    seed, p = check_seed(seed), check_dropout(p)
    size = check_int("size", size, 1, MAX_TOKENS, "the side of the square of ones")
    ones = torch.ones(size, size)  # (size, size)
    return ones * dropout_noise(ones, p, private_generator(seed))


def differing_fields(first: AttentionTrace, second: AttentionTrace) -> list[str]:
    """The trace fields that differ (not ``torch.equal``; None against a tensor differs too)."""
    check_instance("first", first, AttentionTrace, " (from trace_attention)")
    check_instance("second", second, AttentionTrace, " (from trace_attention)")
    names = sorted(set(first.tensors()) | set(second.tensors()))
    different = []
    for name in names:
        a, b = getattr(first, name), getattr(second, name)
        if a is None or b is None or a.dtype != b.dtype or not torch.equal(a, b):
            different.append(name)
    if first.config != second.config or first.d_k != second.d_k:
        different.append("config")
    return different


@dataclass(frozen=True)
class RecomputeCheck:
    """The result of computing the same trace several times from scratch."""

    runs: int
    differing: tuple[str, ...]  # fields that changed between runs (empty: reproducible)
    fields_compared: int

    @property
    def reproducible(self) -> bool:
        return not self.differing


def recompute_check(
    inputs: torch.Tensor, cfg: AttentionConfig, reference: AttentionTrace | None = None
) -> RecomputeCheck:
    """Trace ``inputs`` twice with ``cfg`` (no cache) and compare everything bitwise, and with
    ``reference`` when given (the trace a page shows, maybe cached).
    """
    if reference is not None:
        check_instance("reference", reference, AttentionTrace, " (from trace_attention)")
    first = trace_attention(inputs, cfg)
    second = trace_attention(inputs, cfg)
    differing = set(differing_fields(first, second))
    runs = 2
    if reference is not None:
        differing |= set(differing_fields(first, reference))
        runs = 3
    return RecomputeCheck(runs, tuple(sorted(differing)), len(first.tensors()))
