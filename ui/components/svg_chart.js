// The browser's side of a small chart (ui/svg_chart.py): one <svg> built from a
// viz.svg_chart.Chart's data. Ticks, ranges and texts were decided in Python; this maps data to
// pixels, lays out texts (the title wrapped, the legend below the plots, panels stacked when the
// element is narrow) and redraws in place when the data or the element's width changes. Every
// text is set as textContent or an attribute value. `__CLASS__` is the chart's class
// (ui.svg_chart.CHART_CLASS), put in as the file is loaded.

const FONT = 12;
const MIN_PANEL = 260;  // px: narrower panels are stacked, one under another

function tip(node, text) {
  if (text) svgNode(node, 'title', {}, text);
  return node;
}

const DASH = { solid: null, dash: '6 4', dot: '2 3' };

function measure(svg, text, size, weight) {
  const probe = svgNode(svg, 'text', { 'font-size': size, 'font-weight': weight || null }, text);
  const width = probe.getComputedTextLength();
  probe.remove();
  return width;
}

// Lines of at most `width` px: break at spaces, or between the characters of a longer word (CJK).
function wrap(svg, text, size, width, weight) {
  if (!text) return [];
  const lines = [];
  let line = '';
  const fits = (piece) => measure(svg, piece, size, weight) <= width;
  for (const word of text.split(' ')) {
    const joined = line ? line + ' ' + word : word;
    if (fits(joined)) { line = joined; continue; }
    if (line) { lines.push(line); line = ''; }
    if (fits(word)) { line = word; continue; }
    for (const char of Array.from(word)) {
      if (line && !fits(line + char)) { lines.push(line); line = ''; }
      line += char;
    }
  }
  if (line) lines.push(line);
  return lines;
}

function scaleOf(axis, low, high) {
  const f = axis.log ? Math.log10 : (v) => v;
  const a = f(axis.range[0]);
  const b = f(axis.range[1]);
  return (v) => low + ((f(v) - a) / (b - a)) * (high - low);
}

function draw(root) {
  const data = root.__alData;
  const svg = root.querySelector('svg.__CLASS__');
  const width = Math.floor(root.clientWidth);
  if (!data || !svg || width < 40) return;
  if (root.__alDrawn === data && root.__alWidth === width) return;
  root.__alDrawn = data;
  root.__alWidth = width;
  const { ink, paper, font } = themeOf(root);
  svg.replaceChildren();
  svg.setAttribute('width', width);
  svg.setAttribute('font-family', font);
  svg.setAttribute('font-size', FONT);
  svg.setAttribute('fill', ink);
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', data.description || '');
  let y = 0;
  for (const line of wrap(svg, data.title, 14, width - 4, 600)) {
    y += 18;
    svgNode(svg, 'text', { x: 2, y: y, 'font-size': 14, 'font-weight': 600 }, line);
  }
  if (data.title) y += 8;
  const count = data.panels.length;
  const across = count > 1 && width / count < MIN_PANEL ? 1 : count;
  const gap = across > 1 ? 16 : 0;
  const slot = (width - gap * (across - 1)) / across;
  let rowTop = y;
  let rowHeight = 0;
  data.panels.forEach((panel, index) => {
    const column = index % across;
    if (column === 0 && index > 0) { rowTop += rowHeight + 12; rowHeight = 0; }
    const used = drawPanel(svg, panel, index, column * (slot + gap), rowTop, slot, data.height, ink, paper);
    rowHeight = Math.max(rowHeight, used);
  });
  y = rowTop + rowHeight;
  y = drawLegend(svg, data.legend || [], y + 6, width, ink);
  svg.setAttribute('height', Math.ceil(y + 4));
  svg.setAttribute('viewBox', '0 0 ' + width + ' ' + Math.ceil(y + 4));
}

