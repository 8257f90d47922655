"""Figures and tables of multi-head attention: one small heatmap per head, shapes, outputs.

:func:`head_weights_grid` draws the attention weights of every head side by side (rows are
queries, columns are keys, one shared 0…1 colour bar) from one :class:`~viz.matrix.MatrixView` per
head, drawn by :func:`viz.heatmap.matrix_figure` so labels, escaping and hover work as everywhere
else (a page shows the same views one by one, with a zoom window, when they are too large).

:func:`wrapper_shape_steps` and :func:`fused_shape_steps` list the tensor shapes of the book's two
multi-head classes, read off a real :class:`~attention.trace.AttentionTrace` (never recomputed):
the fused class's ``view`` and ``transpose`` steps are applied to the traced tensors themselves.

:func:`output_frame` writes a matrix with a fixed number of decimals and an ASCII minus, the way
PyTorch prints tensors, so a learner can compare the page with the book character by character.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import torch
from plotly.subplots import make_subplots

from attention.trace import AttentionTrace

from . import vocabulary
from .heatmap import matrix_figure
from .labels import plain, short, unique_labels
from .matrix import MatrixView, use_image
from .vocabulary import COMPACT_DECIMALS, DECIMALS
from .words import FigureWords

__all__ = [
    "ShapeStep",
    "fits_grid",
    "fused_shape_steps",
    "grid_layout",
    "head_weights_grid",
    "output_frame",
    "wrapper_shape_steps",
]

PANEL_ROW_HEIGHT = 38  # px per token row in a panel, as the single heatmaps
PANEL_EXTRA_HEIGHT = 90  # px per grid row for the tick labels and the head's title


def fits_grid(num_tokens: int) -> bool:
    """True when ``T × T`` weights are small enough for numeric panels in one grid figure.

    Larger matrices are drawn as images (:mod:`viz.image_heatmap`); show those one figure per
    head with ``ui.show.show_matrix`` instead, which also gives them a zoom window.
    """
    return not use_image(num_tokens, num_tokens)


def grid_layout(num_heads: int, max_columns: int = 4) -> tuple[int, int]:
    """``(grid rows, grid columns)`` for ``num_heads`` panels, at most ``max_columns`` a row."""
    columns = max(1, min(num_heads, max_columns))
    return math.ceil(num_heads / columns), columns


def head_weights_grid(
    heads: Sequence[MatrixView], words: FigureWords, *, max_columns: int = 4
) -> go.Figure:
    """A grid of annotated heatmaps, one per head, sharing one colour bar.

    Args:
        heads: one view per head: its ``(T, T)`` attention weights (row = query, column = key),
            its title (``"Head 1"`` …, written above its panel), the same labels, axis titles
            and colour range (weights: 0 to 1, more after dropout) for every head.
        words: the figure words (the hover's fallbacks).
        max_columns: panels per grid row; numbers get 2 decimals when more than 2 share a row.

    Returns:
        A figure with one heatmap trace per head (``name`` = its title, in head order), each
        hover naming the head, the query, the key and the weight; only the first shows the
        colour bar, which holds for all since they share the colour range.
    """
    if not heads:
        raise ValueError("at least one head is needed")
    first = heads[0]
    num_tokens = first.shape[0]
    for head in heads:
        if head.shape != (num_tokens, num_tokens) or head.zrange != first.zrange:
            raise ValueError("every head needs the same (T, T) shape and colour range")
    if not fits_grid(num_tokens):
        raise ValueError(f"{num_tokens} tokens are too many for a grid: draw one figure per head")
    num_heads = len(heads)
    grid_rows, grid_columns = grid_layout(num_heads, max_columns)
    decimals = DECIMALS if grid_columns <= 2 else COMPACT_DECIMALS
    # Numbers in the cells only when they fit: about 45 px per cell with 4 decimals, 30 with 2.
    panel_width = 900 / grid_columns
    annotate = num_tokens * (45 if decimals == DECIMALS else 30) <= panel_width
    row_title, col_title = first.row_title, first.col_title

    titles = [plain(head.title) for head in heads]
    figure = make_subplots(
        rows=grid_rows,
        cols=grid_columns,
        subplot_titles=titles,
        horizontal_spacing=0.04 if grid_columns > 1 else 0.0,
        vertical_spacing=min(0.3, 0.5 / grid_rows) if grid_rows > 1 else 0.0,
    )
    labels = unique_labels(list(first.row_labels))  # user text: shortened first, then escaped
    short_labels = [plain(short(label, 12)) for label in labels]
    for head in range(num_heads):
        panel = matrix_figure(replace(heads[head], decimals=decimals, title=""), words)
        row, column = divmod(head, grid_columns)
        for trace in panel.data:
            trace.update(
                name=titles[head],
                showscale=head == 0,
                hovertemplate=f"{titles[head]}<br>{trace.hovertemplate}",
            )
            if not annotate:
                trace.update(texttemplate=None)
            elif decimals == COMPACT_DECIMALS:
                trace.update(textfont={"size": 10})
            figure.add_trace(trace, row=row + 1, col=column + 1)
        _panel_axes(
            figure,
            short_labels,
            row=row + 1,
            column=column + 1,
            titles=(plain(row_title) if column == 0 else "", plain(col_title)),
            tilted=grid_columns > 2,
        )
    figure.update_layout(
        height=grid_rows * (PANEL_EXTRA_HEIGHT + PANEL_ROW_HEIGHT * min(num_tokens, 12)),
        margin={"l": 10, "r": 10, "t": 30, "b": 20},
        plot_bgcolor="white",
    )
    return figure


def _panel_axes(
    figure: go.Figure,
    short_labels: list[str],
    *,
    row: int,
    column: int,
    titles: tuple[str, str],
    tilted: bool,
) -> None:
    """One panel's axes: every token ticked; the query labels and title on the first column only."""
    row_title, col_title = titles
    ticks = list(range(len(short_labels)))
    figure.update_xaxes(
        tickmode="array",
        tickvals=ticks,
        ticktext=short_labels,
        tickangle=-45 if tilted else 0,
        title={"text": col_title, "standoff": 10},
        showgrid=False,
        zeroline=False,
        row=row,
        col=column,
    )
    figure.update_yaxes(
        tickmode="array",
        tickvals=ticks,
        ticktext=short_labels,
        showticklabels=column == 1,
        title={"text": row_title},
        autorange="reversed",
        showgrid=False,
        zeroline=False,
        row=row,
        col=column,
    )


@dataclass(frozen=True)
class ShapeStep:
    """One line of a shape table: the code of the step, a key naming it, the resulting shape."""

    key: str  # what the step does, for the page's translated explanation
    code: str  # the line of the book's forward pass (or what it computes)
    shape: tuple[int, ...]


def _shape(tensor: torch.Tensor) -> tuple[int, ...]:
    return tuple(int(size) for size in tensor.shape)


def wrapper_shape_steps(trace: AttentionTrace) -> list[ShapeStep]:
    """The shapes in ``MultiHeadAttentionWrapper.forward``: each head, then ``torch.cat``.

    ``trace`` is a wrapper trace (or a one-head trace: a wrapper with one head *is* one
    ``CausalAttention``). The per-head shapes are those of head 1 (all heads have the same).
    """
    per_head = trace.config.num_heads > 1  # tensors carry a head axis: (b, h, …)

    def first_head(tensor: torch.Tensor) -> torch.Tensor:
        return tensor[:, 0] if per_head else tensor  # (b, T, …)

    return [
        ShapeStep("x", "x", _shape(trace.inputs)),
        ShapeStep("queries", "queries = head.W_query(x)", _shape(first_head(trace.queries))),
        ShapeStep(
            "attn_scores",
            "attn_scores = queries @ keys.transpose(1, 2)",
            _shape(first_head(trace.attn_scores)),
        ),
        ShapeStep(
            "attn_weights",
            "attn_weights = softmax(attn_scores / √d_k)",
            _shape(first_head(trace.attn_weights)),
        ),
        ShapeStep(
            "head_context",
            "context_vec = attn_weights @ values",
            _shape(first_head(trace.head_context if per_head else trace.context)),
        ),
        ShapeStep(
            "concat",
            "torch.cat([head(x) for head in self.heads], dim=-1)",
            _shape(trace.output),
        ),
    ]


def fused_shape_steps(trace: AttentionTrace) -> list[ShapeStep]:
    """The shapes in ``MultiHeadAttention.forward``, from ``x`` to ``out_proj``.

    ``trace`` must be a fused trace with at least two heads (queries ``(b, h, T, head_dim)``).
    The projection, ``view`` and the way back are rebuilt from the traced queries and context
    by the same reshapes the class uses, so every shape is that of a real tensor.
    """
    if trace.config.num_heads < 2 or trace.config.variant != "fused" or trace.W_out is None:
        raise ValueError("fused_shape_steps needs a MultiHeadAttention trace with 2+ heads")
    b, num_heads, num_tokens, head_dim = _shape(trace.queries)
    queries_split = trace.queries.transpose(1, 2)  # (b, T, h, head_dim): before the transpose
    queries_flat = queries_split.reshape(b, num_tokens, num_heads * head_dim)  # W_query(x)
    assert trace.head_context is not None, "a fused trace keeps each head's context"
    context_back = trace.head_context.transpose(1, 2)  # (b, T, h, head_dim)
    return [
        ShapeStep("x", "x", _shape(trace.inputs)),
        ShapeStep("queries", "queries = self.W_query(x)", _shape(queries_flat)),
        ShapeStep(
            "view", "queries.view(b, num_tokens, num_heads, head_dim)", _shape(queries_split)
        ),
        ShapeStep("transpose", "queries.transpose(1, 2)", _shape(trace.queries)),
        ShapeStep(
            "attn_scores", "attn_scores = queries @ keys.transpose(2, 3)", _shape(trace.attn_scores)
        ),
        ShapeStep(
            "attn_weights",
            "attn_weights = softmax(attn_scores / √head_dim)",
            _shape(trace.attn_weights),
        ),
        ShapeStep(
            "head_context", "context_vec = attn_weights @ values", _shape(trace.head_context)
        ),
        ShapeStep("transpose_back", "context_vec.transpose(1, 2)", _shape(context_back)),
        ShapeStep(
            "join",
            "context_vec.contiguous().view(b, num_tokens, self.d_out)",
            _shape(trace.context),
        ),
        ShapeStep("out_proj", "self.out_proj(context_vec)", _shape(trace.output)),
    ]


def format_shape(shape: Sequence[int]) -> str:
    """``(1, 6, 3)``, as Python prints a tuple (one element: ``(6,)``)."""
    return str(tuple(shape))


def output_frame(
    values: np.ndarray | torch.Tensor,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    decimals: int = DECIMALS,
) -> pd.DataFrame:
    """A ``(T, n)`` matrix as text with ``decimals`` decimals, rows and columns labelled.

    Labels are used as given: escape user text for where the frame is shown (Markdown in
    ``st.table``) before calling.
    """
    array = np.asarray(values, dtype=np.float64)
    if array.ndim != 2:
        raise ValueError(f"values must be 2-D, got shape {array.shape}")
    texts = [[vocabulary.format_number(float(v), decimals) for v in row] for row in array]
    return pd.DataFrame(texts, index=list(row_labels), columns=list(col_labels))
