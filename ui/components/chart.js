// The browser's side of a chart (ui/chart.py): one <svg> built from a viz.chart.Chart's or
// viz.chart.PointCloud's data (`data.kind`: 'chart' or 'cloud'). Ticks, ranges and texts were
// decided in Python; this maps data to pixels and lays out texts. A chart: the title wrapped, the
// legend below the plots, panels stacked when the element is narrow. A cloud: three features as
// an orthographic 3-D view turned by dragging or the arrow keys (the turn kept across reruns),
// two as a plane with equal scales, one as a strip; its labels placed again on every turn. The
// element redraws in place when the data or its width changes. Every text is set as textContent
// or an attribute value. `__CLASS__` is the element's class (ui.chart.CHART_CLASS), put in as the
// file is loaded.

const FONT = 12;
const MIN_PANEL = 260;  // px: narrower panels are stacked, one under another

function tip(node, text) {
  if (text) svgNode(node, 'title', {}, text);
  return node;
}

const DASH = { solid: null, dash: '6 4', dot: '2 3' };

// A text's width in px, in the drawing's font, from a canvas: no element is added, so measuring
// never makes the browser lay out the page again (an SVG probe would, once per text).
const RULER = document.createElement('canvas').getContext('2d');
function measure(svg, text, size, weight) {
  RULER.font = (weight || 400) + ' ' + size + 'px ' + (svg.getAttribute('font-family') || 'sans-serif');
  return RULER.measureText(text).width;
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

function drawChart(state) {
  const { data, svg } = state;
  const width = Math.floor(state.root.clientWidth);
  if (width < 40) return;
  state.drawnWidth = width;
  const { ink, paper, font } = themeOf(state.root);
  svg.replaceChildren();
  svg.setAttribute('width', width);
  svg.setAttribute('font-family', font);
  svg.setAttribute('font-size', FONT);
  svg.setAttribute('fill', ink);
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
    if (measure(svg, panel.y.title, FONT) > plotH) {
      text.setAttribute('textLength', plotH);
      text.setAttribute('lengthAdjust', 'spacingAndGlyphs');
    }
  }
  const clipId = svg.id + '-clip-' + index;
  const clip = svgNode(svgNode(group, 'defs'), 'clipPath', { id: clipId });
  svgNode(clip, 'rect', { x: originX - 6, y: plotTop - 6, width: plotWidth + 12, height: plotH + 12 });
  const layer = svgNode(group, 'g', { 'clip-path': 'url(#' + clipId + ')' });
  const labels = svgNode(group, 'g', {});
  const box = { originX, plotTop, plotWidth, plotH, ink, paper };
  for (const series of panel.series) if (!series.beside) drawSeries(series, layer, labels, X, Y, box);
  placeBeside(svg, panel.series, labels, X, Y, box);
  return bottom - top + 4;
}

