"""What a matrix drawing shows, said once: a :class:`MatrixView` in, a table or a picture out.

Every matrix is first *described* (values, labels, kind of numbers, colour range, decimals,
titles, palette, hidden cells); ``ui.show.show_matrix`` draws every description: a coloured table
while it fits (:func:`use_table`, :mod:`viz.table_heatmap`), else a picture
(:mod:`viz.image_heatmap`) with a window of exact values (:func:`window`) under it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

import numpy as np

from .vocabulary import DECIMALS

MAX_TABLE_COLUMNS = 12  # wider, a table of 4-decimal numbers no longer fits the page's column
MAX_TABLE_ROWS = 40  # longer, a picture (its structure at a glance) reads better than a long table

Kind = Literal["diverging", "sequential", "binary"]


@dataclass(frozen=True)
class BinaryLook:
    """How a yes/no grid writes and colours its two states (the causal mask, dropout's keep-mask)."""

    true_text: str  # written in a "yes" cell: "1", "✓"
    false_text: str
    true_name: str  # the hover's name of the state (translated): "kept"
    false_name: str
    true_color: str
    false_color: str
    hidden_text: str = "—"  # a hidden cell (the view's ``hidden``): grey, neither state


@dataclass(frozen=True, kw_only=True, eq=False)
class MatrixView:
    """One matrix as a figure should show it (rows = queries or tokens, columns = keys or features).

    ``values`` is kept as given (no copy: a 4096-token matrix is 64 MB); the per-cell masks have
    its shape. Labels and titles are user-influenced text, escaped by the figure builders.
    """

    values: np.ndarray  # (rows, cols)
    row_labels: tuple[str, ...]
    col_labels: tuple[str, ...]
    palette: str  # the sidebar's palette: required, so that no figure forgets it
    kind: Kind = "diverging"  # centred on 0 / from its minimum (weights) / two states
    zrange: tuple[float, float] | None = None  # the colour range; None: the data's
    decimals: int = DECIMALS  # numbers written in the cells
    title: str = ""
    row_title: str = ""
    col_title: str = ""
    value_name: str = "value"  # the hover's name of a value, and the colour bar's title
    colorbar_title: str = ""  # replaces value_name on the colour bar
    hidden: np.ndarray | None = None  # (rows, cols) bool, True = masked: grey, never on the scale
    hidden_value: float | None = None  # what a hidden cell holds: None = −∞ (a score), 0 = a weight
    hidden_name: str = ""  # the hover's name of a hidden cell ("" = FigureWords.masked)
    dropped: np.ndarray | None = None  # (rows, cols) bool, weights dropped by dropout: pink, 0
    dropped_name: str = ""
    undropped: np.ndarray | None = None  # (rows, cols) the weights before dropout, for the hover
    dropout_scale: float = 1.0  # a kept weight = its weight before dropout × this
    binary: BinaryLook | None = None  # set for kind="binary"
    changed: np.ndarray | None = None  # (rows, cols) bool, cells the last change moved: outlined
    colour_bar: bool = True

    def __post_init__(self) -> None:
        values = np.asarray(self.values)
        if values.ndim != 2:
            raise ValueError(f"a matrix view needs a 2-D matrix, got shape {values.shape}")
        rows, cols = values.shape
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "row_labels", tuple(str(label) for label in self.row_labels))
        object.__setattr__(self, "col_labels", tuple(str(label) for label in self.col_labels))
        if (len(self.row_labels), len(self.col_labels)) != (rows, cols):
            raise ValueError(
                f"{len(self.row_labels)} × {len(self.col_labels)} labels for a {rows} × {cols} "
                "matrix"
            )
        for name in ("hidden", "dropped", "changed"):
            mask = getattr(self, name)
            if mask is not None:
                object.__setattr__(self, name, _cells(mask, (rows, cols), name).astype(bool))
        if self.undropped is not None:
            object.__setattr__(self, "undropped", _cells(self.undropped, (rows, cols), "undropped"))
        if (self.kind == "binary") != (self.binary is not None):
            raise ValueError("kind='binary' and a BinaryLook go together")

    @property
    def shape(self) -> tuple[int, int]:
        return int(self.values.shape[0]), int(self.values.shape[1])

    @property
    def large(self) -> bool:
        """True when the matrix is drawn as a picture (too large for a table of its numbers)."""
        return not use_table(*self.shape)

    @property
    def colour_kind(self) -> str:
        """The colour scale's kind: a yes/no grid's image is a share of "yes", from 0 up."""
        return "sequential" if self.kind == "binary" else self.kind


