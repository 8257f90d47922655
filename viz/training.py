"""Figures of the Train page: loss curves, the attention maps of a trained model, pattern scores.

Pure builders (no Streamlit): each takes what ``attention.training`` measured — history
records, ``TrainResult.attention`` weights, ``TrainResult.pattern_scores`` — and returns a chart
of the app's own (:class:`viz.chart.Chart`: the curves and the scores) or, for the attention
maps (matrices), a Plotly ``go.Figure``. Nothing is computed here beyond picking values to draw.
Words a figure writes (titles, legend names) are arguments, so the page passes them in the
user's language; a chart's texts are plain text (the component writes them as ``textContent``),
a figure's are escaped with :func:`viz.labels.plain` (Plotly reads a little HTML in its strings).

Line colours are the Okabe–Ito colours (told apart with the common colour-vision deficiencies);
the validation line of a run is dashed, its training line solid, so the pair reads without
colour too.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
import torch
from plotly.subplots import make_subplots

from .chart import (
    Axis,
    Bars,
    Chart,
    LegendEntry,
    Line,
    Panel,
    category_axis,
    grouped_offsets,
    linear_axis,
    log_axis,
    log_padded,
)
from .colors import HIDDEN_COLOR, colorscale
from .labels import plain, short, unique_labels
from .vocabulary import format_number

__all__ = [
    "MAP_PANEL_WIDTH",
    "attention_maps_figure",
    "dropout_curves_chart",
    "loss_curves_chart",
    "pattern_scores_chart",
]

BLUE, ORANGE, GREEN, PURPLE = "#0072B2", "#E69F00", "#009E73", "#CC79A7"
MAP_PANEL_WIDTH = (
    850  # px the page gives the map grid (wide layout at 1366 px), to decide on labels
)
MAP_NUMBERS_CELL_PX = 34  # numbers (2 decimals) go into the cells when a cell is this wide
MAP_ROW_PX = 22  # px per token row of a map panel (at most MAP_MAX_PANEL_PX)
MAP_MAX_PANEL_PX = 420


def _records_column(records: Sequence[Mapping[str, float]], name: str) -> list[float]:
    return [float(record[name]) for record in records if name in record]


def _steps(records: Sequence[Mapping[str, float]]) -> list[int]:
    return [int(record["step"]) for record in records]


def _loss_axis(title: str, values: Sequence[float]) -> Axis:
    """A log axis when the losses span more than a factor of 10 (they fall fast), else linear
    from 0."""
    positive = [v for v in values if v > 0 and math.isfinite(v)]
    if positive and max(positive) / min(positive) > 10:
        return log_axis(title, *log_padded(positive))
    return linear_axis(title, 0.0, max(positive, default=1.0) * 1.05)


def _step_axis(title: str, steps: Sequence[int], total_steps: int | None) -> Axis:
    """Steps 0 … ``total_steps`` (a live curve grows across a fixed axis), else the records'."""
    return linear_axis(title, 0.0, float(total_steps or max(steps, default=1) or 1))


def _curve(
    records: Sequence[Mapping[str, float]],
    column: str,
    name: str,
    step_title: str,
    color: str,
    dash: str = "solid",
    marker: float = 2.5,
) -> Line:
    """One column of the records against their steps, each point's hover naming both."""
    steps = [
        step for step, record in zip(_steps(records), records, strict=True) if column in record
    ]
    values = _records_column(records, column)
    return Line(
        x=tuple(float(step) for step in steps),
        y=tuple(values),
        color=color,
        dash=dash,
        markers=(marker,) * len(values) if marker else (),
        hover=tuple(
            f"{step_title}: {step}\n{name}: {format_number(value)}"
            for step, value in zip(steps, values, strict=True)
        ),
    )


