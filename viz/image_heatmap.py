"""Heatmaps of large matrices drawn as a colour image (PNG), with a real colour bar and hover.

A 1024-token attention matrix holds 1,048,576 numbers. Sent as an annotated Plotly heatmap it
weighs several megabytes per matrix and takes the browser seconds to draw; nobody can read a
million numbers on a screen anyway. So above :data:`MAX_NUMERIC_CELLS` cells a matrix is drawn as
a picture instead:

1. **Colour it ourselves.** Every value is mapped to one of :data:`COLOUR_LEVELS` colours sampled
   from the *same* Plotly colour scale the numeric heatmap uses (``viz.colors.colorscale``), on the
   same range (symmetric around 0 for a diverging scale, or the page's ``zrange``). Hidden
   (masked, −∞) cells are grey, never a colour on the scale. Plotly's own
   ``px.imshow(binary_string=True)`` would be grayscale for 2-D data and loses the values.
2. **Shrink it to what a screen shows.** At most :data:`MAX_IMAGE_SIDE` pixels a side: each pixel is
   the mean of a block of ``f × f`` cells (``f = ⌈T / 512⌉``: 2 at 1024 tokens, 8 at 4096). A
   palette PNG (one byte per pixel) of a 512 × 512 image is 5–300 KB, whatever ``T`` is.
3. **Keep the numbers reachable.** A transparent heatmap of at most :data:`HOVER_BLOCKS` ×
   :data:`HOVER_BLOCKS` blocks lies over the image: hovering reports the block's rows, columns,
   mean, min and max. It also carries the colour bar (zmin/zmax of the image). For *exact* values
   ``ui.show.show_matrix`` offers a zoom window (:func:`viz.matrix.window`), drawn from the same
   :class:`~viz.matrix.MatrixView` as the usual annotated heatmap.

The figure carries nothing but what the browser draws: the description stays with the caller.
"""

from __future__ import annotations

import base64
import io
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
import plotly.colors
import plotly.graph_objects as go
from PIL import Image

from .colors import HIDDEN_COLOR, colorscale
from .labels import plain, short
from .matrix import MAX_NUMERIC_CELLS, MatrixView, colour_range, shown_values, use_image
from .words import FigureWords

__all__ = ["MAX_NUMERIC_CELLS", "image_heatmap", "use_image"]

MAX_IMAGE_SIDE = 512  # pixels a side at most: a screen shows no more than that
MIN_DRAWN_SIDE = 400  # smaller images are enlarged (pixels repeated) to stay sharp
HOVER_BLOCKS = 32  # the hover layer has at most this many blocks a side
COLOUR_LEVELS = 255  # colours of the scale in the PNG palette; index 255 is the hidden grey
HIDDEN_INDEX = COLOUR_LEVELS
MAX_TICKS = 9


ColourScale = str | Sequence[Sequence[object]]  # a Plotly scale name or [[position, colour], …]


def pixel_factors(rows: int, cols: int, max_side: int = MAX_IMAGE_SIDE) -> tuple[int, int]:
    """Cells per pixel (vertically, horizontally): ``⌈T / 512⌉``, 1 up to 512 cells a side."""
    return _factor(rows, max_side), _factor(cols, max_side)


def image_shape(rows: int, cols: int, max_side: int = MAX_IMAGE_SIDE) -> tuple[int, int]:
    """The image's size in pixels (before :func:`sharp` repeats them) for ``rows × cols``."""
    row_factor, col_factor = pixel_factors(rows, cols, max_side)
    return math.ceil(rows / row_factor), math.ceil(cols / col_factor)


def view_scale(view: MatrixView) -> ColourScale:
    """The colour scale of ``view``: its kind's in its palette, or a yes/no grid's two colours."""
    if view.binary is not None:  # a pixel's colour is then the share of "yes" in its block
        return [[0.0, view.binary.false_color], [1.0, view.binary.true_color]]
    return colorscale(view.colour_kind, view.palette)


