"""Charts of the teaching experiments: error curves, saturation curves, one row of weights.

Pure builders (numbers and already-translated labels in, a :class:`viz.chart.Chart` out,
drawn by ``ui.chart``), so they are tested without a browser. Token labels stay plain text:
the chart writes every text with ``textContent``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .chart import (
    Axis,
    Bars,
    Chart,
    LegendEntry,
    Line,
    Panel,
    Points,
    Rule,
    category_axis,
    linear_axis,
    log_axis,
    log_padded,
)
from .colors import HIDDEN_COLOR, HIDDEN_TEXT_COLOR, series_colors
from .labels import short, unique_labels
from .vocabulary import DECIMALS, HOVER_DECIMALS, MINUS_INFINITY, format_number

__all__ = [
    "dropout_error_chart",
    "log_spaced",
    "saturation_chart",
    "series_colors",
    "weight_row_chart",
]


def _number(value: float, decimals: int = DECIMALS) -> str:
    if math.isinf(value):
        return MINUS_INFINITY if value < 0 else "∞"
    return format_number(value, decimals, minus="−")


MAX_CURVE_POINTS = 200  # points per line of a log-log error curve


def log_spaced(count: int, limit: int, *, always: int | None = None) -> np.ndarray:
    """Indices ``0 … count − 1``: all of them up to ``limit``, else about ``limit`` of them spread
    evenly on a log axis of ``index + 1`` (first and last included, and ``always`` if given)."""
    if count <= limit:
        return np.arange(count)
    spread = np.round(np.geomspace(1, count, limit)).astype(np.int64) - 1
    extra = [] if always is None else [always]
    return np.unique(np.concatenate([spread, [0, count - 1], extra])).astype(np.int64)


def _position(draws: Sequence[int], value: int | None) -> int | None:
    """The index of ``value`` in the sorted ``draws`` (None if absent)."""
    if value is None:
        return None
    index = int(np.searchsorted(np.asarray(draws), value))
    return index if index < len(draws) and draws[index] == value else None


def _floats(values: Sequence[float] | np.ndarray) -> tuple[float, ...]:
    return tuple(float(v) for v in values)


def dropout_error_chart(
    draws: Sequence[int],
    rms_error: Sequence[float],
    max_abs_error: Sequence[float],
    reference: Sequence[float],
    *,
    rms_name: str,
    max_name: str,
    reference_name: str,
    x_title: str,
    y_title: str,
    highlight: int | None = None,
    highlight_name: str = "",
    palette: str = "default",
    max_points: int = MAX_CURVE_POINTS,
) -> Chart:
    """Log-log plot of the error of the average of N dropout draws against N.

    The RMS error, the largest absolute error and the theory ``c/√N`` (dashed, slope −1/2);
    ``highlight`` marks the N of the heatmaps. Zeros cannot be drawn on a log axis and are left
    out. Of more than ``max_points`` values of N, about ``max_points`` spread evenly on the log axis
    are kept (the first, the last and ``highlight`` always). Axes are labelled at whole decades.
    """
    colors = series_colors(palette)
    kept = log_spaced(len(draws), max_points, always=_position(draws, highlight))
    x = np.asarray(draws, dtype=np.float64)[kept]  # (kept,)

    def positive(values: Sequence[float]) -> tuple[float | None, ...]:
        array = np.asarray(values, dtype=np.float64)[kept]
        return tuple(float(v) if v > 0 else None for v in array)  # log axis: no zeros

    def hover(values: tuple[float | None, ...], name: str) -> tuple[str, ...]:
        return tuple(
            "" if v is None else f"{name}\nN = {int(n)}\n{y_title}: {v:.{HOVER_DECIMALS}f}"
            for n, v in zip(x, values, strict=True)
        )

    lines = []
    legend = []
    every: list[float | None] = []
    for values, name, color, width, dash in (
        (rms_error, rms_name, colors["main"], 2.0, "solid"),
        (max_abs_error, max_name, colors["second"], 1.5, "solid"),
        (reference, reference_name, colors["reference"], 2.0, "dash"),
    ):
        ys = positive(values)
        every += ys
        lines.append(Line(_floats(x), ys, color, width, dash, hover=hover(ys, name)))
        legend.append(LegendEntry(name, color, "line", dash))
    if highlight is not None and _position(list(x.astype(int)), highlight) is not None:
        index = int(np.searchsorted(x, highlight))
        value = positive(rms_error)[index]
        if value is not None:
            name = highlight_name or f"N = {highlight}"
            lines.append(
                Points(
                    (float(highlight),),
                    (value,),
                    colors["main"],
                    (6.0,),
                    symbol="ring",
                    hover=(f"{name}\nN = {highlight}\n{y_title}: {value:.{HOVER_DECIMALS}f}",),
                )
            )
            legend.append(LegendEntry(name, colors["main"], "ring"))
    x_low, x_high = float(x[0]), float(x[-1])  # the measured N, end to end
    y_low, y_high = log_padded(every)
    panel = Panel(
        x=log_axis(x_title, x_low, x_high), y=log_axis(y_title, y_low, y_high), series=tuple(lines)
    )
    return Chart(panels=(panel,), legend=tuple(legend), height=280)


SATURATION_METRICS = ("mean_entropy", "mean_max_weight", "mean_gradient_norm")


def saturation_chart(
    scaled: dict,
    unscaled: dict,
    *,
    panel_titles: Sequence[str],
    scaled_name: str,
    unscaled_name: str,
    uniform_name: str,
    x_title: str,
    highlight_d_k: int | None = None,
    palette: str = "default",
) -> Chart:
    """Three panels against ``d_k`` (log axis): mean entropy, mean largest weight, gradient size.

    ``scaled``/``unscaled``: :func:`attention.experiments.softmax_saturation` results. The entropy
    panel shows ``log T`` (a uniform row) dotted; a dotted line marks ``highlight_d_k``. Ticks at
    the measured ``d_k``; y axes from 0, the largest weight up to 1.05.
    """
    colors = series_colors(palette)
    d_k_values = [int(d_k) for d_k in scaled["d_k"]]
    x_axis = Axis(
        x_title,
        (d_k_values[0] / 1.3, d_k_values[-1] * 1.3),
        _floats(d_k_values),
        tuple(str(d_k) for d_k in d_k_values),
        log=True,
    )
    styles = (
        (scaled, scaled_name, colors["main"], "solid"),
        (unscaled, unscaled_name, colors["second"], "dash"),
    )
    panels = []
    for column, metric in enumerate(SATURATION_METRICS):
        title = panel_titles[column]
        series: list = [
            Line(
                _floats(d_k_values),
                _floats(result[metric]),
                color,
                2.0,
                dash,
                markers=(3.5,) * len(d_k_values),
                hover=tuple(
                    f"{name}\nd_k = {d_k}\n{title}: {float(v):.{DECIMALS}f}"
                    for d_k, v in zip(d_k_values, result[metric], strict=True)
                ),
            )
            for result, name, color, dash in styles
        ]
        top = max(float(np.max(result[metric])) for result, *_ in styles)
        if column == 0:
            uniform = float(scaled["uniform_entropy"])
            series.insert(
                0,
                Rule(
                    "y",
                    uniform,
                    colors["reference"],
                    hover=f"{uniform_name}: {uniform:.{DECIMALS}f}",
                ),
            )
            top = max(top, uniform)
        if highlight_d_k is not None:
            series.insert(
                0, Rule("x", float(highlight_d_k), "#888888", hover=f"d_k = {highlight_d_k}")
            )
        y_axis = (
            linear_axis("", 0.0, 1.05)
            if metric == "mean_max_weight"
            else linear_axis("", 0.0, top * 1.08)
        )
        panels.append(Panel(x=x_axis, y=y_axis, series=tuple(series), title=title))
    legend = (
        LegendEntry(scaled_name, colors["main"], "line"),
        LegendEntry(unscaled_name, colors["second"], "line", "dash"),
        LegendEntry(uniform_name, colors["reference"], "line", "dot"),
    )
    return Chart(panels=tuple(panels), legend=legend, height=200)


def weight_row_chart(
    values: Sequence[float],
    labels: Sequence[str],
    *,
    value_name: str,
    x_title: str,
    hidden: Sequence[bool] | None = None,
    highlight: Sequence[int] = (),
    title: str = "",
    y_range: tuple[float, float] | None = None,
    palette: str = "default",
    decimals: int = DECIMALS,
) -> Chart:
    """One row of weights (or scores) as bars, the number written on each bar.

    ``hidden`` cells (masked keys) are grey; a −∞ value is drawn as an empty bar labelled −∞ (it is
    never a height). ``highlight`` bars (e.g. the right answer) get the second colour. Tick
    labels are the keys' names cut to 14 characters; the hover holds the whole name.
    """
    colors = series_colors(palette)
    numbers = np.asarray(values, dtype=np.float64)  # (T,)
    hidden_flags = [False] * len(numbers) if hidden is None else [bool(h) for h in hidden]
    names = unique_labels(list(labels))
    heights = np.where(np.isfinite(numbers), numbers, 0.0)  # (T,)
    texts = tuple(_number(float(v), decimals) for v in numbers)
    marked = set(highlight)
    bar_colors = tuple(
        HIDDEN_COLOR if hidden_flags[j] else colors["second"] if j in marked else colors["main"]
        for j in range(len(numbers))
    )
    finite = heights[np.isfinite(numbers)]
    if y_range is None:
        top = float(finite.max()) if finite.size else 1.0
        bottom = float(min(0.0, finite.min())) if finite.size else 0.0
        span = (top - bottom) or 1.0
        y_range = (bottom - 0.05 * span if bottom < 0 else 0.0, top + 0.18 * span)
    bars = Bars(
        x=tuple(float(j) for j in range(len(numbers))),
        y=_floats(heights),
        width=0.8,
        colors=bar_colors,
        text_room=0.96,  # the bar and most of the gap beside it
        texts=texts,
        text_colors=tuple(HIDDEN_TEXT_COLOR if h else "" for h in hidden_flags),
        hover=tuple(
            f"{x_title}: {name}\n{value_name}: {text}"
            for name, text in zip(names, texts, strict=True)
        ),
    )
    panel = Panel(
        x=category_axis(x_title, [short(name) for name in names]),
        y=linear_axis(value_name, *y_range, zero_line=True),
        series=(bars,),
    )
    return Chart(panels=(panel,), title=title, height=200)