def loss_curves_chart(
    records: Sequence[Mapping[str, float]],
    *,
    total_steps: int | None = None,
    train_name: str = "training loss",
    val_name: str = "validation loss",
    accuracy_name: str | None = None,
    step_title: str = "step",
    loss_title: str = "loss",
) -> Chart:
    """Training and validation loss against the step, from ``TrainResult.history`` records.

    ``total_steps`` fixes the x axis (a live curve grows across it). With ``accuracy_name`` and
    records that have ``val_accuracy``, the validation accuracy (0 … 1) is drawn too, dotted, in
    a second panel beside the losses.
    """
    steps = _steps(records)
    train = _curve(records, "train_loss", train_name, step_title, BLUE)
    val = _curve(records, "val_loss", val_name, step_title, ORANGE, "dash")
    losses = Panel(
        x=_step_axis(step_title, steps, total_steps),
        y=_loss_axis(loss_title, train.y + val.y),
        series=(train, val),
    )
    legend = [LegendEntry(train_name, BLUE), LegendEntry(val_name, ORANGE, dash="dash")]
    accuracy = _records_column(records, "val_accuracy")
    if accuracy_name is None or len(accuracy) != len(steps) or not steps:
        return Chart(panels=(losses,), legend=tuple(legend))
    ticks = (0.0, 0.25, 0.5, 0.75, 1.0)
    accuracy_axis = Axis(accuracy_name, (0.0, 1.02), ticks, tuple(f"{v:.0%}" for v in ticks))
    line = _curve(records, "val_accuracy", accuracy_name, step_title, GREEN, "dot", marker=0)
    panel = Panel(x=losses.x, y=accuracy_axis, series=(line,))
    legend.append(LegendEntry(accuracy_name, GREEN, dash="dot"))
    return Chart(panels=(losses, panel), legend=tuple(legend))


def dropout_curves_chart(
    without: Sequence[Mapping[str, float]],
    with_dropout: Sequence[Mapping[str, float]],
    *,
    names: Mapping[str, str] | None = None,
    total_steps: int | None = None,
    step_title: str = "step",
    loss_title: str = "loss",
) -> Chart:
    """The four curves of a with/without-dropout comparison: two runs × (training, validation).

    ``without`` and ``with_dropout`` are the history records of the two runs (or the progress so
    far). ``names`` gives the legend names under the keys ``train_without``, ``val_without``,
    ``train_with``, ``val_with``. Without dropout is blue, with dropout orange; training solid,
    validation dashed.
    """
    names = {
        "train_without": "training, without dropout",
        "val_without": "validation, without dropout",
        "train_with": "training, with dropout",
        "val_with": "validation, with dropout",
        **(names or {}),
    }
    lines, legend = [], []
    for records, run, color in ((without, "without", BLUE), (with_dropout, "with", ORANGE)):
        for split, dash in (("train", "solid"), ("val", "dash")):
            name = names[f"{split}_{run}"]
            lines.append(_curve(records, f"{split}_loss", name, step_title, color, dash, 2.0))
            legend.append(LegendEntry(name, color, dash=dash))
    values = [v for line in lines for v in line.y if v is not None]
    steps = _steps(without) + _steps(with_dropout)
    panel = Panel(
        x=_step_axis(step_title, steps, total_steps),
        y=_loss_axis(loss_title, values),
        series=tuple(lines),
    )
    return Chart(panels=(panel,), legend=tuple(legend))


