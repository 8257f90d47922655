"""The cached computation: the trace of a table and a config, shared by every page and session.

:func:`compute_trace` is ``trace_attention(embeddings, cfg)`` with a cache around it. The cache
key is the table's values and the frozen :class:`~attention.AttentionConfig` itself (Streamlit
hashes a dataclass by all its fields), so a field added to the config is part of the key
without anyone remembering to add it (``tests/test_trace_cache_key.py`` pins that).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import numpy as np
import streamlit as st
import torch

from attention import AttentionConfig, AttentionTrace, trace_attention

from .table import Table

# Intra-op threads of every computation a page runs. Streamlit runs each script run in a new
# thread, and with two OpenMP threads such a thread that reaches a parallel torch kernel starts a
# team of its own, whose threads then compete for the cores the server and, on one machine, the
# browser need. One thread makes a click quicker on every page but the longest sequences, and a
# class's sessions run side by side on the cores anyway (``benchmarks/README.md``, "One intra-op
# thread for the pages"). The forward pass is bitwise the same either way (pinned by a test);
# ``ATTENTION_LAB_PAGE_THREADS`` sets another count.
PAGE_THREADS = int(os.environ.get("ATTENTION_LAB_PAGE_THREADS", "1"))


def use_page_threads() -> None:
    """Make :data:`PAGE_THREADS` torch's intra-op thread count here and in every later thread.

    ``torch.set_num_threads`` sets the calling thread's count and the count new threads start
    with; the frame calls this once at import, before Streamlit starts the threads of any run.
    """
    torch.set_num_threads(PAGE_THREADS)


def config_from_settings(
    settings: Mapping[str, Any], *, num_heads: int = 1, variant: str = "fused"
) -> AttentionConfig:
    """The settings (by URL name: seed, dropout, train, d_out, qkv_bias, window) as a config.

    One head unless asked: most pages show one ``CausalAttention`` head; the sidebar's ``heads``
    is for the pages that show several.
    """
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


# Cache sizing: a trace keeps five float32 (heads × T × T) matrices and two bool masks, about 22
# bytes per attention cell, so a long sequence's trace holds hundreds of megabytes and one cache
# of many entries could hold gigabytes. Traces go to one of two caches by their size:
#   - small (up to LARGE_TRACE_CELLS cells, ≤ 1.5 MB each): 64 entries, 30 min;
#   - large: 2 entries, 10 min.
# Two entries is enough for what caching buys at that size (a rerun of the same view after a widget
# changes: a zoom window, a page switch); sessions with different large views recompute instead
# of holding gigabytes (``benchmarks/README.md``, "Long sequences").
LARGE_TRACE_CELLS = 256 * 256
TRACE_CACHE_SMALL = {"max_entries": 64, "ttl": 1800}
TRACE_CACHE_LARGE = {"max_entries": 2, "ttl": 600}


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


def drop_large_traces() -> None:
    """Empty the large-trace cache (``ui.memory`` calls it when the last session has ended).

    Its ``ttl`` only acts when the cache is next called, so on an idle server the large traces
    would stay; the next visitor recomputes a large trace instead.
    """
    _cached_large_trace.clear()


def trace_cells(num_tokens: int, num_heads: int) -> int:
    """Cells of one attention matrix of a trace (heads × T × T): what its memory grows with."""
    return num_heads * num_tokens * num_tokens


def compute_trace(table: Table, cfg: AttentionConfig, batch: int = 1) -> AttentionTrace:
    """``trace_attention(embeddings, cfg)`` for the table, cached across runs.

    ``batch``: the table stacked that many times, the book's ``torch.stack((inputs, inputs))``
    for 2; each copy draws its own dropout mask.

    The cache is shared by all sessions (read-only results), bounded in entries and time, and
    sized by the trace's memory: large traces (more than 256 × 256 attention cells) go to a cache
    of two entries (see ``TRACE_CACHE_LARGE``).
    """
    array = np.stack([np.asarray(table.values, dtype=np.float64)] * batch)  # (b, T, d_in)
    if batch * trace_cells(array.shape[1], cfg.num_heads) > LARGE_TRACE_CELLS:
        return _cached_large_trace(array.tobytes(), tuple(array.shape), cfg)
    return _cached_trace(array.tobytes(), tuple(array.shape), cfg)
