"""Figures of the teaching experiments: error curves, saturation curves, one row of weights.

Pure builders (numbers and already-translated labels in, a ``go.Figure`` out), so they are tested
without a browser. Every string that reaches Plotly goes through :func:`viz.labels.plain`: token
labels are user text, and Plotly would read ``<b>`` or ``<a>`` in them as markup.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .colors import HIDDEN_COLOR, HIDDEN_TEXT_COLOR
from .heatmap import MINUS_INFINITY
from .labels import plain, short, unique_labels
from .vocabulary import DECIMALS, HOVER_DECIMALS, format_number

# Two colours that stay apart for colour-blind readers too (Okabe–Ito in the colour-blind palette).
SERIES_COLORS = {
    "default": {"main": "#2b6cb0", "second": "#d1495b", "reference": "#555555"},
    "colorblind": {"main": "#0072b2", "second": "#e69f00", "reference": "#555555"},
}


# Log axes labelled at whole decades only (1, 10, 100 / 0.01, 0.1, 1), with faint minor grid lines:
# Plotly's default writes lone digits (2, 5) between decades, which reads as nonsense.
LOG_AXIS = {
    "dtick": 1,
    "gridcolor": "#d9d9d9",
    "minor": {"showgrid": True, "gridcolor": "#f1f1f1"},
    "exponentformat": "none",
}


def series_colors(palette: str = "default") -> dict[str, str]:
    """The line/bar colours of ``palette`` (``main``, ``second``, ``reference``)."""
    return SERIES_COLORS.get(palette, SERIES_COLORS["default"])


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


def dropout_error_figure(
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
    height: int = 380,
    max_points: int = MAX_CURVE_POINTS,
) -> go.Figure:
    """Log-log plot of the error of the average of N dropout draws against N.

    Three lines: the RMS error, the largest absolute error, and the theory ``c/√N`` (dashed): a
    straight line of slope −1/2 on log-log axes. ``highlight`` marks the N shown in the heatmaps.
    Points with error 0 cannot be drawn on a log axis and are left out. Of more than
    ``max_points`` values of N, the curve keeps about ``max_points`` spread evenly on the log
    axis (the first, the last and ``highlight`` always), each with its measured value: on a log
    axis the last thousand of 2000 points share one tenth of the width, and every point costs
    the browser to send and draw.
    """
    colors = series_colors(palette)
    kept = log_spaced(len(draws), max_points, always=_position(draws, highlight))
    x = np.asarray(draws, dtype=np.float64)[kept]

    def positive(values: Sequence[float]) -> np.ndarray:
        array = np.asarray(values, dtype=np.float64)[kept]
        return np.where(array > 0, array, np.nan)  # log axis: no zeros

    hover = f"N = %{{x:d}}<br>{plain(y_title)}: %{{y:.{HOVER_DECIMALS}f}}<extra>%{{fullData.name}}</extra>"
    figure = go.Figure()
    for values, name, line in (
        (rms_error, rms_name, {"color": colors["main"], "width": 2}),
        (max_abs_error, max_name, {"color": colors["second"], "width": 1.5}),
        (reference, reference_name, {"color": colors["reference"], "width": 2, "dash": "dash"}),
    ):
        figure.add_trace(
            go.Scatter(
                x=x,
                y=positive(values),
                mode="lines",
                name=plain(name),
                line=line,
                hovertemplate=hover,
            )
        )
    if highlight is not None:
        index = int(np.searchsorted(x, highlight))
        if index < len(x) and x[index] == highlight:
            figure.add_trace(
                go.Scatter(
                    x=[highlight],
                    y=[positive(rms_error)[index]],
                    mode="markers",
                    name=plain(highlight_name or f"N = {highlight}"),
                    marker={"color": colors["main"], "size": 11, "symbol": "circle-open-dot"},
                    hovertemplate=hover,
                )
            )
    figure.update_layout(
        height=height,
        margin={"l": 10, "r": 10, "t": 10, "b": 10},
        plot_bgcolor="white",
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "x": 0},
        xaxis={"type": "log", "title": {"text": plain(x_title)}, **LOG_AXIS},
        yaxis={"type": "log", "title": {"text": plain(y_title)}, **LOG_AXIS},
    )
    return figure


def saturation_figure(
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
    height: int = 340,
) -> go.Figure:
    """Three panels against ``d_k`` (log axis): mean entropy, mean largest weight, gradient size.

    ``scaled``/``unscaled`` are :func:`attention.experiments.softmax_saturation` results. The
    entropy panel also shows ``log T`` (a uniform row) dotted. A dotted vertical line marks
    ``highlight_d_k``.
    """
    colors = series_colors(palette)
    metrics = ("mean_entropy", "mean_max_weight", "mean_gradient_norm")
    figure = make_subplots(
        rows=1,
        cols=3,
        subplot_titles=[plain(title) for title in panel_titles],
        horizontal_spacing=0.08,
    )
    for column, metric in enumerate(metrics, start=1):
        for result, name, color, dash in (
            (scaled, scaled_name, colors["main"], "solid"),
            (unscaled, unscaled_name, colors["second"], "dash"),
        ):
            figure.add_trace(
                go.Scatter(
                    x=list(result["d_k"]),
                    y=list(result[metric]),
                    mode="lines+markers",
                    name=plain(name),
                    legendgroup=plain(name),
                    showlegend=column == 1,
                    line={"color": color, "dash": dash, "width": 2},
                    marker={"size": 6},
                    hovertemplate=(
                        f"d_k = %{{x}}<br>{plain(panel_titles[column - 1])}: %{{y:.{DECIMALS}f}}"
                        "<extra>%{fullData.name}</extra>"
                    ),
                ),
                row=1,
                col=column,
            )
    _uniform_entropy_line(figure, scaled, uniform_name, colors["reference"])
    if highlight_d_k is not None:
        for column in range(1, 4):
            figure.add_vline(
                x=highlight_d_k, line={"color": "#888888", "dash": "dot"}, row=1, col=column
            )
    _saturation_layout(figure, list(scaled["d_k"]), x_title, height)
    return figure


def _uniform_entropy_line(figure: go.Figure, scaled: dict, name: str, color: str) -> None:
    """``log T``, the entropy of a uniform row, dotted across the entropy panel."""
    d_k_values = list(scaled["d_k"])
    figure.add_trace(
        go.Scatter(
            x=[min(d_k_values), max(d_k_values)],
            y=[scaled["uniform_entropy"]] * 2,
            mode="lines",
            name=plain(name),
            line={"color": color, "dash": "dot", "width": 1.5},
            hovertemplate=f"{plain(name)}: %{{y:.{DECIMALS}f}}<extra></extra>",
        ),
        row=1,
        col=1,
    )


def _saturation_layout(figure: go.Figure, d_k_values: list, x_title: str, height: int) -> None:
    """Log ``d_k`` axes ticked at the measured values; the largest-weight panel on 0 … 1."""
    figure.update_xaxes(
        type="log",
        title={"text": plain(x_title)},
        gridcolor="#e5e5e5",
        tickmode="array",
        tickvals=d_k_values,  # the d_k values measured (powers of 2), not Plotly's 1-2-5 ticks
        ticktext=[str(d_k) for d_k in d_k_values],
    )
    figure.update_yaxes(gridcolor="#e5e5e5", rangemode="tozero")
    figure.update_yaxes(range=[0, 1.05], row=1, col=2)
    figure.update_layout(
        height=height,
        margin={"l": 10, "r": 10, "t": 60, "b": 10},
        plot_bgcolor="white",
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.12, "x": 0},
    )


def weight_row_bars(
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
    height: int = 300,
) -> go.Figure:
    """One row of weights (or scores) as bars, the number written on each bar.

    ``hidden`` cells (masked keys) are grey; a −∞ value is drawn as an empty bar labelled −∞ (it is
    never a height). ``highlight`` bars (e.g. the right answer) get the second colour.
    """
    colors = series_colors(palette)
    numbers = np.asarray(values, dtype=np.float64)
    hidden_flags = [False] * len(numbers) if hidden is None else [bool(h) for h in hidden]
    unique = unique_labels(list(labels))
    names = [plain(label) for label in unique]
    heights = np.where(np.isfinite(numbers), numbers, 0.0)
    texts = [_number(float(v), decimals) for v in numbers]
    bar_colors = [
        HIDDEN_COLOR
        if hidden_flags[j]
        else colors["second"]
        if j in set(highlight)
        else colors["main"]
        for j in range(len(numbers))
    ]
    figure = go.Figure(
        go.Bar(
            x=list(range(len(numbers))),
            y=heights,
            text=texts,
            textposition="outside",
            textfont={"color": [HIDDEN_TEXT_COLOR if h else "#222222" for h in hidden_flags]},
            marker={"color": bar_colors},
            customdata=[[name, text] for name, text in zip(names, texts, strict=True)],
            hovertemplate=(
                f"{plain(x_title)}: %{{customdata[0]}}<br>"
                f"{plain(value_name)}: %{{customdata[1]}}<extra></extra>"
            ),
            cliponaxis=False,
        )
    )
    finite = heights[np.isfinite(numbers)]
    if y_range is None:
        top = float(finite.max()) if finite.size else 1.0
        bottom = float(min(0.0, finite.min())) if finite.size else 0.0
        span = (top - bottom) or 1.0
        y_range = (bottom - 0.05 * span if bottom < 0 else 0.0, top + 0.18 * span)
    figure.update_layout(
        title={"text": plain(title)} if title else None,
        height=height,
        margin={"l": 10, "r": 10, "t": 40 if title else 20, "b": 10},
        plot_bgcolor="white",
        showlegend=False,
        xaxis={
            "tickmode": "array",
            "tickvals": list(range(len(numbers))),
            "ticktext": [plain(short(label)) for label in unique],  # cut, then escape
            "title": {"text": plain(x_title)},
        },
        yaxis={
            "title": {"text": plain(value_name)},
            "range": list(y_range),
            "gridcolor": "#e5e5e5",
        },
    )
    return figure