function drawPanel(svg, panel, index, left, top, width, plotHeight, ink, paper) {
  const group = svgNode(svg, 'g', { class: '__CLASS__-panel', 'data-panel': index });
  let y = top;
  for (const line of wrap(svg, panel.title, 13, width - 4, 600)) {
    y += 16;
    svgNode(group, 'text', { x: left + width / 2, y: y, 'text-anchor': 'middle', 'font-size': 13, 'font-weight': 600 }, line);
  }
  if (panel.title) y += 6;
  const yLabels = panel.y.tick_labels.map((label) => measure(svg, label, FONT));
  const yTitle = panel.y.title ? 18 : 0;
  let plotLeft = left + yTitle + Math.max(0, ...yLabels) + 8;
  const xWidths = panel.x.tick_labels.map((label) => measure(svg, label, FONT));
  const overhang = xWidths.length ? xWidths[xWidths.length - 1] / 2 + 2 : 0;  // the last label's half
  let plotWidth = Math.max(40, left + width - plotLeft - Math.max(8, overhang));
  const xScaleProbe = scaleOf(panel.x, 0, plotWidth);
  const spacing = panel.x.ticks.length > 1 ? Math.abs(xScaleProbe(panel.x.ticks[1]) - xScaleProbe(panel.x.ticks[0])) : plotWidth;
  const widest = Math.max(0, ...xWidths);
  const turn = widest > spacing - 4;
  const reach = turn ? widest * 0.71 + 4 - spacing / 2 : 0;  // a turned first label reaches left
  if (plotLeft - left < reach) {
    plotWidth -= reach - (plotLeft - left);
    plotLeft = left + reach;
  }
  const tickSpace = turn ? widest * 0.71 + FONT : FONT + 6;
  let plotH = plotHeight;
  const plotTop = y + 6;
  let originX = plotLeft;
  if (panel.equal_aspect) {
    const xs = panel.x.range[1] - panel.x.range[0];
    const ys = panel.y.range[1] - panel.y.range[0];
    const unit = Math.min(plotWidth / xs, plotH / ys);
    const drawnWidth = xs * unit;
    originX = plotLeft + (plotWidth - drawnWidth) / 2;
    plotWidth = drawnWidth;
    plotH = ys * unit;
  }
  const X = scaleOf(panel.x, originX, originX + plotWidth);
  const Y = scaleOf(panel.y, plotTop + plotH, plotTop);
  const plot = svgNode(group, 'g', {
    class: '__CLASS__-plot',
    'data-left': originX, 'data-top': plotTop, 'data-width': plotWidth, 'data-height': plotH,
    'data-x-range': panel.x.range.join(' '), 'data-y-range': panel.y.range.join(' '),
    'data-x-log': panel.x.log ? 1 : 0, 'data-y-log': panel.y.log ? 1 : 0,
  });
  const grid = svgNode(plot, 'g', { stroke: ink, 'stroke-width': 1 });
  for (const v of panel.x.minor) svgNode(grid, 'line', { x1: X(v), x2: X(v), y1: plotTop, y2: plotTop + plotH, 'stroke-opacity': 0.05 });
  for (const v of panel.y.minor) svgNode(grid, 'line', { x1: originX, x2: originX + plotWidth, y1: Y(v), y2: Y(v), 'stroke-opacity': 0.05 });
  for (const v of panel.x.ticks) svgNode(grid, 'line', { x1: X(v), x2: X(v), y1: plotTop, y2: plotTop + plotH, 'stroke-opacity': 0.1 });
  for (const v of panel.y.ticks) svgNode(grid, 'line', { x1: originX, x2: originX + plotWidth, y1: Y(v), y2: Y(v), 'stroke-opacity': 0.1 });
  const inside = (axis, v) => v >= Math.min(...axis.range) && v <= Math.max(...axis.range);
  if (panel.x.zero_line && inside(panel.x, 0)) svgNode(grid, 'line', { x1: X(0), x2: X(0), y1: plotTop, y2: plotTop + plotH, 'stroke-opacity': 0.45 });
  if (panel.y.zero_line && inside(panel.y, 0)) svgNode(grid, 'line', { x1: originX, x2: originX + plotWidth, y1: Y(0), y2: Y(0), 'stroke-opacity': 0.45 });
  svgNode(plot, 'rect', { x: originX, y: plotTop, width: plotWidth, height: plotH, fill: 'none', stroke: ink, 'stroke-opacity': 0.35 });
  const ticks = svgNode(group, 'g', { class: '__CLASS__-ticks' });
  panel.y.ticks.forEach((v, k) => {
    svgNode(ticks, 'text', { x: originX - 5, y: Y(v) + 4, 'text-anchor': 'end' }, panel.y.tick_labels[k]);
  });
  panel.x.ticks.forEach((v, k) => {
    const tx = X(v);
    const ty = plotTop + plotH + FONT + 3;
    const attrs = turn
      ? { x: tx, y: ty - 2, 'text-anchor': 'end', transform: 'rotate(-45 ' + tx + ' ' + (ty - 6) + ')' }
      : { x: tx, y: ty, 'text-anchor': 'middle' };
    svgNode(ticks, 'text', attrs, panel.x.tick_labels[k]);
  });
  let bottom = plotTop + plotH + tickSpace;
  for (const line of wrap(svg, panel.x.title, FONT, plotWidth, 400)) {
    bottom += FONT + 4;
    svgNode(group, 'text', { x: originX + plotWidth / 2, y: bottom, 'text-anchor': 'middle' }, line);
  }
  if (panel.y.title) {
    const cx = left + 12;
    const cy = plotTop + plotH / 2;
    const text = svgNode(group, 'text', { x: cx, y: cy, 'text-anchor': 'middle', transform: 'rotate(-90 ' + cx + ' ' + cy + ')' }, panel.y.title);
    if (text.getComputedTextLength() > plotH) text.setAttribute('textLength', plotH);
    if (text.getComputedTextLength() > plotH) text.setAttribute('lengthAdjust', 'spacingAndGlyphs');
  }
  const clipId = svg.id + '-clip-' + index;
  const clip = svgNode(svgNode(group, 'defs'), 'clipPath', { id: clipId });
  svgNode(clip, 'rect', { x: originX - 6, y: plotTop - 6, width: plotWidth + 12, height: plotH + 12 });
  const layer = svgNode(group, 'g', { 'clip-path': 'url(#' + clipId + ')' });
  const labels = svgNode(group, 'g', {});
  for (const series of panel.series) drawSeries(series, layer, labels, X, Y, { originX, plotTop, plotWidth, plotH, ink, paper });
  return bottom - top + 4;
}

