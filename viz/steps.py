"""Figures of the step-by-step page: one forward pass of ``CausalAttention``, one figure per step.

Every builder takes an :class:`~attention.AttentionTrace` (one head, the app's batch of one: row 0
of the batch is drawn), the token labels, the figure words (:class:`~viz.words.FigureWords`, in the
user's language) and the palette, and returns the :class:`~viz.matrix.MatrixView` of its step:
what the figure draws, which ``viz.heatmap.matrix_figure`` draws and ``ui.show.show_matrix`` shows
(with a zoom window when it is large). The builders never compute attention: every number drawn is
a tensor of the trace.

The pictures follow one convention, step after step:

- rows are queries (or tokens), columns are keys (or features ``q1 … q_dout``);
- scores use a diverging scale centred on 0, weights a sequential scale from 0;
- a cell hidden by the causal mask is **grey**, never a colour on the scale: it is written −∞ while
  it is a score and 0 once softmax has turned it into a weight;
- a weight dropped by dropout is **pink** and written 0;
- the exact value is in the hover, and cells carry their numbers (up to 24 × 24 cells).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from attention import AttentionTrace

from .colors import DROPPED_COLOR, HIDDEN_COLOR
from .matrix import BinaryLook, MatrixView
from .vocabulary import (
    INPUT_PREFIX,
    KEY_PREFIX,
    QUERY_PREFIX,
    VALUE_PREFIX,
    context_labels,
    feature_labels,
)
from .words import FigureWords

VISIBLE_COLOR = "#eef4fb"  # a visible cell of the causal mask (0): light, not on any scale
KEPT_COLOR = "#d6ecd2"  # a weight kept by dropout (✓)

# Which tensor of the trace each projection step shows, and the prefix of its feature names.
PROJECTIONS = {"queries": QUERY_PREFIX, "keys": KEY_PREFIX, "values": VALUE_PREFIX}
WEIGHTS = {
    "W_query": ("b_query", QUERY_PREFIX),
    "W_key": ("b_key", KEY_PREFIX),
    "W_value": ("b_value", VALUE_PREFIX),
}
SCORE_STAGES = ("attn_scores", "masked_scores", "scaled_scores")


def batch_row(tensor: torch.Tensor) -> np.ndarray:
    """Row 0 of a batched tensor as float64 NumPy (the app always runs a batch of one)."""
    return tensor[0].detach().to(torch.float64).cpu().numpy()


def as_array(tensor: torch.Tensor) -> np.ndarray:
    """An unbatched tensor (a weight matrix, a bias, the mask) as NumPy."""
    array = tensor.detach().cpu()
    return array.numpy() if array.dtype == torch.bool else array.to(torch.float64).numpy()


def _check_one_head(trace: AttentionTrace) -> None:
    if trace.queries.dim() != 3:
        raise ValueError("the step-by-step figures draw one head (a trace with num_heads = 1)")


def _check_labels(tokens: Sequence[str], trace: AttentionTrace) -> None:
    if len(tokens) != trace.num_tokens:
        raise ValueError(f"{len(tokens)} token labels for {trace.num_tokens} tokens")


# --- step 1: the inputs; step 2: the weights; step 3: Q, K, V -------------------------------


def embeddings_view(
    trace: AttentionTrace, tokens: Sequence[str], words: FigureWords, *, palette: str
) -> MatrixView:
    """The inputs X ``(T, d_in)``: one row per token, one column per feature ``x1 … x_d_in``."""
    _check_labels(tokens, trace)
    return MatrixView(
        values=batch_row(trace.inputs),  # (T, d_in)
        row_labels=tuple(tokens),
        col_labels=tuple(feature_labels(INPUT_PREFIX, trace.d_in)),
        palette=palette,
        row_title=words.token,
        col_title=words.feature,
        value_name=words.embedding,
        upright_colorbar=True,
    )


def weight_view(
    trace: AttentionTrace, name: str, words: FigureWords, *, palette: str
) -> MatrixView:
    """``W_query``, ``W_key`` or ``W_value`` as ``(d_in, d_out)``: rows ``x1…``, columns ``q1…``.

    The trace stores the weights the way ``x @ W`` uses them (``nn.Linear`` keeps the transpose),
    so row ``m`` says how input feature ``x_m`` feeds each output feature.
    """
    _check_one_head(trace)
    if name not in WEIGHTS:
        raise ValueError(f"name must be one of {', '.join(WEIGHTS)}, got {name!r}")
    weight = as_array(getattr(trace, name))  # (d_in, d_out)
    return MatrixView(
        values=weight,
        row_labels=tuple(feature_labels(INPUT_PREFIX, weight.shape[0])),
        col_labels=tuple(feature_labels(WEIGHTS[name][1], weight.shape[1])),
        palette=palette,
        title=name,
        row_title=words.input_feature,
        col_title=words.output_feature,
        value_name=words.weight,
        upright_colorbar=True,
    )


def bias_view(trace: AttentionTrace, name: str, words: FigureWords, *, palette: str) -> MatrixView:
    """The bias ``b_query``, ``b_key`` or ``b_value`` (``qkv_bias=True`` only) as one row.

    No column title: the bias is drawn under its weight matrix, whose heatmap names the columns.
    """
    _check_one_head(trace)
    if name not in ("b_query", "b_key", "b_value"):
        raise ValueError(f"name must be b_query, b_key or b_value, got {name!r}")
    bias = getattr(trace, name)
    if bias is None:
        raise ValueError(f"{name} is None: the layer was built with qkv_bias=False")
    values = as_array(bias)[None, :]  # (1, d_out)
    prefix = {"b_query": "q", "b_key": "k", "b_value": "v"}[name]
    return MatrixView(
        values=values,
        row_labels=(name,),
        col_labels=tuple(feature_labels(prefix, values.shape[1])),
        palette=palette,
        value_name=words.bias,
        height=130,
        upright_colorbar=True,
    )


def projection_view(
    trace: AttentionTrace, name: str, tokens: Sequence[str], words: FigureWords, *, palette: str
) -> MatrixView:
    """``queries``, ``keys`` or ``values`` ``(T, d_out)``: rows tokens, columns ``q1…``/``k1…``."""
    _check_one_head(trace)
    _check_labels(tokens, trace)
    if name not in PROJECTIONS:
        raise ValueError(f"name must be one of {', '.join(PROJECTIONS)}, got {name!r}")
    values = batch_row(getattr(trace, name))  # (T, d_out)
    return MatrixView(
        values=values,
        row_labels=tuple(tokens),
        col_labels=tuple(feature_labels(PROJECTIONS[name], values.shape[1])),
        palette=palette,
        title={"queries": "Q", "keys": "K", "values": "V"}[name],
        row_title=words.token,
        col_title=words.feature,
        value_name=getattr(words, name),
        upright_colorbar=True,
    )


# --- steps 4–7: scores, the mask, masked and scaled scores ----------------------------------


def scores_view(
    trace: AttentionTrace, stage: str, tokens: Sequence[str], words: FigureWords, *, palette: str
) -> MatrixView:
    """The ``(T, T)`` scores at ``stage``: ``attn_scores``, ``masked_scores`` or ``scaled_scores``.

    Raw scores show every cell (the future is still visible); from ``masked_scores`` on, the
    cells hidden by the causal mask are grey and written −∞.
    """
    _check_one_head(trace)
    _check_labels(tokens, trace)
    if stage not in SCORE_STAGES:
        raise ValueError(f"stage must be one of {', '.join(SCORE_STAGES)}, got {stage!r}")
    return MatrixView(
        values=batch_row(getattr(trace, stage)),  # (T, T), −inf where hidden after masking
        row_labels=tuple(tokens),
        col_labels=tuple(tokens),
        palette=palette,
        hidden=None if stage == "attn_scores" else as_array(trace.mask),
        row_title=words.query,
        col_title=words.key,
        value_name=words.scaled_score if stage == "scaled_scores" else words.score,
        upright_colorbar=True,
    )


def causal_mask_view(
    trace: AttentionTrace, tokens: Sequence[str], words: FigureWords, *, palette: str
) -> MatrixView:
    """The mask buffer cropped to the sentence: 1 (grey) above the diagonal, 0 on and below it.

    ``trace.mask`` is ``True`` where a cell is hidden; the buffer itself holds
    ``torch.triu(torch.ones(T, T), diagonal=1)``, so the cells are written 1 and 0 as it holds them.
    """
    _check_labels(tokens, trace)
    return MatrixView(
        values=as_array(trace.mask).astype(np.float64),
        row_labels=tuple(tokens),
        col_labels=tuple(tokens),
        palette=palette,
        kind="binary",
        binary=BinaryLook(
            true_text="1",
            false_text="0",
            true_name=words.future_hidden,
            false_name=words.visible,
            true_color=HIDDEN_COLOR,
            false_color=VISIBLE_COLOR,
        ),
        decimals=0,
        row_title=words.query,
        col_title=words.key,
        value_name="M",  # the formula's name of the mask
        upright_colorbar=True,
    )


# --- steps 8–9: weights, the keep-mask, dropped weights -------------------------------------


def weights_view(
    trace: AttentionTrace, tokens: Sequence[str], words: FigureWords, *, palette: str
) -> MatrixView:
    """The softmax weights ``attn_weights`` ``(T, T)`` on a 0…1 scale; masked cells grey, 0."""
    _check_one_head(trace)
    _check_labels(tokens, trace)
    weights = batch_row(trace.attn_weights)  # (T, T)
    return MatrixView(
        values=weights,
        row_labels=tuple(tokens),
        col_labels=tuple(tokens),
        palette=palette,
        kind="sequential",
        zrange=(0.0, _top(weights)),
        hidden=as_array(trace.mask),
        hidden_value=0.0,
        hidden_name=words.future_masked,
        row_title=words.query,
        col_title=words.key,
        value_name=words.attention_weight,
        upright_colorbar=True,
    )


def keep_mask_view(
    trace: AttentionTrace, tokens: Sequence[str], words: FigureWords, *, palette: str
) -> MatrixView:
    """Dropout's keep-mask ``(T, T)``: ✓ (green) where a weight was kept, ✗ (pink) where dropped.

    Cells the causal mask hides already are grey "—": dropout draws a state for them too, but
    their weight is 0 either way, so a learner never wonders whether they were dropped or masked.

    Raises:
        ValueError: when dropout is inactive (eval mode or ``p = 0``): there is no keep-mask.
    """
    _check_one_head(trace)
    _check_labels(tokens, trace)
    if trace.dropout_mask is None:
        raise ValueError("dropout is inactive (eval mode or p = 0): there is no keep-mask")
    return MatrixView(
        values=batch_row(trace.dropout_mask),  # (T, T) 1.0 = kept
        row_labels=tuple(tokens),
        col_labels=tuple(tokens),
        palette=palette,
        kind="binary",
        binary=BinaryLook(
            true_text="✓",
            false_text="✗",
            true_name=words.kept,
            false_name=words.dropped,
            true_color=KEPT_COLOR,
            false_color=DROPPED_COLOR,
        ),
        decimals=0,
        hidden=as_array(trace.mask),
        hidden_name=words.future_masked,
        row_title=words.query,
        col_title=words.key,
        value_name="m",  # the formula's name of the keep-mask
        upright_colorbar=True,
    )


def dropped_weights_view(
    trace: AttentionTrace, tokens: Sequence[str], words: FigureWords, *, palette: str
) -> MatrixView:
    """``dropped_weights`` ``(T, T)``: kept weights (× 1/(1−p)) on the scale, dropped ones pink.

    The scale runs from 0 to the largest weight (at least 1), so a kept weight that grew past 1
    is visible as such; the hover of a kept cell shows its weight before dropout and the factor.
    """
    _check_one_head(trace)
    _check_labels(tokens, trace)
    keep = None if trace.dropout_mask is None else batch_row(trace.dropout_mask).astype(bool)
    dropped_weights = batch_row(trace.dropped_weights)  # (T, T)
    return MatrixView(
        values=dropped_weights,
        row_labels=tuple(tokens),
        col_labels=tuple(tokens),
        palette=palette,
        kind="sequential",
        zrange=(0.0, _top(dropped_weights)),
        hidden=as_array(trace.mask),
        hidden_value=0.0,
        hidden_name=words.future_masked,
        dropped=None if keep is None else ~keep,
        dropped_name=words.dropped,
        undropped=batch_row(trace.attn_weights),
        dropout_scale=trace.dropout_scale,
        row_title=words.query,
        col_title=words.key,
        value_name=words.dropped_weight,
        upright_colorbar=True,
    )


# --- step 10: the context vectors ------------------------------------------------------------


def context_view(
    trace: AttentionTrace, tokens: Sequence[str], words: FigureWords, *, palette: str
) -> MatrixView:
    """The context vectors ``(T, d_out)``: row i is token i's new representation, ``z1 …``."""
    _check_one_head(trace)
    _check_labels(tokens, trace)
    context = batch_row(trace.context)  # (T, d_out)
    return MatrixView(
        values=context,
        row_labels=tuple(tokens),
        col_labels=tuple(context_labels(context.shape[1])),
        palette=palette,
        row_title=words.token,
        col_title=words.feature,
        value_name=words.context,
        upright_colorbar=True,
    )


def _top(weights: np.ndarray) -> float:
    """The top of a weight scale: 1, or the largest weight once dropout scaled some past 1."""
    return max(1.0, float(np.nanmax(weights))) if weights.size else 1.0
