"""The browser's side of a coloured matrix table: a small component that writes cells as text.

Why not ``st.table``: Streamlit renders every cell, index and header of a ``st.table`` as
Markdown in the browser, on every rerun, and a matrix with its legend has dozens of them, so a
seed change on a page with tables spent most of its time there (``benchmarks/README.md``, "The
app's own table component"). This component receives a
:class:`viz.table_heatmap.ColouredTable` as JSON data and builds one ``<table>`` with the DOM's
``textContent`` and ``style`` properties.

Safety: the JavaScript below is this project's own, fixed code (Streamlit runs a component's
JavaScript as trusted code). Everything that comes from a user (token labels, a scale's name)
arrives as JSON *data* and is only ever assigned to ``textContent``: it is never parsed as HTML
or Markdown, so ``<script>`` or ``**bold**`` in a label is shown exactly as typed. Colours are
computed by ``viz.table_heatmap`` (``rgb(…)`` or ``#rrggbb``) and set through
``element.style``, which ignores anything that is not a CSS colour. No ``innerHTML`` anywhere.
"""

from __future__ import annotations

import streamlit as st

from viz.table_heatmap import ColouredTable

TABLE_CLASS = "al-matrix"  # the <table>'s class: the CSS below and the browser tests find it

_JS = """
export default function (component) {
  const { data, parentElement } = component;
  let table = parentElement.querySelector('table.__CLASS__');
  if (!table) {
    const scroller = document.createElement('div');  // a wide table scrolls, never spills over
    scroller.className = '__CLASS__-scroll';
    table = document.createElement('table');
    table.className = '__CLASS__';
    scroller.appendChild(table);
    parentElement.appendChild(scroller);
  }
  const textCell = (tag, text, scope) => {
    const cell = document.createElement(tag);
    cell.textContent = text;
    if (scope) cell.scope = scope;
    return cell;
  };
  const parts = [];
  if (data.columns.length) {
    const head = document.createElement('thead');
    const row = document.createElement('tr');
    if (data.rows.length) row.appendChild(textCell('th', data.corner, 'col'));
    for (const label of data.columns) row.appendChild(textCell('th', label, 'col'));
    head.appendChild(row);
    parts.push(head);
  }
  const body = document.createElement('tbody');
  data.cells.forEach((cells, i) => {
    const row = document.createElement('tr');
    if (data.rows.length) row.appendChild(textCell('th', data.rows[i], 'row'));
    for (const { text, background, colour, align, italic } of cells) {
      const cell = textCell('td', text);
      cell.style.backgroundColor = background;
      cell.style.color = colour;
      cell.style.textAlign = align;
      if (italic) cell.style.fontStyle = 'italic';
      row.appendChild(cell);
    }
    body.appendChild(row);
  });
  parts.push(body);
  table.replaceChildren(...parts);
  if (data.description) table.setAttribute('aria-label', data.description);
  else table.removeAttribute('aria-label');
}
""".replace("__CLASS__", TABLE_CLASS)

# Scoped to the table's class (the component shares the page's styles): Streamlit's own table
# look (labels in normal weight, but in the full text colour: Streamlit's faded header grey is
# under 4.5:1), theme colours from the component's CSS variables, numbers in tabular figures.
_CSS = f"""
div.{TABLE_CLASS}-scroll {{
  max-width: 100%;
  overflow-x: auto;
}}
table.{TABLE_CLASS} {{
  border-collapse: collapse;
  font-family: var(--st-font);
  font-size: 0.875rem;
  color: var(--st-text-color);
  font-variant-numeric: tabular-nums;
  margin-bottom: 0.5rem;
}}
table.{TABLE_CLASS} th, table.{TABLE_CLASS} td {{
  border: 1px solid var(--st-dataframe-border-color, var(--st-border-color, rgba(49, 51, 63, 0.2)));
  padding: 0.25rem 0.5rem;
  white-space: nowrap;
}}
table.{TABLE_CLASS} th {{
  font-weight: 400;
  text-align: left;
}}
"""

_COMPONENT = st.components.v2.component(
    "attention_lab.matrix_table", js=_JS, css=_CSS, isolate_styles=False
)


def draw_table(table: ColouredTable, *, key: str) -> None:
    """Draw ``table`` (its texts as plain text) as the element keyed from ``key``.

    A component's key may not contain ``__`` (Streamlit's delimiter for its events), which the
    app's zoom windows use (``{key}__zoom``): each ``__`` becomes ``-``, so ``key`` itself may
    not hold a ``-`` (two keys could then meet). The ``al-`` prefix keeps the element's id from
    looking like a matrix container's (``matrix_…``, what the tests look for).
    """
    if "-" in key:
        raise ValueError(f"a matrix table's key has no '-': {key!r}")
    _COMPONENT(data=table.to_data(), key=f"{TABLE_CLASS}-{key}".replace("__", "-"))