function linePath(xs, ys, X, Y) {
  let d = '';
  let open = false;
  xs.forEach((x, k) => {
    const v = ys[k];
    if (v === null || v === undefined) { open = false; return; }
    d += (open ? 'L' : 'M') + X(x).toFixed(2) + ' ' + Y(v).toFixed(2);
    open = true;
  });
  return d;
}

function star(cx, cy, r) {
  const points = [];
  for (let k = 0; k < 10; k++) {
    const radius = k % 2 ? r * 0.45 : r;
    const angle = -Math.PI / 2 + (k * Math.PI) / 5;
    points.push((cx + radius * Math.cos(angle)).toFixed(2) + ',' + (cy + radius * Math.sin(angle)).toFixed(2));
  }
  return points.join(' ');
}

function marker(parent, symbol, cx, cy, r, color, opacity, hover) {
  let node;
  if (symbol === 'star') node = svgNode(parent, 'polygon', { points: star(cx, cy, r), fill: color, 'fill-opacity': opacity });
  else if (symbol === 'ring') {
    node = svgNode(parent, 'g', {});
    svgNode(node, 'circle', { cx, cy, r, fill: 'none', stroke: color, 'stroke-width': 2 });
    svgNode(node, 'circle', { cx, cy, r: 2, fill: color });
  } else node = svgNode(parent, 'circle', { cx, cy, r, fill: color, 'fill-opacity': opacity });
  return tip(node, hover);
}

