"""Annotated heatmaps of the matrices of attention: rows are queries, columns are keys.

:func:`matrix_heatmap` draws one matrix with its numbers written in the cells (readable as page
text), token labels on both axes, the exact value in the hover, and a colour bar. Hidden cells (the
causal mask) are drawn grey and labelled −∞: they are never a colour on the scale.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from .colors import HIDDEN_COLOR, HIDDEN_TEXT_COLOR, colorscale
from .image_heatmap import image_heatmap, use_image
from .labels import plain, short, unique_labels
from .vocabulary import DECIMALS, HOVER_DECIMALS, format_number

MINUS_INFINITY = "−∞"
MAX_ANNOTATED_CELLS = 24 * 24  # above this, numbers are left out of the cells (hover still works)
MAX_TICK_LABELS = 32  # above this many rows (columns), only every k-th is labelled


def cell_texts(values: np.ndarray, hidden: np.ndarray | None, decimals: int) -> list[list[str]]:
    """The number written in each cell (−∞ where hidden), as the page shows it."""
    rows, cols = values.shape
    return [
        [
            MINUS_INFINITY
            if hidden is not None and hidden[i, j]
            else format_number(float(values[i, j]), decimals, minus="−")
            for j in range(cols)
        ]
        for i in range(rows)
    ]


def value_range(values: np.ndarray, kind: str) -> tuple[float, float]:
    """The colour range: symmetric around 0 for a diverging scale, data range for sequential."""
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return (-1.0, 1.0) if kind == "diverging" else (0.0, 1.0)
    if kind == "diverging":
        bound = float(np.abs(finite).max()) or 1.0
        return -bound, bound
    low, high = float(finite.min()), float(finite.max())
    return (low, high) if high > low else (low, low + 1.0)


def matrix_heatmap(
    values: np.ndarray | Sequence[Sequence[float]],
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    *,
    title: str = "",
    kind: str = "diverging",
    hidden: np.ndarray | None = None,
    palette: str = "default",
    decimals: int = DECIMALS,
    row_title: str = "",
    col_title: str = "",
    value_name: str = "value",
    zrange: tuple[float, float] | None = None,
    colorbar_title: str = "",
    height: int | None = None,
    large: str = "auto",
) -> go.Figure:
    """A heatmap of ``values`` (rows × cols) with labelled axes, numbers in cells and a colour bar.

    Args:
        values: the matrix; −inf/NaN cells must be marked in ``hidden``.
        row_labels, col_labels: token (or feature) labels; user text, escaped here.
        kind: ``"diverging"`` (centred on 0) or ``"sequential"`` (e.g. weights in [0, 1]).
        hidden: bool matrix, True where a cell is masked: drawn grey, written −∞.
        zrange: fix the colour range (e.g. (0, 1) for weights) instead of the data's.
        large: ``"auto"`` draws a matrix of more than ``MAX_NUMERIC_CELLS`` (40 × 40) cells as a
            colour image with a block hover (:func:`viz.image_heatmap.image_heatmap`: kilobytes
            instead of megabytes at 1024 tokens); ``"image"`` always, ``"numeric"`` never.
    """
    array = np.asarray(values)
    if large == "image" or (large == "auto" and array.ndim == 2 and use_image(*array.shape)):
        return image_heatmap(
            array,
            row_labels,
            col_labels,
            title=title,
            kind=kind,
            hidden=hidden,
            palette=palette,
            decimals=decimals,
            row_title=row_title,
            col_title=col_title,
            value_name=value_name,
            zrange=zrange,
            colorbar_title=colorbar_title,
            height=height,
        )
    values = np.asarray(array, dtype=np.float64)
    rows, cols = values.shape
    hidden_mask = None if hidden is None else np.asarray(hidden, dtype=bool)
    shown = values.copy()
    if hidden_mask is not None:
        shown[hidden_mask] = np.nan  # never a colour on the scale
    shown[~np.isfinite(shown)] = np.nan
    zmin, zmax = zrange if zrange is not None else value_range(shown, kind)

    row_plain = unique_labels(list(row_labels))  # user text: escaped below, after shortening
    col_plain = unique_labels(list(col_labels))
    row_names = [plain(label) for label in row_plain]
    col_names = [plain(label) for label in col_plain]
    customdata = np.empty((rows, cols, 2), dtype=object)
    for i in range(rows):
        for j in range(cols):
            customdata[i, j, 0] = row_names[i]
            customdata[i, j, 1] = col_names[j]
    annotate = rows * cols <= MAX_ANNOTATED_CELLS
    texts = cell_texts(values, hidden_mask, decimals)

    figure = go.Figure()
    figure.add_trace(
        go.Heatmap(
            z=shown,
            x=list(range(cols)),
            y=list(range(rows)),
            zmin=zmin,
            zmax=zmax,
            zmid=0.0 if kind == "diverging" else None,
            colorscale=colorscale(kind, palette),
            colorbar={"title": {"text": plain(colorbar_title or value_name)}, "thickness": 14},
            text=texts,
            texttemplate="%{text}" if annotate else None,
            textfont={"size": 12 if max(rows, cols) <= 8 else 10},
            customdata=customdata,
            hovertemplate=(
                f"{plain(row_title) or 'row'}: %{{customdata[0]}}<br>"
                f"{plain(col_title) or 'column'}: %{{customdata[1]}}<br>"
                f"{plain(value_name)}: %{{z:.{HOVER_DECIMALS}f}}<extra></extra>"
            ),
            xgap=1,
            ygap=1,
        )
    )
    if hidden_mask is not None and hidden_mask.any():
        grey = np.where(hidden_mask, 0.0, np.nan)
        figure.add_trace(
            go.Heatmap(
                z=grey,
                x=list(range(cols)),
                y=list(range(rows)),
                colorscale=[[0, HIDDEN_COLOR], [1, HIDDEN_COLOR]],
                showscale=False,
                # only the hidden cells: Plotly writes a template in NaN cells too
                text=np.where(hidden_mask, MINUS_INFINITY, "").tolist(),
                texttemplate="%{text}" if annotate else None,
                textfont={"color": HIDDEN_TEXT_COLOR, "size": 12 if max(rows, cols) <= 8 else 10},
                customdata=customdata,
                hovertemplate=(
                    f"{plain(row_title) or 'row'}: %{{customdata[0]}}<br>"
                    f"{plain(col_title) or 'column'}: %{{customdata[1]}}<br>"
                    f"{plain(value_name)}: {MINUS_INFINITY} (masked)<extra></extra>"
                ),
                xgap=1,
                ygap=1,
            )
        )
    figure.update_layout(
        title={"text": plain(title)} if title else None,
        margin={"l": 10, "r": 10, "t": 40 if title else 10, "b": 10},
        height=height or auto_height(rows),
        plot_bgcolor="white",
        xaxis={
            "tickmode": "array",
            "tickvals": tick_positions(cols),
            "ticktext": [plain(short(col_plain[j])) for j in tick_positions(cols)],
            "title": {"text": plain(col_title)},
            "side": "top",
            "showgrid": False,
            "zeroline": False,
        },
        yaxis={
            "tickmode": "array",
            "tickvals": tick_positions(rows),
            "ticktext": [plain(short(row_plain[i])) for i in tick_positions(rows)],
            "title": {"text": plain(row_title)},
            "autorange": "reversed",
            "showgrid": False,
            "zeroline": False,
        },
    )
    return figure


def tick_positions(count: int, limit: int = MAX_TICK_LABELS) -> list[int]:
    """Every position up to ``limit`` of them, else every k-th (the hover still names each cell).

    Hundreds of tick labels on one axis cost Plotly seconds to lay out (measured: 5 s for a
    256 × 2 heatmap with one label per row, 0.2 s with one every 8 rows) and overlap anyway.
    """
    step = max(1, math.ceil(count / limit))
    return list(range(0, count, step))


def auto_height(rows: int) -> int:
    """A figure height in px for ``rows`` rows of cells: 38 px a row, between 180 and 720."""
    return int(min(720, max(180, 60 + 38 * rows)))
