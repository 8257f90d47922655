"""The cached computations: a table and a config's trace or bug comparison, shared by every session.

The cache key is the table's values and the frozen :class:`~attention.AttentionConfig` itself
(Streamlit hashes a dataclass by all its fields), so a field added to the config joins the key.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np
import streamlit as st
import torch

from attention import AttentionConfig, AttentionTrace, trace_attention
from attention.memory_estimate import TraceSize, comparison_bytes, trace_bytes
from attention.validate import MAX_ATTENTION_CELLS

from . import heavy
from .limits import limit
from .table import Table

if TYPE_CHECKING:  # the gallery is imported by the first comparison: its KV-cache bug imports
    from attention.bugs import BugComparison  # the training code, which other pages never use

# Intra-op threads of every computation a page runs: each script run is a new thread, and with
# more than one it would start an OpenMP team of its own competing with the server for the cores;
# a class's sessions run side by side anyway. ``ATTENTION_LAB_PAGE_THREADS`` sets another count.
PAGE_THREADS = int(limit("ATTENTION_LAB_PAGE_THREADS"))


def use_page_threads() -> None:
    """Make :data:`PAGE_THREADS` torch's intra-op thread count here and in every later thread.

    Called once at import, before Streamlit starts any run's thread (new threads inherit it).
    """
    torch.set_num_threads(PAGE_THREADS)


def config_from_settings(
    settings: Mapping[str, Any], *, num_heads: int = 1, variant: str = "fused"
) -> AttentionConfig:
    """The settings (by URL name) as a config: one ``CausalAttention`` head unless asked."""
    return AttentionConfig(
        d_out=int(settings["d_out"]),
        dropout=float(settings["dropout"]),
        seed=int(settings["seed"]),
        qkv_bias=bool(settings["qkv_bias"]),
        training=bool(settings["train"]),
        context_length=None,
        num_heads=num_heads,
        variant=variant,
        window=int(settings.get("window", 0)) or None,  # 0: off, the book's causal mask
    )


# A trace keeps several (heads × T × T) matrices, so a long sequence's trace is large: traces
# (and bug comparisons) past LARGE_TRACE_CELLS go to a cache of a few entries, enough for a
# rerun of the same view; other sessions' large views recompute instead of holding gigabytes.
# Sizes and times are the operator's (``ui.limits``).
LARGE_TRACE_CELLS = 256 * 256
TRACE_CACHE_SMALL = {
    "max_entries": int(limit("ATTENTION_LAB_TRACE_CACHE_ENTRIES")),
    "ttl": limit("ATTENTION_LAB_TRACE_CACHE_TTL_S"),
}
TRACE_CACHE_LARGE = {
    "max_entries": int(limit("ATTENTION_LAB_LARGE_TRACE_CACHE_ENTRIES")),
    "ttl": limit("ATTENTION_LAB_LARGE_TRACE_CACHE_TTL_S"),
}


def _trace_from_bytes(
    values: bytes, shape: tuple[int, ...], cfg: AttentionConfig
) -> AttentionTrace:
    inputs = torch.from_numpy(np.frombuffer(values, dtype=np.float64).reshape(shape).copy())
    return trace_attention(inputs.to(torch.float32), cfg)


@st.cache_resource(**TRACE_CACHE_SMALL, show_spinner=False)
def _cached_trace(values: bytes, shape: tuple[int, ...], cfg: AttentionConfig) -> AttentionTrace:
    return _trace_from_bytes(values, shape, cfg)


@st.cache_resource(**TRACE_CACHE_LARGE, show_spinner=False)
def _cached_large_trace(
    values: bytes, shape: tuple[int, ...], cfg: AttentionConfig
) -> AttentionTrace:
    return _trace_from_bytes(values, shape, cfg)


def _inputs_from_bytes(values: bytes, shape: tuple[int, int]) -> np.ndarray:
    return np.frombuffer(values, dtype=np.float64).reshape(shape).copy()  # (T, d_in)


def _compare(
    name: str, values: bytes, shape: tuple[int, int], cfg: AttentionConfig
) -> BugComparison:
    from attention.bugs import compare_bug

    return compare_bug(name, _inputs_from_bytes(values, shape), cfg)


@st.cache_resource(**TRACE_CACHE_SMALL, show_spinner=False)
def _cached_comparison(
    name: str, values: bytes, shape: tuple[int, int], cfg: AttentionConfig
) -> BugComparison:
    return _compare(name, values, shape, cfg)


@st.cache_resource(**TRACE_CACHE_LARGE, show_spinner=False)
def _cached_large_comparison(
    name: str, values: bytes, shape: tuple[int, int], cfg: AttentionConfig
) -> BugComparison:
    return _compare(name, values, shape, cfg)


def drop_large_traces() -> None:
    """Empty the large caches once the last session has ended.

    A ``ttl`` acts only when its cache is next called, so an idle server would keep them.
    """
    _cached_large_trace.clear()
    _cached_large_comparison.clear()


def trace_cells(num_tokens: int, num_heads: int) -> int:
    """Cells of one attention matrix of a trace (heads × T × T): what its memory grows with."""
    return num_heads * num_tokens * num_tokens


def trace_size(shape: tuple[int, ...], cfg: AttentionConfig) -> TraceSize:
    """The sizes of a trace of inputs ``shape`` ``(b, T, d_in)`` with ``cfg``, for its estimate."""
    batch, tokens, d_in = shape
    return TraceSize(
        tokens=tokens,
        d_in=d_in,
        d_out=cfg.d_out,
        heads=cfg.num_heads,
        batch=batch,
        dropout=cfg.training and cfg.dropout > 0,
        wrapper=cfg.variant == "wrapper" and cfg.num_heads > 1,
    )


def _budgeted(size: TraceSize, needed: int) -> bool:
    """Large enough for the memory budget, yet not refused by the core's (clearer) size check."""
    return heavy.is_heavy(needed) and size.cells <= MAX_ATTENTION_CELLS


