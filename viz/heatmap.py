"""Annotated heatmaps of the matrices of attention: rows are queries, columns are keys.

:func:`matrix_figure` draws one :class:`~viz.matrix.MatrixView`: its numbers written in the cells
(readable as page text), token labels on both axes, the exact value in the hover, and a colour
bar. Hidden cells (the causal mask) are drawn grey and written −∞ (a score) or 0 (a weight): they
are never a colour on the scale; weights dropped by dropout are pink and written 0; a yes/no grid
(``kind="binary"``) has two colours and no scale. Above 40 × 40 cells the same view is drawn as a
colour image (:func:`viz.image_heatmap.image_heatmap`).
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from .colors import DROPPED_COLOR, HIDDEN_COLOR, HIDDEN_TEXT_COLOR, colorscale
from .image_heatmap import image_heatmap
from .labels import plain, short, unique_labels
from .matrix import MatrixView, colour_range, shown_values, value_range
from .vocabulary import HOVER_DECIMALS, format_number
from .words import FigureWords

__all__ = ["MINUS_INFINITY", "cell_texts", "matrix_figure", "tick_positions", "value_range"]

MINUS_INFINITY = "−∞"
MAX_ANNOTATED_CELLS = 24 * 24  # above this, numbers are left out of the cells (hover still works)
MAX_TICK_LABELS = 32  # above this many rows (columns), only every k-th is labelled
DROPPED_TEXT_COLOR = "#8a1c1c"


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


def matrix_figure(view: MatrixView, words: FigureWords) -> go.Figure:
    """The figure of ``view``: an annotated heatmap, a yes/no grid, or (large) a colour image.

    ``words`` gives the hover's words in the page's language. The figure is only what the
    browser gets; ``ui.show.show_matrix`` reads ``view`` itself for the zoom window.
    """
    if view.large:
        return image_heatmap(view, words)
    if view.binary is not None:
        return _binary_grid(view, words)
    return _numeric_heatmap(view, words)


def _numeric_heatmap(view: MatrixView, words: FigureWords) -> go.Figure:
    values = np.asarray(view.values, dtype=np.float64)
    rows, cols = values.shape
    hidden = np.zeros((rows, cols), dtype=bool) if view.hidden is None else view.hidden
    dropped = np.zeros_like(hidden) if view.dropped is None else view.dropped & ~hidden
    shown = shown_values(view)  # NaN where hidden or dropped: never a colour on the scale
    zmin, zmax = colour_range(view, shown)
    names = _hover_names(view)
    annotate = rows * cols <= MAX_ANNOTATED_CELLS
    font = _font_size(rows, cols)
    head = _hover_head(view, words)
    value_name = plain(view.value_name)

    texts = np.array(cell_texts(values, view.hidden, view.decimals), dtype=object)
    if view.hidden_value is not None:
        texts[hidden] = ""  # the grey layer writes the hidden value
    texts[dropped] = ""
    scaled = view.undropped is not None and view.dropout_scale != 1.0
    if scaled:
        before = np.vectorize(lambda v: f"{v:.{HOVER_DECIMALS}f}")(view.undropped)
        customdata = _customdata(*names, before)
        factor = f"{view.dropout_scale:.6g}"
        hover = f"{head}{value_name}: %{{z:.{HOVER_DECIMALS}f}} = %{{customdata[2]}} × {factor}"
    else:
        customdata = _customdata(*names)
        hover = f"{head}{value_name}: %{{z:.{HOVER_DECIMALS}f}}"

    figure = go.Figure()
    figure.add_trace(
        go.Heatmap(
            z=shown,
            x=list(range(cols)),
            y=list(range(rows)),
            zmin=zmin,
            zmax=zmax,
            zmid=0.0 if view.kind == "diverging" else None,
            colorscale=colorscale(view.colour_kind, view.palette),
            colorbar=colorbar(view),
            showscale=view.colour_bar,
            text=texts.tolist(),
            texttemplate="%{text}" if annotate else None,
            textfont={"size": font},
            customdata=customdata,
            hovertemplate=hover + "<extra></extra>",
            xgap=1,
            ygap=1,
        )
    )
    hidden_text = (
        MINUS_INFINITY if view.hidden_value is None else format_number(view.hidden_value, 0)
    )
    overlays = (
        (hidden, HIDDEN_COLOR, HIDDEN_TEXT_COLOR, hidden_text, view.hidden_name or words.masked),
        (dropped, DROPPED_COLOR, DROPPED_TEXT_COLOR, "0", view.dropped_name or words.dropped),
    )
    plain_names = _customdata(*names)
    for cells, color, text_color, text, label in overlays:
        if not cells.any():
            continue
        figure.add_trace(
            go.Heatmap(
                z=np.where(cells, 0.0, np.nan),
                x=list(range(cols)),
                y=list(range(rows)),
                colorscale=[[0, color], [1, color]],
                showscale=False,
                text=np.where(cells, text, "").tolist(),  # Plotly writes in NaN cells too
                texttemplate="%{text}" if annotate else None,
                textfont={"size": font, "color": text_color},
                customdata=plain_names,
                hovertemplate=f"{head}{value_name}: {text} ({plain(label)})<extra></extra>",
                hoverongaps=False,  # elsewhere the value below answers, not this layer's "0"
                xgap=1,
                ygap=1,
            )
        )
    _layout(figure, view)
    return figure


def _binary_grid(view: MatrixView, words: FigureWords) -> go.Figure:
    """A grid of yes/no cells in two colours, each written as its state (no colour bar).

    The two colours are not a scale: the cells carry their meaning in text and hover.
    """
    look = view.binary
    assert look is not None
    flags = np.asarray(view.values, dtype=bool)
    rows, cols = flags.shape
    hidden = np.zeros_like(flags) if view.hidden is None else view.hidden
    states = np.where(flags, plain(look.true_name), plain(look.false_name))
    states[hidden] = plain(view.hidden_name or words.masked)
    texts = np.where(flags, look.true_text, look.false_text).astype(object)
    texts[hidden] = look.hidden_text
    levels = np.where(hidden, 0.5, flags.astype(np.float64))  # 0 no, 0.5 hidden (grey), 1 yes
    figure = go.Figure(
        go.Heatmap(
            z=levels,
            x=list(range(cols)),
            y=list(range(rows)),
            zmin=0.0,
            zmax=1.0,
            colorscale=[
                [0.0, look.false_color],
                [0.25, look.false_color],
                [0.25, HIDDEN_COLOR],
                [0.75, HIDDEN_COLOR],
                [0.75, look.true_color],
                [1.0, look.true_color],
            ],
            showscale=False,
            text=texts.tolist(),
            texttemplate="%{text}" if rows * cols <= MAX_ANNOTATED_CELLS else None,
            textfont={"size": _font_size(rows, cols), "color": HIDDEN_TEXT_COLOR},
            customdata=_customdata(*_hover_names(view), states),
            hovertemplate=_hover_head(view, words) + "%{customdata[2]}<extra></extra>",
            xgap=1,
            ygap=1,
        )
    )
    _layout(figure, view)
    return figure


def colorbar(view: MatrixView) -> dict[str, object]:
    """The colour bar: titled by what it measures, along the bar when ``upright_colorbar``."""
    title: dict[str, object] = {"text": plain(view.colorbar_title or view.value_name)}
    if view.upright_colorbar:
        title["side"] = "right"  # a title across the bar eats a narrow plot's width
    return {"title": title, "thickness": 14}


def tick_positions(count: int, limit: int = MAX_TICK_LABELS) -> list[int]:
    """Every position up to ``limit`` of them, else every k-th (the hover still names each cell).

    Hundreds of tick labels on one axis cost Plotly seconds to lay out, and overlap anyway.
    """
    step = max(1, math.ceil(count / limit))
    return list(range(0, count, step))


def _font_size(rows: int, cols: int) -> int:
    return 12 if max(rows, cols) <= 8 else 10


def _hover_names(view: MatrixView) -> tuple[list[str], list[str]]:
    """Row and column names for the hover: told apart, then escaped (user text)."""
    return (
        [plain(label) for label in unique_labels(list(view.row_labels))],
        [plain(label) for label in unique_labels(list(view.col_labels))],
    )


def _hover_head(view: MatrixView, words: FigureWords) -> str:
    return (
        f"{plain(view.row_title or words.row)}: %{{customdata[0]}}<br>"
        f"{plain(view.col_title or words.column)}: %{{customdata[1]}}<br>"
    )


def _customdata(
    row_names: list[str], col_names: list[str], third: np.ndarray | None = None
) -> np.ndarray:
    """Per cell: (row name, column name[, a third string]) for the hover."""
    rows, cols = len(row_names), len(col_names)
    data = np.empty((rows, cols, 2 if third is None else 3), dtype=object)
    data[:, :, 0] = np.asarray(row_names, dtype=object)[:, None]
    data[:, :, 1] = np.asarray(col_names, dtype=object)[None, :]
    if third is not None:
        data[:, :, 2] = third
    return data


def _layout(figure: go.Figure, view: MatrixView) -> None:
    """Keys on top, queries down the side, row 1 first; thinned ticks on long axes.

    Labels are user text: told apart, shortened, *then* escaped (shortening an escaped label could
    cut an entity such as ``&lt;`` in half).
    """
    rows, cols = view.shape
    row_plain = unique_labels(list(view.row_labels))
    col_plain = unique_labels(list(view.col_labels))
    figure.update_layout(
        title={"text": plain(view.title)} if view.title else None,
        margin={"l": 10, "r": 10, "t": 40 if view.title else 10, "b": 10},
        height=view.height or auto_height(rows),
        plot_bgcolor="white",
        xaxis={
            "tickmode": "array",
            "tickvals": tick_positions(cols),
            "ticktext": [plain(short(col_plain[j])) for j in tick_positions(cols)],
            "title": {"text": plain(view.col_title)},
            "side": "top",
            "showgrid": False,
            "zeroline": False,
        },
        yaxis={
            "tickmode": "array",
            "tickvals": tick_positions(rows),
            "ticktext": [plain(short(row_plain[i])) for i in tick_positions(rows)],
            "title": {"text": plain(view.row_title)},
            "autorange": "reversed",
            "showgrid": False,
            "zeroline": False,
        },
    )


def auto_height(rows: int) -> int:
    """38 pixels a row between 180 and 720 pixels."""
    return int(min(720, max(180, 60 + 38 * rows)))
