"""The browser's side of a matrix at every size: a component that writes cells as text.

A matrix small enough to read is a coloured table of its numbers; a larger one is a picture
(:class:`viz.image_heatmap.MatrixImage`: a PNG of one colour per cell or block, its axes, and the
values the pointer shows); either way its legend row follows in the same element.

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

from viz.image_heatmap import MatrixImage
from viz.table_heatmap import ColouredTable

from .components import define, file_name
from .i18n import t

TABLE_CLASS = "al-matrix"  # the <table>'s class: the component's CSS and the browser tests find it

_COMPONENT = define("matrix_table", class_name=TABLE_CLASS)  # matrix_table.js, .css
PREFIX = f"{TABLE_CLASS}-"  # a table's element key: its own; a matrix's (ui.show): MATRIX_PREFIX
MATRIX_PREFIX = "matrix_"


def draw_table(
    table: ColouredTable,
    *,
    key: str,
    csv_label: str = "",
    legend: ColouredTable | None = None,
    title: str = "",
    note: str = "",
    prefix: str = PREFIX,
) -> None:
    """Draw ``title``, ``table``, ``legend`` and ``note`` (all as plain text) as one element.

    ``csv_label``: the text of the link under a matrix table that downloads its numbers as CSV
    (``{key}.csv``); empty: no link.
    """
    data = {"table": table.to_data(), "csv_label": csv_label, "title": title, "note": note}
    _draw(data, legend, key=key, prefix=prefix)


def draw_image(
    image: MatrixImage,
    *,
    key: str,
    legend: ColouredTable | None = None,
    png_label: str = "",
    title: str = "",
    prefix: str = PREFIX,
) -> None:
    """Draw ``title``, ``image`` (a large matrix's picture, its value under the pointer), ``legend``.

    ``png_label``: the text of the link under it that downloads the picture (``{key}.png``, one
    pixel per cell or block, for a slide); empty: no link.
    """
    data = {"image": image.to_data(), "png_label": png_label, "title": title}
    _draw({**data, "png_name": f"{file_name(key, 'matrix')}.png"}, legend, key=key, prefix=prefix)


def _draw(data: dict[str, object], legend: ColouredTable | None, *, key: str, prefix: str) -> None:
    """One element keyed ``{prefix}{key}`` (its class ``st-key-{prefix}{key}``).

    A component's key may not contain ``__`` (Streamlit's delimiter for its events), which the
    app's zoom windows use (``{key}__zoom``): each ``__`` becomes ``-``, so ``key`` itself may
    not hold a ``-`` (two keys could then meet).
    """
    if "-" in key:
        raise ValueError(f"a matrix table's key has no '-': {key!r}")
    data = {
        **data,
        "legend": None if legend is None else legend.to_data(),
        "file_name": f"{file_name(key, 'matrix')}.csv",
        "scroll_hint": t("show.scroll_hint"),
        "changed_title": t("show.changed_cell"),
    }
    _COMPONENT(data=data, key=f"{prefix}{key}".replace("__", "-"))
