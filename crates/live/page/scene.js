// The scene of the live view: the 2-D drawing that the project's scene file declares
// (docs/live.md, "Scenes"), drawn on <canvas id="scene"> above the charts from the row at the
// cursor (or the held communication point after a single step that wrote no row).
//
// The server sends the checked scene in /api/meta (`scene`): a frame and objects whose numeric
// attributes are numbers or {var, col, scale, offset} (col 0: the time, j + 1: result column
// j). The scene is redrawn at most once per animation frame, when the cursor, the rows, the
// canvas size or the hidden objects changed. Hidden objects (the tree's checkboxes, through
// the group registered below) are not drawn. What was drawn is published on
// window.mastersimView.scene: per object id the world coordinates and the canvas pixels (CSS px
// from the canvas' top left corner) of its anchor point, for the tests.

import { $, page } from './page.js';

const MARGIN = { left: 46, right: 12, top: 10, bottom: 26 };   // CSS px around the plot
const DEFAULT_COLOUR = [48, 48, 48];
const FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';

const state = {
  scene: null, canvas: null, hidden: new Set(), hiddenVersion: 0,
  signature: '', bounds: null, scanned: 0,
};

// What the tests read: the frame and row drawn, and per object what was drawn.
const published = { row: -1, t: null, frame: null, objects: {} };

function publish() {
  if (window.mastersimView) window.mastersimView.scene = published;
}

// ---------------------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------------------

/** A reader of row `i` of the page's rows (col 0: time). */
function rowReader(i) {
  return (col) => page.store.get(col, i);
}

/** The value of attribute `a` (a number or {col, scale, offset}) through `read`; `dflt` when absent. */
function value(a, read, dflt) {
  if (a === undefined || a === null) return dflt;
  if (typeof a === 'number') return a;
  return read(a.col) * a.scale + a.offset;
}

/** The row the scene shows: a reader and its time, or null when there is none. */
function shownRow() {
  if (!page.store) return null;
  if (page.follow && Array.isArray(page.point)) {
    const point = page.point;
    return { read: (col) => Number(point[col]), t: Number(point[0]), row: -1 };
  }
  if (page.cursor < 0 || page.cursor >= page.store.length) return null;
  const i = page.cursor;
  return { read: rowReader(i), t: page.store.time(i), row: i };
}

// ---------------------------------------------------------------------------------------
// The frame: world -> canvas pixels
// ---------------------------------------------------------------------------------------

/** The world points an object covers at one row (for the automatic fit). */
function extentPoints(o, read) {
  const a = o.attributes;
  const x = value(a.x, read, NaN), y = value(a.y, read, NaN);
  switch (o.kind) {
    case 'line': return [[x, y], [value(a.x2, read, NaN), value(a.y2, read, NaN)]];
    case 'polyline': return o.points.map(([px, py]) => [value(px, read, NaN), value(py, read, NaN)]);
    case 'circle': {
      const r = Math.abs(value(a.radius, read, 0));
      return [[x - r, y - r], [x + r, y + r]];
    }
    case 'rectangle': {
      const w = Math.abs(value(a.width, read, 0)) / 2, h = Math.abs(value(a.height, read, 0)) / 2;
      return [[x - w, y - h], [x + w, y + h]];
    }
    default: return [[x, y]];
  }
}

/** Extends the automatic bounds over the rows not scanned yet (constant objects count from the start). */
function scanBounds() {
  const n = page.store ? page.store.length : 0;
  const take = (points) => {
    const b = state.bounds;
    for (const [x, y] of points) {
      if (Number.isFinite(x)) { b.x0 = Math.min(b.x0, x); b.x1 = Math.max(b.x1, x); }
      if (Number.isFinite(y)) { b.y0 = Math.min(b.y0, y); b.y1 = Math.max(b.y1, y); }
    }
  };
  const shapes = state.scene.objects.filter((o) => o.kind !== 'text');
  if (!state.bounds) {
    state.bounds = { x0: Infinity, x1: -Infinity, y0: Infinity, y1: -Infinity };
    state.scanned = 0;
    for (const o of shapes) take(extentPoints(o, () => NaN));
  }
  for (let i = state.scanned; i < n; i++) {
    const read = rowReader(i);
    for (const o of shapes) take(extentPoints(o, read));
  }
  state.scanned = n;
}

