"""A matrix small enough to read as numbers, drawn as a coloured table.

Each cell shows its number on its colour (the same scale as the large picture,
:mod:`viz.image_heatmap`); hidden cells are grey and written −∞ (a score) or 0 (a weight),
dropped weights pink and written 0. :func:`legend_table` is the colour bar of a table and of a
picture. Both return a :class:`ColouredTable` (texts, labels, colours, and the numbers as CSV
with labels guarded against spreadsheet formulas); ``ui.matrix_table`` sets its texts as plain
text, and in Jupyter it draws itself with every text escaped (:mod:`viz.notebook`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from functools import lru_cache
from typing import Any

import numpy as np
from plotly.colors import get_colorscale, unlabel_rgb

from attention.export import matrix_csv

from .colors import DROPPED_COLOR, HIDDEN_COLOR, HIDDEN_TEXT_COLOR, colorscale
from .labels import unique_labels
from .matrix import (
    MAX_TABLE_COLUMNS,
    MAX_TABLE_ROWS,
    BinaryLook,
    MatrixView,
    colour_range,
    shown_values,
    use_table,
)
from .vocabulary import MINUS_INFINITY, cell_texts, format_number
from .words import FigureWords

__all__ = [
    "MAX_COLOURED_COLUMNS",
    "MAX_COLOURED_ROWS",
    "Cell",
    "ColouredTable",
    "legend_table",
    "matrix_table",
    "text_table",
    "use_table",
]

MAX_COLOURED_COLUMNS = MAX_TABLE_COLUMNS  # the notebook's window of a large matrix
MAX_COLOURED_ROWS = MAX_TABLE_ROWS
DROPPED_TEXT_COLOR = "#8a1c1c"  # a dropped weight's 0 on its pink
LEGEND_STEPS = 3  # sample values on the legend's scale: both ends and the middle
DARK_TEXT, LIGHT_TEXT = "#000000", "#ffffff"  # black: at least 4.58:1 on every colour of the scales
NO_BREAK = "\u00a0"  # an axis title breaks only between the two titles of the corner


# a title's words may break apart; its arrow and dot stay with the word before them
_AXIS_WORD_BREAK = re.compile(NO_BREAK + "(?![↓→·])")


def corner_parts(corner: str) -> tuple[str, ...]:
    """The corner's axis titles, each as one block the browser keeps whole while it can.

    ``"input feature ↓ · output feature →"`` gives ``("input feature ↓ ·", "output feature →")``,
    the arrows joined to their word by no-break spaces: a narrow column breaks between the titles
    first, never inside a word nor before an arrow.
    """
    return tuple(_AXIS_WORD_BREAK.sub(" ", part) for part in corner.split(" ") if part)


@dataclass(frozen=True)
class Cell:
    """One cell: its text, its colours (CSS colours) and where the text sits.

    Numbers sit on the right, so that a column reads at its decimal point; a state's mark (✓, 1)
    is centred. ``italic``: the legend's name of the scale.
    """

    text: str
    background: str
    colour: str
    align: str = "right"
    italic: bool = False
    marked: bool = False  # outlined: the last change moved this cell


@dataclass(frozen=True)
class ColouredTable:
    """A table of coloured cells: ``cells[i][j]``, with row and column labels and a corner.

    ``row_labels``/``col_labels`` empty: no label column / header row (the legend row).
    ``description``: what a screen reader says of the table (its ``aria-label``). ``csv``: the
    matrix's numbers as CSV text (empty for a legend), what a reader copies into a spreadsheet.
    """

    cells: tuple[tuple[Cell, ...], ...]
    row_labels: tuple[str, ...] = ()
    col_labels: tuple[str, ...] = ()
    corner: str = ""
    description: str = ""
    csv: str = ""

    @property
    def shape(self) -> tuple[int, int]:
        """``(rows, cols)`` of the cells (labels not counted)."""
        return len(self.cells), len(self.cells[0]) if self.cells else 0

    def texts(self) -> list[list[str]]:
        """The cells' texts, row by row: what a reader reads."""
        return [[cell.text for cell in row] for row in self.cells]

    def to_data(self) -> dict[str, Any]:
        """The table as JSON-ready data (what the browser's table component receives)."""
        return {
            "corner": self.corner,
            "corner_parts": list(corner_parts(self.corner)),
            "columns": list(self.col_labels),
            "rows": list(self.row_labels),
            "cells": [[asdict(cell) for cell in row] for row in self.cells],
            "description": self.description,
            "csv": self.csv,
        }

    def __repr__(self) -> str:
        rows, cols = self.shape
        return f"ColouredTable({rows} × {cols}, {self.description or self.corner!r})"

    def _repr_html_(self) -> str:
        """The table as an HTML ``<table>`` (Jupyter shows it): every text escaped."""
        from .notebook import table_html  # viz.notebook builds on this module

        return table_html(self)


