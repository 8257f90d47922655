"""The embedding table editor, usable on any page; all editors share one draft and one table."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from .i18n import current_language, t
from .problem_reference import with_reference
from .table import TOKEN_COLUMN, message
from .table_state import editor_base, on_table_edit, table_problem


def embedding_editor(where: str, *, height: int | None = None) -> None:
    """Show the editable table of tokens and embedding values, with any problem of the draft.

    ``where`` makes the widget key unique per page. Cells are text, so whatever is typed stays
    visible; the page's numbers come from the last valid table until the draft is valid again
    (:func:`ui.table_state.on_table_edit`). Rows are numbered from 1, as the book counts x⁽¹⁾. The
    widget keeps its key across cell edits (:func:`ui.table_state.editor_base`), so the browser keeps
    its grid; a new ``look`` (language, height) starts a new widget from the draft.
    """
    base = editor_base(where, (current_language(), height))
    columns = base.columns
    editor_key = base.key
    column_config = {
        TOKEN_COLUMN: st.column_config.TextColumn(t("step.axis.token"), help=t("table.token_help")),
        **{
            name: st.column_config.TextColumn(name, help=t("table.value_help"))
            for name in columns
            if name != TOKEN_COLUMN
        },
    }
    kwargs = {"height": height} if height else {}
    if base.frame is None:  # built once per widget: its frame never changes
        rows = base.rows
        base.frame = pd.DataFrame(rows, columns=columns, index=pd.RangeIndex(1, len(rows) + 1))
    st.data_editor(
        base.frame,
        key=editor_key,
        num_rows="dynamic",
        hide_index=False,
        column_order=columns,
        column_config=column_config,
        on_change=on_table_edit,
        args=(editor_key,),
        **kwargs,
    )
    issue = table_problem()
    if issue is not None:
        st.error(with_reference(t("table.problem", detail=message(issue)), issue), icon="🚫")