# --- colours -------------------------------------------------------------------------------------


def _rgb(colour: str) -> tuple[int, int, int]:
    """``'rgb(5, 48, 97)'`` or ``'#d9d9d9'`` as three integers."""
    if colour.startswith("#"):
        return tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))  # type: ignore[return-value]
    red, green, blue = (float(part) for part in colour[colour.index("(") + 1 : -1].split(",")[:3])
    return round(red), round(green), round(blue)


def colour_lut(scale: ColourScale, levels: int = COLOUR_LEVELS) -> np.ndarray:
    """``levels`` colours ``(levels, 3)`` uint8, sampled evenly from a Plotly colour scale.

    ``scale`` is a scale name (``colorscale(kind, palette)``) or ``[[position, colour], …]``.
    Level 0 is the colour of ``zmin``, level ``levels − 1`` the colour of ``zmax``: exactly what
    Plotly's colour bar shows for the same scale. A named scale's table is sampled once (a
    read-only array shared by every figure): it is the same on every rerun.
    """
    if isinstance(scale, str):
        return _named_lut(scale, levels)
    pairs = [[float(position), str(colour)] for position, colour in scale]
    return _sampled_lut(pairs, levels)


@lru_cache(maxsize=32)
def _named_lut(name: str, levels: int) -> np.ndarray:
    lut = _sampled_lut(plotly.colors.get_colorscale(name), levels)
    lut.flags.writeable = False  # shared by every figure that uses the scale
    return lut


def _sampled_lut(pairs: list[list[Any]], levels: int) -> np.ndarray:
    samples = plotly.colors.sample_colorscale(pairs, list(np.linspace(0.0, 1.0, levels)))
    return np.array([_rgb(colour) for colour in samples], dtype=np.uint8)


def colour_indices(means: np.ndarray, zmin: float, zmax: float) -> np.ndarray:
    """Each value's colour level (0 … COLOUR_LEVELS − 1), :data:`HIDDEN_INDEX` where NaN."""
    span = zmax - zmin if zmax > zmin else 1.0
    position = (np.nan_to_num(means, nan=zmin) - zmin) / span  # 0 at zmin, 1 at zmax
    levels = np.clip(np.rint(position * (COLOUR_LEVELS - 1)), 0, COLOUR_LEVELS - 1)
    return np.where(np.isnan(means), HIDDEN_INDEX, levels).astype(np.uint8)


def png_data_uri(indices: np.ndarray, lut: np.ndarray) -> str:
    """A palette PNG (one byte per pixel) of colour ``indices``, as a ``data:`` URI."""
    image = Image.fromarray(np.ascontiguousarray(indices, dtype=np.uint8), mode="P")
    palette = np.vstack([lut, np.array([_rgb(HIDDEN_COLOR)], dtype=np.uint8)])  # (256, 3)
    image.putpalette(palette.reshape(-1).tolist())
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=6)  # 9 is much slower for little gain
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def sharp(indices: np.ndarray, side: int = MIN_DRAWN_SIDE) -> np.ndarray:
    """Repeat pixels until each side has about ``side`` pixels (no-op for large images).

    Browsers smooth a small image stretched over a large plot: 41 × 41 cells would blur into
    each other, and a 2-pixel-wide image into a gradient. Repeating pixels (nearest neighbour)
    keeps cell edges sharp; the repeated PNG rows compress to almost nothing.
    """
    rows, cols = indices.shape
    repeat_rows, repeat_cols = max(1, side // rows), max(1, side // cols)
    return np.repeat(np.repeat(indices, repeat_rows, axis=0), repeat_cols, axis=1)


# --- block statistics --------------------------------------------------------------------------


@dataclass(frozen=True)
class Blocks:
    """Statistics of the cells in each block of a matrix (NaN cells, i.e. hidden, left out)."""

    total: np.ndarray  # (R, C) float64 sum of the visible cells
    count: np.ndarray  # (R, C) int64 number of visible cells
    minimum: np.ndarray  # (R, C) +inf where no visible cell
    maximum: np.ndarray  # (R, C) −inf where no visible cell
    cells: np.ndarray  # (R, C) int64 number of cells (visible or not) inside the matrix

    @property
    def mean(self) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.count > 0, self.total / np.maximum(self.count, 1), np.nan)


