"""A small matrix drawn as a coloured table of its numbers: a heatmap the browser draws at once.

An annotated Plotly heatmap costs the browser about 0.1 s to redraw its cell texts on every change
(measured in Chromium on this project's machine: a 6 × 6 heatmap with numbers 0.17 s after a
seed change, the same heatmap without numbers 0.05 s, a coloured 6 × 6 table 0.05 s — what a
plain table costs). So a matrix small enough to read as numbers is a table here: each cell
shows its number on its colour, on the same scale, palette and range as the heatmap would use;
hidden cells are grey and written −∞ (a score) or 0 (a weight), weights dropped by dropout pink
and written 0, a yes/no grid written and coloured by state. :func:`legend_table` is the colour
bar: a row of sample values on the scale, then the special cells that appear.

Both builders return a pandas ``Styler`` (no Streamlit): ``ui.show.show_matrix`` hands it to
``st.table``. The table's *data* are the texts shown, so what a test reads is what a user reads.
Streamlit renders every table cell, index and header as Markdown, so labels (user text) are
escaped (:func:`viz.markdown_text.escape_markdown`); cells hold numbers and state words.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from pandas.io.formats.style import Styler
from plotly.colors import get_colorscale, sample_colorscale, unlabel_rgb

from .colors import DROPPED_COLOR, HIDDEN_COLOR, HIDDEN_TEXT_COLOR, colorscale
from .heatmap import DROPPED_TEXT_COLOR, MINUS_INFINITY, cell_texts
from .labels import unique_labels
from .markdown_text import escape_markdown
from .matrix import MatrixView, colour_range, shown_values
from .vocabulary import format_number
from .words import FigureWords

__all__ = ["MAX_TABLE_COLUMNS", "MAX_TABLE_ROWS", "legend_table", "matrix_table", "use_table"]

MAX_TABLE_COLUMNS = 12  # wider, a table of 4-decimal numbers no longer fits the page's column
MAX_TABLE_ROWS = 40  # longer, a figure (with its thinned ticks) reads better than a long table
LEGEND_STEPS = 3  # sample values on the legend's scale: both ends and the middle
DARK_TEXT, LIGHT_TEXT = "#000000", "#ffffff"  # black: at least 4.58:1 on every colour of the scales
# Streamlit writes text-align: left on each cell itself: a number column reads at its decimal point
CELL_CSS = (
    "text-align: right !important; font-variant-numeric: tabular-nums; "
    "white-space: nowrap !important"
)
NO_BREAK = "\u00a0"  # an axis title breaks only between the two titles of the corner


def use_table(rows: int, cols: int) -> bool:
    """True when a ``rows × cols`` matrix is drawn as a coloured table (else a Plotly figure)."""
    return rows <= MAX_TABLE_ROWS and cols <= MAX_TABLE_COLUMNS


def matrix_table(view: MatrixView, words: FigureWords) -> Styler:
    """``view`` as a coloured table: labels on both sides, each number on its colour.

    The corner names the axes ("query ↓ · key →"); ``words`` gives the defaults ("row", "column").
    """
    rows, cols = view.shape
    if view.binary is not None:
        flags = np.asarray(view.values, dtype=bool)
        look = view.binary
        texts = np.where(flags, look.true_text, look.false_text).astype(object)
        css = np.where(
            flags,
            _cell_css(look.true_color, HIDDEN_TEXT_COLOR, "center"),
            _cell_css(look.false_color, HIDDEN_TEXT_COLOR, "center"),
        ).astype(object)
        return _styled(view, words, texts, css)

    values = np.asarray(view.values, dtype=np.float64)
    hidden, dropped = special_cells(view)
    shown = shown_values(view)  # NaN where hidden, dropped or not finite: never on the scale
    texts = np.array(cell_texts(values, view.hidden, view.decimals), dtype=object)
    if view.hidden_value is not None:
        texts[hidden] = format_number(view.hidden_value, 0)
    texts[dropped] = "0"
    backgrounds = scale_colours(shown, view, colour_range(view, shown))
    css = np.empty((rows, cols), dtype=object)
    for i in range(rows):
        for j in range(cols):
            if hidden[i, j]:
                css[i, j] = _cell_css(HIDDEN_COLOR, HIDDEN_TEXT_COLOR)
            elif dropped[i, j]:
                css[i, j] = _cell_css(DROPPED_COLOR, DROPPED_TEXT_COLOR)
            elif backgrounds[i][j] is None:  # a non-finite value that is not hidden
                css[i, j] = _cell_css("#ffffff", DARK_TEXT)
            else:
                css[i, j] = _cell_css(backgrounds[i][j], text_colour(backgrounds[i][j]))
    return _styled(view, words, texts, css)


def legend_table(view: MatrixView, words: FigureWords) -> Styler | None:
    """The colour bar of ``view`` as one row: sample values on the scale, then special cells.

    The first cell names the scale (the view's colour-bar title or value name); masked and
    dropped cells get a cell each when the matrix has any. Shown without index and header.
    None for a yes/no grid (its cells say their state) or a view without a colour bar.
    """
    if view.binary is not None or not view.colour_bar:
        return None
    zrange = colour_range(view, shown_values(view))
    samples = np.linspace(*zrange, LEGEND_STEPS)
    colours = scale_colours(samples[None, :], view, zrange)[0]
    texts: list[str] = [format_number(float(value), view.decimals, minus="−") for value in samples]
    css = [_cell_css(colour or "#ffffff", text_colour(colour)) for colour in colours]
    hidden, dropped = special_cells(view)
    if hidden.any():
        value = MINUS_INFINITY if view.hidden_value is None else format_number(view.hidden_value, 0)
        texts.append(f"{value}: {words.masked}")  # short: a legend row must fit a half column
        css.append(_cell_css(HIDDEN_COLOR, HIDDEN_TEXT_COLOR))
    if dropped.any():
        texts.append(f"0: {words.dropped}")
        css.append(_cell_css(DROPPED_COLOR, DROPPED_TEXT_COLOR))
    texts.insert(0, escape_markdown(view.colorbar_title or view.value_name))  # user text
    css.insert(0, f"font-style: italic; {CELL_CSS}")
    frame = pd.DataFrame([texts])
    styles = pd.DataFrame([css], index=frame.index, columns=frame.columns)
    return frame.style.apply(lambda _: styles, axis=None)


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
    scale = get_colorscale(colorscale(view.colour_kind, view.palette))
    positions = np.clip((np.asarray(shown, dtype=np.float64) - low) / span, 0.0, 1.0)
    finite = np.isfinite(positions)
    sampled = iter(sample_colorscale(scale, positions[finite].tolist()) if finite.any() else [])
    return [
        [next(sampled) if finite[i, j] else None for j in range(positions.shape[1])]
        for i in range(positions.shape[0])
    ]


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
    red, green, blue = (_linear(channel / 255) for channel in _rgb(colour))
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def _rgb(colour: str) -> tuple[float, float, float]:
    if colour.startswith("#"):
        return tuple(int(colour[k : k + 2], 16) for k in (1, 3, 5))  # type: ignore[return-value]
    return tuple(unlabel_rgb(colour))  # type: ignore[return-value]


def _linear(channel: float) -> float:
    return channel / 12.92 if channel <= 0.04045 else ((channel + 0.055) / 1.055) ** 2.4


def _cell_css(background: str, text: str, align: str = "right") -> str:
    """A cell's CSS: numbers on the right (they line up), a state's mark (✓, 1) centred."""
    css = f"background-color: {background}; color: {text}; {CELL_CSS}"
    return css if align == "right" else css.replace("text-align: right", f"text-align: {align}")


def _styled(view: MatrixView, words: FigureWords, texts: np.ndarray, css: np.ndarray) -> Styler:
    """The texts with their cell styles; labels told apart and escaped, the corner named."""
    row_title = view.row_title or words.row
    col_title = view.col_title or words.column
    frame = pd.DataFrame(
        texts.tolist(),  # numbers and state words: nothing Markdown would change
        index=pd.Index(
            [escape_markdown(label) for label in unique_labels(list(view.row_labels))],
            name=escape_markdown(
                f"{row_title} ↓ ·".replace(" ", NO_BREAK)
                + " "
                + f"{col_title} →".replace(" ", NO_BREAK)
            ),
        ),
        columns=[escape_markdown(label) for label in unique_labels(list(view.col_labels))],
    )
    styles = pd.DataFrame(css.tolist(), index=frame.index, columns=frame.columns)
    return frame.style.apply(lambda _: styles, axis=None)
