// The browser's side of a point cloud (ui/point_cloud.py): labelled points as one <svg>, from a
// viz.point_cloud.PointCloud's data. Three features: an orthographic 3-D view turned by dragging
// or the arrow keys, kept across reruns; two: a plane with equal scales; one: a strip. Every
// label is set as textContent. `__CLASS__` is the drawing's class (ui.point_cloud.CLOUD_CLASS),
// put in as the file is loaded.

const YAW = -135, PITCH = 25;  // the first view: from the (+x1, +x2) side, a little above
const DEG = Math.PI / 180;
// a label keeps a thin white edge, so it reads over the lines and dots behind it
const HALO = { stroke: '#ffffff', 'stroke-width': '3', 'stroke-opacity': '0.85', 'paint-order': 'stroke' };
const TICK = { 'font-size': '10', 'fill-opacity': '0.75', class: '__CLASS__-tick' };

function build(state) {
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

function layout(state) {
  const width = Math.max(240, state.parent.clientWidth || 600);
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
      const [a, b, c] = v.map((x, m) => (2 * (x - axes[m].low)) / (axes[m].high - axes[m].low) - 1);
      const x = a * cy - b * sy, y = a * sy + b * cy;  // turned about x3 (up)
      const up = y * sp + c * cp, depth = y * cp - c * sp;  // tilted towards the viewer
      return [width / 2 + scale * x, height / 2 - scale * up, depth];
    };
  }
  const [ax, ay] = axes;
  const left = dims === 2 ? 48 : 16, right = 16, top = dims === 2 ? 22 : 0, bottom = 36;
  const spanX = ax.high - ax.low;
  let sx = (width - left - right) / spanX, sy = 0, x0 = left, y0 = height / 2;
  if (dims === 2) {
    const spanY = ay.high - ay.low;
    const s = Math.min(sx, (height - top - bottom) / spanY);  // equal scales on both axes
    sx = sy = s;
    x0 = left + (width - left - right - s * spanX) / 2;
    y0 = top + (height - top - bottom - s * spanY) / 2 + s * spanY;  // the bottom edge
  }
  return (v) => [x0 + sx * (v[0] - ax.low), dims === 2 ? y0 - sy * (v[1] - ay.low) : y0, 0];
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
    const lows = axes.map((a) => a.low), highs = axes.map((a) => a.high);
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
      const p = at(axes[m].low), q = at(axes[m].high);
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
          label([x, t[1] + 13 * ny + 4], axes[m].tick_texts[k], TICK);
        }
      });
      const end = at(axes[m].high + 0.1 * (axes[m].high - axes[m].low));
      const title = length > 8 ? end : [centre[0], centre[1]];  // seen end-on: at the origin
      label([title[0], title[1] + 4], axes[m].title, { 'font-weight': 'bold', class: '__CLASS__-axis' });
    }
    return;
  }
  const ax = axes[0];
  const [left, baseline] = project([ax.low, data.dims === 2 ? axes[1].low : 0]);
  const [right] = project([ax.high, 0]);
  const [, topY] = data.dims === 2 ? project([0, axes[1].high]) : [0, 10];
  const bottomY = data.dims === 2 ? baseline : height - 40;
  ax.ticks.forEach((tick, k) => {
    const [x] = project([tick, 0]);
    line([x, topY], [x, bottomY], tick === 0 ? strong : faint);
    label([x, bottomY + 15], ax.tick_texts[k], TICK);
  });
  if (data.dims === 2) {
    const ay = axes[1];
    ay.ticks.forEach((tick, k) => {
      const [, y] = project([0, tick]);
      line([left, y], [right, y], tick === 0 ? strong : faint);
      label([left - 5, y + 4], ay.tick_texts[k], { ...TICK, 'text-anchor': 'end' });
    });
    svgNode(guides, 'rect', { x: left, y: topY, width: right - left, height: baseline - topY, fill: 'none', ...faint });
    label([left, topY - 8], ay.title, { 'font-weight': 'bold', 'text-anchor': 'start', class: '__CLASS__-axis' });
  } else {
    line([left, baseline], [right, baseline], strong);
  }
  label([right, bottomY + 30], ax.title, { 'font-weight': 'bold', 'text-anchor': 'end', class: '__CLASS__-axis' });
}

// Labels beside their points, none on another, on every turn (the rule of viz/label_layout.py,
// on the screen positions): each label, in token order, takes the first free place around its
// point — its usual side (above or below) first, then the other sides, then a little farther.
// A place is free when its box stays in the drawing and meets no dot, no axis text (a tick, a
// title) and no label placed before.
// A label that finds none is hidden (its point's hover still names it).
const LABEL_ASCENT = 12, LABEL_DESCENT = 4;  // px above and below the baseline (font size 12)
const LABEL_GAP = 3, LABEL_RINGS = 6, LABEL_RING_STEP = 6;  // px
const LABEL_WAYS = [[0, -1], [0, 1], [1, 0], [-1, 0], [1, -1], [-1, -1], [1, 1], [-1, 1]];