def matrix_table(view: MatrixView, words: FigureWords, description: str = "") -> ColouredTable:
    """``view`` as a coloured table: labels on both sides, each number on its colour.

    The corner names the axes ("query ↓ · key →"); ``words`` gives the defaults ("row", "column").
    ``description``: the table's text for screen readers.
    """
    rows, cols = view.shape
    if view.binary is not None:
        flags = np.asarray(view.values, dtype=bool)
        hidden, _ = special_cells(view)
        yes, no, masked = _binary_cells(view.binary)
        cells = [
            [masked if hidden[i, j] else yes if flags[i, j] else no for j in range(cols)]
            for i in range(rows)
        ]
        return _labelled(view, words, cells, description)

    values = np.asarray(view.values, dtype=np.float64)
    hidden, dropped = special_cells(view)
    shown = shown_values(view)  # NaN where hidden, dropped or not finite: never on the scale
    texts = np.array(cell_texts(values, view.hidden, view.decimals), dtype=object)
    if view.hidden_value is not None:
        texts[hidden] = format_number(view.hidden_value, 0)
    texts[dropped] = "0"
    backgrounds = scale_colours(shown, view, colour_range(view, shown))

    def cell(i: int, j: int) -> Cell:
        text = str(texts[i, j])
        if hidden[i, j]:
            return Cell(text, HIDDEN_COLOR, HIDDEN_TEXT_COLOR)
        if dropped[i, j]:
            return Cell(text, DROPPED_COLOR, DROPPED_TEXT_COLOR)
        return _on_scale(text, backgrounds[i][j])

    cells = [[cell(i, j) for j in range(cols)] for i in range(rows)]
    return _labelled(view, words, cells, description)


def _binary_cells(look: BinaryLook) -> tuple[Cell, Cell, Cell]:
    """A yes/no grid's three cells: its two states, and a hidden cell (grey, like a masked score)."""
    return (
        Cell(look.true_text, look.true_color, HIDDEN_TEXT_COLOR, "center"),
        Cell(look.false_text, look.false_color, HIDDEN_TEXT_COLOR, "center"),
        Cell(look.hidden_text, HIDDEN_COLOR, HIDDEN_TEXT_COLOR, "center"),
    )


def _binary_legend(view: MatrixView, words: FigureWords, description: str) -> ColouredTable:
    """What a yes/no grid's three kinds of cell mean: "✓: kept", "✗: dropped", "—: masked"."""
    look = view.binary
    assert look is not None
    yes, no, masked = _binary_cells(look)
    hidden_name = view.hidden_name or words.masked
    cells = (
        Cell(view.value_name, "transparent", "inherit", "right", italic=True),
        replace(yes, text=f"{look.true_text}: {look.true_name}"),
        replace(no, text=f"{look.false_text}: {look.false_name}"),
    )
    if special_cells(view)[0].any():
        cells += (replace(masked, text=f"{look.hidden_text}: {hidden_name}"),)
    return ColouredTable((cells,), description=description)


