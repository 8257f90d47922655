// The browser's side of a matrix table (ui/matrix_table.py): one <table> written from a
// ColouredTable's data, every label and cell as textContent, a "Download as CSV" link under it.
// `__CLASS__` is the table's class (ui.matrix_table.TABLE_CLASS), put in as the file is loaded.

// The table's parts: a scroller (a wide table scrolls, never spills over), the table, and a hint
// said only while it must scroll; created once per element, then rewritten in place.
function mount(parentElement) {
  const scroller = htmlNode(null, 'div', { className: '__CLASS__-scroll' });
  const table = htmlNode(scroller, 'table', { className: '__CLASS__' });
  const hint = htmlNode(null, 'div', { className: '__CLASS__-hint', hidden: true });
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
  // a table that shrinks (a smaller font) lets its column shrink
  const row = parentElement.closest('[data-testid="stHorizontalBlock"]');
  observeResize(update, scroller, table, row);
  scroller.__alUpdate = update;
  return table;
}

function textCell(tag, text, scope) {
  return htmlNode(null, tag, scope ? { scope } : {}, text);
}

// The corner: its axis titles as inline blocks (viz/table_heatmap.py, corner_parts), so it
// breaks between the titles first, then between words, and always fits its column.
function cornerCell(parts) {
  const cell = textCell('th', null, 'col');
  parts.forEach((part, index) => {
    if (index) cell.appendChild(document.createTextNode(' '));
    htmlNode(cell, 'span', { className: '__CLASS__-axis' }, part);
  });
  return cell;
}

// The <thead> (when there are column labels) and the <tbody> of `data`.
function tableParts(data) {
  const parts = [];
  if (data.columns.length) {
    const head = document.createElement('thead');
    const row = htmlNode(head, 'tr');
    if (data.rows.length) row.appendChild(cornerCell(data.corner_parts || [data.corner]));
    for (const label of data.columns) row.appendChild(textCell('th', label, 'col'));
    parts.push(head);
  }
  const body = document.createElement('tbody');
  data.cells.forEach((cells, i) => {
    const row = htmlNode(body, 'tr');
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
  });
  parts.push(body);
  return parts;
}

// The link under the table that downloads its numbers as CSV (none without a label).
function csvLink(parentElement, data) {
  let link = parentElement.querySelector('a.__CLASS__-csv');
  if (data.csv && data.csv_label) {
    if (!link) link = htmlNode(parentElement, 'a', { className: '__CLASS__-csv' });
    setDownload(link, data.csv_label, data.file_name);
    // a byte-order mark first, as every CSV of the app (spreadsheets then read UTF-8)
    link.href = dataUrl('text/csv', '\ufeff' + data.csv);
  } else if (link) {
    link.remove();
  }
}

export default function (component) {
  const { data, parentElement } = component;
  const table = parentElement.querySelector('table.__CLASS__') || mount(parentElement);
  table.replaceChildren(...tableParts(data));
  if (data.description) table.setAttribute('aria-label', data.description);
  else table.removeAttribute('aria-label');
  csvLink(parentElement, data);
  const hint = parentElement.querySelector('.__CLASS__-hint');
  if (hint) hint.textContent = data.scroll_hint || '';
  const scroller = parentElement.querySelector('.__CLASS__-scroll');
  if (scroller && scroller.__alUpdate) scroller.__alUpdate();
}