/** A padded range for an automatic axis from [lo, hi]. */
function padded(lo, hi) {
  if (!(lo <= hi)) return [0, 1];
  if (lo === hi) { const d = lo === 0 ? 1 : Math.abs(lo) * 0.1; return [lo - d, hi + d]; }
  const pad = (hi - lo) * 0.05;
  return [lo - pad, hi + pad];
}

/** The mapping of the frame onto a canvas of cssW x cssH: {x0, x1, y0, y1, px(x), py(y), sx, sy, plot}. */
function mapping(cssW, cssH) {
  const f = state.scene.frame;
  if (!f.x || !f.y) scanBounds();
  const b = state.bounds;
  let [x0, x1] = f.x || padded(b.x0, b.x1);
  let [y0, y1] = f.y || padded(b.y0, b.y1);
  const plot = { left: MARGIN.left, top: MARGIN.top,
    width: Math.max(1, cssW - MARGIN.left - MARGIN.right),
    height: Math.max(1, cssH - MARGIN.top - MARGIN.bottom) };
  let sx = plot.width / (x1 - x0), sy = plot.height / (y1 - y0);
  if (f.equal) {
    // One world unit as long on both axes: the smaller scale, the range centred.
    const s = Math.min(Math.abs(sx), Math.abs(sy));
    const cx = (x0 + x1) / 2, cy = (y0 + y1) / 2;
    const hw = Math.sign(x1 - x0) * plot.width / s / 2, hh = Math.sign(y1 - y0) * plot.height / s / 2;
    x0 = cx - hw; x1 = cx + hw;
    y0 = cy - hh; y1 = cy + hh;
    sx = plot.width / (x1 - x0); sy = plot.height / (y1 - y0);
  }
  return {
    x0, x1, y0, y1, sx, sy, plot,
    px: (x) => plot.left + (x - x0) * sx,
    py: (y) => plot.top + (y1 - y) * sy,
  };
}

// ---------------------------------------------------------------------------------------
// Drawing
// ---------------------------------------------------------------------------------------

function colourOf(o, read) {
  const c = o.colour;
  const part = (a, i) => {
    const v = value(a, read, DEFAULT_COLOUR[i]);
    return Number.isFinite(v) ? Math.round(Math.max(0, Math.min(255, v))) : DEFAULT_COLOUR[i];
  };
  return 'rgb(' + part(c.r, 0) + ',' + part(c.g, 1) + ',' + part(c.b, 2) + ')';
}

/** A nice tick step for about `count` ticks over [lo, hi]. */
function tickStep(lo, hi, count) {
  const raw = Math.abs(hi - lo) / count;
  if (!(raw > 0) || !Number.isFinite(raw)) return 1;
  const p = Math.pow(10, Math.floor(Math.log10(raw)));
  const m = raw / p;
  return (m < 1.5 ? 1 : m < 3 ? 2 : m < 7 ? 5 : 10) * p;
}

function drawAxes(ctx, m) {
  ctx.strokeStyle = '#d8dce3';
  ctx.lineWidth = 1;
  ctx.strokeRect(m.plot.left + 0.5, m.plot.top + 0.5, m.plot.width - 1, m.plot.height - 1);
  ctx.fillStyle = '#6b7280';
  ctx.font = '11px ' + FONT;
  const label = (v, step) => String(Number(v.toFixed(Math.max(0, -Math.floor(Math.log10(step)) + 1))));
  const xs = tickStep(m.x0, m.x1, 6);
  ctx.textAlign = 'center'; ctx.textBaseline = 'top';
  for (let v = Math.ceil(Math.min(m.x0, m.x1) / xs) * xs; v <= Math.max(m.x0, m.x1); v += xs) {
    ctx.fillText(label(v, xs), m.px(v), m.plot.top + m.plot.height + 4);
  }
  const ys = tickStep(m.y0, m.y1, 5);
  ctx.textAlign = 'right'; ctx.textBaseline = 'middle';
  for (let v = Math.ceil(Math.min(m.y0, m.y1) / ys) * ys; v <= Math.max(m.y0, m.y1); v += ys) {
    ctx.fillText(label(v, ys), m.plot.left - 5, m.py(v));
  }
}