def attention_maps_figure(
    weights: torch.Tensor | np.ndarray,
    tokens: Sequence[str],
    *,
    layer_names: Sequence[str],
    head_names: Sequence[str],
    palette: str = "default",
    row_title: str = "query",
    col_title: str = "key",
    value_name: str = "weight",
    panel_width: int = MAP_PANEL_WIDTH,
) -> go.Figure:
    """The attention weights of every layer and head: one row of panels per layer.

    Args:
        weights: ``(layers, heads, T, T)`` softmax weights (``TrainResult.attention``); row ``i``
            of a panel = query ``i``, column ``j`` = key ``j``.
        tokens: the ``T`` token labels, on both axes of every panel (user text: escaped here;
            the keys on top, every k-th one when they do not fit; the hover names each cell).
        layer_names, head_names: one name per layer and per head (``"Layer 1"``, ``"head 2"``);
            a panel's title is ``"{layer} · {head}"``.
        palette: the page's palette; weights use its sequential scale on 0 … 1.

    Future positions (the causal mask) are drawn grey, as on the other pages. Each panel's
    hover names the layer, head, query, key and weight; cells carry the weights (2 decimals)
    when they are wide enough to be read.
    """
    array = _checked_maps(weights, tokens, layer_names, head_names)  # (layers, heads, T, T)
    num_layers, num_heads, num_tokens, _ = array.shape
    labels = unique_labels([str(token) for token in tokens])
    names = [plain(label) for label in labels]
    ticks = [plain(short(label, 6)) for label in labels]
    titles = [
        f"{plain(layer_names[layer])} · {plain(head_names[head])}"
        for layer in range(num_layers)
        for head in range(num_heads)
    ]
    figure = make_subplots(
        rows=num_layers,
        cols=num_heads,
        subplot_titles=titles,
        horizontal_spacing=0.06 / max(1, num_heads - 1) if num_heads > 1 else 0.0,
        vertical_spacing=min(0.12, 0.3 / num_layers) if num_layers > 1 else 0.0,
    )
    hidden = np.triu(np.ones((num_tokens, num_tokens), dtype=bool), k=1)  # future keys
    cell_px = panel_width / num_heads / max(1, num_tokens)
    annotate = cell_px >= MAP_NUMBERS_CELL_PX
    customdata = _query_key_names(names)  # (T, T, 2)
    hover_names = (plain(row_title), plain(col_title), plain(value_name))
    tick_positions, tick_text = _key_ticks(ticks, cell_px)
    for layer in range(num_layers):
        for head in range(num_heads):
            heatmap = _map_panel(
                array[layer, head],
                hidden,
                customdata,
                title=titles[layer * num_heads + head],
                palette=palette,
                hover_names=hover_names,
                first=layer == 0 and head == 0,
                annotate=annotate,
            )
            figure.add_trace(heatmap, row=layer + 1, col=head + 1)
            _map_axes(
                figure,
                tick_positions,
                tick_text,
                row_title=row_title if head == 0 else None,
                row=layer + 1,
                col=head + 1,
            )
    _maps_layout(figure, num_layers, num_tokens)
    return figure


def _maps_layout(figure: go.Figure, num_layers: int, num_tokens: int) -> None:
    """Panel titles above the key labels on top; a grey background shows through masked cells."""
    for annotation in figure.layout.annotations:
        annotation.update(yshift=30, font={"size": 13})
    panel_px = min(MAP_MAX_PANEL_PX, 80 + MAP_ROW_PX * num_tokens)
    figure.update_layout(
        height=num_layers * (panel_px + 60) + 60,
        margin={"l": 10, "r": 10, "t": 90, "b": 10},
        plot_bgcolor=HIDDEN_COLOR,
    )


def _checked_maps(
    weights: torch.Tensor | np.ndarray,
    tokens: Sequence[str],
    layer_names: Sequence[str],
    head_names: Sequence[str],
) -> np.ndarray:
    """``weights`` as a ``(layers, heads, T, T)`` float array, with one name for each of them."""
    array = np.asarray(weights, dtype=np.float64)
    if array.ndim != 4 or array.shape[2] != array.shape[3]:
        raise ValueError(f"weights must be (layers, heads, T, T), got {array.shape}")
    num_layers, num_heads, num_tokens, _ = array.shape
    if len(tokens) != num_tokens:
        raise ValueError(f"{len(tokens)} token labels for {num_tokens} tokens")
    if len(layer_names) != num_layers or len(head_names) != num_heads:
        raise ValueError("one name per layer and one per head are needed")
    return array


def _query_key_names(names: list[str]) -> np.ndarray:
    """``(T, T, 2)``: cell ``(i, j)`` holds the names of query ``i`` and key ``j`` (the hover)."""
    num_tokens = len(names)
    query = np.array(names, dtype=object)[:, None].repeat(num_tokens, axis=1)
    key = np.array(names, dtype=object)[None, :].repeat(num_tokens, axis=0)
    return np.stack([query, key], axis=-1)


def _key_ticks(ticks: list[str], cell_px: float) -> tuple[list[int], list[str]]:
    """A label every k-th column when labels are wider than the cells (≈ 6.5 px a character)."""
    label_px = 6.5 * max(len(tick) for tick in ticks) + 6
    tick_step = max(1, math.ceil(label_px / cell_px))
    positions = list(range(0, len(ticks), tick_step))
    return positions, [ticks[i] for i in positions]


