"""The batch and the sliding window on the step page: shapes with the batch axis, the band mask,
and one computed sentence where a step changes with them.

The sidebar's ``batch`` stacks the table (the book's ``torch.stack((inputs, inputs))``) and its
``window`` gives the trace ``AttentionConfig(window=k)``; the step figures keep drawing batch
item 0. :func:`step_note` is what a step adds under its text; every number in it is read from the
trace (its shapes, ``(~mask).sum(-1)``, the keep-masks of the batch items).
"""

from __future__ import annotations

import streamlit as st
import torch

from attention import AttentionTrace
from attention.dropout import batch_mask_differences, dropout_counts
from viz import steps
from viz.matrix import MatrixView
from viz.window import window_mask_view
from viz.words import FigureWords

from .i18n import t

# The tensor each step's shape sentence names (the book's names), by step name.
SHAPE_FIELDS = {
    "qkv": ("queries", "queries"),
    "scores": ("attn_scores", "attn_scores"),
    "masked": ("masked_scores", "attn_scores"),
    "scaled": ("scaled_scores", "attn_scores / keys.shape[-1]**0.5"),
    "softmax": ("attn_weights", "attn_weights"),
    "context": ("context", "context_vec"),
}


def batch_size(trace: AttentionTrace) -> int:
    return int(trace.inputs.shape[0])


def shape_text(tensor: torch.Tensor) -> str:
    """A shape as PyTorch prints its numbers: ``(2, 6, 2)``."""
    return "(" + ", ".join(str(size) for size in tensor.shape) + ")"


def settings_words(trace: AttentionTrace) -> str:
    """The batch (and the window, when on) for the settings line of the step page."""
    words = t("batchwin.settings", batch=batch_size(trace))
    if trace.config.window is not None:
        window = trace.config.window
        words += " · " + t(_one("batchwin.settings_window", window), window=window)
    return words


def seen_counts(trace: AttentionTrace) -> str:
    """How many keys each query sees, ``(~mask).sum(-1)``: every count for a short sentence, in
    runs for a long one (:func:`counts_in_runs`)."""
    return counts_in_runs([int(n) for n in (~trace.mask.bool()).sum(-1)])


LISTED_COUNTS = 12  # up to this many queries every count is written out


def counts_in_runs(counts: list[int]) -> str:
    """``counts`` written out, or past :data:`LISTED_COUNTS` as runs: a count repeated ``n``
    times as ``4 (×4,092)``, a count rising by one as ``1, 2, …, 4`` (a window of 4 at 4,096
    tokens: ``1, 2, …, 4, 4 (×4,092)``)."""
    if len(counts) <= LISTED_COUNTS:
        return ", ".join(str(n) for n in counts)
    parts, i = [], 0
    while i < len(counts):
        same = i
        while same + 1 < len(counts) and counts[same + 1] == counts[i]:
            same += 1
        rising = i
        while rising + 1 < len(counts) and counts[rising + 1] == counts[rising] + 1:
            rising += 1
        if same > i:
            parts.append(f"{counts[i]} (×{same - i + 1:,})")
            i = same + 1
        elif rising >= i + 3:
            parts.append(f"{counts[i]}, {counts[i + 1]}, …, {counts[rising]}")
            i = rising + 1
        else:
            parts.append(str(counts[i]))
            i += 1
    return ", ".join(parts[:LISTED_COUNTS]) + (", …" if len(parts) > LISTED_COUNTS else "")


def _one(key: str, window: int) -> str:
    """``key``, or its ``_one`` wording for a window of 1 token (the token itself, no “before”)."""
    return f"{key}_one" if window == 1 else key


def mask_view(
    trace: AttentionTrace, tokens: list[str], words: FigureWords, palette: str
) -> MatrixView:
    """The mask step's figure: the book's causal mask, or the band of a sliding window."""
    if trace.config.window is None:
        return steps.causal_mask_view(trace, tokens, words, palette=palette)
    return window_mask_view(trace, tokens, words, palette=palette)


def mask_legend(trace: AttentionTrace) -> str:
    return t("step.mask.legend" if trace.config.window is None else "batchwin.mask_legend")


def step_note(trace: AttentionTrace, name: str) -> None:
    """What step ``name`` adds for the batch and the window (nothing for the book's settings
    beyond the shapes with their batch axis)."""
    window = trace.config.window
    if name == "embeddings":
        shape = shape_text(trace.inputs)
        if batch_size(trace) == 1:
            st.caption(t("batchwin.embeddings_one", shape=shape))
        else:
            st.caption(t("batchwin.embeddings", shape=shape, batch=batch_size(trace)))
    elif name in SHAPE_FIELDS:
        field, code = SHAPE_FIELDS[name]
        st.caption(t("batchwin.shape", name=code, shape=shape_text(getattr(trace, field))))
    if window is not None and name == "mask":
        st.latex(r"M_{ij} = 1 \iff j > i \;\lor\; j \le i - " + str(window))
        st.markdown(
            t(
                _one("batchwin.mask_window", window),
                window=window,
                before=window - 1,
                counts=seen_counts(trace),
            )
        )
    if window is not None and name == "masked":
        st.caption(t("batchwin.masked", window=window))
    if window is not None and name in ("softmax", "context"):
        key = _one("batchwin.mixes", window)
        st.caption(t(key, window=window, before=window - 1, counts=seen_counts(trace)))
    if name == "dropout":
        dropout_items(trace)


def dropout_items(trace: AttentionTrace) -> None:
    """With a batch and dropout: how much each item's keep-mask differs from item 0's."""
    differences = batch_mask_differences(trace)
    counts = dropout_counts(trace)
    if not differences or counts is None:
        return
    parts = [
        t("batchwin.dropout_item", item=item, count=count, visible=counts.visible)
        for item, count in enumerate(differences, start=1)
    ]
    st.markdown(t("batchwin.dropout_items", differences="; ".join(parts)))