def legend_table(
    view: MatrixView, words: FigureWords, description: str = ""
) -> ColouredTable | None:
    """The colour bar of ``view`` as one row: sample values on the scale, then special cells.

    The first cell names the scale; masked and dropped cells get a cell each when the matrix has
    any. A yes/no grid names its kinds of cell when it has hidden cells or is large (a picture does
    not write states). None for a view without a colour bar or a small grid without hidden cells.
    """
    if view.binary is not None and (special_cells(view)[0].any() or view.large):
        return _binary_legend(view, words, description)
    if view.binary is not None or not view.colour_bar:
        return None
    zrange = colour_range(view, shown_values(view))
    samples = np.linspace(*zrange, LEGEND_STEPS)
    colours = scale_colours(samples[None, :], view, zrange)[0]
    name = view.colorbar_title or view.value_name  # may hold user text: shown as text
    cells = [Cell(name, "transparent", "inherit", "right", italic=True)]
    cells += [
        _on_scale(format_number(float(value), view.decimals, minus="−"), colour)
        for value, colour in zip(samples, colours, strict=True)
    ]
    hidden, dropped = special_cells(view)
    if hidden.any():
        value = MINUS_INFINITY if view.hidden_value is None else format_number(view.hidden_value, 0)
        # short: a legend row must fit a half column
        cells.append(Cell(f"{value}: {words.masked}", HIDDEN_COLOR, HIDDEN_TEXT_COLOR))
    if dropped.any():
        cells.append(Cell(f"0: {words.dropped}", DROPPED_COLOR, DROPPED_TEXT_COLOR))
    return ColouredTable((tuple(cells),), description=description)


def _on_scale(text: str, background: str | None) -> Cell:
    """A cell on the colour scale: its colour, and the text that reads best on it.

    ``background`` None (a value that is not finite, and not hidden): white, dark text."""
    return Cell(text, background or "#ffffff", text_colour(background))


def special_cells(view: MatrixView) -> tuple[np.ndarray, np.ndarray]:
    """``(hidden, dropped)`` masks of ``view``: dropped counts only cells that are not hidden
    (dropout "drops" future weights too, which are 0 already and stay grey)."""
    hidden = np.zeros(view.shape, dtype=bool) if view.hidden is None else view.hidden
    dropped = np.zeros_like(hidden) if view.dropped is None else view.dropped & ~hidden
    return hidden, dropped


def scale_colours(
    shown: np.ndarray, view: MatrixView, zrange: tuple[float, float]
) -> list[list[str | None]]:
    """The colour (``rgb(r, g, b)``) of each value on ``view``'s scale over ``zrange``
    (``viz.matrix.colour_range``); None where NaN."""
    low, high = zrange
    span = high - low if high > low else 1.0
    scale = scale_stops(colorscale(view.colour_kind, view.palette))
    positions = np.clip((np.asarray(shown, dtype=np.float64) - low) / span, 0.0, 1.0)
    finite = np.isfinite(positions)
    sampled = iter(scale.sample(positions[finite]) if finite.any() else [])
    return [
        [next(sampled) if finite[i, j] else None for j in range(positions.shape[1])]
        for i in range(positions.shape[0])
    ]


@dataclass(frozen=True)
class ScaleStops:
    """A colour scale as arrays: its stops (0 … 1) and their colours (r, g, b in 0 … 1).

    :meth:`sample` gives the same strings as Plotly's ``sample_colorscale`` (same interpolation and
    rounding), for a whole matrix at once instead of parsing the scale again for each point.
    """

    stops: np.ndarray  # (S,)
    colours: np.ndarray  # (S, 3)

    @classmethod
    def from_pairs(cls, pairs: Sequence[Sequence[object]]) -> ScaleStops:
        """A scale given as ``[[position, colour], …]`` (``rgb(…)`` or ``#rrggbb``)."""
        stops = np.array([float(stop) for stop, _ in pairs])  # type: ignore[arg-type]
        colours = np.array([rgb(str(colour)) for _, colour in pairs]) / 255.0
        return cls(stops, colours)

    def channels(self, positions: np.ndarray) -> np.ndarray:
        """The (N, 3) integer channels (0 … 255) at each position (0 … 1) of ``positions``."""
        points = np.asarray(positions, dtype=np.float64).ravel()  # (N,)
        upper = np.searchsorted(self.stops, points, side="left")  # Plotly: bisect_left
        lower = upper - 1  # at 0 this is -1, the last stop, as in Plotly (the weight is then 1)
        weight = (points - self.stops[lower]) / (self.stops[upper] - self.stops[lower])
        start, end = self.colours[lower], self.colours[upper]  # (N, 3)
        mixed = start + weight[:, None] * (end - start)  # (N, 3)
        return np.rint(mixed * 255.0).astype(int)  # half to even, as Plotly's Decimal rounding

    def sample(self, positions: np.ndarray) -> list[str]:
        """The ``rgb(r, g, b)`` colour at each position (0 … 1) of the flat array ``positions``."""
        return [f"rgb({r}, {g}, {b})" for r, g, b in self.channels(positions).tolist()]