def _map_panel(
    weights: np.ndarray,
    hidden: np.ndarray,
    customdata: np.ndarray,
    *,
    title: str,
    palette: str,
    hover_names: tuple[str, str, str],
    first: bool,
    annotate: bool,
) -> go.Heatmap:
    """One layer·head panel of ``weights`` ``(T, T)``; the colour bar on the first."""
    z = weights.copy()
    z[hidden] = np.nan  # never a colour on the scale: the grey background shows
    row_name, col_name, value_name = hover_names
    return go.Heatmap(
        z=np.round(z, 4),
        x=list(range(z.shape[1])),
        y=list(range(z.shape[0])),
        zmin=0.0,
        zmax=1.0,
        colorscale=colorscale("sequential", palette),
        showscale=first,
        colorbar={"title": {"text": value_name}, "thickness": 12},
        text=np.where(hidden, "", np.vectorize(lambda v: f"{v:.2f}")(z)).tolist()
        if annotate
        else None,
        texttemplate="%{text}" if annotate else None,
        textfont={"size": 10},
        customdata=customdata,
        hovertemplate=(
            f"{title}<br>{row_name}: %{{customdata[0]}}<br>"
            f"{col_name}: %{{customdata[1]}}<br>"
            f"{value_name}: %{{z:.4f}}<extra></extra>"
        ),
        name=title,
        hoverongaps=False,
    )


def _map_axes(
    figure: go.Figure,
    tick_positions: list[int],
    tick_text: list[str],
    *,
    row_title: str | None,
    row: int,
    col: int,
) -> None:
    """A panel's axes: keys on top, queries down the side (labelled on the first column only)."""
    figure.update_xaxes(
        tickmode="array",
        tickvals=tick_positions,
        ticktext=tick_text,
        tickangle=0,
        tickfont={"size": 10},
        side="top",
        showgrid=False,
        zeroline=False,
        row=row,
        col=col,
    )
    figure.update_yaxes(
        tickmode="array",
        tickvals=tick_positions,
        ticktext=tick_text,
        showticklabels=row_title is not None,
        tickfont={"size": 10},
        autorange="reversed",
        showgrid=False,
        zeroline=False,
        title={"text": plain(row_title)} if row_title is not None else None,
        row=row,
        col=col,
    )


def pattern_scores_chart(
    scores: Mapping[str, torch.Tensor | np.ndarray],
    *,
    score_names: Mapping[str, str],
    head_names: Sequence[str],
    value_title: str = "mean attention weight",
) -> Chart:
    """One group of bars per head (``head_names``, layer by layer), one bar per pattern score.

    ``scores``: score name → ``(layers, heads)`` mean weights in 0 … 1, from
    ``TrainResult.pattern_scores``; ``score_names`` gives each score's legend name;
    ``head_names`` names every (layer, head), layer-major (``"L1 H1"``, ``"L1 H2"``, …). Each
    bar carries its value (2 decimals).
    """
    colors = [BLUE, ORANGE, GREEN, PURPLE]
    groups = len(head_names)  # no slab for one head: fewer heads, narrower bars
    width, offsets = grouped_offsets(
        len(scores), 0.25 if groups == 1 else 0.5 if groups <= 3 else 0.8
    )
    bars, legend = [], []
    for index, ((name, values), offset) in enumerate(zip(scores.items(), offsets, strict=True)):
        flat = np.asarray(values, dtype=np.float64).reshape(-1)  # layer-major, as head_names
        if len(flat) != len(head_names):
            raise ValueError(f"{len(flat)} scores of {name!r} for {len(head_names)} head names")
        color, shown = colors[index % len(colors)], score_names.get(name, name)
        bars.append(
            Bars(
                x=tuple(k + offset for k in range(len(flat))),
                y=tuple(float(v) for v in flat),
                width=width,
                colors=(color,) * len(flat),
                texts=tuple(f"{v:.2f}" for v in flat),
                hover=tuple(
                    f"{h}: {v:.4f}\n{shown}" for h, v in zip(head_names, flat, strict=True)
                ),
            )
        )
        legend.append(LegendEntry(shown, color, "bar"))
    panel = Panel(
        x=category_axis("", head_names),
        y=linear_axis(value_title, 0.0, 1.12),
        series=tuple(bars),
    )
    return Chart(panels=(panel,), legend=tuple(legend))
