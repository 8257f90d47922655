"""Figures of the Train page: loss curves, the attention maps of a trained model, pattern scores.

Pure builders (no Streamlit) of what ``attention.training`` measured: charts for the curves and
scores, a :class:`viz.matrix.MatrixView` per layer and head for the maps. Words are arguments
(the user's language), written as plain text. Okabe–Ito colours, and validation lines dashed,
so the curves read with colour-vision deficiencies too.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import torch

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
from .matrix import MatrixView
from .vocabulary import format_number
from .words import FigureWords

__all__ = [
    "attention_map_views",
    "dropout_curves_chart",
    "loss_curves_chart",
    "pattern_scores_chart",
]

BLUE, ORANGE, GREEN, PURPLE = "#0072B2", "#E69F00", "#009E73", "#CC79A7"


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

    ``total_steps`` fixes the x axis (a live curve grows across it); ``accuracy_name`` adds a
    panel with the validation accuracy.
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

    ``names``: legend names under ``train_without``, ``val_without``, ``train_with``, ``val_with``.
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


def attention_map_views(
    weights: torch.Tensor | np.ndarray,
    tokens: Sequence[str],
    words: FigureWords,
    *,
    layer_names: Sequence[str],
    head_names: Sequence[str],
    palette: str,
    stage: str = "",
) -> tuple[tuple[MatrixView, ...], ...]:
    """``weights`` ``(layers, heads, T, T)`` as ``views[layer][head]``, masked as on the step page.

    A map's title is ``"{layer} · {head}"``, then `` · {stage}`` when a stage is given.
    """
    array = np.asarray(weights, dtype=np.float64)
    if array.ndim != 4 or array.shape[2] != array.shape[3]:
        raise ValueError(f"weights must be (layers, heads, T, T), got {array.shape}")
    num_layers, num_heads, num_tokens, _ = array.shape
    if len(tokens) != num_tokens:
        raise ValueError(f"{len(tokens)} token labels for {num_tokens} tokens")
    if len(layer_names) != num_layers or len(head_names) != num_heads:
        raise ValueError("one name per layer and one per head are needed")
    labels = tuple(str(token) for token in tokens)
    hidden = np.triu(np.ones((num_tokens, num_tokens), dtype=bool), k=1)  # future keys
    return tuple(
        tuple(
            MatrixView(
                values=array[layer, head],
                row_labels=labels,
                col_labels=labels,
                palette=palette,
                kind="sequential",
                zrange=(0.0, 1.0),
                title=" · ".join(
                    name for name in (layer_names[layer], head_names[head], stage) if name
                ),
                row_title=words.query,
                col_title=words.key,
                value_name=words.attention_weight,
                hidden=hidden,
                hidden_value=0.0,
                hidden_name=words.future_masked,
            )
            for head in range(num_heads)
        )
        for layer in range(num_layers)
    )


def pattern_scores_chart(
    scores: Mapping[str, torch.Tensor | np.ndarray],
    *,
    score_names: Mapping[str, str],
    head_names: Sequence[str],
    value_title: str = "mean attention weight",
) -> Chart:
    """One group of bars per head (``head_names``, layer-major), one bar per pattern score.

    ``scores``: ``TrainResult.pattern_scores``; ``score_names``: each score's legend name.
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
