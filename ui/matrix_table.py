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

The numbers as CSV: a matrix table carries its CSV text (``ColouredTable.csv``, written by the
project's CSV writer: labels guarded against spreadsheet formulas); the component puts a small
"Download as CSV" link under the table, a ``data:`` URL of that text. It is part of the same
element, so it costs a rerun no element of its own.
"""

from __future__ import annotations

import re

import streamlit as st

from viz.table_heatmap import ColouredTable

from .i18n import t

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
    const hint = document.createElement('div');  // said only while the table must scroll
    hint.className = '__CLASS__-hint';
    hint.hidden = true;
    parentElement.appendChild(scroller);
    parentElement.appendChild(hint);
    const update = () => {
      // the column holding the table is at least as wide as its widest table (at most its row)
      const column = parentElement.closest('[data-testid="stColumn"]');
      if (column && column.parentElement) {
        const widths = Array.from(column.querySelectorAll('table.__CLASS__'), (t) => t.scrollWidth);
        const widest = Math.min(Math.max(0, ...widths), column.parentElement.clientWidth);
        const wanted = widest + 'px';
        if (column.style.minWidth !== wanted) column.style.minWidth = wanted;
      }
      hint.hidden = !(scroller.scrollWidth > scroller.clientWidth + 1);
    };
    const observer = new ResizeObserver(update);
    observer.observe(scroller);
    observer.observe(table);  // a table that shrinks (a smaller font) lets its column shrink
    const row = parentElement.closest('[data-testid="stHorizontalBlock"]');
    if (row) observer.observe(row);
    scroller.__alUpdate = update;
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
    for (const { text, background, colour, align, italic, marked } of cells) {
      const cell = textCell('td', text);
      cell.style.backgroundColor = background;
      cell.style.color = colour;
      cell.style.textAlign = align;
      if (italic) cell.style.fontStyle = 'italic';
      if (marked) {
        cell.className = '__CLASS__-changed';
        cell.title = data.changed_title || '';
      }
      row.appendChild(cell);
    }
    body.appendChild(row);
  });
  parts.push(body);
  table.replaceChildren(...parts);
  if (data.description) table.setAttribute('aria-label', data.description);
  else table.removeAttribute('aria-label');
  let link = parentElement.querySelector('a.__CLASS__-csv');
  if (data.csv && data.csv_label) {
    if (!link) {
      link = document.createElement('a');
      link.className = '__CLASS__-csv';
      parentElement.appendChild(link);
    }
    link.textContent = data.csv_label;
    link.download = data.file_name;
    // a byte-order mark first, as every CSV of the app (spreadsheets then read UTF-8)
    link.href = 'data:text/csv;charset=utf-8,' + encodeURIComponent('\ufeff' + data.csv);
  } else if (link) {
    link.remove();
  }
  const hint = parentElement.querySelector('.__CLASS__-hint');
  if (hint) hint.textContent = data.scroll_hint || '';
  const scroller = parentElement.querySelector('.__CLASS__-scroll');
  if (scroller && scroller.__alUpdate) scroller.__alUpdate();
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
a.{TABLE_CLASS}-csv {{
  display: inline-block;
  font-family: var(--st-font);
  font-size: 0.8rem;
  color: var(--st-text-color);
  margin-bottom: 0.5rem;
}}
table.{TABLE_CLASS} td.{TABLE_CLASS}-changed {{
  box-shadow: inset 0 0 0 2px #000000, inset 0 0 0 4px #ffffff;  /* seen on any colour */
}}
table.{TABLE_CLASS} thead th:first-child {{
  white-space: normal;  /* the corner breaks between its two axis titles, never inside one */
  word-break: keep-all;
}}
div.{TABLE_CLASS}-hint {{
  font-size: 0.8rem;
  color: var(--st-text-color);
  opacity: 0.8;
  margin: -0.25rem 0 0.5rem 0;
}}
/* Columns holding a matrix table are never narrower than the table: they wrap onto a new line
   instead of cutting it (a table still scrolls, with its hint, when even a full row is too
   narrow, as on a phone). */
[data-testid="stHorizontalBlock"]:has(table.{TABLE_CLASS}) {{
  flex-wrap: wrap;
}}
[data-testid="stHorizontalBlock"]:has(table.{TABLE_CLASS}) > [data-testid="stColumn"] {{
  min-width: min(100%, 14rem);
}}
"""

_COMPONENT = st.components.v2.component(
    "attention_lab.matrix_table", js=_JS, css=_CSS, isolate_styles=False
)


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
        "file_name": f"{_file_name(key)}.csv",
        "scroll_hint": t("show.scroll_hint"),
        "changed_title": t("show.changed_cell"),
    }
    _COMPONENT(data=data, key=f"{TABLE_CLASS}-{key}".replace("__", "-"))


def _file_name(key: str) -> str:
    """A file name from a table's key: letters, digits, ``_`` and ``-`` only."""
    return re.sub(r"[^A-Za-z0-9_-]+", "_", key).strip("_") or "matrix"