function drawSeries(s, layer, labels, X, Y, box) {
  if (s.kind === 'line') {
    const g = svgNode(layer, 'g', { class: '__CLASS__-line', opacity: s.opacity });
    svgNode(g, 'path', { d: linePath(s.x, s.y, X, Y), fill: 'none', stroke: s.color, 'stroke-width': s.width, 'stroke-dasharray': DASH[s.dash], 'stroke-linejoin': 'round' });
    s.x.forEach((x, k) => {
      const v = s.y[k];
      if (v === null || v === undefined) return;
      const r = s.markers.length ? s.markers[k] : 0;
      const hover = s.hover[k] || '';
      if (r > 0) marker(g, 'circle', X(x), Y(v), r, s.color, 1, hover);
      else if (hover) tip(svgNode(g, 'circle', { cx: X(x), cy: Y(v), r: 4, fill: s.color, 'fill-opacity': 0 }), hover);
    });
  } else if (s.kind === 'bars') {
    const g = svgNode(layer, 'g', { class: '__CLASS__-bars' });
    const base = Y(0);
    s.x.forEach((x, k) => {
      const left = X(x - s.width / 2);
      const right = X(x + s.width / 2);
      const top = Y(s.y[k]);
      const bar = svgNode(g, 'rect', { x: left, y: Math.min(top, base), width: Math.max(0, right - left), height: Math.abs(base - top), fill: s.colors[k] });
      tip(bar, s.hover[k]);
      const text = s.texts[k];
      if (text) {
        const below = s.y[k] < 0;
        const cx = (left + right) / 2;
        const node = svgNode(labels, 'text', { x: cx, y: below ? top + FONT + 2 : top - 4, 'text-anchor': 'middle', fill: s.text_colors[k] || null, 'font-size': 11 }, text);
        const half = (s.text_room || s.width) / 2;
        if (node.getComputedTextLength() > X(x + half) - X(x - half)) {  // no room across: upright
          const ty = below ? top + 4 : top - 4;
          node.setAttribute('x', cx + 4);
          node.setAttribute('y', ty);
          node.setAttribute('text-anchor', below ? 'end' : 'start');
          node.setAttribute('transform', 'rotate(-90 ' + (cx + 4) + ' ' + ty + ')');
        }
        tip(node, s.hover[k]);
      }
    });
  } else if (s.kind === 'arrow') {
    const g = svgNode(layer, 'g', { class: '__CLASS__-arrow', opacity: s.opacity });
    const x0 = X(s.start[0]), y0 = Y(s.start[1]), x1 = X(s.end[0]), y1 = Y(s.end[1]);
    const length = Math.hypot(x1 - x0, y1 - y0);
    const head = Math.min(s.head, length * 0.6);
    const ux = length ? (x1 - x0) / length : 0, uy = length ? (y1 - y0) / length : 0;
    const shaft = head > 0 ? Math.max(0, length - head * 0.8) : length;
    svgNode(g, 'line', { x1: x0, y1: y0, x2: x0 + ux * shaft, y2: y0 + uy * shaft, stroke: s.color, 'stroke-width': s.width, 'stroke-dasharray': DASH[s.dash] });
    if (head > 0 && length > 0) {
      const wing = head * 0.5 + s.width / 2;
      const bx = x1 - ux * head, by = y1 - uy * head;
      svgNode(g, 'polygon', { points: [x1, y1, bx - uy * wing, by + ux * wing, bx + uy * wing, by - ux * wing].map((v) => v.toFixed(2)).join(' '), fill: s.color });
    }
    g.setAttribute('data-end', x1.toFixed(2) + ' ' + y1.toFixed(2));
    tip(g, s.hover);
  } else if (s.kind === 'points') {
    const g = svgNode(layer, 'g', { class: '__CLASS__-points' });
    s.x.forEach((x, k) => marker(g, s.symbol, X(x), Y(s.y[k]), s.sizes[k], s.color, s.opacities.length ? s.opacities[k] : 1, s.hover[k]));
  } else if (s.kind === 'rule') {
    const g = svgNode(layer, 'g', { class: '__CLASS__-rule' });
    const attrs = s.axis === 'x'
      ? { x1: X(s.value), x2: X(s.value), y1: box.plotTop, y2: box.plotTop + box.plotH }
      : { x1: box.originX, x2: box.originX + box.plotWidth, y1: Y(s.value), y2: Y(s.value) };
    tip(svgNode(g, 'line', { ...attrs, stroke: s.color, 'stroke-width': s.width, 'stroke-dasharray': DASH[s.dash] }), s.hover);
  } else if (s.kind === 'label') {
    const g = svgNode(labels, 'g', { class: '__CLASS__-label' });
    const x = X(s.at[0]) + s.offset[0];
    const y = Y(s.at[1]) + s.offset[1];
    if (s.leader) svgNode(g, 'line', { x1: X(s.leader[0]), y1: Y(s.leader[1]), x2: x, y2: y, stroke: '#b0b0b0', 'stroke-width': 1 });
    const text = svgNode(g, 'text', { x, y: y + s.size * 0.35, 'text-anchor': s.anchor, 'font-size': s.size, fill: s.color || null }, s.text);
    if (s.boxed) {
      const b = text.getBBox();
      const back = svgNode(null, 'rect', { x: b.x - 2, y: b.y - 1, width: b.width + 4, height: b.height + 2, fill: box.paper, 'fill-opacity': 0.85 });
      g.insertBefore(back, text);
    }
    tip(g, s.hover);
  }
}