def _cells(array: np.ndarray, shape: tuple[int, int], name: str) -> np.ndarray:
    array = np.asarray(array)
    if array.shape != shape:
        raise ValueError(f"{name} has shape {array.shape}, the matrix {shape}")
    return array


def use_table(rows: int, cols: int) -> bool:
    """True when a ``rows × cols`` matrix is drawn as a coloured table of its numbers."""
    return rows <= MAX_TABLE_ROWS and cols <= MAX_TABLE_COLUMNS


def value_range(shown: np.ndarray, kind: str) -> tuple[float, float]:
    """The colour range: symmetric around 0 for a diverging scale, the data's range otherwise.

    ``shown`` holds NaN where a cell is hidden (ignored); no finite value gives a unit range.
    """
    finite = np.isfinite(shown)
    if not finite.any():
        return (-1.0, 1.0) if kind == "diverging" else (0.0, 1.0)
    low, high = (
        float(np.min(shown, where=finite, initial=np.inf)),
        float(np.max(shown, where=finite, initial=-np.inf)),
    )
    if kind == "diverging":
        bound = max(abs(low), abs(high)) or 1.0
        return -bound, bound
    return (low, high) if high > low else (low, low + 1.0)


def shown_values(
    view: MatrixView, dtype: type = np.float64, *, hide_dropped: bool = True
) -> np.ndarray:
    """A copy of the values with NaN where a cell is not on the colour scale.

    Hidden cells, dropped weights and non-finite values (−∞ scores) are never a colour. A picture
    keeps the dropped weights (``hide_dropped=False``): a pixel may be the mean of many weights, the
    dropped ones (0) included; a pixel of one cell is drawn pink (:mod:`viz.image_heatmap`).
    """
    shown = np.array(view.values, dtype=dtype)
    for mask in (view.hidden, view.dropped if hide_dropped else None):
        if mask is not None:
            np.copyto(shown, dtype(np.nan), where=mask)
    np.copyto(shown, dtype(np.nan), where=~np.isfinite(shown))
    return shown


def colour_range(view: MatrixView, shown: np.ndarray | None = None) -> tuple[float, float]:
    """``view.zrange``, or the range of its visible values (:func:`value_range`)."""
    if view.zrange is not None:
        return float(view.zrange[0]), float(view.zrange[1])
    if view.kind == "binary":
        return 0.0, 1.0
    return value_range(shown_values(view, np.float32) if shown is None else shown, view.kind)


@dataclass(frozen=True)
class Window:
    """A window of a large matrix: a smaller view of exact values, and where it starts."""

    view: MatrixView  # labels "17 · cat": 1-based position and token
    row_start: int  # 0-based
    col_start: int


def window(view: MatrixView, row_start: int, col_start: int, size: int) -> Window:
    """Rows ``row_start…`` and columns ``col_start…`` (0-based, clipped) of at most ``size``.

    The window keeps the whole matrix's colour range, so that its colours match the image's.
    """
    rows, cols = view.shape
    size = max(1, int(size))
    r0 = min(max(0, int(row_start)), max(0, rows - 1))
    c0 = min(max(0, int(col_start)), max(0, cols - 1))
    r1, c1 = min(rows, r0 + size), min(cols, c0 + size)

    def cut(array: np.ndarray | None) -> np.ndarray | None:
        return None if array is None else np.asarray(array[r0:r1, c0:c1])

    part = replace(
        view,
        values=np.asarray(view.values[r0:r1, c0:c1], dtype=np.float64),
        row_labels=tuple(f"{i + 1} · {view.row_labels[i]}" for i in range(r0, r1)),
        col_labels=tuple(f"{j + 1} · {view.col_labels[j]}" for j in range(c0, c1)),
        hidden=cut(view.hidden),
        dropped=cut(view.dropped),
        undropped=cut(view.undropped),
        zrange=colour_range(view),
        title="",
    )
    return Window(view=part, row_start=r0, col_start=c0)