// A panel's labels marked `beside` (in their order, the first get the nearest places): each
// beside its point, outward from the origin first, joined to it by a thin line. Every point,
// arrow and line of the panel is kept clear: as squares of half size SPOT every SPOT px.
const SPOT = 6;  // px
const BESIDE_RINGS = 18;  // farther than a cloud's labels may go: a thin line joins each to its point
function placeBeside(svg, series, labels, X, Y, box) {
  const beside = series.filter((s) => s.beside);
  if (!beside.length) return;
  const taken = [];
  const spot = (x, y) => taken.push([x - SPOT, y - SPOT, x + SPOT, y + SPOT]);
  const segment = (x0, y0, x1, y1) => {
    const steps = Math.max(1, Math.ceil(Math.hypot(x1 - x0, y1 - y0) / SPOT));
    for (let k = 0; k <= steps; k++) spot(x0 + ((x1 - x0) * k) / steps, y0 + ((y1 - y0) * k) / steps);
  };
  for (const s of series) {
    if (s.kind === 'arrow') segment(X(s.start[0]), Y(s.start[1]), X(s.end[0]), Y(s.end[1]));
    else if (s.kind === 'points') s.x.forEach((x, k) => spot(X(x), Y(s.y[k])));
    else if (s.kind === 'line') s.x.forEach((x, k) => {
      if (k && s.y[k - 1] != null && s.y[k] != null) segment(X(s.x[k - 1]), Y(s.y[k - 1]), X(x), Y(s.y[k]));
    });
  }
  const bounds = [box.originX, box.plotTop, box.originX + box.plotWidth, box.plotTop + box.plotH];
  const [x0, y0] = [X(0), Y(0)];
  for (const s of beside) {
    const [x, y] = [X(s.at[0]), Y(s.at[1])];
    const length = Math.hypot(x - x0, y - y0);
    const [ox, oy] = length > 1 ? [(x - x0) / length, (y - y0) / length] : [0, -1];  // outward
    const nearness = ([dx, dy]) => (dx * ox + dy * oy) / Math.hypot(dx, dy);
    const ways = [...LABEL_WAYS].sort((a, b) => nearness(b) - nearness(a));
    const halfW = measure(svg, s.text, s.size) / 2 + 2, halfH = s.size * 0.6 + 1;
    const found = freeBox(x, y, halfW, halfH, SPOT + LABEL_GAP, ways, taken, bounds, BESIDE_RINGS);
    if (!found) continue;  // no free place: the hover and the legend still name this point
    taken.push(found);
    const offset = [(found[0] + found[2]) / 2 - x, (found[1] + found[3]) / 2 - y];
    drawSeries({ ...s, offset, leader: s.at, anchor: 'middle' }, null, labels, X, Y, box);
  }
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
        if (measure(labels.ownerSVGElement, text, 11) > X(x + half) - X(x - half)) {  // no room across: upright
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
      const width = measure(labels.ownerSVGElement, s.text, s.size);
      const left = x - width * { start: 0, middle: 0.5, end: 1 }[s.anchor];
      const top = y + s.size * 0.35 - s.size * 0.95;  // the baseline less the font's ascent
      const back = svgNode(null, 'rect', { x: left - 2, y: top - 1, width: width + 4, height: s.size * 1.2 + 2, fill: box.paper, 'fill-opacity': 0.85 });
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


// --- point clouds ---------------------------------------------------------------------------

const YAW = -135, PITCH = 25;  // the first view: from the (+x1, +x2) side, a little above
const DEG = Math.PI / 180;
// a label keeps a thin white edge, so it reads over the lines and dots behind it
const HALO = { stroke: '#ffffff', 'stroke-width': '3', 'stroke-opacity': '0.85', 'paint-order': 'stroke' };
const TICK = { 'font-size': '10', 'fill-opacity': '0.75', class: '__CLASS__-tick' };

function buildCloud(state) {
  const { svg, data } = state;
  svg.replaceChildren();
  state.guides = svgNode(svg, 'g', {});
  const many = data.points.length > 20;  // many lines from the origin: fainter, points stay clear
  state.rays = svgNode(svg, 'g', { 'stroke-width': '1.5', 'stroke-opacity': many ? '0.45' : '1' });
  state.layer = svgNode(svg, 'g', {});
  const radius = (state.radius = data.show_labels ? (data.dims === 3 ? 5 : 6) : 3);
  const opacity = data.dims === 3 && !data.show_labels ? '0.7' : '1';
  state.points = data.points.map((point, i) => {
    const group = svgNode(state.layer, 'g', { class: '__CLASS__-point' });
    svgNode(group, 'title', {}, data.hovers[i]);
    const dot = svgNode(group, 'circle', { fill: data.point_colour, r: radius, 'fill-opacity': opacity });
    const label = data.show_labels
      ? svgNode(group, 'text', { class: '__CLASS__-label', ...HALO, 'text-anchor': 'middle' }, data.labels[i])
      : null;
    // a line from the origin per point while they are few (thousands would hide the points)
    const ray =
      data.dims === 3 && data.show_labels ? svgNode(state.rays, 'line', { stroke: data.line_colour }) : null;
    return { point, group, dot, label, ray, above: data.label_above[i], width: 0 };
  });
  for (const entry of state.points) {  // once per data: a label's width does not turn
    if (!entry.label) continue;
    const measured = entry.label.getComputedTextLength ? entry.label.getComputedTextLength() : 0;
    entry.width = measured || 7 * entry.label.textContent.length;
  }
}

function cloudSize(state) {
  const width = Math.max(240, state.root.clientWidth || 600);
  const dims = state.data.dims;
  const height = dims === 1 ? 190 : Math.round(Math.min(520, Math.max(280, width * 0.85)));
  return { width, height };
}

// The screen position of each point and of any 3-D location: (x, y, depth).
function projector(state, width, height) {
  const { axes, dims } = state.data;
  if (dims === 3) {
    // the box's half-diagonal is √3 (1.73): with 1.8 every corner, and the tick texts beside
    // the axes that start at a corner, stay inside the drawing however the view is turned
    const scale = (Math.min(width, height) / 2 - 30) / 1.8;
    const yaw = state.yaw * DEG, pitch = state.pitch * DEG;
    const cy = Math.cos(yaw), sy = Math.sin(yaw), cp = Math.cos(pitch), sp = Math.sin(pitch);
    return (v) => {
      const [a, b, c] = v.map((x, m) => (2 * (x - axes[m].range[0])) / (axes[m].range[1] - axes[m].range[0]) - 1);
      const x = a * cy - b * sy, y = a * sy + b * cy;  // turned about x3 (up)
      const up = y * sp + c * cp, depth = y * cp - c * sp;  // tilted towards the viewer
      return [width / 2 + scale * x, height / 2 - scale * up, depth];
    };
  }
  const [ax, ay] = axes;
  const left = dims === 2 ? 48 : 16, right = 16, top = dims === 2 ? 22 : 0, bottom = 36;
  const spanX = ax.range[1] - ax.range[0];
  let sx = (width - left - right) / spanX, sy = 0, x0 = left, y0 = height / 2;
  if (dims === 2) {
    const spanY = ay.range[1] - ay.range[0];
    const s = Math.min(sx, (height - top - bottom) / spanY);  // equal scales on both axes
    sx = sy = s;
    x0 = left + (width - left - right - s * spanX) / 2;
    y0 = top + (height - top - bottom - s * spanY) / 2 + s * spanY;  // the bottom edge
  }
  return (v) => [x0 + sx * (v[0] - ax.range[0]), dims === 2 ? y0 - sy * (v[1] - ay.range[0]) : y0, 0];
}

function drawGuides(state, project, width, height) {
  const { data, guides, colour } = state;
  guides.replaceChildren();
  const faint = { stroke: colour, 'stroke-opacity': '0.18' };
  const strong = { stroke: colour, 'stroke-opacity': '0.6' };
  const line = (p, q, style) =>
    svgNode(guides, 'line', { x1: p[0], y1: p[1], x2: q[0], y2: q[1], ...style });
  const label = (xy, content, extra) =>
    svgNode(guides, 'text', { x: xy[0], y: xy[1], fill: colour, 'text-anchor': 'middle', ...extra }, content);
  const axes = data.axes;
  if (data.dims === 3) {
    const lows = axes.map((a) => a.range[0]), highs = axes.map((a) => a.range[1]);
    for (let m = 0; m < 3; m++) {  // the box's 12 edges, faint: they show how it is turned
      for (const i of [0, 1]) for (const j of [0, 1]) {
        const p = [0, 0, 0], q = [0, 0, 0];
        const others = [0, 1, 2].filter((k) => k !== m);
        p[others[0]] = q[others[0]] = (i ? highs : lows)[others[0]];
        p[others[1]] = q[others[1]] = (j ? highs : lows)[others[1]];
        p[m] = lows[m]; q[m] = highs[m];
        line(project(p), project(q), faint);
      }
    }
    const centre = project([0, 0, 0]);
    for (let m = 0; m < 3; m++) {  // each axis through the origin, its ticks, its name at the end
      const at = (value) => { const v = [0, 0, 0]; v[m] = value; return project(v); };
      const p = at(axes[m].range[0]), q = at(axes[m].range[1]);
      line(p, q, strong);
      let dx = q[0] - p[0], dy = q[1] - p[1];
      const length = Math.hypot(dx, dy) || 1;
      dx /= length; dy /= length;
      let nx = -dy, ny = dx;  // the ticks' texts sit beside the axis, on its lower side
      if (ny < 0 || (ny === 0 && nx > 0)) { nx = -nx; ny = -ny; }
      axes[m].ticks.forEach((tick, k) => {
        if (tick === 0) return;  // the origin is where the axes meet
        const t = at(tick);
        line([t[0] - 3 * nx, t[1] - 3 * ny], [t[0] + 3 * nx, t[1] + 3 * ny], strong);
        if (length > 60) {  // kept inside the drawing: a turned box can reach its edge
          const x = Math.min(Math.max(t[0] + 13 * nx, 18), width - 18);
          label([x, t[1] + 13 * ny + 4], axes[m].tick_labels[k], TICK);
        }
      });
      const end = at(axes[m].range[1] + 0.1 * (axes[m].range[1] - axes[m].range[0]));
      const title = length > 8 ? end : [centre[0], centre[1]];  // seen end-on: at the origin
      label([title[0], title[1] + 4], axes[m].title, { 'font-weight': 'bold', class: '__CLASS__-axis' });
    }
    return;
  }
  const ax = axes[0];
  const [left, baseline] = project([ax.range[0], data.dims === 2 ? axes[1].range[0] : 0]);
  const [right] = project([ax.range[1], 0]);
  const [, topY] = data.dims === 2 ? project([0, axes[1].range[1]]) : [0, 10];
  const bottomY = data.dims === 2 ? baseline : height - 40;
  ax.ticks.forEach((tick, k) => {
    const [x] = project([tick, 0]);
    line([x, topY], [x, bottomY], tick === 0 ? strong : faint);
    label([x, bottomY + 15], ax.tick_labels[k], TICK);
  });
  if (data.dims === 2) {
    const ay = axes[1];
    ay.ticks.forEach((tick, k) => {
      const [, y] = project([0, tick]);
      line([left, y], [right, y], tick === 0 ? strong : faint);
      label([left - 5, y + 4], ay.tick_labels[k], { ...TICK, 'text-anchor': 'end' });
    });
    svgNode(guides, 'rect', { x: left, y: topY, width: right - left, height: baseline - topY, fill: 'none', ...faint });
    label([left, topY - 8], ay.title, { 'font-weight': 'bold', 'text-anchor': 'start', class: '__CLASS__-axis' });
  } else {
    line([left, baseline], [right, baseline], strong);
  }
  label([right, bottomY + 30], ax.title, { 'font-weight': 'bold', 'text-anchor': 'end', class: '__CLASS__-axis' });
}

// Labels beside their points, none on another (a chart's and a cloud's, on every turn): each
// label, in order, takes the first free place around its point — its usual way first, then the
// other ways, then a little farther. A place is free when its box [left, top, right, bottom]
// stays inside `bounds` and meets no box `taken` (dots, lines, axis texts, labels placed before).
// A label that finds none is left out (its point's hover and the legend still name it).
const LABEL_ASCENT = 12, LABEL_DESCENT = 4;  // px above and below the baseline (font size 12)
const LABEL_GAP = 3, LABEL_RINGS = 6, LABEL_RING_STEP = 6;  // px
const LABEL_WAYS = [[0, -1], [0, 1], [1, 0], [-1, 0], [1, -1], [-1, -1], [1, 1], [-1, 1]];
const apart = (a, b) => a[2] <= b[0] || b[2] <= a[0] || a[3] <= b[1] || b[3] <= a[1];

// The first free box of half size (halfW, halfH) around (x, y), `near` px clear of the point.
function freeBox(x, y, halfW, halfH, near, ways, taken, bounds, rings) {
  for (let ring = 0; ring < rings; ring++) {
    for (const [dx, dy] of ways) {
      const length = Math.hypot(dx, dy);
      const [ux, uy] = [dx / length, dy / length];
      // far enough along the way for the box to clear its own point, then `ring` steps more
      const clear = Math.min(
        ux ? (halfW + near) / Math.abs(ux) : Infinity,
        uy ? (halfH + near) / Math.abs(uy) : Infinity,
      ) + ring * LABEL_RING_STEP;
      const cx = x + ux * clear, cy = y + uy * clear;
      const box = [cx - halfW, cy - halfH, cx + halfW, cy + halfH];
      if (box[0] < bounds[0] || box[1] < bounds[1] || box[2] > bounds[2] || box[3] > bounds[3]) continue;
      if (taken.every((other) => apart(box, other))) return box;
    }
  }
  return null;
}

function placeLabels(entries, guides, project, width, height, radius, colour) {
  if (!entries.some((entry) => entry.label)) return;
  const dots = entries.map(({ point }) => {
    const [x, y] = project(point);
    return [x - radius - 1, y - radius - 1, x + radius + 1, y + radius + 1, x, y];
  });
  const texts = [];
  for (const text of guides.querySelectorAll('text')) {
    const box = text.getBBox();
    const edges = [box.x, box.y, box.x + box.width, box.y + box.height];
    // a tick's text that lies on a dot is left out (the axis keeps its other ticks)
    if (text.classList.contains('__CLASS__-tick') && !dots.every((dot) => apart(edges, dot))) {
      text.style.display = 'none';
    } else {
      texts.push(edges);
    }
  }
  const taken = [...dots, ...texts];  // boxes [left, top, right, bottom]
  entries.forEach((entry, i) => {
    if (!entry.label) return;
    const [x, y] = [dots[i][4], dots[i][5]];
    const halfW = entry.width / 2 + 1, halfH = (LABEL_ASCENT + LABEL_DESCENT) / 2;
    const ways = entry.above ? LABEL_WAYS : LABEL_WAYS.map(([dx, dy]) => [dx, -dy]);
    const found = freeBox(x, y, halfW, halfH, radius + LABEL_GAP, ways, taken, [0, 0, width, height], LABEL_RINGS);
    entry.label.style.display = found ? '' : 'none';
    if (!found) return;
    taken.push(found);
    entry.label.setAttribute('x', ((found[0] + found[2]) / 2).toFixed(1));
    entry.label.setAttribute('y', (found[1] + LABEL_ASCENT).toFixed(1));
    entry.label.setAttribute('fill', colour);
  });
}

function drawCloud(state) {
  const { svg, data } = state;
  const { width, height } = cloudSize(state);
  svg.setAttribute('width', width);
  svg.setAttribute('height', height);
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.dataset.view = data.dims === 3 ? `${state.yaw} ${state.pitch}` : '';  // the turn, for tests
  const project = projector(state, width, height);
  drawGuides(state, project, width, height);
  const origin = project(data.points.length ? data.points[0].map(() => 0) : [0, 0, 0]);
  const placed = state.points.map((entry) => ({ entry, at: project(entry.point) }));
  if (data.dims === 3) placed.sort((a, b) => b.at[2] - a.at[2]);  // far ones first
  const shaded = data.dims === 3 && data.show_labels;  // thousands of points: one opacity
  const radius = state.radius;
  for (const { entry, at } of placed) {
    const [x, y, depth] = at;
    entry.dot.setAttribute('cx', x.toFixed(1));
    entry.dot.setAttribute('cy', y.toFixed(1));
    if (shaded) {  // depth in [-√3, √3]: nearer points are drawn more opaque
      entry.dot.setAttribute('fill-opacity', (0.75 - 0.2 * depth / Math.sqrt(3)).toFixed(2));
    }
    if (entry.ray) {
      entry.ray.setAttribute('x1', origin[0].toFixed(1));
      entry.ray.setAttribute('y1', origin[1].toFixed(1));
      entry.ray.setAttribute('x2', x.toFixed(1));
      entry.ray.setAttribute('y2', y.toFixed(1));
    }
  }
  placeLabels(state.points, state.guides, project, width, height, radius, state.colour);
  if (data.dims === 3) {  // back to front: move only the points that are out of order
    let next = state.layer.firstChild;  // every point before it is in place
    for (const { entry } of placed) {
      if (entry.group === next) next = next.nextSibling;
      else state.layer.insertBefore(entry.group, next);
    }
  }
  state.drawnWidth = Math.floor(state.root.clientWidth);
}

// Dragging (mouse, pen, touch) and the arrow keys turn a 3-D view; `turn` redraws once a frame.
function listen(state, turn) {
  const { svg } = state;
  let drag = null;
  svg.addEventListener('pointerdown', (event) => {
    if (state.data.dims !== 3 || event.button > 0) return;
    drag = { x: event.clientX, y: event.clientY, yaw: state.yaw, pitch: state.pitch };
    svg.setPointerCapture(event.pointerId);
    event.preventDefault();
  });
  svg.addEventListener('pointermove', (event) => {
    if (!drag) return;
    turn(drag.yaw + 0.5 * (event.clientX - drag.x), drag.pitch + 0.5 * (event.clientY - drag.y));
  });
  const release = () => { drag = null; };
  svg.addEventListener('pointerup', release);
  svg.addEventListener('pointercancel', release);
  svg.addEventListener('keydown', (event) => {
    const steps = { ArrowLeft: [-10, 0], ArrowRight: [10, 0], ArrowUp: [0, -10], ArrowDown: [0, 10] };
    if (state.data.dims !== 3 || !steps[event.key]) return;
    turn(state.yaw + steps[event.key][0], state.pitch + steps[event.key][1]);
    event.preventDefault();
  });
}

// The drawing as a file: a copy without the page's own attributes, on the theme's background.
function svgFile(state) {
  const copy = state.svg.cloneNode(true);
  for (const name of ['tabindex', 'class', 'data-view', 'style']) copy.removeAttribute(name);
  const paper = svgNode(null, 'rect', { width: '100%', height: '100%', fill: themeOf(state.root).paper });
  copy.insertBefore(paper, copy.firstChild);
  return svgDataUrl(copy);
}

function draw(state) {
  if (state.data.kind === 'cloud') drawCloud(state);
  else drawChart(state);
}

// The element's parts and state, created once (kept on it across reruns): the <svg>, a bar with
// the "Reset view" button (a 3-D cloud only) and the "Download as SVG" link, a cloud's turn.
function mount(parentElement) {
  const root = htmlNode(parentElement, 'div', { className: '__CLASS__-root' });
  const svg = svgNode(root, 'svg', { class: '__CLASS__', role: 'img' });
  const bar = htmlNode(root, 'div', { className: '__CLASS__-bar' });
  const reset = htmlNode(bar, 'button', { type: 'button', className: '__CLASS__-reset' });
  const link = htmlNode(bar, 'a', { className: '__CLASS__-svg' });
  const state = { root, svg, reset, link, yaw: YAW, pitch: PITCH, json: '' };
  parentElement.__alChart = state;
  let frame = 0;
  const redraw = () => {
    if (!frame) frame = requestAnimationFrame(() => { frame = 0; draw(state); });
  };
  const turn = (yaw, pitch) => {
    state.yaw = ((yaw + 540) % 360) - 180;
    state.pitch = Math.max(-90, Math.min(90, pitch));
    redraw();
  };
  listen(state, turn);
  reset.addEventListener('click', () => turn(YAW, PITCH));
  hrefOnUse(link, () => svgFile(state));  // the drawing as it is shown when the link is used
  observeResize(() => {
    if (state.data && Math.floor(root.clientWidth) !== state.drawnWidth) draw(state);
  }, root);
  return state;
}

export default function (component) {
  const { data, parentElement } = component;
  const state = parentElement.__alChart || mount(parentElement);
  const json = JSON.stringify(data);
  if (json === state.json) return;  // a rerun with the same chart: nothing to redraw
  state.json = json;
  state.data = data;
  const { svg, reset, link } = state;
  const turns = data.kind === 'cloud' && data.dims === 3;
  svg.id = data.element_id;
  svg.setAttribute('aria-label', data.description || '');
  if (turns) svg.setAttribute('tabindex', '0');
  else svg.removeAttribute('tabindex');
  svg.style.touchAction = turns ? 'none' : 'auto';
  svg.style.cursor = turns ? 'grab' : 'default';
  reset.textContent = data.reset_label;
  reset.hidden = !turns;
  setDownload(link, data.download_label, data.file_name);
  if (data.kind === 'cloud') {
    const theme = themeOf(state.root);
    state.colour = theme.ink;
    svg.setAttribute('font-family', theme.font || 'sans-serif');
    svg.setAttribute('font-size', '12');
    buildCloud(state);
  }
  draw(state);
  // a large drawing is serialized only when the link is used (a rerun stays cheap)
  link.href = data.kind !== 'cloud' || data.points.length <= 300 ? svgFile(state) : '#';
}
