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
   ``ui.show`` offers a zoom window (:func:`window`) drawn as the usual annotated heatmap.

The figure remembers its matrix as :class:`LargeMatrix` in ``figure._attention_lab_matrix``
(a plain Python attribute: it is never sent to the browser), so that ``ui.show.show_figure`` can
add the zoom window under any large heatmap without the page doing anything.
"""

from __future__ import annotations

import base64
import io
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import plotly.colors
import plotly.graph_objects as go
from PIL import Image

from .colors import HIDDEN_COLOR, colorscale
from .labels import plain, short
from .vocabulary import DECIMALS

MAX_NUMERIC_CELLS = 40 * 40  # above this many cells a matrix is drawn as an image (measured)
MAX_IMAGE_SIDE = 512  # pixels a side at most: a screen shows no more than that
MIN_DRAWN_SIDE = 400  # smaller images are enlarged (pixels repeated) to stay sharp
HOVER_BLOCKS = 32  # the hover layer has at most this many blocks a side
COLOUR_LEVELS = 255  # colours of the scale in the PNG palette; index 255 is the hidden grey
HIDDEN_INDEX = COLOUR_LEVELS
MAX_TICKS = 9
MATRIX_ATTRIBUTE = "_attention_lab_matrix"  # where the figure keeps its LargeMatrix

ENGLISH_WORDS = {
    "rows": "rows",
    "columns": "columns",
    "mean": "mean",
    "min": "min",
    "max": "max",
    "masked": "masked (−∞) cells",
}


ColourScale = str | Sequence[Sequence[object]]  # a Plotly scale name or [[position, colour], …]


def use_image(rows: int, cols: int) -> bool:
    """True when a ``rows × cols`` matrix is too large for an annotated numeric heatmap."""
    return rows * cols > MAX_NUMERIC_CELLS


@dataclass(frozen=True)
class LargeMatrix:
    """What a large heatmap shows, kept (server side only) for the zoom window of ``ui.show``."""

    values: np.ndarray  # (rows, cols), as given
    hidden: np.ndarray | None  # (rows, cols) bool, True = masked
    row_labels: tuple[str, ...]  # user text, not escaped
    col_labels: tuple[str, ...]
    kind: str
    palette: str
    zrange: tuple[float, float]  # the colour range of the whole matrix
    decimals: int
    row_title: str
    col_title: str
    value_name: str
    colorbar_title: str
    row_factor: int  # cells per pixel, vertically
    col_factor: int  # cells per pixel, horizontally
    scale: ColourScale | None = None  # a colour scale replacing kind/palette's, if any

    @property
    def shape(self) -> tuple[int, int]:
        return int(self.values.shape[0]), int(self.values.shape[1])

    @property
    def image_shape(self) -> tuple[int, int]:
        rows, cols = self.shape
        return math.ceil(rows / self.row_factor), math.ceil(cols / self.col_factor)


@dataclass(frozen=True)
class Window:
    """A window of a large matrix: exact values, with labels that say where they come from."""

    values: np.ndarray  # (size_r, size_c) float64
    hidden: np.ndarray | None
    row_labels: list[str]  # "17 · cat": 1-based position and token (not escaped)
    col_labels: list[str]
    row_start: int  # 0-based
    col_start: int


def large_matrix_of(figure: go.Figure) -> LargeMatrix | None:
    """The :class:`LargeMatrix` behind an image heatmap, or None for any other figure."""
    return getattr(figure, MATRIX_ATTRIBUTE, None)


def window(matrix: LargeMatrix, row_start: int, col_start: int, size: int) -> Window:
    """Rows ``row_start…`` and columns ``col_start…`` (0-based, clipped) of at most ``size``."""
    rows, cols = matrix.shape
    size = max(1, int(size))
    r0 = min(max(0, int(row_start)), max(0, rows - 1))
    c0 = min(max(0, int(col_start)), max(0, cols - 1))
    r1, c1 = min(rows, r0 + size), min(cols, c0 + size)
    values = np.asarray(matrix.values[r0:r1, c0:c1], dtype=np.float64)
    hidden = None if matrix.hidden is None else np.asarray(matrix.hidden[r0:r1, c0:c1], dtype=bool)
    return Window(
        values=values,
        hidden=hidden,
        row_labels=[f"{i + 1} · {matrix.row_labels[i]}" for i in range(r0, r1)],
        col_labels=[f"{j + 1} · {matrix.col_labels[j]}" for j in range(c0, c1)],
        row_start=r0,
        col_start=c0,
    )


# --- colours -------------------------------------------------------------------------------------


def _rgb(colour: str) -> tuple[int, int, int]:
    """``'rgb(5, 48, 97)'`` or ``'#d9d9d9'`` as three integers."""
    if colour.startswith("#"):
        return tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))  # type: ignore[return-value]
    red, green, blue = (float(part) for part in colour[colour.index("(") + 1 : -1].split(",")[:3])
    return round(red), round(green), round(blue)


def colour_lut(
    kind: str,
    palette: str = "default",
    levels: int = COLOUR_LEVELS,
    *,
    scale: ColourScale | None = None,
) -> np.ndarray:
    """``levels`` colours ``(levels, 3)`` uint8, sampled evenly from the page's colour scale.

    Level 0 is the colour of ``zmin``, level ``levels − 1`` the colour of ``zmax``: exactly what
    Plotly's colour bar shows for the same scale. ``scale`` (a Plotly scale name or a list of
    ``[position, colour]`` pairs) replaces the scale of ``kind`` and ``palette``.
    """
    chosen = colorscale(kind, palette) if scale is None else scale
    scale = (
        plotly.colors.get_colorscale(chosen)
        if isinstance(chosen, str)
        else [[float(position), str(colour)] for position, colour in chosen]
    )
    samples = plotly.colors.sample_colorscale(scale, list(np.linspace(0.0, 1.0, levels)))
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
    image.save(buffer, format="PNG", compress_level=6)  # 9: 25× slower on some images, ~10% smaller
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
    # Rows first: adding whole rows is one long vectorised pass (5× faster than reducing the
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

    Costs a few passes over the matrix (about 0.2 s at 4096 × 4096 on one core): NaN-aware
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


def image_value_range(shown: np.ndarray, kind: str) -> tuple[float, float]:
    """The colour range, as :func:`viz.heatmap.value_range` computes it (NaN = hidden, ignored)."""
    if not np.isfinite(shown).any():
        return (-1.0, 1.0) if kind == "diverging" else (0.0, 1.0)
    low, high = float(np.nanmin(shown)), float(np.nanmax(shown))
    if kind == "diverging":
        bound = max(abs(low), abs(high)) or 1.0
        return -bound, bound
    return (low, high) if high > low else (low, low + 1.0)


# --- the figure ----------------------------------------------------------------------------------


def hover_template(
    words: Mapping[str, str] | None = None,
    *,
    row_title: str = "",
    col_title: str = "",
    value_name: str = "value",
    decimals: int = DECIMALS,
) -> str:
    """The hover text of one block: its rows, columns, mean, min and max (and masked cells).

    ``customdata`` of a block is ``[first row, last row, first col, last col, min, max, masked]``
    (1-based positions); ``z`` is the block's mean. Titles are escaped (user-influenced text).
    """
    word = {**ENGLISH_WORDS, **(words or {})}
    number = f".{decimals}f"
    return (
        f"{plain(row_title) or plain(word['rows'])}: "
        "%{customdata[0]:.0f}–%{customdata[1]:.0f}<br>"
        f"{plain(col_title) or plain(word['columns'])}: "
        "%{customdata[2]:.0f}–%{customdata[3]:.0f}<br>"
        f"{plain(value_name)}: {plain(word['mean'])} %{{z:{number}}}<br>"
        f"{plain(word['min'])} %{{customdata[4]:{number}}}, "
        f"{plain(word['max'])} %{{customdata[5]:{number}}}<br>"
        f"{plain(word['masked'])}: %{{customdata[6]:.0f}}<extra></extra>"
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
    words: Mapping[str, str] | None = None,
    max_side: int = MAX_IMAGE_SIDE,
    hover_blocks: int = HOVER_BLOCKS,
    scale: ColourScale | None = None,
    colorbar_ticks: tuple[Sequence[float], Sequence[str]] | None = None,
) -> go.Figure:
    """A large matrix as a colour image with a colour bar and a block-statistics hover.

    Same arguments as :func:`viz.heatmap.matrix_heatmap` (which calls this one above
    :data:`MAX_NUMERIC_CELLS` cells), plus ``words`` (the hover's words in the page's language)
    and the two size limits. ``scale`` replaces the colour scale of ``kind``/``palette`` (e.g.
    ``[[0, pink], [1, green]]`` for a yes/no grid: a pixel's colour is then the share of "yes" in
    its block) and ``colorbar_ticks`` = (positions, texts) names the colour bar's ticks.
    Returns a figure whose only trace is a ``go.Heatmap`` (so that a page's
    ``figure.update_traces(showscale=False)`` and the like keep working): the transparent block
    grid that gives the hover and draws the colour bar. The picture is a layout image
    (``figure.layout.images[0]``, a PNG data URI) under it. The matrix itself stays on the server
    in ``figure._attention_lab_matrix``.
    """
    array = np.asarray(values)
    if array.ndim != 2:
        raise ValueError(f"image_heatmap needs a 2-D matrix, got shape {array.shape}.")
    rows, cols = array.shape
    # float32 is plenty for colours and block statistics, and halves the work at 4096 tokens;
    # the exact values (zoom window) are read from ``array`` itself.
    shown = np.array(array, dtype=np.float32)
    hidden_mask = None if hidden is None else np.asarray(hidden, dtype=bool)
    if hidden_mask is not None:
        np.copyto(shown, np.float32(np.nan), where=hidden_mask)  # never a colour on the scale
    np.copyto(shown, np.float32(np.nan), where=~np.isfinite(shown))
    zmin, zmax = zrange if zrange is not None else image_value_range(shown, kind)

    row_factor, col_factor = _factor(rows, max_side), _factor(cols, max_side)
    pixels = block_stats(shown, row_factor, col_factor)  # (R, C) image grid
    lut = colour_lut(kind, palette, scale=scale)
    source = png_data_uri(sharp(colour_indices(pixels.mean, zmin, zmax)), lut)

    image_rows, image_cols = pixels.total.shape
    hover_r, hover_c = _factor(image_rows, hover_blocks), _factor(image_cols, hover_blocks)
    hover = merge_blocks(pixels, hover_r, hover_c)  # (H, W) hover grid
    cells_r, cells_c = row_factor * hover_r, col_factor * hover_c  # cells per hover block
    row_edges = np.minimum(np.arange(hover.total.shape[0] + 1) * cells_r, rows)
    col_edges = np.minimum(np.arange(hover.total.shape[1] + 1) * cells_c, cols)
    customdata = np.stack(
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
            colorscale=colorscale(kind, palette) if scale is None else scale,
            opacity=0.0,  # invisible: the image shows the colours, this layer the numbers
            colorbar=_colorbar(colorbar_title or value_name, colorbar_ticks),
            customdata=customdata,
            hoverongaps=False,
            hovertemplate=hover_template(
                words,
                row_title=row_title,
                col_title=col_title,
                value_name=value_name,
                decimals=decimals,
            ),
            name="blocks",
        )
    )
    xticks, xtexts = _ticks(cols, col_labels, with_labels=False)
    yticks, ytexts = _ticks(rows, row_labels, with_labels=True)
    square = rows == cols
    figure.update_layout(
        title={"text": plain(title)} if title else None,
        margin={"l": 10, "r": 10, "t": 40 if title else 10, "b": 10},
        height=height or _image_height(rows, cols),
        plot_bgcolor="white",
        xaxis={
            "range": [-0.5, cols - 0.5],
            "tickmode": "array",
            "tickvals": xticks,
            "ticktext": xtexts,
            "title": {"text": plain(col_title)},
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
            "title": {"text": plain(row_title)},
            "showgrid": False,
            "zeroline": False,
            "scaleanchor": "x" if square else False,  # square cells for a square matrix
            "constrain": "domain",
        },
    )
    setattr(
        figure,
        MATRIX_ATTRIBUTE,
        LargeMatrix(
            values=array,
            hidden=hidden_mask,
            row_labels=tuple(str(label) for label in row_labels),
            col_labels=tuple(str(label) for label in col_labels),
            kind=kind,
            palette=palette,
            zrange=(float(zmin), float(zmax)),
            decimals=decimals,
            row_title=row_title,
            col_title=col_title,
            value_name=value_name,
            colorbar_title=colorbar_title,
            row_factor=row_factor,
            col_factor=col_factor,
            scale=scale,
        ),
    )
    return figure


def _colorbar(title: str, ticks: tuple[Sequence[float], Sequence[str]] | None) -> dict[str, object]:
    colorbar: dict[str, object] = {"title": {"text": plain(title)}, "thickness": 14}
    if ticks is not None:
        positions, texts = ticks
        colorbar.update(
            tickmode="array",
            tickvals=list(positions),
            ticktext=[plain(text) for text in texts],
        )
    return colorbar


def _image_height(rows: int, cols: int) -> int:
    """Tall enough to see structure, short enough for a 768-pixel-high laptop screen."""
    if rows == cols:  # square cells: a taller figure would only add empty space in a column
        return int(min(480, max(360, 60 + 4 * rows)))
    return int(min(560, max(240, 60 + 2 * rows)))