function drawLegend(svg, entries, top, width, ink) {
  if (!entries.length) return top;
  const group = svgNode(svg, 'g', { class: '__CLASS__-legend' });
  let x = 2;
  let y = top + 10;
  for (const entry of entries) {
    const room = Math.max(40, width - 34);
    const lines = wrap(svg, entry.name, FONT, room, 400);
    const textWidth = Math.max(0, ...lines.map((line) => measure(svg, line, FONT)));
    const itemWidth = 28 + textWidth + 14;
    if (x > 2 && x + itemWidth > width) { x = 2; y += 18; }
    const g = svgNode(group, 'g', { class: '__CLASS__-legend-item' });
    const c = entry.color;
    if (entry.swatch === 'bar') svgNode(g, 'rect', { x: x + 4, y: y - 6, width: 14, height: 10, fill: c });
    else if (entry.swatch === 'star') svgNode(g, 'polygon', { points: star(x + 11, y - 1, 7), fill: c });
    else if (entry.swatch === 'ring') marker(g, 'ring', x + 11, y - 1, 6, c, 1, '');
    else {
      svgNode(g, 'line', { x1: x, x2: x + 22, y1: y - 1, y2: y - 1, stroke: c, 'stroke-width': 2.5, 'stroke-dasharray': DASH[entry.dash] });
      if (entry.swatch === 'arrow') svgNode(g, 'polygon', { points: [x + 24, y - 1, x + 17, y - 5, x + 17, y + 3].join(' '), fill: c });
    }
    lines.forEach((line, k) => svgNode(g, 'text', { x: x + 28, y: y + 3 + k * 15 }, line));
    y += (lines.length - 1) * 15;
    x += itemWidth;
    if (lines.length > 1) { x = 2; y += 18; }
  }
  return y + 8;
}

// A chart's parts, created once per element: a root (its width is the chart's), the <svg> and the
// "Download as SVG" link, whose file is written as it is used (the drawing as it is then).
function mount(parentElement) {
  const root = htmlNode(null, 'div', { className: '__CLASS__-root' });
  const svg = svgNode(root, 'svg', { class: '__CLASS__', xmlns: SVG_NS });
  const link = htmlNode(root, 'a', { className: '__CLASS__-svg' });
  parentElement.appendChild(root);
  observeResize(() => draw(root), root);
  hrefOnUse(link, () => svgDataUrl(svg));
  return root;
}

export default function (component) {
  const { data, parentElement } = component;
  const root = parentElement.querySelector('div.__CLASS__-root') || mount(parentElement);
  const svg = root.querySelector('svg.__CLASS__');
  svg.id = data.element_id;
  root.__alData = data;
  draw(root);
  const link = root.querySelector('a.__CLASS__-svg');
  setDownload(link, data.download_label, data.file_name);
  link.href = svgDataUrl(svg);
}
