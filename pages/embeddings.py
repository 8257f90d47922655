"""Embeddings: the numbers attention works on. Edit, resize, reset, upload, download, plot.

Every change goes through a widget callback that calls :func:`ui.table_state.commit_table`, so the table
all pages share changes in one place; a bad upload leaves the table as it was and says why.
"""

from __future__ import annotations

from functools import lru_cache

import streamlit as st

from ui.chart import draw_chart
from ui.editor import embedding_editor
from ui.frame import page
from ui.i18n import t
from ui.problem_reference import with_reference
from ui.table import (
    MAX_UPLOAD_BYTES,
    InputProblem,
    message,
    problem,
    shorten,
    table_csv_file,
    table_from_csv,
)
from ui.table_state import book_table, commit_table, current_table, table_for_words
from ui.view import View
from viz.chart import PointCloud, plotted_features, point_cloud
from viz.markdown_text import escape_markdown

D_IN_KEY = "embeddings_d_in"
UPLOAD_KEY = "embeddings_upload"
UPLOAD_PROBLEM_KEY = "embeddings_upload_problem"  # (file name, InputProblem) of the last upload
UPLOAD_LOADED_KEY = "embeddings_upload_loaded"  # (tokens, d_in) of the last good upload
MAX_D_IN_CONTROL = 16
# An upload's size limit in MB. Streamlit writes "1MB per file • CSV" and its "Upload" button in
# English whatever the language; the label and help, which the app words, say it in both.
UPLOAD_MEGABYTES = 1


def _forget_upload_messages() -> None:
    st.session_state.pop(UPLOAD_PROBLEM_KEY, None)
    st.session_state.pop(UPLOAD_LOADED_KEY, None)


def _on_d_in_change() -> None:
    """New embeddings of the chosen size for the current tokens (the book's at d_in = 3)."""
    d_in = int(st.session_state[D_IN_KEY])
    _forget_upload_messages()
    commit_table(table_for_words(list(current_table().tokens), d_in))  # a callback: before the view


def _on_reset() -> None:
    """Back to the book's six tokens and 3-dimensional embeddings."""
    _forget_upload_messages()
    commit_table(book_table())


def _on_upload() -> None:
    """Read the uploaded CSV; a problem is kept for the page to show and the table stays."""
    _forget_upload_messages()
    uploaded = st.session_state.get(UPLOAD_KEY)
    if uploaded is None:  # the file was removed from the widget: nothing to do
        return
    try:
        if uploaded.size > MAX_UPLOAD_BYTES:  # check the size before reading the bytes
            raise problem("upload.too_large", size=uploaded.size, limit=MAX_UPLOAD_BYTES)
        table = table_from_csv(uploaded.getvalue())
    except InputProblem as error:
        st.session_state[UPLOAD_PROBLEM_KEY] = (uploaded.name, error)
        return
    commit_table(table)
    st.session_state[UPLOAD_LOADED_KEY] = (table.num_tokens, table.d_in)


def _show_upload_messages() -> None:
    """What the last upload did: refused (and why), or loaded (and how large)."""
    refused: tuple[str, InputProblem] | None = st.session_state.get(UPLOAD_PROBLEM_KEY)
    if refused is not None:
        # The box names its file: the browser refuses a file over the size limit itself, in the
        # uploader, and the server never hears of it, so this box may stay beside that refusal.
        # The name and the message may quote the file: escaped for Markdown.
        name, upload_problem = refused
        shown = t(
            "embeddings.upload_failed",
            name=escape_markdown(shorten(name)),
            detail=message(upload_problem),
        )
        st.error(with_reference(shown, upload_problem))
    loaded = st.session_state.get(UPLOAD_LOADED_KEY)
    if loaded is not None:
        st.success(t("embeddings.upload_loaded", rows=loaded[0], d_in=loaded[1]))


@lru_cache(maxsize=8)
def _cloud(
    values: tuple[tuple[float, ...], ...], tokens: tuple[str, ...], palette: str, description: str
) -> PointCloud:
    """The table's points, built once per table, palette and language (the page reruns on every
    seed)."""
    return point_cloud(values, tokens, palette=palette, description=description)


def _plot_caption(d_in: int) -> str:
    if d_in == 1:
        return t("embeddings.plot_1d")
    if d_in == 2:
        return t("embeddings.plot_2d")
    if d_in == 3:
        return t("embeddings.plot_3d_all")
    return t("embeddings.plot_3d_first", d_in=d_in, rest=d_in - 3)


@page
def render(view: View) -> None:
    st.title(t("page.embeddings.title"))
    st.markdown(t("embeddings.intro"))

    table = view.table
    if st.session_state.get(D_IN_KEY) != table.d_in:
        st.session_state[D_IN_KEY] = table.d_in  # follow the table (a sentence, upload or reset)

    left, right = st.columns([5, 6], gap="large")
    with left:
        st.subheader(t("embeddings.table_header"))
        st.caption(t("embeddings.table_help"))
        embedding_editor("embeddings")
        size_column, reset_column = st.columns(2, vertical_alignment="bottom")  # room for zh
        with size_column:
            st.number_input(
                t("embeddings.d_in"),
                min_value=1,
                max_value=max(MAX_D_IN_CONTROL, table.d_in),
                step=1,
                key=D_IN_KEY,
                on_change=_on_d_in_change,
                help=t("embeddings.d_in_help"),
            )
        with reset_column:
            st.button(
                t("embeddings.reset"),
                key="embeddings_reset",
                on_click=_on_reset,
                help=t("embeddings.reset_help"),
                width="stretch",
            )
        st.caption(t("embeddings.d_in_note"))

        st.subheader(t("embeddings.files_header"))
        st.file_uploader(
            t("embeddings.upload", megabytes=UPLOAD_MEGABYTES),
            type=["csv"],
            key=UPLOAD_KEY,
            on_change=_on_upload,
            help=t("embeddings.upload_help", megabytes=UPLOAD_MEGABYTES),
            max_upload_size=UPLOAD_MEGABYTES,
        )
        _show_upload_messages()
        st.download_button(
            t("embeddings.download"),
            data=table_csv_file(table),
            file_name="attention_lab_embeddings.csv",
            mime="text/csv",
            key="embeddings_download",
            on_click="ignore",
        )

    with right:
        st.subheader(t("embeddings.plot_header"))
        st.caption(_plot_caption(table.d_in))
        dims = plotted_features(table.d_in)
        description = t(
            f"embeddings.plot_alt_{dims}d", count=table.num_tokens, title=t("embeddings.plot_title")
        )
        draw_chart(
            _cloud(table.values, table.tokens, view.palette, description), key="embeddings_points"
        )
        st.caption(t("embeddings.next"))