@lru_cache(maxsize=64)
def scale_stops(name: str) -> ScaleStops:
    """Plotly's colour scale of that name as :class:`ScaleStops`, read once per name."""
    return ScaleStops.from_pairs(get_colorscale(name))


@lru_cache(maxsize=4096)  # the colours sampled from a scale repeat across cells, tables and reruns
def text_colour(background: str | None) -> str:
    """Dark text on a light background, white on a dark one (relative luminance, WCAG)."""
    if background is None:
        return DARK_TEXT
    # the text with the higher contrast ratio (L1 + 0.05) / (L2 + 0.05)
    shade = _luminance(background)
    dark = (shade + 0.05) / (_luminance(DARK_TEXT) + 0.05)
    light = (_luminance(LIGHT_TEXT) + 0.05) / (shade + 0.05)
    return DARK_TEXT if dark >= light else LIGHT_TEXT


def _luminance(colour: str) -> float:
    """WCAG relative luminance of ``#rrggbb`` or ``rgb(r, g, b)``: 0 black … 1 white."""
    red, green, blue = (_linear(channel / 255) for channel in rgb(colour))
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def rgb(colour: str) -> tuple[float, float, float]:
    """``#rrggbb`` or ``rgb(r, g, b)`` as its three channels (0 … 255)."""
    if colour.startswith("#"):
        return tuple(int(colour[k : k + 2], 16) for k in (1, 3, 5))  # type: ignore[return-value]
    return tuple(unlabel_rgb(colour))  # type: ignore[return-value]


def _linear(channel: float) -> float:
    return channel / 12.92 if channel <= 0.04045 else ((channel + 0.055) / 1.055) ** 2.4


def _labelled(
    view: MatrixView, words: FigureWords, cells: list[list[Cell]], description: str
) -> ColouredTable:
    """The cells with their labels (told apart when repeated) and the corner naming the axes.

    Cells of ``view.changed`` are marked (outlined by the browser's table).
    """
    if view.changed is not None:
        cells = [
            [
                replace(cell, marked=True) if view.changed[i, j] else cell
                for j, cell in enumerate(row)
            ]
            for i, row in enumerate(cells)
        ]
    row_title = view.row_title or words.row
    col_title = view.col_title or words.column
    corner = (
        f"{row_title} ↓ ·".replace(" ", NO_BREAK) + " " + f"{col_title} →".replace(" ", NO_BREAK)
    )
    row_labels = tuple(unique_labels(list(view.row_labels)))
    col_labels = tuple(unique_labels(list(view.col_labels)))
    values = np.asarray(view.values, dtype=bool if view.binary is not None else np.float64)
    return ColouredTable(
        tuple(tuple(row) for row in cells),
        row_labels=row_labels,
        col_labels=col_labels,
        corner=corner,
        description=description,
        csv=matrix_csv(values, row_labels, col_labels, corner.replace(NO_BREAK, " ")),
    )


HIGHLIGHT_COLOR = "#fff3bf"  # a chosen row of a plain table (light yellow: black text reads on it)


def text_table(
    rows: list[list[str]],
    row_labels: list[str],
    col_labels: list[str],
    *,
    corner: str = "",
    highlight: int | None = None,
    description: str = "",
) -> ColouredTable:
    """A table of texts without a colour scale, row ``highlight`` (0-based) on a light yellow.

    Drawn as plain text by the app's table component (no Markdown per cell, no pandas ``Styler``);
    cells without the highlight keep the page's own colours.
    """
    cells = tuple(
        tuple(
            Cell(text, HIGHLIGHT_COLOR, DARK_TEXT) if index == highlight else Cell(text, "", "")
            for text in row
        )
        for index, row in enumerate(rows)
    )
    return ColouredTable(
        cells, tuple(row_labels), tuple(col_labels), corner=corner, description=description
    )
