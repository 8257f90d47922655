"""Figures of the step-by-step page: one forward pass of ``CausalAttention``, one figure per step.

Every builder takes an :class:`~attention.AttentionTrace` (one head, the app's batch of one: row 0
of the batch is drawn) and the token labels, and returns a ``go.Figure``. The builders never compute
attention: every number drawn is a tensor of the trace. The words a figure writes (axis titles,
hover names) are arguments with English defaults, so the page can pass them in the user's language.

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
import plotly.graph_objects as go
import torch

from attention import AttentionTrace

from .colors import DROPPED_COLOR, HIDDEN_COLOR, HIDDEN_TEXT_COLOR, colorscale
from .heatmap import MAX_ANNOTATED_CELLS, auto_height, cell_texts, matrix_heatmap
from .labels import plain, short, unique_labels
from .vocabulary import (
    DECIMALS,
    HOVER_DECIMALS,
    INPUT_PREFIX,
    KEY_PREFIX,
    QUERY_PREFIX,
    VALUE_PREFIX,
    context_labels,
    feature_labels,
)

VISIBLE_COLOR = "#eef4fb"  # a visible cell of the causal mask (0): light, not on any scale
KEPT_COLOR = "#d6ecd2"  # a weight kept by dropout (✓)
DROPPED_TEXT_COLOR = "#8a1c1c"

# Which tensor of the trace each projection step shows, and the prefix of its feature names.
PROJECTIONS = {"queries": QUERY_PREFIX, "keys": KEY_PREFIX, "values": VALUE_PREFIX}
WEIGHTS = {
    "W_query": ("b_query", QUERY_PREFIX),
    "W_key": ("b_key", KEY_PREFIX),
    "W_value": ("b_value", VALUE_PREFIX),
}
SCORE_STAGES = ("attn_scores", "masked_scores", "scaled_scores")
# Above this many cells the two-colour grids and the weight maps are handed to matrix_heatmap,
# which draws a large matrix as a light image instead of thousands of annotated cells.
LARGE_CELLS = 40 * 40


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


def embeddings_figure(
    trace: AttentionTrace,
    tokens: Sequence[str],
    *,
    palette: str = "default",
    row_title: str = "token",
    col_title: str = "feature",
    value_name: str = "x",
) -> go.Figure:
    """The inputs X ``(T, d_in)``: one row per token, one column per feature ``x1 … x_d_in``."""
    _check_labels(tokens, trace)
    inputs = batch_row(trace.inputs)  # (T, d_in)
    figure = matrix_heatmap(
        inputs,
        tokens,
        feature_labels(INPUT_PREFIX, trace.d_in),
        palette=palette,
        row_title=row_title,
        col_title=col_title,
        value_name=value_name,
    )
    return _upright_colorbar_title(figure)


def weight_figure(
    trace: AttentionTrace,
    name: str,
    *,
    palette: str = "default",
    row_title: str = "input feature",
    col_title: str = "output feature",
    value_name: str = "weight",
) -> go.Figure:
    """``W_query``, ``W_key`` or ``W_value`` as ``(d_in, d_out)``: rows ``x1…``, columns ``q1…``.

    The trace stores the weights the way ``x @ W`` uses them (``nn.Linear`` keeps the transpose),
    so row ``m`` says how input feature ``x_m`` feeds each output feature.
    """
    _check_one_head(trace)
    if name not in WEIGHTS:
        raise ValueError(f"name must be one of {', '.join(WEIGHTS)}, got {name!r}")
    weight = as_array(getattr(trace, name))  # (d_in, d_out)
    prefix = WEIGHTS[name][1]
    figure = matrix_heatmap(
        weight,
        feature_labels(INPUT_PREFIX, weight.shape[0]),
        feature_labels(prefix, weight.shape[1]),
        palette=palette,
        title=name,
        row_title=row_title,
        col_title=col_title,
        value_name=value_name,
    )
    return _upright_colorbar_title(figure)


def bias_figure(
    trace: AttentionTrace,
    name: str,
    *,
    palette: str = "default",
    col_title: str = "output feature",
    value_name: str = "bias",
) -> go.Figure:
    """The bias ``b_query``, ``b_key`` or ``b_value`` (``qkv_bias=True`` only) as one row."""
    _check_one_head(trace)
    if name not in ("b_query", "b_key", "b_value"):
        raise ValueError(f"name must be b_query, b_key or b_value, got {name!r}")
    bias = getattr(trace, name)
    if bias is None:
        raise ValueError(f"{name} is None: the layer was built with qkv_bias=False")
    values = as_array(bias)[None, :]  # (1, d_out)
    prefix = {"b_query": "q", "b_key": "k", "b_value": "v"}[name]
    figure = matrix_heatmap(
        values,
        [name],
        feature_labels(prefix, values.shape[1]),
        palette=palette,
        col_title=col_title,
        value_name=value_name,
        height=130,
    )
    return _upright_colorbar_title(figure)


def projection_figure(
    trace: AttentionTrace,
    name: str,
    tokens: Sequence[str],
    *,
    palette: str = "default",
    row_title: str = "token",
    col_title: str = "feature",
    value_name: str | None = None,
) -> go.Figure:
    """``queries``, ``keys`` or ``values`` ``(T, d_out)``: rows tokens, columns ``q1…``/``k1…``."""
    _check_one_head(trace)
    _check_labels(tokens, trace)
    if name not in PROJECTIONS:
        raise ValueError(f"name must be one of {', '.join(PROJECTIONS)}, got {name!r}")
    values = batch_row(getattr(trace, name))  # (T, d_out)
    title = {"queries": "Q", "keys": "K", "values": "V"}[name]
    figure = matrix_heatmap(
        values,
        tokens,
        feature_labels(PROJECTIONS[name], values.shape[1]),
        palette=palette,
        title=title,
        row_title=row_title,
        col_title=col_title,
        value_name=value_name or name,
    )
    return _upright_colorbar_title(figure)


# --- steps 4–7: scores, the mask, masked and scaled scores ----------------------------------


def scores_figure(
    trace: AttentionTrace,
    stage: str,
    tokens: Sequence[str],
    *,
    palette: str = "default",
    row_title: str = "query",
    col_title: str = "key",
    value_name: str = "score",
) -> go.Figure:
    """The ``(T, T)`` scores at ``stage``: ``attn_scores``, ``masked_scores`` or ``scaled_scores``.

    Raw scores show every cell (the future is still visible); from ``masked_scores`` on, the
    cells hidden by the causal mask are grey and written −∞ (NaN in the heatmap's ``z``).
    """
    _check_one_head(trace)
    _check_labels(tokens, trace)
    if stage not in SCORE_STAGES:
        raise ValueError(f"stage must be one of {', '.join(SCORE_STAGES)}, got {stage!r}")
    scores = batch_row(getattr(trace, stage))  # (T, T), −inf where hidden after masking
    hidden = None if stage == "attn_scores" else as_array(trace.mask)
    figure = matrix_heatmap(
        scores,
        tokens,
        tokens,
        hidden=hidden,
        palette=palette,
        row_title=row_title,
        col_title=col_title,
        value_name=value_name,
    )
    return _upright_colorbar_title(figure)


def binary_grid(
    flags: np.ndarray,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    *,
    true_text: str,
    false_text: str,
    true_name: str,
    false_name: str,
    true_color: str,
    false_color: str,
    row_title: str = "query",
    col_title: str = "key",
) -> go.Figure:
    """A grid of yes/no cells in two colours, each written ``true_text`` or ``false_text``.

    Used for the causal mask (1 = hidden) and dropout's keep-mask (✓ kept). The two colours are
    not a scale, so there is no colour bar: the cells carry their meaning in text and hover.
    """
    flags = np.asarray(flags, dtype=bool)
    rows, cols = flags.shape
    if rows * cols > LARGE_CELLS:
        figure = matrix_heatmap(
            flags.astype(np.float64),
            row_labels,
            col_labels,
            kind="sequential",
            zrange=(0.0, 1.0),
            row_title=row_title,
            col_title=col_title,
            value_name=f"1 = {true_name}, 0 = {false_name}",
        )
        return _upright_colorbar_title(figure)
    row_names = [plain(label) for label in unique_labels(list(row_labels))]
    col_names = [plain(label) for label in unique_labels(list(col_labels))]
    states = np.where(flags, plain(true_name), plain(false_name))
    customdata = _customdata(row_names, col_names, states)
    texts = np.where(flags, true_text, false_text).tolist()
    figure = go.Figure(
        go.Heatmap(
            z=flags.astype(np.float64),
            x=list(range(cols)),
            y=list(range(rows)),
            zmin=0.0,
            zmax=1.0,
            colorscale=[
                [0.0, false_color],
                [0.5, false_color],
                [0.5, true_color],
                [1.0, true_color],
            ],
            showscale=False,
            text=texts,
            texttemplate="%{text}" if rows * cols <= MAX_ANNOTATED_CELLS else None,
            textfont={"size": _font_size(rows, cols), "color": HIDDEN_TEXT_COLOR},
            customdata=customdata,
            hovertemplate=_hover_head(row_title, col_title) + "%{customdata[2]}<extra></extra>",
            xgap=1,
            ygap=1,
        )
    )
    _layout(figure, row_labels, col_labels, row_title, col_title)
    return figure


def causal_mask_figure(
    trace: AttentionTrace,
    tokens: Sequence[str],
    *,
    row_title: str = "query",
    col_title: str = "key",
    hidden_name: str = "1: hidden (a future token)",
    visible_name: str = "0: visible",
) -> go.Figure:
    """The mask buffer cropped to the sentence: 1 (grey) above the diagonal, 0 on and below it.

    ``trace.mask`` is ``True`` where a cell is hidden; the buffer itself holds
    ``torch.triu(torch.ones(T, T), diagonal=1)``, so the cells are written 1 and 0 as it holds them.
    """
    _check_labels(tokens, trace)
    return binary_grid(
        as_array(trace.mask),
        tokens,
        tokens,
        true_text="1",
        false_text="0",
        true_name=hidden_name,
        false_name=visible_name,
        true_color=HIDDEN_COLOR,
        false_color=VISIBLE_COLOR,
        row_title=row_title,
        col_title=col_title,
    )


# --- steps 8–9: weights, the keep-mask, dropped weights -------------------------------------


def weights_figure(
    trace: AttentionTrace,
    tokens: Sequence[str],
    *,
    palette: str = "default",
    row_title: str = "query",
    col_title: str = "key",
    value_name: str = "attention weight",
    hidden_name: str = "masked (a future token)",
) -> go.Figure:
    """The softmax weights ``attn_weights`` ``(T, T)`` on a 0…1 scale; masked cells grey, 0."""
    _check_one_head(trace)
    _check_labels(tokens, trace)
    return _weights_heatmap(
        batch_row(trace.attn_weights),
        tokens,
        hidden=as_array(trace.mask),
        dropped=None,
        before=None,
        scale=1.0,
        palette=palette,
        row_title=row_title,
        col_title=col_title,
        value_name=value_name,
        hidden_name=hidden_name,
        dropped_name="",
    )


def keep_mask_figure(
    trace: AttentionTrace,
    tokens: Sequence[str],
    *,
    row_title: str = "query",
    col_title: str = "key",
    kept_name: str = "kept",
    dropped_name: str = "dropped",
) -> go.Figure:
    """Dropout's keep-mask ``(T, T)``: ✓ (green) where a weight was kept, ✗ (pink) where dropped.

    Raises:
        ValueError: when dropout is inactive (eval mode or ``p = 0``): there is no keep-mask.
    """
    _check_one_head(trace)
    _check_labels(tokens, trace)
    if trace.dropout_mask is None:
        raise ValueError("dropout is inactive (eval mode or p = 0): there is no keep-mask")
    return binary_grid(
        batch_row(trace.dropout_mask).astype(bool),
        tokens,
        tokens,
        true_text="✓",
        false_text="✗",
        true_name=kept_name,
        false_name=dropped_name,
        true_color=KEPT_COLOR,
        false_color=DROPPED_COLOR,
        row_title=row_title,
        col_title=col_title,
    )


def dropped_weights_figure(
    trace: AttentionTrace,
    tokens: Sequence[str],
    *,
    palette: str = "default",
    row_title: str = "query",
    col_title: str = "key",
    value_name: str = "weight after dropout",
    hidden_name: str = "masked (a future token)",
    dropped_name: str = "dropped",
) -> go.Figure:
    """``dropped_weights`` ``(T, T)``: kept weights (× 1/(1−p)) on the scale, dropped ones pink.

    The scale runs from 0 to the largest weight (at least 1), so a kept weight that grew past 1
    is visible as such; the hover of a kept cell shows its weight before dropout and the factor.
    """
    _check_one_head(trace)
    _check_labels(tokens, trace)
    keep = None if trace.dropout_mask is None else batch_row(trace.dropout_mask).astype(bool)
    return _weights_heatmap(
        batch_row(trace.dropped_weights),
        tokens,
        hidden=as_array(trace.mask),
        dropped=None if keep is None else ~keep,
        before=batch_row(trace.attn_weights),
        scale=trace.dropout_scale,
        palette=palette,
        row_title=row_title,
        col_title=col_title,
        value_name=value_name,
        hidden_name=hidden_name,
        dropped_name=dropped_name,
    )


# --- step 10: the context vectors ------------------------------------------------------------


def context_figure(
    trace: AttentionTrace,
    tokens: Sequence[str],
    *,
    palette: str = "default",
    row_title: str = "token",
    col_title: str = "feature",
    value_name: str = "context_vec",
) -> go.Figure:
    """The context vectors ``(T, d_out)``: row i is token i's new representation, ``z1 …``."""
    _check_one_head(trace)
    _check_labels(tokens, trace)
    context = batch_row(trace.context)  # (T, d_out)
    figure = matrix_heatmap(
        context,
        tokens,
        context_labels(context.shape[1]),
        palette=palette,
        row_title=row_title,
        col_title=col_title,
        value_name=value_name,
    )
    return _upright_colorbar_title(figure)


# --- shared drawing helpers ------------------------------------------------------------------


def _upright_colorbar_title(figure: go.Figure) -> go.Figure:
    """Write the colour bar's title along the bar: a title across it eats a narrow plot's width."""
    figure.update_traces(colorbar_title_side="right", selector={"type": "heatmap"})
    return figure


def _font_size(rows: int, cols: int) -> int:
    return 12 if max(rows, cols) <= 8 else 10


def _hover_head(row_title: str, col_title: str) -> str:
    return (
        f"{plain(row_title) or 'row'}: %{{customdata[0]}}<br>"
        f"{plain(col_title) or 'column'}: %{{customdata[1]}}<br>"
    )


def _customdata(
    row_names: list[str], col_names: list[str], third: np.ndarray | None = None
) -> np.ndarray:
    """Per cell: (row name, column name[, a third string]) for the hover."""
    rows, cols = len(row_names), len(col_names)
    data = np.empty((rows, cols, 2 if third is None else 3), dtype=object)
    for i in range(rows):
        for j in range(cols):
            data[i, j, 0] = row_names[i]
            data[i, j, 1] = col_names[j]
            if third is not None:
                data[i, j, 2] = third[i, j]
    return data


def _weights_heatmap(
    values: np.ndarray,
    tokens: Sequence[str],
    *,
    hidden: np.ndarray,
    dropped: np.ndarray | None,
    before: np.ndarray | None,
    scale: float,
    palette: str,
    row_title: str,
    col_title: str,
    value_name: str,
    hidden_name: str,
    dropped_name: str,
) -> go.Figure:
    """Weights on a sequential scale; masked cells grey and dropped cells pink, both written 0."""
    rows, cols = values.shape
    if rows * cols > LARGE_CELLS:
        return _upright_colorbar_title(
            matrix_heatmap(
                values,
                tokens,
                tokens,
                kind="sequential",
                hidden=np.asarray(hidden, dtype=bool),  # masked cells grey, as for small T
                palette=palette,
                zrange=(0.0, max(1.0, float(np.nanmax(values)))),
                row_title=row_title,
                col_title=col_title,
                value_name=value_name,
            )
        )
    hidden = np.asarray(hidden, dtype=bool)
    dropped_cells = (
        np.zeros_like(hidden) if dropped is None else np.asarray(dropped, dtype=bool) & ~hidden
    )
    on_scale = ~hidden & ~dropped_cells
    names = [plain(label) for label in unique_labels(list(tokens))]
    annotate = rows * cols <= MAX_ANNOTATED_CELLS
    texts = np.where(
        on_scale, np.array(cell_texts(values, None, DECIMALS), dtype=object), ""
    ).tolist()
    font = _font_size(rows, cols)
    head = _hover_head(row_title, col_title)

    shown = np.where(on_scale, values, np.nan)
    finite = shown[np.isfinite(shown)]
    top = max(1.0, float(finite.max())) if finite.size else 1.0
    if before is not None and scale != 1.0:
        before_texts = np.vectorize(lambda v: f"{v:.{HOVER_DECIMALS}f}")(before)
        factor = f"{scale:.6g}"
        customdata = _customdata(names, names, before_texts)
        hover = (
            f"{head}{plain(value_name)}: %{{z:.{HOVER_DECIMALS}f}} = %{{customdata[2]}} × {factor}"
        )
    else:
        customdata = _customdata(names, names)
        hover = f"{head}{plain(value_name)}: %{{z:.{HOVER_DECIMALS}f}}"

    figure = go.Figure(
        go.Heatmap(
            z=shown,
            x=list(range(cols)),
            y=list(range(rows)),
            zmin=0.0,
            zmax=top,
            colorscale=colorscale("sequential", palette),
            colorbar={"title": {"text": plain(value_name), "side": "right"}, "thickness": 14},
            text=texts,
            texttemplate="%{text}" if annotate else None,
            textfont={"size": font},
            customdata=customdata,
            hovertemplate=hover + "<extra></extra>",
            xgap=1,
            ygap=1,
        )
    )
    overlays = (
        (hidden, HIDDEN_COLOR, HIDDEN_TEXT_COLOR, hidden_name),
        (dropped_cells, DROPPED_COLOR, DROPPED_TEXT_COLOR, dropped_name),
    )
    for cells, color, text_color, label in overlays:
        if not cells.any():
            continue
        figure.add_trace(
            go.Heatmap(
                z=np.where(cells, 0.0, np.nan),
                x=list(range(cols)),
                y=list(range(rows)),
                colorscale=[[0, color], [1, color]],
                showscale=False,
                text=np.where(cells, "0", "").tolist(),  # Plotly writes in NaN cells too
                texttemplate="%{text}" if annotate else None,
                textfont={"size": font, "color": text_color},
                customdata=_customdata(names, names),
                hovertemplate=f"{head}{plain(value_name)}: 0 ({plain(label)})<extra></extra>",
                xgap=1,
                ygap=1,
            )
        )
    _layout(figure, tokens, tokens, row_title, col_title)
    return figure


def _layout(
    figure: go.Figure,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    row_title: str,
    col_title: str,
) -> None:
    """Axes like :func:`viz.heatmap.matrix_heatmap`'s: keys on top, queries down the side.

    Labels are user text: told apart, shortened, *then* escaped (shortening an escaped label could
    cut an entity such as ``&lt;`` in half).
    """
    row_names = [plain(short(label)) for label in unique_labels(list(row_labels))]
    col_names = [plain(short(label)) for label in unique_labels(list(col_labels))]
    figure.update_layout(
        margin={"l": 10, "r": 10, "t": 10, "b": 10},
        height=auto_height(len(row_names)),
        plot_bgcolor="white",
        xaxis={
            "tickmode": "array",
            "tickvals": list(range(len(col_names))),
            "ticktext": col_names,
            "title": {"text": plain(col_title)},
            "side": "top",
            "showgrid": False,
            "zeroline": False,
        },
        yaxis={
            "tickmode": "array",
            "tickvals": list(range(len(row_names))),
            "ticktext": row_names,
            "title": {"text": plain(row_title)},
            "autorange": "reversed",
            "showgrid": False,
            "zeroline": False,
        },
    )