/** Draws the arrow from (x, y) px, `length` px long at `angle` degrees (counter-clockwise). */
function arrow(ctx, x, y, length, angle) {
  const a = angle * Math.PI / 180;
  const ex = x + length * Math.cos(a), ey = y - length * Math.sin(a);
  ctx.beginPath(); ctx.moveTo(x, y); ctx.lineTo(ex, ey); ctx.stroke();
  if (Math.abs(length) < 1) return;
  const back = Math.atan2(y - ey, x - ex), head = Math.min(8, Math.abs(length) / 2);
  ctx.beginPath();
  ctx.moveTo(ex + head * Math.cos(back + 0.45), ey + head * Math.sin(back + 0.45));
  ctx.lineTo(ex, ey);
  ctx.lineTo(ex + head * Math.cos(back - 0.45), ey + head * Math.sin(back - 0.45));
  ctx.stroke();
}

/** Draws the trace of `o` over rows 0..last (and the held point), one vertex per pixel at most. */
function trace(ctx, o, m, shown) {
  const a = o.attributes;
  ctx.beginPath();
  let lastX = NaN, lastY = NaN, open = false;
  const vertex = (read) => {
    const x = m.px(value(a.x, read, NaN)), y = m.py(value(a.y, read, NaN));
    if (!Number.isFinite(x) || !Number.isFinite(y)) { open = false; return; }
    if (open && Math.round(x) === Math.round(lastX) && Math.round(y) === Math.round(lastY)) return;
    if (open) ctx.lineTo(x, y); else ctx.moveTo(x, y);
    open = true; lastX = x; lastY = y;
  };
  const last = shown.row >= 0 ? shown.row : page.store.length - 1;
  for (let i = 0; i <= last; i++) vertex(rowReader(i));
  if (shown.row < 0) vertex(shown.read);
  ctx.stroke();
}

/** Draws object `o` at the row `shown`; returns what the tests read about it. */
function drawObject(ctx, o, m, shown) {
  const a = o.attributes, read = shown.read;
  const x = value(a.x, read, NaN), y = value(a.y, read, NaN);
  const drawn = { kind: o.kind, drawn: false, world: { x, y }, px: { x: m.px(x), y: m.py(y) } };
  const visible = value(a.visible, read, 1);
  if (state.hidden.has(o.id) || visible === 0 || Number.isNaN(visible)) return drawn;
  const colour = colourOf(o, read);
  drawn.colour = colour;
  ctx.strokeStyle = colour; ctx.fillStyle = colour;
  ctx.lineWidth = Math.max(0.5, value(a.line_width, read, 2));
  const px = drawn.px.x, py = drawn.px.y;
  switch (o.kind) {
    case 'point': {
      ctx.beginPath(); ctx.arc(px, py, Math.abs(value(a.radius, read, 4)), 0, 2 * Math.PI); ctx.fill();
      break;
    }
    case 'line': {
      const x2 = value(a.x2, read, NaN), y2 = value(a.y2, read, NaN);
      drawn.world.x2 = x2; drawn.world.y2 = y2;
      ctx.beginPath(); ctx.moveTo(px, py); ctx.lineTo(m.px(x2), m.py(y2)); ctx.stroke();
      break;
    }
    case 'polyline': {
      ctx.beginPath();
      o.points.forEach(([ax, ay], k) => {
        const qx = m.px(value(ax, read, NaN)), qy = m.py(value(ay, read, NaN));
        if (k === 0) ctx.moveTo(qx, qy); else ctx.lineTo(qx, qy);
      });
      ctx.stroke();
      break;
    }
    case 'circle': {
      const r = Math.abs(value(a.radius, read, 0) * m.sx);
      ctx.beginPath(); ctx.arc(px, py, r, 0, 2 * Math.PI);
      if (o.fill) ctx.fill(); else ctx.stroke();
      break;
    }
    case 'rectangle': {
      const w = value(a.width, read, 0) * Math.abs(m.sx), h = value(a.height, read, 0) * Math.abs(m.sy);
      ctx.save();
      ctx.translate(px, py);
      ctx.rotate(-value(a.angle, read, 0) * Math.PI / 180);
      if (o.fill) ctx.fillRect(-w / 2, -h / 2, w, h); else ctx.strokeRect(-w / 2, -h / 2, w, h);
      ctx.restore();
      break;
    }
    case 'arrow':
      arrow(ctx, px, py, value(a.length, read, 0), value(a.angle, read, 0));
      break;
    case 'text': {
      let text = o.text;
      if (a.value !== undefined) {
        const v = value(a.value, read, NaN);
        drawn.value = v;
        text += ' ' + (Number.isFinite(v) ? v.toFixed(o.decimals) : String(v));
      }
      drawn.text = text;
      ctx.font = Math.max(6, value(a.size, read, 12)) + 'px ' + FONT;
      ctx.textAlign = 'left'; ctx.textBaseline = 'alphabetic';
      ctx.fillText(text, px, py);
      break;
    }
    case 'trace':
      trace(ctx, o, m, shown);
      ctx.beginPath(); ctx.arc(px, py, Math.max(2, ctx.lineWidth + 1), 0, 2 * Math.PI); ctx.fill();
      break;
    default:
      return drawn;
  }
  drawn.drawn = Number.isFinite(px) && Number.isFinite(py);
  return drawn;
}

