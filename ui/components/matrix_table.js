// The browser's side of a matrix (ui/matrix_table.py), at every size: its title, a <table> of
// coloured numbers while it fits, else a picture (one colour per cell, the value under the
// pointer), then its legend row, a "Download as CSV" link and a note. Every text is set as
// textContent.
// `__CLASS__` is the table's class (ui.matrix_table.TABLE_CLASS), put in as the file is loaded.

// A table's parts: a scroller (a wide table scrolls, never spills over), the table of class
// `className`, and a hint said only while it must scroll; put before `before` (or last), created
// once per element, then rewritten in place.
function mountTable(parentElement, className, before) {
  const scroller = htmlNode(null, 'div', { className: '__CLASS__-scroll' });
  const table = htmlNode(scroller, 'table', { className });
  const hint = htmlNode(null, 'div', { className: '__CLASS__-hint', hidden: true });
  parentElement.insertBefore(scroller, before || null);
  parentElement.insertBefore(hint, before || null);
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
function tableParts(data, changedTitle) {
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
        cell.title = changedTitle || '';
      }
      row.appendChild(cell);
    }
  });
  parts.push(body);
  return parts;
}

// `table` (a <table>) written from `data` (a ColouredTable's), with its screen reader's label.
function fillTable(table, data, changedTitle) {
  table.replaceChildren(...tableParts(data, changedTitle));
  if (data.description) table.setAttribute('aria-label', data.description);
  else table.removeAttribute('aria-label');
}

// A number as the page writes it: `decimals` places, a typographic minus, never −0.
function formatNumber(value, decimals) {
  if (value === null || value === undefined) return '—';
  let text = value.toFixed(decimals);
  if (Number(text) === 0) text = text.replace('-', '');
  return text.replace('-', '\u2212');
}

// What the pointer's cell (or block of cells) says: names, positions and numbers, line by line.
function hoverText(image, i, j) {
  const hover = image.hover;
  if (image.block[0] === 1 && image.block[1] === 1) {
    const state = hover.states[i][j];
    let value = { h: hover.hidden, d: hover.dropped, 1: hover.yes, 0: hover.no }[state];
    if (value === undefined) {
      value = formatNumber(hover.values[i][j], hover.decimals);
      if (hover.before) {
        value += ' = ' + formatNumber(hover.before[i][j], hover.decimals) + ' × ' + hover.scale;
      }
    }
    return [
      hover.row_title + ': ' + hover.row_labels[i],
      hover.col_title + ': ' + hover.col_labels[j],
      hover.value_name + ': ' + value,
    ].join('\n');
  }
  const [rowsPer, colsPer] = image.block;
  const span = (index, size, count) =>
    index * size + 1 + '–' + Math.min(count, (index + 1) * size);
  const [mean, min, max, masked] = hover.words;
  const number = (grid) => formatNumber(grid[i][j], hover.decimals);
  return [
    hover.rows + ': ' + span(i, rowsPer, image.rows),
    hover.columns + ': ' + span(j, colsPer, image.cols),
    hover.value_name + ': ' + mean + ' ' + number(hover.mean),
    min + ' ' + number(hover.min) + ', ' + max + ' ' + number(hover.max),
    masked + ': ' + hover.masked[i][j],
  ].join('\n');
}

// The picture's parts, created once per element: axis titles, ticks, the image and its tip.
function mountPicture(parentElement) {
  const box = htmlNode(null, 'div', { className: '__CLASS__-picture' });
  const parts = {
    box,
    colTitle: htmlNode(box, 'div', { className: '__CLASS__-col-title' }),
    colTicks: htmlNode(box, 'div', { className: '__CLASS__-col-ticks' }),
    rowTitle: htmlNode(box, 'div', { className: '__CLASS__-row-title' }),
    rowTicks: htmlNode(box, 'div', { className: '__CLASS__-row-ticks' }),
    plot: htmlNode(box, 'div', { className: '__CLASS__-plot' }),
  };
  parts.image = htmlNode(parts.plot, 'img', { className: '__CLASS__-image', alt: '' });
  parts.tip = htmlNode(parts.plot, 'div', { className: '__CLASS__-tip', hidden: true });
  parentElement.prepend(box);
  parts.image.addEventListener('pointermove', (event) => {
    const image = box.__alImage;
    const bounds = parts.image.getBoundingClientRect();
    const row = Math.floor(((event.clientY - bounds.top) / bounds.height) * image.rows);
    const col = Math.floor(((event.clientX - bounds.left) / bounds.width) * image.cols);
    if (row < 0 || col < 0 || row >= image.rows || col >= image.cols) return;
    const i = Math.floor(row / image.block[0]);
    const j = Math.floor(col / image.block[1]);
    parts.tip.textContent = hoverText(image, i, j);
    parts.tip.hidden = false;
    const x = event.clientX - bounds.left;
    const y = event.clientY - bounds.top;
    // the tip sits beside the pointer, on the side with more room
    parts.tip.style.left = x < bounds.width / 2 ? x + 14 + 'px' : '';
    parts.tip.style.right = x < bounds.width / 2 ? '' : bounds.width - x + 14 + 'px';
    parts.tip.style.top = y + 14 + 'px';
  });
  parts.image.addEventListener('pointerleave', () => {
    parts.tip.hidden = true;
  });
  const resize = () => sizePicture(parts, box.__alImage);
  observeResize(resize, parentElement);
  box.__alParts = parts;
  return box;
}

