"""Showing figures and numbers the same way on every page.

A matrix is shown from its description (:class:`viz.matrix.MatrixView`) by one component at
every size: a coloured table while it fits, else a picture with a lazy "Exact values" zoom window
of the same view (sent only once opened). Widget keys derive from the caller's ``key``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import replace
from functools import cache

import numpy as np
import pandas as pd
import streamlit as st
import torch

from attention.differences import changed_cells
from viz.image_heatmap import exact_hover, image_shape, matrix_image, pixel_factors
from viz.labels import unique_labels
from viz.markdown_text import escape_markdown
from viz.matrix import MatrixView, Window, window
from viz.table_heatmap import legend_table, matrix_table
from viz.vocabulary import COMPACT_DECIMALS, DECIMALS, MINUS_INFINITY, cell_texts, format_number
from viz.words import FigureWords

from .i18n import current_language, t
from .matrix_table import MATRIX_PREFIX, draw_image, draw_table

MAX_WINDOW = 24  # a zoom window shows at most this many rows and columns (annotated heatmap)
DEFAULT_WINDOW = 8  # fits a half-width column with 4 decimals in every cell
COMPACT_WINDOW = 10  # above this many columns, cells show COMPACT_DECIMALS (the hover keeps 6)

# The catalogue key of each figure word (viz.words.FigureWords): one line per word.
FIGURE_WORD_KEYS = {
    "row": "figure.row",
    "column": "figure.column",
    "rows": "scale.hover.rows",
    "columns": "scale.hover.columns",
    "mean": "scale.hover.mean",
    "min": "scale.hover.min",
    "max": "scale.hover.max",
    "masked_cells": "scale.hover.masked",
    "masked": "figure.masked",
    "token": "step.axis.token",
    "feature": "step.axis.feature",
    "input_feature": "step.axis.input_feature",
    "output_feature": "step.axis.output_feature",
    "query": "step.axis.query",
    "key": "step.axis.key",
    "embedding": "step.value.embedding",
    "weight": "step.value.weight",
    "bias": "step.value.bias",
    "queries": "step.value.queries",
    "keys": "step.value.keys",
    "values": "step.value.values",
    "score": "step.value.score",
    "scaled_score": "step.value.scaled",
    "attention_weight": "step.value.weights",
    "dropped_weight": "step.value.dropped",
    "context": "step.value.context",
    "future_hidden": "step.state.hidden",
    "visible": "step.state.visible",
    "future_masked": "step.state.masked",
    "kept": "step.state.kept",
    "dropped": "step.state.dropped",
}


def figure_words(lang: str | None = None) -> FigureWords:
    """The figure words in ``lang`` (default: the page's language), read from the catalogue."""
    return _figure_words(lang or current_language())


@cache
def _figure_words(lang: str) -> FigureWords:  # the catalogue never changes while the app runs
    return FigureWords(**{name: t(key, lang) for name, key in FIGURE_WORD_KEYS.items()})


def show_matrix(view: MatrixView, words: FigureWords, *, key: str) -> None:
    """Draw ``view`` with the app's one matrix component, at any size, titled, with its legend.

    A table while ``viz.matrix.use_table``, else a picture with a zoom window (``{key}__zoom…``);
    either is one element keyed ``matrix_{key}``.
    """
    if not view.large:
        show_matrix_table(view, words, key=key)
        return
    rows, cols = view.shape
    name = view.title or view.colorbar_title or view.value_name
    one_cell = pixel_factors(rows, cols) == (1, 1)
    alt = t("show.image_alt", name=name, rows=rows, cols=cols)
    # a pixel of many cells is their mean: dropped weights are pink only one cell a pixel
    legend_view = view if one_cell else replace(view, dropped=None)
    legend = legend_table(legend_view, words, t("show.legend_alt", name=name))
    image = matrix_image(view, words, alt)
    draw_image(
        image,
        key=key,
        legend=legend,
        png_label=t("show.image_png"),
        title=view.title,
        prefix=MATRIX_PREFIX,
    )
    zoom_title = t("scale.zoom.title")  # no sizes: the window stays open for a new sentence
    st.caption(_image_note(view, zoom_title))
    zoom_window(view, words, key=f"{key}__zoom", label=zoom_title)


_MARK_CHANGES: ContextVar[bool] = ContextVar("mark_changes", default=False)
CHANGES_KEY = "matrix_changes"  # session: by matrix key, (values drawn last, cells last changed)


@contextmanager
def marking_changes() -> Iterator[None]:
    """Within this block, matrix tables outline the cells the last edit or setting change moved.

    Each table keeps its last values in the session, by its key, to compare the next ones with.
    """
    token = _MARK_CHANGES.set(True)
    try:
        yield
    finally:
        _MARK_CHANGES.reset(token)


def _with_changes(view: MatrixView, key: str) -> MatrixView:
    store = st.session_state.setdefault(CHANGES_KEY, {})
    values = np.array(view.values, dtype=np.float64)  # a copy: (rows, cols)
    last = store.get(key)
    changed = None if last is None else last[1]
    if last is not None and not np.array_equal(last[0], values, equal_nan=True):
        moved = changed_cells(torch.from_numpy(last[0]), torch.from_numpy(values))
        changed = None if moved is None else moved.numpy()
    store[key] = (values, changed)
    if changed is None or not changed.any():
        return view
    return replace(view, changed=changed)


def show_matrix_table(view: MatrixView, words: FigureWords, *, key: str) -> None:
    """``view`` as a coloured table (``viz.table_heatmap``), titled, with its legend row.

    Its ``aria-label`` names it for screen readers; inside :func:`marking_changes` moved cells
    are outlined.
    """
    if _MARK_CHANGES.get():
        view = _with_changes(view, key)
    rows, cols = view.shape
    name = view.title or view.colorbar_title or view.value_name
    alt = t("show.table_alt", name=name, rows=rows, cols=cols)
    draw_table(
        matrix_table(view, words, alt),
        key=key,
        csv_label=t("show.table_csv"),
        legend=legend_table(view, words, t("show.legend_alt", name=name)),
        title=view.title,
        note=t("show.changed_legend") if view.changed is not None else "",
        prefix=MATRIX_PREFIX,
    )


def numbers_frame(
    values: np.ndarray,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    *,
    hidden: np.ndarray | None = None,
    decimals: int = DECIMALS,
) -> pd.DataFrame:
    """The matrix as a table of text (−∞ where hidden), labelled by (unique) token names."""
    texts = cell_texts(np.asarray(values, dtype=np.float64), hidden, decimals)
    return pd.DataFrame(
        texts,
        index=[escape_markdown(label) for label in unique_labels(list(row_labels))],
        columns=[escape_markdown(label) for label in unique_labels(list(col_labels))],
    )


def zoom_window(view: MatrixView, words: FigureWords, *, key: str, label: str) -> None:
    """A lazy expander with a window of ``view`` (same kind, masks and colours) as a table."""
    box = st.expander(label, key=key, on_change="rerun", icon=":material/zoom_in:")
    if not box.open:
        return
    with box:
        cut = window(view, *_window_controls(key, *view.shape))
        st.caption(_window_caption(cut, *view.shape))
        part = cut.view
        if part.shape[1] > COMPACT_WINDOW:
            part = replace(part, decimals=min(part.decimals, COMPACT_DECIMALS))
        show_matrix_table(part, words, key=f"{key}__figure")


def _window_controls(key: str, rows: int, cols: int) -> tuple[int, int, int]:
    """Number inputs for the window (1-based, clamped); returns 0-based (row, col, size).

    A kept value outside a new, smaller matrix is pulled inside before the input is drawn.
    """
    limit = min(MAX_WINDOW, max(rows, cols))
    inputs = [  # (key, label, upper bound, first value)
        (f"{key}__row", "scale.zoom.first_row", rows, 1),
        (f"{key}__col", "scale.zoom.first_col", cols, 1),
        (f"{key}__size", "scale.zoom.size", limit, min(DEFAULT_WINDOW, limit)),
    ]
    places = st.columns(3)
    help_text = t("scale.zoom.help", limit=MAX_WINDOW)
    chosen = []
    for place, (name, label, high, first) in zip(places, inputs, strict=True):
        if high <= 1 and name.endswith("__col"):  # a single column: nothing to choose
            chosen.append(1)
            continue
        kwargs: dict[str, int] = {}
        if name in st.session_state:
            current = int(st.session_state[name])
            if not 1 <= current <= high:
                st.session_state[name] = min(max(current, 1), high)
        else:
            kwargs["value"] = first  # only on the first draw: the key holds it afterwards
        value = place.number_input(
            t(label), min_value=1, max_value=high, step=1, key=name, help=help_text, **kwargs
        )
        chosen.append(int(value))
    return chosen[0] - 1, chosen[1] - 1, chosen[2]


def _window_caption(cut: Window, rows: int, cols: int) -> str:
    height, width = cut.view.shape
    r0, c0 = cut.row_start, cut.col_start
    return t(
        "scale.zoom.caption",
        r0=r0 + 1,
        r1=r0 + height,
        c0=c0 + 1,
        c1=c0 + width,
        rows=rows,
        cols=cols,
    )


def _image_note(view: MatrixView, zoom_title: str) -> str:
    rows, cols = view.shape
    height, width = image_shape(rows, cols)
    row_factor, col_factor = pixel_factors(rows, cols)
    if row_factor == 1 and col_factor == 1:
        pixel = t("scale.pixel_one")
    else:
        pixel = t("scale.pixel_mean", fr=row_factor, fc=col_factor)
    return t(
        "scale.image_note",
        rows=rows,
        cols=cols,
        height=height,
        width=width,
        pixel=pixel,
        hover=t("scale.hover_cell" if exact_hover(rows, cols) else "scale.hover_block"),
        zoom=zoom_title.split(":")[0].split("：")[0],
        masked=MINUS_INFINITY if view.hidden_value is None else format_number(view.hidden_value, 0),
    )
