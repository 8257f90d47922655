"""A matrix too large for a table of its numbers, as a picture: one colour per cell, values on hover.

Above the size of a table (``viz.matrix.use_table``) a matrix is a :class:`MatrixImage`, pure data
that ``ui/components/matrix_table.js`` draws:

1. Every value is mapped to one of :data:`COLOUR_LEVELS` colours of the table's own scale
   (``viz.colors.colorscale``); hidden cells are grey, dropped ones pink, as in the table.
2. At most :data:`MAX_IMAGE_SIDE` pixels a side: each pixel is the mean of a block of ``f × f``
   cells, in a palette PNG (one byte per pixel) the browser draws as sharp squares.
3. Up to :data:`EXACT_HOVER_SIDE` cells a side the hover gives each cell's value; larger, a grid of
   at most :data:`HOVER_BLOCKS` blocks gives each block's rows, columns, mean, min and max. Any
   cell's exact value is in the window of numbers under the picture (:func:`viz.matrix.window`).
"""

from __future__ import annotations

import base64
import io
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from PIL import Image

from .colors import DROPPED_COLOR, HIDDEN_COLOR, colorscale
from .labels import short, unique_labels
from .matrix import MatrixView, colour_range, shown_values
from .table_heatmap import ScaleStops, rgb, scale_stops
from .vocabulary import HOVER_DECIMALS, MINUS_INFINITY, format_number
from .words import FigureWords

__all__ = ["MatrixImage", "matrix_image"]

MAX_IMAGE_SIDE = 512  # pixels a side at most: a screen shows no more than that
EXACT_HOVER_SIDE = 64  # up to this many cells a side, the hover gives every cell's value
HOVER_BLOCKS = 32  # larger, the hover has at most this many blocks a side
COLOUR_LEVELS = 254  # colours of the scale in the PNG palette; then the hidden grey, dropped pink
HIDDEN_INDEX = COLOUR_LEVELS
DROPPED_INDEX = COLOUR_LEVELS + 1
MAX_TICKS = 9


ColourScale = str | Sequence[Sequence[object]]  # a Plotly scale name or [[position, colour], …]


def pixel_factors(rows: int, cols: int, max_side: int = MAX_IMAGE_SIDE) -> tuple[int, int]:
    """Cells per pixel (vertically, horizontally): ``⌈T / 512⌉``, 1 up to 512 cells a side."""
    return _factor(rows, max_side), _factor(cols, max_side)


def image_shape(rows: int, cols: int, max_side: int = MAX_IMAGE_SIDE) -> tuple[int, int]:
    """The image's size in pixels for ``rows × cols`` cells."""
    row_factor, col_factor = pixel_factors(rows, cols, max_side)
    return math.ceil(rows / row_factor), math.ceil(cols / col_factor)


def exact_hover(rows: int, cols: int) -> bool:
    """True when the hover of a ``rows × cols`` picture gives each cell's value (not a block's)."""
    return rows <= EXACT_HOVER_SIDE and cols <= EXACT_HOVER_SIDE


def view_scale(view: MatrixView) -> ColourScale:
    """The colour scale of ``view``: its kind's in its palette, or a yes/no grid's two colours."""
    if view.binary is not None:  # a pixel's colour is then the share of "yes" in its block
        return [[0.0, view.binary.false_color], [1.0, view.binary.true_color]]
    return colorscale(view.colour_kind, view.palette)


# --- colours -------------------------------------------------------------------------------------


def colour_lut(scale: ColourScale, levels: int = COLOUR_LEVELS) -> np.ndarray:
    """``levels`` colours ``(levels, 3)`` uint8, sampled evenly from a Plotly colour scale.

    ``scale`` is a scale name or ``[[position, colour], …]``; level 0 is ``zmin``'s colour, the last
    ``zmax``'s, as Plotly's colour bar shows. Sampled as the tables' cells are (:class:`ScaleStops`).
    """
    stops = scale_stops(scale) if isinstance(scale, str) else ScaleStops.from_pairs(scale)
    return stops.channels(np.linspace(0.0, 1.0, levels)).astype(np.uint8)


