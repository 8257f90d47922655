"""Attention Lab's core: the book's chapter-3 attention classes and a trace of every step.

Pure PyTorch, for the app, the command line and notebooks::

    trace = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(d_out=2, seed=123))
    trace.attn_weights[0]  # (6, 6): row i = how much token i attends to each token
    grads = trace_gradients(BOOK_EMBEDDINGS, AttentionConfig(), loss="sum")
    grads.W_query          # (3, 2): d loss / d W_query
"""

from __future__ import annotations

import importlib
from typing import Any

from .masking import compare_masking, mask_after_softmax, mask_with_neg_inf
from .modules import (
    CausalAttention,
    MultiHeadAttention,
    MultiHeadAttentionWrapper,
    SelfAttention_v1,
    SelfAttention_v2,
)
from .trace import (
    STEP_FIELDS,
    AttentionConfig,
    AttentionTrace,
    build_module,
    run_traced_forward,
    trace_attention,
    trace_module,
)
from .validate import MAX_ABS_VALUE, MAX_TOKENS, AttentionInputError
from .window import sliding_window_mask

__all__ = [
    "AttentionConfig",
    "AttentionInputError",
    "AttentionTrace",
    "GradientTrace",
    "CausalAttention",
    "MAX_ABS_VALUE",
    "MAX_TOKENS",
    "MultiHeadAttention",
    "MultiHeadAttentionWrapper",
    "STEP_FIELDS",
    "SelfAttention_v1",
    "SelfAttention_v2",
    "build_module",
    "run_traced_forward",
    "trace_module",
    "compare_masking",
    "mask_after_softmax",
    "mask_with_neg_inf",
    "sliding_window_mask",
    "trace_attention",
    "trace_gradients",
]

# The backward pass is imported when first asked for (``attention.trace_gradients``), so that code
# which only runs forward passes (the app's step page) does not load it.
_LAZY = {"GradientTrace": "gradients", "trace_gradients": "gradients"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
