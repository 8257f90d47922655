"""Showing figures and numbers the same way on every page.

Large matrices (more than 40 × 40 cells, e.g. a 1024-token attention matrix) are handled here, so
that every page scales without doing anything:

- :func:`show_figure` draws an image heatmap (see :mod:`viz.image_heatmap`) with a one-line note
  of what a pixel is, its hover in the page's language, and a lazy "Exact values" expander: a zoom
  window of at most 24 × 24 cells drawn as the usual annotated heatmap. The expander only runs
  (and only sends anything) once it is opened.
- :func:`show_numbers` never builds a table of thousands of rows: above the same size it shows a
  window of the matrix chosen with two number inputs.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from viz.heatmap import cell_texts, matrix_heatmap
from viz.image_heatmap import (
    LargeMatrix,
    Window,
    hover_template,
    large_matrix_of,
    use_image,
    window,
)
from viz.labels import unique_labels
from viz.toolbar import leave_room_for_toolbar
from viz.vocabulary import COMPACT_DECIMALS, DECIMALS

from .i18n import t
from .markdown_text import escape_markdown

PLOTLY_CONFIG = {"displaylogo": False, "modeBarButtonsToRemove": ["lasso2d", "select2d"]}
MAX_WINDOW = 24  # a zoom window shows at most this many rows and columns (annotated heatmap)
DEFAULT_WINDOW = 8  # fits a half-width column with 4 decimals in every cell
MAX_TABLE_ROWS = 64  # a longer table is shown as a window (a 256-row table costs the browser)
COMPACT_WINDOW = 10  # above this many columns, cells show COMPACT_DECIMALS (the hover keeps 6)


def show_figure(figure: go.Figure, key: str) -> None:
    """Draw a Plotly figure at full width, its top band left free for Plotly's toolbar.

    An image heatmap of a large matrix (built by ``viz.heatmap.matrix_heatmap``) also gets a note
    saying what a pixel is and an "Exact values" zoom window under it.
    """
    matrix = large_matrix_of(figure)
    if matrix is not None:
        _localize_hover(figure, matrix)
    leave_room_for_toolbar(figure)  # Plotly's toolbar must not cover a title or an axis title
    st.plotly_chart(figure, key=key, config=PLOTLY_CONFIG, width="stretch")
    if matrix is not None:
        zoom_title = t("scale.zoom.title")  # no sizes: the window stays open for a new sentence
        st.caption(_image_note(matrix, zoom_title))
        zoom_window(matrix, key=f"{key}__zoom", label=zoom_title)


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


def show_numbers(
    values: np.ndarray,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    *,
    hidden: np.ndarray | None = None,
    decimals: int = DECIMALS,
    expanded: bool = False,
    label: str | None = None,
    key: str | None = None,
) -> None:
    """The numeric table alternative of a heatmap (an HTML table: screen readers read it).

    Above 40 × 40 cells (or 64 rows) the table shows a window of at most 24 × 24 cells, chosen with two number
    inputs (keys derived from ``key``, or from the label and shape when no key is given), and only
    once the expander is opened: a 1024 × 1024 table would be megabytes of HTML.
    """
    values = np.asarray(values)
    rows, cols = values.shape
    if not use_image(rows, cols) and rows <= MAX_TABLE_ROWS:
        frame = numbers_frame(values, row_labels, col_labels, hidden=hidden, decimals=decimals)
        with st.expander(label or t("show.numbers"), expanded=expanded):
            st.table(frame)
        return
    base = key or _derived_key("numbers", label or "", rows, cols, row_labels, col_labels)
    box = st.expander(label or t("show.numbers"), expanded=expanded, key=base, on_change="rerun")
    if not box.open:
        return
    with box:
        st.caption(t("scale.numbers.window", rows=rows, cols=cols, limit=MAX_WINDOW))
        part = _window_controls(base, rows, cols)
        cut = window(_as_large(values, row_labels, col_labels, hidden, decimals), *part)
        st.caption(_window_caption(cut, rows, cols))
        st.table(
            numbers_frame(
                cut.values, cut.row_labels, cut.col_labels, hidden=cut.hidden, decimals=decimals
            )
        )


def zoom_window(matrix: LargeMatrix, *, key: str, label: str) -> None:
    """A lazy expander with a window of ``matrix`` drawn as an annotated heatmap (exact values)."""
    box = st.expander(label, key=key, on_change="rerun", icon=":material/zoom_in:")
    if not box.open:
        return
    with box:
        part = _window_controls(key, *matrix.shape)
        cut = window(matrix, *part)
        st.caption(_window_caption(cut, *matrix.shape))
        figure = matrix_heatmap(
            cut.values,
            cut.row_labels,
            cut.col_labels,
            kind=matrix.kind,
            hidden=cut.hidden,
            palette=matrix.palette,
            decimals=matrix.decimals if cut.values.shape[1] <= COMPACT_WINDOW else COMPACT_DECIMALS,
            row_title=matrix.row_title,
            col_title=matrix.col_title,
            value_name=matrix.value_name,
            zrange=matrix.zrange,  # the whole matrix's colours: the window matches the image
            colorbar_title=matrix.colorbar_title,
            large="numeric",
        )
        if matrix.scale is not None:  # e.g. a yes/no grid's two colours
            figure.update_traces(colorscale=matrix.scale, selector=0)
        leave_room_for_toolbar(figure)
        st.plotly_chart(figure, key=f"{key}__figure", config=PLOTLY_CONFIG, width="stretch")


def _window_controls(key: str, rows: int, cols: int) -> tuple[int, int, int]:
    """Number inputs for the window (1-based, clamped); returns 0-based (row, col, size).

    The inputs keep their values across reruns (their keys); a value left outside a new, smaller
    matrix is pulled back inside before the input is drawn.
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
    values = cut.values
    r0, c0 = cut.row_start, cut.col_start
    return t(
        "scale.zoom.caption",
        r0=r0 + 1,
        r1=r0 + values.shape[0],
        c0=c0 + 1,
        c1=c0 + values.shape[1],
        rows=rows,
        cols=cols,
    )


