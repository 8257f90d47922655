"""The browser's side of a coloured matrix table: a small component that writes cells as text.

Why not ``st.table``: Streamlit renders every cell, index and header of a ``st.table`` as
Markdown in the browser, on every rerun, and a matrix with its legend has dozens of them, so a
seed change on a page with tables spent most of its time there (``benchmarks/README.md``, "The
app's own table component"). This component receives a
:class:`viz.table_heatmap.ColouredTable` as JSON data and builds one ``<table>`` with the DOM's
``textContent`` and ``style`` properties.

Safety: the JavaScript (``ui/components/matrix_table.js``, with ``shared.js``) is this
project's own, fixed code (Streamlit runs a component's JavaScript as trusted code). Everything
that comes from a user (token labels, a scale's name) arrives as JSON *data* and is only ever
assigned to ``textContent``: it is never parsed as HTML or Markdown, so ``<script>`` or
``**bold**`` in a label is shown exactly as typed. Colours are computed by
``viz.table_heatmap`` (``rgb(…)`` or ``#rrggbb``) and set through ``element.style``, which
ignores anything that is not a CSS colour. No ``innerHTML`` anywhere.

The numbers as CSV: a matrix table carries its CSV text (``ColouredTable.csv``, written by the
project's CSV writer: labels guarded against spreadsheet formulas); the component puts a small
"Download as CSV" link under the table, a ``data:`` URL of that text. It is part of the same
element, so it costs a rerun no element of its own.
"""

from __future__ import annotations

from viz.table_heatmap import ColouredTable

from .components import define, file_name
from .i18n import t

TABLE_CLASS = "al-matrix"  # the <table>'s class: the component's CSS and the browser tests find it

_COMPONENT = define("matrix_table", class_name=TABLE_CLASS)  # matrix_table.js, .css


def draw_table(table: ColouredTable, *, key: str, csv_label: str = "") -> None:
    """Draw ``table`` (its texts as plain text) as the element keyed from ``key``.

    ``csv_label``: the text of the link under a matrix table that downloads its numbers as CSV
    (``{key}.csv``); empty: no link.

    A component's key may not contain ``__`` (Streamlit's delimiter for its events), which the
    app's zoom windows use (``{key}__zoom``): each ``__`` becomes ``-``, so ``key`` itself may
    not hold a ``-`` (two keys could then meet). The ``al-`` prefix keeps the element's id from
    looking like a matrix container's (``matrix_…``, what the tests look for).
    """
    if "-" in key:
        raise ValueError(f"a matrix table's key has no '-': {key!r}")
    data = {
        **table.to_data(),
        "csv_label": csv_label,
        "file_name": f"{file_name(key, 'matrix')}.csv",
        "scroll_hint": t("show.scroll_hint"),
        "changed_title": t("show.changed_cell"),
    }
    _COMPONENT(data=data, key=f"{TABLE_CLASS}-{key}".replace("__", "-"))