def _pad(array: np.ndarray, row_factor: int, col_factor: int, fill: float) -> np.ndarray:
    rows, cols = array.shape
    extra_r, extra_c = (-rows) % row_factor, (-cols) % col_factor
    if not extra_r and not extra_c:
        return array
    return np.pad(array, ((0, extra_r), (0, extra_c)), constant_values=fill)


def _reduce(
    array: np.ndarray, row_factor: int, col_factor: int, ufunc: np.ufunc, dtype: type | None = None
) -> np.ndarray:
    """Reduce each ``f_r × f_c`` block with ``ufunc`` (``array`` already padded to fit)."""
    rows, cols = array.shape
    # Rows first: adding whole rows is one long vectorised pass (much faster than reducing the
    # short inner axis first), then the columns of the already small result.
    by_rows = ufunc.reduce(array.reshape(rows // row_factor, row_factor, cols), axis=1, dtype=dtype)
    blocks = by_rows.reshape(rows // row_factor, cols // col_factor, col_factor)
    return ufunc.reduce(blocks, axis=2, dtype=dtype)


def _cells(count: int, factor: int) -> np.ndarray:
    """How many of the ``count`` rows (or columns) fall in each block of ``factor``."""
    starts = np.arange(0, count, factor)
    return np.minimum(starts + factor, count) - starts


def block_stats(shown: np.ndarray, row_factor: int, col_factor: int) -> Blocks:
    """Sum, count, min and max of the visible (non-NaN) cells of each block of ``shown``.

    Costs a few passes over the matrix: NaN-aware
    ``fmin``/``fmax`` skip hidden cells without building filled copies.
    """
    padded = _pad(shown, row_factor, col_factor, np.nan)
    visible = ~np.isnan(padded)
    total = _reduce(np.where(visible, padded, 0), row_factor, col_factor, np.add, np.float64)
    count = _reduce(visible.view(np.uint8), row_factor, col_factor, np.add, np.int64)
    minimum = _reduce(padded, row_factor, col_factor, np.fmin).astype(np.float64)
    maximum = _reduce(padded, row_factor, col_factor, np.fmax).astype(np.float64)
    cells = np.outer(_cells(shown.shape[0], row_factor), _cells(shown.shape[1], col_factor))
    return Blocks(
        total=total,
        count=count,
        minimum=np.where(count > 0, minimum, np.inf),
        maximum=np.where(count > 0, maximum, -np.inf),
        cells=cells.astype(np.int64),
    )


def merge_blocks(blocks: Blocks, row_factor: int, col_factor: int) -> Blocks:
    """Coarser blocks made of ``f_r × f_c`` blocks (the hover grid from the pixel grid)."""

    def merge(array: np.ndarray, fill: float, ufunc: np.ufunc) -> np.ndarray:
        return _reduce(_pad(array, row_factor, col_factor, fill), row_factor, col_factor, ufunc)

    return Blocks(
        total=merge(blocks.total, 0.0, np.add),
        count=merge(blocks.count, 0, np.add),
        minimum=merge(blocks.minimum, np.inf, np.minimum),
        maximum=merge(blocks.maximum, -np.inf, np.maximum),
        cells=merge(blocks.cells, 0, np.add),
    )


# --- the figure ----------------------------------------------------------------------------------


def hover_template(view: MatrixView, words: FigureWords) -> str:
    """The hover text of one block: its rows, columns, mean, min and max (and masked cells).

    ``customdata`` of a block is ``[first row, last row, first col, last col, min, max, masked]``
    (1-based positions); ``z`` is the block's mean. Every word is escaped (titles are
    user-influenced text; translated words are not trusted as markup either).
    """
    # a yes/no grid's block mean is a share of "yes" (0.49), not a state: never 0 decimals
    decimals = view.decimals if view.binary is None else max(view.decimals, 2)
    number = f".{decimals}f"
    return (
        f"{plain(view.row_title or words.rows)}: "
        "%{customdata[0]:.0f}–%{customdata[1]:.0f}<br>"
        f"{plain(view.col_title or words.columns)}: "
        "%{customdata[2]:.0f}–%{customdata[3]:.0f}<br>"
        f"{plain(view.value_name)}: {plain(words.mean)} %{{z:{number}}}<br>"
        f"{plain(words.min)} %{{customdata[4]:{number}}}, "
        f"{plain(words.max)} %{{customdata[5]:{number}}}<br>"
        f"{plain(words.masked_cells)}: %{{customdata[6]:.0f}}<extra></extra>"
    )


def _ticks(count: int, labels: Sequence[str], with_labels: bool) -> tuple[list[int], list[str]]:
    """At most MAX_TICKS evenly spread positions, written ``17`` or ``17 cat`` (1-based)."""
    positions = sorted({int(round(p)) for p in np.linspace(0, count - 1, min(count, MAX_TICKS))})
    texts = [
        f"{p + 1} {plain(short(str(labels[p]), 10))}" if with_labels else str(p + 1)
        for p in positions
    ]
    return positions, texts


def _factor(count: int, limit: int) -> int:
    return max(1, math.ceil(count / limit))


def image_heatmap(
    view: MatrixView,
    words: FigureWords,
    *,
    max_side: int = MAX_IMAGE_SIDE,
    hover_blocks: int = HOVER_BLOCKS,
) -> go.Figure:
    """A large matrix as a colour image with a colour bar and a block-statistics hover.

    ``viz.heatmap.matrix_figure`` calls this one above :data:`MAX_NUMERIC_CELLS` cells. A yes/no
    grid (``view.binary``) is coloured between its two colours (a pixel's colour is the share of
    "yes" in its block) and its colour bar names the two states.
    Returns a figure whose only trace is a ``go.Heatmap``: the transparent block grid that gives
    the hover and draws the colour bar. The picture is a layout image (``figure.layout.images[0]``,
    a PNG data URI) under it.
    """
    rows, cols = view.shape
    # float32 is plenty for colours and block statistics, and halves the work at 4096 tokens;
    # the exact values (zoom window) are read from the view itself. Hidden and non-finite cells
    # are NaN: never a colour on the scale.
    shown = shown_values(view, np.float32, hide_dropped=False)
    zmin, zmax = colour_range(view, shown)

    row_factor, col_factor = pixel_factors(rows, cols, max_side)
    pixels = block_stats(shown, row_factor, col_factor)  # (R, C) image grid
    scale = view_scale(view)
    source = png_data_uri(sharp(colour_indices(pixels.mean, zmin, zmax)), colour_lut(scale))

    image_rows, image_cols = pixels.total.shape
    hover_r, hover_c = _factor(image_rows, hover_blocks), _factor(image_cols, hover_blocks)
    hover = merge_blocks(pixels, hover_r, hover_c)  # (H, W) hover grid
    cells_r, cells_c = row_factor * hover_r, col_factor * hover_c  # cells per hover block
    row_edges = np.minimum(np.arange(hover.total.shape[0] + 1) * cells_r, rows)
    col_edges = np.minimum(np.arange(hover.total.shape[1] + 1) * cells_c, cols)
    customdata = _block_customdata(hover, row_edges, col_edges)  # (H, W, 7)

    figure = go.Figure()
    figure.add_layout_image(
        source=source,
        xref="x",
        yref="y",
        x=-0.5,  # the left edge of cell 0, in cell coordinates
        y=-0.5,  # the top edge of row 0 (the y axis runs downwards)
        sizex=image_cols * col_factor,  # may pass the last cell (padding): the axis range clips
        sizey=image_rows * row_factor,
        xanchor="left",
        yanchor="top",
        sizing="stretch",
        layer="below",
    )
    figure.add_trace(
        go.Heatmap(
            z=hover.mean.astype(np.float32),
            x=col_edges - 0.5,  # brick edges: one more than columns
            y=row_edges - 0.5,
            zmin=zmin,
            zmax=zmax,
            colorscale=scale,
            opacity=0.0,  # invisible: the image shows the colours, this layer the numbers
            colorbar=_colorbar(view),
            showscale=view.colour_bar,
            customdata=customdata,
            hoverongaps=False,
            hovertemplate=hover_template(view, words),
            name="blocks",
        )
    )
    _image_layout(figure, view)
    return figure


def _block_customdata(hover: Blocks, row_edges: np.ndarray, col_edges: np.ndarray) -> np.ndarray:
    """Per hover block ``[first row, last row, first col, last col, min, max, masked]``."""
    return np.stack(
        np.broadcast_arrays(
            (row_edges[:-1] + 1)[:, None],  # first row, 1-based
            row_edges[1:][:, None],  # last row, 1-based
            (col_edges[:-1] + 1)[None, :],
            col_edges[1:][None, :],
            np.where(hover.count > 0, hover.minimum, np.nan),
            np.where(hover.count > 0, hover.maximum, np.nan),
            hover.cells - hover.count,  # masked (or non-finite) cells in the block
        ),
        axis=-1,
    ).astype(np.float32)  # (H, W, 7): float32 is exact for positions up to 16 million


def _image_layout(figure: go.Figure, view: MatrixView) -> None:
    """Title, height and axes: at most MAX_TICKS ticks, keys on top, row 1 on top."""
    rows, cols = view.shape
    xticks, xtexts = _ticks(cols, view.col_labels, with_labels=False)
    yticks, ytexts = _ticks(rows, view.row_labels, with_labels=True)
    square = rows == cols
    figure.update_layout(
        title={"text": plain(view.title)} if view.title else None,
        margin={"l": 10, "r": 10, "t": 40 if view.title else 10, "b": 10},
        height=view.height or _image_height(rows, cols),
        plot_bgcolor="white",
        xaxis={
            "range": [-0.5, cols - 0.5],
            "tickmode": "array",
            "tickvals": xticks,
            "ticktext": xtexts,
            "title": {"text": plain(view.col_title)},
            "side": "top",
            "showgrid": False,
            "zeroline": False,
            "constrain": "domain",
        },
        yaxis={
            "range": [rows - 0.5, -0.5],  # row 1 on top, as in the numeric heatmap
            "autorange": False,
            "tickmode": "array",
            "tickvals": yticks,
            "ticktext": ytexts,
            "title": {"text": plain(view.row_title)},
            "showgrid": False,
            "zeroline": False,
            "scaleanchor": "x" if square else False,  # square cells for a square matrix
            "constrain": "domain",
        },
    )


def _colorbar(view: MatrixView) -> dict[str, object]:
    title: dict[str, object] = {"text": plain(view.colorbar_title or view.value_name)}
    if view.upright_colorbar:
        title["side"] = "right"
    colorbar: dict[str, object] = {"title": title, "thickness": 14}
    if view.binary is not None:  # the two ends are the two states
        colorbar.update(
            tickmode="array",
            tickvals=[0.0, 1.0],
            ticktext=[plain(view.binary.false_name), plain(view.binary.true_name)],
        )
    return colorbar


def _image_height(rows: int, cols: int) -> int:
    """Tall enough to see structure, short enough for a 768-pixel-high laptop screen."""
    if rows == cols:  # square cells: a taller figure would only add empty space in a column
        return int(min(480, max(360, 60 + 4 * rows)))
    return int(min(560, max(240, 60 + 2 * rows)))
