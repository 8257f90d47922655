"""How many bytes a computation will hold at its peak, known before it starts.

A server admits large computations against one budget of bytes (``ui/budget.py``), so it must
know what each costs *before* allocating it. Almost all of a trace's memory is its attention
matrices, ``batch × heads × T × T`` cells each (``attention.trace.AttentionTrace``):

- ``attn_scores``, ``masked_scores``, ``scaled_scores``, ``attn_weights``: four float32 (16 bytes
  a cell); with dropout acting, the keep-mask (bool, 1) and ``dropped_weights`` (float32, 4);
- while the pass runs, one float32 temporary more (softmax's; dropout's noise when it acts);
- the wrapper (``MultiHeadAttentionWrapper``) runs its heads one by one and then stacks their
  matrices into ``(b, h, T, T)`` tensors: both copies exist at its end, twice the memory (its
  ``attn_weights`` and ``dropped_weights`` stacked apart even when they are the same tensor);
- the causal mask, a ``(T, T)`` bool buffer per module (per head for the wrapper).

The rest grows with ``T × d`` (inputs, Q, K, V, contexts) and ``d_in × d_out`` (weights): small
beside ``T²`` but counted. ``tests/test_memory_estimate.py`` runs each kind in a fresh process
and checks the estimate against the measured peak of resident memory.
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