def _image_note(matrix: LargeMatrix, zoom_title: str) -> str:
    height, width = matrix.image_shape
    if matrix.row_factor == 1 and matrix.col_factor == 1:
        pixel = t("scale.pixel_one")
    else:
        pixel = t("scale.pixel_mean", fr=matrix.row_factor, fc=matrix.col_factor)
    rows, cols = matrix.shape
    return t(
        "scale.image_note",
        rows=rows,
        cols=cols,
        height=height,
        width=width,
        pixel=pixel,
        zoom=zoom_title.split(":")[0].split("：")[0],
    )


def _localize_hover(figure: go.Figure, matrix: LargeMatrix) -> None:
    """The block hover in the page's language (the figure builder knows no language)."""
    words = {name: t(f"scale.hover.{name}") for name in ("rows", "columns", "mean", "min", "max")}
    words["masked"] = t("scale.hover.masked")
    template = hover_template(
        words,
        row_title=matrix.row_title,
        col_title=matrix.col_title,
        value_name=matrix.value_name,
        decimals=matrix.decimals,
    )
    figure.update_traces(hovertemplate=template, selector={"name": "blocks"})


def _as_large(
    values: np.ndarray,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    hidden: np.ndarray | None,
    decimals: int,
) -> LargeMatrix:
    """Wrap a matrix for :func:`viz.image_heatmap.window` (no image is drawn)."""
    return LargeMatrix(
        values=values,
        hidden=None if hidden is None else np.asarray(hidden, dtype=bool),
        row_labels=tuple(str(label) for label in row_labels),
        col_labels=tuple(str(label) for label in col_labels),
        kind="diverging",
        palette="default",
        zrange=(0.0, 1.0),
        decimals=decimals,
        row_title="",
        col_title="",
        value_name="",
        colorbar_title="",
        row_factor=1,
        col_factor=1,
    )


def _derived_key(
    prefix: str,
    label: str,
    rows: int,
    cols: int,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
) -> str:
    """A widget key stable across reruns, unique within the run (for callers without a key).

    The same label, shape and first/last labels give the same key on every run; a second call
    with the same description in one run gets ``…_2`` (checked against the keys Streamlit has
    already seen this run).
    """
    description = f"{label}|{rows}|{cols}|{row_labels[0]}|{row_labels[-1]}|{col_labels[0]}"
    base = f"{prefix}_{hashlib.sha1(description.encode()).hexdigest()[:10]}"
    try:
        from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

        ctx = get_script_run_ctx()
        used = ctx.shared.widget_user_keys_this_run if ctx is not None else ()
    except (ImportError, AttributeError):  # another Streamlit version: best effort
        used = ()
    candidate, number = base, 1
    while candidate in used:
        number += 1
        candidate = f"{base}_{number}"
    return candidate
