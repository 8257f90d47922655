"""The browser's side of a matrix at every size: a component that writes cells as text.

A small matrix is a coloured table of its numbers, a larger one a picture with its values under
the pointer; its legend row (and CSV or PNG link) follows in the same element. Not ``st.table``:
Streamlit renders each of its cells as Markdown in the browser on every rerun.

Safety: the component's JavaScript is the project's own; user text (token labels, names)
arrives as JSON data and is only assigned to ``textContent`` (never parsed as HTML or
Markdown), colours only through ``element.style``. No ``innerHTML`` anywhere.
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

    ``csv_label``: the text of the link that downloads ``{key}.csv``; empty: no link.
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
    """Draw ``title``, ``image`` (a large matrix's picture, values under the pointer), ``legend``.

    ``png_label``: the text of the link that downloads ``{key}.png`` (for a slide); empty: no link.
    """
    data = {"image": image.to_data(), "png_label": png_label, "title": title}
    _draw({**data, "png_name": f"{file_name(key, 'matrix')}.png"}, legend, key=key, prefix=prefix)


def _draw(data: dict[str, object], legend: ColouredTable | None, *, key: str, prefix: str) -> None:
    """One element keyed ``{prefix}{key}`` (its class ``st-key-{prefix}{key}``).

    A component key may not hold ``__`` (Streamlit's event delimiter): each becomes ``-``.
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
