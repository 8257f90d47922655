"""A scatter plot of the embedding vectors, one labelled point per token.

An embedding is a point in ``d_in``-dimensional space. :func:`embedding_scatter` draws it in as
many dimensions as the screen allows: 3-D for ``d_in ≥ 3`` (the first three features, ``x1``,
``x2``, ``x3``), a plane for ``d_in = 2`` and a line (a "strip") for ``d_in = 1``. Tokens with
similar numbers land close together; attention only ever sees these numbers, never the words.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from .labels import plain, unique_labels
from .vocabulary import format_number, input_labels

POINT_COLOR = "#1f77b4"
MAX_HOVER_FEATURES = 8  # hover lists at most this many features of a wide embedding


def plotted_features(d_in: int) -> int:
    """How many features the scatter shows: ``min(d_in, 3)``."""
    if d_in < 1:
        raise ValueError(f"d_in must be at least 1, got {d_in}")
    return min(d_in, 3)


def alternating_positions(count: int) -> list[str]:
    """Label positions above, below, above… so neighbouring tokens (often close) do not overlap."""
    return ["top center" if index % 2 == 0 else "bottom center" for index in range(count)]


def _hover_texts(values: np.ndarray, names: list[str]) -> list[str]:
    """Per point: the (escaped) label and its features, ``x1 = 0.4300`` one per line."""
    d_in = values.shape[1]
    texts = []
    for label, row in zip(names, values, strict=True):
        lines = [f"<b>{label}</b>"]
        names = input_labels(min(d_in, MAX_HOVER_FEATURES))
        lines += [f"{name} = {format_number(row[m])}" for m, name in enumerate(names)]
        if d_in > MAX_HOVER_FEATURES:
            lines.append(f"… ({d_in - MAX_HOVER_FEATURES} more)")
        texts.append("<br>".join(lines))
    return texts


def embedding_scatter(
    values: np.ndarray | Sequence[Sequence[float]],
    tokens: Sequence[str],
    *,
    title: str = "",
    height: int = 520,
) -> go.Figure:
    """The embeddings as labelled points: 3-D, 2-D or a 1-D strip depending on ``d_in``.

    Args:
        values: the embedding table ``(T, d_in)``.
        tokens: the token labels (user text: escaped here, repeated tokens told apart).
        title: the figure title (escaped).
        height: the figure height in pixels.

    Returns:
        A figure with one ``Scatter3d`` (``d_in ≥ 3``, features x1, x2, x3) or ``Scatter`` trace;
        each point's text is its token, its hover lists the token and its features.
    """
    values = np.asarray(values, dtype=np.float64)  # (T, d_in)
    if values.ndim != 2 or values.shape[0] != len(tokens):
        raise ValueError(f"values must be (len(tokens), d_in), got {values.shape}")
    num_tokens, d_in = values.shape
    shown = plotted_features(d_in)
    axis_names = input_labels(shown)  # x1, x2, x3: the embedding table's column names
    names = [plain(label) for label in unique_labels(list(tokens))]
    hover = _hover_texts(values, names)
    common = {
        "mode": "markers+text" if num_tokens <= 100 else "markers",  # 4096 3-D labels: 42 s to draw
        "text": names,
        "hovertext": hover,
        "hovertemplate": "%{hovertext}<extra></extra>",
        "name": "",
        "showlegend": False,
    }
    figure = go.Figure()
    if shown == 3:
        _draw_3d(figure, values, axis_names, common)
    elif shown == 2:
        _draw_plane(figure, values, axis_names, common)
    else:
        _draw_strip(figure, values, axis_names, common)
        height = min(height, 260)
    figure.update_layout(
        title={"text": plain(title)} if title else None,
        height=height,
        margin={"l": 10, "r": 10, "t": 40 if title else 10, "b": 10},
        plot_bgcolor="white",
    )
    if shown < 3:
        figure.update_xaxes(showgrid=True, gridcolor="#eeeeee", zerolinecolor="#999999")
        figure.update_yaxes(showgrid=True, gridcolor="#eeeeee", zerolinecolor="#999999")
    return figure


def _draw_3d(
    figure: go.Figure, values: np.ndarray, axis_names: list[str], common: dict[str, object]
) -> None:
    """The points in 3-D (features x1, x2, x3), each with a thin line from the origin."""
    num_tokens = values.shape[0]
    figure.add_trace(
        go.Scatter3d(
            x=values[:, 0],
            y=values[:, 1],
            z=values[:, 2],
            marker={"size": 6, "color": POINT_COLOR},
            textposition=alternating_positions(num_tokens),
            textfont={"size": 13},
            **common,
        )
    )
    # a thin line from the origin to each point: an embedding is a vector, not only a dot
    lines_x, lines_y, lines_z = [], [], []
    for row in values:
        lines_x += [0.0, row[0], None]
        lines_y += [0.0, row[1], None]
        lines_z += [0.0, row[2], None]
    figure.add_trace(
        go.Scatter3d(
            x=lines_x,
            y=lines_y,
            z=lines_z,
            mode="lines",
            line={"color": "#9cc3e4", "width": 3},
            hoverinfo="skip",
            showlegend=False,
            name="",
        )
    )
    figure.update_layout(
        scene={
            "xaxis": {"title": {"text": axis_names[0]}},
            "yaxis": {"title": {"text": axis_names[1]}},
            # the z title would be drawn left of the chart and cut off: label the axis at its top
            "zaxis": {"title": {"text": ""}},
            "annotations": [
                {
                    "x": float(values[:, 0].min()),
                    "y": float(values[:, 1].min()),
                    "z": float(values[:, 2].max()),
                    "text": f"{axis_names[2]} ↑",
                    "showarrow": False,
                    "yshift": 14,
                    "font": {"size": 13},
                }
            ],
            "camera": {"eye": {"x": 1.6, "y": 1.6, "z": 1.05}},
            "aspectmode": "cube",
        }
    )


def _draw_plane(
    figure: go.Figure, values: np.ndarray, axis_names: list[str], common: dict[str, object]
) -> None:
    """The points on a plane (features x1, x2), equal scales on both axes."""
    figure.add_trace(
        go.Scatter(
            x=values[:, 0],
            y=values[:, 1],
            marker={"size": 10, "color": POINT_COLOR},
            textposition=alternating_positions(values.shape[0]),
            textfont={"size": 13},
            **common,
        )
    )
    figure.update_layout(
        xaxis={"title": {"text": axis_names[0]}, "zeroline": True},
        yaxis={"title": {"text": axis_names[1]}, "zeroline": True, "scaleanchor": "x"},
    )


def _draw_strip(
    figure: go.Figure, values: np.ndarray, axis_names: list[str], common: dict[str, object]
) -> None:
    """Every token on one line; labels alternate above and below in x order so they do not overlap."""
    num_tokens = values.shape[0]
    order = np.argsort(values[:, 0], kind="stable")
    positions = np.empty(num_tokens, dtype=object)
    for rank, index in enumerate(order):
        positions[index] = "top center" if rank % 2 == 0 else "bottom center"
    figure.add_trace(
        go.Scatter(
            x=values[:, 0],
            y=np.zeros(num_tokens),
            marker={"size": 12, "color": POINT_COLOR},
            textposition=list(positions),
            textfont={"size": 13},
            **common,
        )
    )
    figure.update_layout(
        xaxis={"title": {"text": axis_names[0]}, "zeroline": True},
        yaxis={"visible": False, "range": [-1, 1]},
    )