def colour_indices(means: np.ndarray, zmin: float, zmax: float) -> np.ndarray:
    """Each value's colour level (0 … COLOUR_LEVELS − 1), :data:`HIDDEN_INDEX` where NaN."""
    span = zmax - zmin if zmax > zmin else 1.0
    position = (np.nan_to_num(means, nan=zmin) - zmin) / span  # 0 at zmin, 1 at zmax
    levels = np.clip(np.rint(position * (COLOUR_LEVELS - 1)), 0, COLOUR_LEVELS - 1)
    return np.where(np.isnan(means), HIDDEN_INDEX, levels).astype(np.uint8)


def png_data_uri(indices: np.ndarray, lut: np.ndarray) -> str:
    """A palette PNG (one byte per pixel) of colour ``indices``, as a ``data:`` URI."""
    image = Image.fromarray(np.ascontiguousarray(indices, dtype=np.uint8), mode="P")
    special = [rgb(HIDDEN_COLOR), rgb(DROPPED_COLOR)]  # HIDDEN_INDEX, DROPPED_INDEX
    palette = np.vstack([lut, np.array(special, dtype=np.uint8)])  # (256, 3)
    image.putpalette(palette.reshape(-1).tolist())
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=6)  # 9 is much slower for little gain
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


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

    NaN-aware ``fmin``/``fmax`` skip hidden cells without filled copies.
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


# --- the picture ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class MatrixImage:
    """A large matrix as the browser draws it: a PNG, its axes, and what the hover says.

    ``hover`` is numbers and words that the component puts together under the pointer: either
    every cell's exact value (``block`` ``(1, 1)``) or, per block of cells, its mean, min, max
    and masked cells. ``to_data`` is what the matrix component receives.
    """

    source: str  # a data: URI of a palette PNG, one pixel per block of cells
    rows: int
    cols: int
    row_ticks: tuple[tuple[int, str], ...]  # (0-based position, text)
    col_ticks: tuple[tuple[int, str], ...]
    row_title: str
    col_title: str
    block: tuple[int, int]  # cells per hover block (rows, columns)
    hover: dict[str, Any]  # JSON-ready numbers (None: no value) and words
    description: str = ""

    def to_data(self) -> dict[str, Any]:
        """The picture as JSON-ready data (what the browser's matrix component receives)."""
        return {
            "source": self.source,
            "rows": self.rows,
            "cols": self.cols,
            "row_ticks": [list(tick) for tick in self.row_ticks],
            "col_ticks": [list(tick) for tick in self.col_ticks],
            "row_title": self.row_title,
            "col_title": self.col_title,
            "block": list(self.block),
            "hover": self.hover,
            "description": self.description,
        }


def matrix_image(
    view: MatrixView, words: FigureWords, description: str = "", *, max_side: int = MAX_IMAGE_SIDE
) -> MatrixImage:
    """``view`` as a picture: one colour per cell (per block of cells above 512 a side).

    A yes/no grid (``view.binary``) is coloured between its two colours (a pixel's colour is the
    share of "yes" in its block). Texts (labels, titles) stay plain text: the component sets
    them as ``textContent``. ``description``: what a screen reader says of the picture.
    """
    rows, cols = view.shape
    # float32 is plenty for colours and block statistics, and halves the work at 4096 tokens;
    # exact values are read from the view itself. Hidden and non-finite cells are NaN.
    shown = shown_values(view, np.float32, hide_dropped=False)
    zmin, zmax = colour_range(view, shown)
    row_factor, col_factor = pixel_factors(rows, cols, max_side)
    pixels = block_stats(shown, row_factor, col_factor)  # (R, C) image grid
    indices = colour_indices(pixels.mean, zmin, zmax)
    hidden = np.zeros((rows, cols), dtype=bool) if view.hidden is None else view.hidden
    dropped = np.zeros_like(hidden) if view.dropped is None else view.dropped & ~hidden
    if row_factor == col_factor == 1:
        indices[dropped] = DROPPED_INDEX
    source = png_data_uri(indices, colour_lut(view_scale(view)))
    hover: dict[str, Any] = {
        "value_name": view.value_name,
        "row_title": view.row_title or words.row,
        "col_title": view.col_title or words.column,
    }
    if exact_hover(rows, cols):
        block = (1, 1)
        hover.update(_cell_hover(view, words, hidden, dropped))
    else:
        hover_r = _factor(pixels.total.shape[0], HOVER_BLOCKS)
        hover_c = _factor(pixels.total.shape[1], HOVER_BLOCKS)
        blocks = merge_blocks(pixels, hover_r, hover_c)
        block = (row_factor * hover_r, col_factor * hover_c)
        hover.update(_block_hover(view, words, blocks))
    return MatrixImage(
        source=source,
        rows=rows,
        cols=cols,
        row_ticks=_ticks(rows, view.row_labels, with_labels=True),
        col_ticks=_ticks(cols, view.col_labels, with_labels=False),
        row_title=view.row_title,
        col_title=view.col_title,
        block=block,
        hover=hover,
        description=description,
    )