def compute_trace(table: Table, cfg: AttentionConfig, batch: int = 1) -> AttentionTrace:
    """``trace_attention(embeddings, cfg)`` for the table, cached across runs and sessions.

    ``batch``: the table stacked that many times (the book's ``torch.stack((inputs, inputs))``).
    Large traces go to a small cache (``TRACE_CACHE_LARGE``), the largest through the budget.
    """
    array = np.stack([np.asarray(table.values, dtype=np.float64)] * batch)  # (b, T, d_in)
    size = trace_size(array.shape, cfg)
    needed = trace_bytes(size)
    if _budgeted(size, needed):  # kept for this session, in the budget: not cached for all
        values, shape = array.tobytes(), tuple(array.shape)
        return heavy.admitted(
            ("trace", values, shape, cfg), needed, lambda: _trace_from_bytes(values, shape, cfg)
        )
    if batch * trace_cells(array.shape[1], cfg.num_heads) > LARGE_TRACE_CELLS:
        return _cached_large_trace(array.tobytes(), tuple(array.shape), cfg)
    return _cached_trace(array.tobytes(), tuple(array.shape), cfg)


def compute_bug_comparison(name: str, table: Table, cfg: AttentionConfig) -> BugComparison:
    """``compare_bug(name, embeddings, cfg)`` for the table, cached like :func:`compute_trace`."""
    from attention.bugs import BUGS, compare_bug

    array = np.asarray(table.values, dtype=np.float64)  # (T, d_in)
    key = (name, array.tobytes(), tuple(array.shape), cfg)
    bug = BUGS.get(name)
    if bug is not None:
        heads = max(2, cfg.num_heads) if bug.multi_head else 1
        size = trace_size((1, *array.shape), replace(cfg, num_heads=heads, variant="fused"))
        needed = comparison_bytes(size, through_cache=bug.cached)
        if _budgeted(size, needed):
            return heavy.admitted(
                ("bug", *key), needed, lambda: compare_bug(name, _inputs_from_bytes(*key[1:3]), cfg)
            )
    if trace_cells(array.shape[0], cfg.num_heads) > LARGE_TRACE_CELLS:
        return _cached_large_comparison(*key)
    return _cached_comparison(*key)