function placeLabels(entries, guides, project, width, height, radius, colour) {
  if (!entries.some((entry) => entry.label)) return;
  const apart = (a, b) => a[2] <= b[0] || b[2] <= a[0] || a[3] <= b[1] || b[3] <= a[1];
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
    let found = null;
    for (let ring = 0; ring < LABEL_RINGS && !found; ring++) {
      for (const [dx, dy] of ways) {
        const length = Math.hypot(dx, dy);
        const [ux, uy] = [dx / length, dy / length];
        // far enough along the way for the box to clear its own dot, then `ring` steps more
        const clear = Math.min(
          ux ? (halfW + radius + LABEL_GAP) / Math.abs(ux) : Infinity,
          uy ? (halfH + radius + LABEL_GAP) / Math.abs(uy) : Infinity,
        ) + ring * LABEL_RING_STEP;
        const cx = x + ux * clear, cy = y + uy * clear;
        const box = [cx - halfW, cy - halfH, cx + halfW, cy + halfH];
        if (box[0] < 0 || box[1] < 0 || box[2] > width || box[3] > height) continue;
        if (taken.every((other) => apart(box, other))) { found = box; break; }
      }
    }
    entry.label.style.display = found ? '' : 'none';
    if (!found) return;
    taken.push(found);
    entry.label.setAttribute('x', ((found[0] + found[2]) / 2).toFixed(1));
    entry.label.setAttribute('y', (found[1] + LABEL_ASCENT).toFixed(1));
    entry.label.setAttribute('fill', colour);
  });
}

function draw(state) {
  const { svg, data } = state;
  const { width, height } = layout(state);
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
  state.drawnWidth = width;
}

function svgFile(state) {
  const copy = state.svg.cloneNode(true);
  copy.setAttribute('xmlns', SVG_NS);
  copy.removeAttribute('tabindex');
  copy.removeAttribute('class');
  copy.removeAttribute('data-view');
  copy.removeAttribute('style');  // the page's pointer settings
  const paper = svgNode(null, 'rect', { width: '100%', height: '100%', fill: '#ffffff' });
  copy.insertBefore(paper, copy.firstChild);
  return svgDataUrl(copy);
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

// The cloud's parts and state, created once per element (kept on it across reruns): the <svg>,
// a bar with the "Reset view" button and the "Download as SVG" link, the view's turn.
function mount(parentElement) {
  const svg = svgNode(null, 'svg', { class: '__CLASS__', role: 'img', tabindex: '0' });
  const bar = htmlNode(null, 'div', { className: '__CLASS__-bar' });
  const reset = htmlNode(bar, 'button', { type: 'button', className: '__CLASS__-reset' });
  const link = htmlNode(bar, 'a', { className: '__CLASS__-svg' });
  parentElement.append(svg, bar);
  const state = { parent: parentElement, svg, reset, link, yaw: YAW, pitch: PITCH, json: '' };
  parentElement.__alCloud = state;
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
  // the file is written when it is asked for: the drawing as it is turned now
  hrefOnUse(link, () => svgFile(state));
  observeResize(() => {
    if (state.data && state.parent.clientWidth && state.parent.clientWidth !== state.drawnWidth) {
      draw(state);
    }
  }, parentElement);
  return state;
}

export default function (component) {
  const { data, parentElement } = component;
  const state = parentElement.__alCloud || mount(parentElement);
  const json = JSON.stringify(data);
  if (json === state.json) return;  // a rerun with the same points: nothing to redraw
  state.json = json;
  state.data = data;
  const theme = themeOf(parentElement);
  state.colour = theme.ink;
  const { svg, reset, link } = state;
  svg.setAttribute('aria-label', data.description);
  svg.setAttribute('font-family', theme.font || 'sans-serif');
  svg.setAttribute('font-size', '12');
  svg.style.touchAction = data.dims === 3 ? 'none' : 'auto';
  svg.style.cursor = data.dims === 3 ? 'grab' : 'default';
  reset.textContent = data.reset_label;
  reset.hidden = data.dims !== 3;
  setDownload(link, data.svg_label, data.file_name);
  build(state);
  draw(state);
  // a large drawing is serialized only when the link is used (a rerun stays cheap)
  link.href = data.points.length <= 300 ? svgFile(state) : '#';
}