def _numbers(values: np.ndarray, decimals: int) -> list[list[float | None]]:
    """``values`` rounded for the hover, None where not finite (JSON has no NaN)."""
    rounded = np.round(np.asarray(values, dtype=np.float64), decimals).astype(object)
    rounded[~np.isfinite(np.asarray(values, dtype=np.float64))] = None
    return rounded.tolist()


def _cell_hover(
    view: MatrixView, words: FigureWords, hidden: np.ndarray, dropped: np.ndarray
) -> dict[str, Any]:
    """Each cell's exact value, its state (``v`` a value, ``h`` hidden, ``d`` dropped, ``1``/``0``
    a yes/no state) as one letter a cell, and the labels (told apart) that name it."""
    values = np.asarray(view.values)
    states = np.full(view.shape, "v")
    if view.binary is not None:
        states = np.where(values.astype(bool), "1", "0")
    states[dropped] = "d"
    states[hidden] = "h"
    hidden_text = (
        MINUS_INFINITY if view.hidden_value is None else format_number(view.hidden_value, 0)
    )
    look = view.binary
    scaled = view.undropped is not None and view.dropout_scale != 1.0
    return {
        # a kept weight after dropout is its weight before × the scale: "0.9388 = 0.4694 × 2"
        "before": _numbers(view.undropped, HOVER_DECIMALS) if scaled else None,
        "scale": f"{view.dropout_scale:.6g}",
        "decimals": HOVER_DECIMALS,
        "values": _numbers(values if look is None else np.zeros(view.shape), HOVER_DECIMALS),
        "states": ["".join(row) for row in states],
        "row_labels": unique_labels(list(view.row_labels)),
        "col_labels": unique_labels(list(view.col_labels)),
        "hidden": f"{hidden_text} ({view.hidden_name or words.masked})",
        "dropped": f"0 ({view.dropped_name or words.dropped})",
        "yes": "" if look is None else look.true_name,
        "no": "" if look is None else look.false_name,
    }


def _block_hover(view: MatrixView, words: FigureWords, blocks: Blocks) -> dict[str, Any]:
    """Per block: mean, min, max (None: no visible cell) and how many cells are masked."""
    # a yes/no grid's block mean is a share of "yes" (0.49), not a state: never 0 decimals
    decimals = view.decimals if view.binary is None else max(view.decimals, 2)
    return {
        "decimals": decimals,
        "mean": _numbers(blocks.mean, decimals),
        "min": _numbers(blocks.minimum, decimals),
        "max": _numbers(blocks.maximum, decimals),
        "masked": (blocks.cells - blocks.count).tolist(),
        "rows": view.row_title or words.rows,
        "columns": view.col_title or words.columns,
        "words": [words.mean, words.min, words.max, words.masked_cells],
    }


def _ticks(count: int, labels: Sequence[str], with_labels: bool) -> tuple[tuple[int, str], ...]:
    """At most MAX_TICKS evenly spread positions, written ``17`` or ``17 cat`` (1-based)."""
    positions = sorted({int(round(p)) for p in np.linspace(0, count - 1, min(count, MAX_TICKS))})
    return tuple(
        (p, f"{p + 1} {short(str(labels[p]), 10)}" if with_labels else str(p + 1))
        for p in positions
    )


def _factor(count: int, limit: int) -> int:
    return max(1, math.ceil(count / limit))
