"""How many bytes a computation will hold at its peak, known before it starts.

The server admits large computations against one budget (``ui/budget.py``). A trace's memory is
mostly its ``b × h × T × T`` matrices: four float32 score/weight steps, with dropout the
keep-mask (bool) and ``dropped_weights``; one float32 temporary while it runs; the wrapper stacks
its heads' matrices afterwards (two copies at its end); a ``(T, T)`` bool mask per module. The
``T × d`` and ``d_in × d_out`` tensors are counted too. ``tests/test_memory_estimate.py`` checks
each kind against a measured peak.
"""

from __future__ import annotations

from dataclasses import dataclass

FLOAT = 4  # bytes of a float32
ALLOCATOR_SLACK = 4 * 2**20  # pages the allocator rounds up to, per computation
# Find the bug (``attention.bugs.compare_bug``) keeps the book's and the bug's steps while its
# checks run more passes on the same tokens, dropout or not; about three times more when the
# book's layer runs through a KV cache (``Bug.cached``: the cache's steps kept per token fed beside
# the full pass's). Rates from measured peaks (benchmarks/README.md, "A memory budget"), held to
# them by tests/test_memory_estimate.py.
COMPARISON_BYTES_PER_CELL = 96
CACHED_COMPARISON_BYTES_PER_CELL = 256


@dataclass(frozen=True)
class TraceSize:
    """The sizes a trace's memory depends on (what ``trace_attention`` gets)."""

    tokens: int
    d_in: int = 3
    d_out: int = 2  # per head for the wrapper; all heads together for the fused class
    heads: int = 1
    batch: int = 1
    dropout: bool = False  # dropout acts: training mode and p > 0
    wrapper: bool = False  # MultiHeadAttentionWrapper (heads one by one, then stacked)

    @property
    def cells(self) -> int:
        """Cells of one attention matrix of the trace: batch × heads × T × T."""
        return self.batch * self.heads * self.tokens * self.tokens


def trace_bytes(size: TraceSize) -> int:
    """The peak bytes ``trace_attention`` holds for ``size`` (an upper estimate)."""
    kept_per_cell = 4 * FLOAT + ((1 + FLOAT) if size.dropout else 0)
    temporary_per_cell = FLOAT * (2 if size.dropout else 1)
    if size.wrapper:
        stacked_per_cell = 5 * FLOAT + (1 if size.dropout else 0)
        # one temporary more: torch.stack's output is allocated while every head's is alive
        per_cell = kept_per_cell + stacked_per_cell + temporary_per_cell + FLOAT
        masks = size.heads * size.tokens * size.tokens
        width = size.d_out * size.heads
    else:
        per_cell = kept_per_cell + temporary_per_cell
        masks = size.tokens * size.tokens
        width = size.d_out
    rows = size.batch * size.tokens
    # inputs; Q, K, V; context and output (the wrapper's head contexts stacked too)
    vectors = FLOAT * rows * (size.d_in + 6 * width)
    weights = FLOAT * 4 * (size.d_in + 1) * max(width, size.d_in)
    return per_cell * size.cells + masks + vectors + weights + ALLOCATOR_SLACK


def comparison_bytes(size: TraceSize, *, through_cache: bool = False) -> int:
    """The peak bytes of Find the bug's comparison (``attention.bugs.compare_bug``): one batch item
    of ``size``; ``through_cache`` for a bug shown through a KV cache (``Bug.cached``)."""
    cells = size.heads * size.tokens * size.tokens  # compare_bug runs one batch item
    per_cell = CACHED_COMPARISON_BYTES_PER_CELL if through_cache else COMPARISON_BYTES_PER_CELL
    vectors = FLOAT * 8 * size.tokens * (size.d_in + 6 * size.d_out * size.heads)
    return per_cell * cells + vectors + ALLOCATOR_SLACK