function draw() {
  const canvas = state.canvas;
  const dpr = window.devicePixelRatio || 1;
  const cssW = canvas.clientWidth, cssH = canvas.clientHeight;
  if (cssW <= 0 || cssH <= 0) return;
  const devW = Math.round(cssW * dpr), devH = Math.round(cssH * dpr);
  if (canvas.width !== devW || canvas.height !== devH) { canvas.width = devW; canvas.height = devH; }
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, cssW, cssH);
  const m = mapping(cssW, cssH);
  drawAxes(ctx, m);
  const shown = shownRow();
  published.frame = { x: [m.x0, m.x1], y: [m.y0, m.y1], plot: m.plot, width: cssW, height: cssH };
  published.row = shown ? shown.row : -1;
  published.t = shown ? shown.t : null;
  published.objects = {};
  if (shown) {
    ctx.save();
    ctx.beginPath(); ctx.rect(m.plot.left, m.plot.top, m.plot.width, m.plot.height); ctx.clip();
    ctx.lineCap = 'round'; ctx.lineJoin = 'round';
    for (const o of state.scene.objects) published.objects[o.id] = drawObject(ctx, o, m, shown);
    ctx.restore();
  }
  publish();
}

// ---------------------------------------------------------------------------------------
// Following the page: one check per animation frame, a redraw only when something changed
// ---------------------------------------------------------------------------------------

function signature() {
  const c = state.canvas;
  const point = page.follow && Array.isArray(page.point) ? page.point[0] : '';
  return [page.cursor, page.store ? page.store.length : 0, point, c.clientWidth, c.clientHeight,
    state.hiddenVersion].join('|');
}

function frame() {
  const now = signature();
  if (now !== state.signature) {
    state.signature = now;
    draw();
  }
  requestAnimationFrame(frame);
}

/** Registers the scene's objects as a group of the tree (docs/live.md, "Scenes"). */
function registerTreeGroup() {
  const group = {
    id: 'scene',
    label: 'Scene',
    items: state.scene.objects.map((o) => ({ id: o.id, label: o.label })),
    setVisible(itemId, visible) {
      if (visible) state.hidden.delete(itemId); else state.hidden.add(itemId);
      published.hidden = [...state.hidden];
      state.hiddenVersion++;
    },
  };
  (window.msimTreeGroups ||= []).push(group);
  window.dispatchEvent(new CustomEvent('msim:tree-group', { detail: group }));
}

/** Waits for the page's metadata; shows and follows the scene when it has one. */
function start() {
  if (!page.meta || !page.store) { requestAnimationFrame(start); return; }
  const scene = page.meta.scene;
  if (!scene || !Array.isArray(scene.objects)) return;
  state.scene = scene;
  state.canvas = $('scene');
  state.canvas.style.height = (Number(scene.frame.height) || 320) + 'px';
  $('scene-box').hidden = false;
  published.hidden = [];
  registerTreeGroup();
  publish();
  requestAnimationFrame(frame);
}

start();