// The image's size: square cells as wide as the element allows, at most 512 px a side, and
// never so flat or narrow that a row or column cannot be pointed at.
function sizePicture(parts, image) {
  if (!image) return;
  const gutter = parts.rowTicks.offsetWidth + parts.rowTitle.offsetWidth + 8;
  const room = Math.max(120, parts.box.clientWidth - gutter);
  let width = Math.min(room, 512);
  let height = (width * image.rows) / image.cols;
  if (height > 512) {
    height = 512;
    width = Math.min(room, Math.max((512 * image.cols) / image.rows, image.cols * 16));
  }
  height = Math.max(height, Math.min(image.rows * 16, 160));
  parts.image.style.width = Math.round(width) + 'px';
  parts.image.style.height = Math.round(height) + 'px';
}

// Ticks along one axis: each text at its cell's centre (a percentage of the image's side).
function fillTicks(element, ticks, count, vertical) {
  element.replaceChildren(
    ...ticks.map(([position, text]) => {
      const tick = htmlNode(null, 'span', {}, text);
      const share = (position + 0.5) / count;
      tick.style[vertical ? 'top' : 'left'] = share * 100 + '%';
      // centred on its cell, slid inwards near an end: the first and last ticks stay inside
      const shift = -share * 100 + '%';
      tick.style.transform = vertical ? `translateY(${shift})` : `translateX(${shift})`;
      return tick;
    }),
  );
}

function drawPicture(parentElement, image) {
  const box = parentElement.querySelector('div.__CLASS__-picture') || mountPicture(parentElement);
  const parts = box.__alParts;
  box.__alImage = image;
  parts.image.src = image.source;
  parts.image.setAttribute('role', 'img');
  parts.image.setAttribute('aria-label', image.description || '');
  parts.colTitle.textContent = image.col_title;
  parts.rowTitle.textContent = image.row_title;
  fillTicks(parts.colTicks, image.col_ticks, image.cols, false);
  fillTicks(parts.rowTicks, image.row_ticks, image.rows, true);
  parts.tip.hidden = true;
  sizePicture(parts, image);
}

// The link under a table that downloads its numbers as CSV, or under a picture that downloads
// it as PNG (none without a label).
function downloadLink(parentElement, data) {
  let link = parentElement.querySelector('a.__CLASS__-csv');
  const csv = data.table ? data.table.csv : '';
  const label = data.image ? data.png_label : csv && data.csv_label;
  if (!label) {
    if (link) link.remove();
    return;
  }
  if (!link) link = htmlNode(parentElement, 'a', { className: '__CLASS__-csv' });
  if (data.image) {
    setDownload(link, label, data.png_name);
    link.href = data.image.source; // the picture's own PNG, a data: URL already
  } else {
    setDownload(link, label, data.file_name);
    // a byte-order mark first, as every CSV of the app (spreadsheets then read UTF-8)
    link.href = dataUrl('text/csv', '\ufeff' + csv);
  }
}

// The legend row (a table of its own, after the matrix, scrolling when too wide), or none.
function legendTable(parentElement, data) {
  let legend = parentElement.querySelector('table.__CLASS__-legend');
  if (!data.legend) {
    if (legend) {
      legend.parentElement.nextElementSibling.remove(); // its hint
      legend.parentElement.remove();
    }
    return;
  }
  if (!legend) {
    const link = parentElement.querySelector('a.__CLASS__-csv');
    legend = mountTable(parentElement, '__CLASS__ __CLASS__-legend', link);
  }
  fillTable(legend, data.legend, '');
}

// A paragraph of this element (its title first, its note last), or none without a text.
function paragraph(parentElement, className, text, first) {
  let node = parentElement.querySelector('p.' + className);
  if (!text) {
    if (node) node.remove();
    return;
  }
  if (!node) {
    node = htmlNode(null, 'p', { className });
    parentElement.insertBefore(node, first ? parentElement.firstElementChild : null);
  }
  node.textContent = text;
}

export default function (component) {
  const { data, parentElement } = component;
  // a rerun that sends the same matrix (a setting it does not depend on) changes nothing here
  const sent = JSON.stringify(data);
  if (parentElement.__alSent === sent) return;
  parentElement.__alSent = sent;
  const mode = data.image ? 'picture' : 'table';
  if (parentElement.__alMode !== mode) {
    // a matrix that grew into a picture, or shrank into a table: this file's nodes go (the
    // element also holds Streamlit's own, such as the component's <style>)
    for (const node of [...parentElement.children]) {
      if (String(node.className).startsWith('__CLASS__')) node.remove();
    }
    parentElement.__alMode = mode;
  }
  if (data.image) {
    drawPicture(parentElement, data.image);
  } else {
    const table =
      parentElement.querySelector('table.__CLASS__:not(.__CLASS__-legend)') ||
      mountTable(parentElement, '__CLASS__', parentElement.firstElementChild);
    fillTable(table, data.table, data.changed_title);
  }
  downloadLink(parentElement, data);
  legendTable(parentElement, data);
  paragraph(parentElement, '__CLASS__-title', data.title, true);
  paragraph(parentElement, '__CLASS__-note', data.note, false);
  for (const hint of parentElement.querySelectorAll('.__CLASS__-hint')) {
    hint.textContent = data.scroll_hint || '';
  }
  for (const scroller of parentElement.querySelectorAll('.__CLASS__-scroll')) {
    if (scroller.__alUpdate) scroller.__alUpdate();
  }
}
