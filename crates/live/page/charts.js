// The charts of the live view: one canvas per (slave, unit) group, the groups of a slave
// adjacent, slaves in project order (meta.slaves), units in the order their first column
// appears. A group can be drawn in several canvases (the main view and a slave's panel).
// All charts share one time window: the wheel zooms around the pointer, a drag pans, a
// double-click shows the whole run again. Each canvas draws from a min/max decimation per
// pixel column (decimate.js), at most once per animation frame; hidden series are neither
// decimated nor drawn, and a chart whose series are all hidden is not shown.

import { Decimation } from './decimate.js';
import { PALETTE, el, page } from './page.js';

// CSS px around the plot; the left margin grows with the widest y tick label.
const MARGIN = { left: 48, right: 14, top: 10, bottom: 34 };
const CHART_HEIGHT = 260;                                     // CSS px
const PAN_THRESHOLD = 4;                                      // CSS px before a press pans
const WHEEL_ZOOM = 0.0015;                                    // per wheel delta unit (px)

/** The slave of a column: its `slave`, else the part of its name before the first `.`. */
export function slaveOf(col) {
  if (col.slave != null && col.slave !== '') return String(col.slave);
  const dot = col.name.indexOf('.');
  return dot > 0 ? col.name.slice(0, dot) : col.name;
}

/** The unit of a column as the charts group it (`-` when none). */
export function unitOf(col) {
  return col.unit == null || col.unit === '' ? '-' : String(col.unit);
}

/**
 * The slaves in project order: meta.slaves first (the server's project order), then any
 * slave of a column that it does not list, in the order its first column appears.
 */
export function slaveOrder() {
  const out = [];
  const seen = new Set();
  const add = (s) => { if (!seen.has(s)) { seen.add(s); out.push(s); } };
  if (Array.isArray(page.meta.slaves)) page.meta.slaves.forEach((s) => add(String(s)));
  page.meta.columns.forEach((c) => add(slaveOf(c)));
  return out;
}

/** page.groups: one per (slave, unit), a slave's groups adjacent, slaves in project order. */
function makeGroups() {
  const bySlave = new Map(slaveOrder().map((s) => [s, new Map()]));
  page.meta.columns.forEach((col, j) => {
    const slave = slaveOf(col), unit = unitOf(col);
    const units = bySlave.get(slave);
    if (!units.has(unit)) units.set(unit, { key: slave + ' [' + unit + ']', slave, unit, signals: [] });
    units.get(unit).signals.push({ col: j, name: col.name, color: PALETTE[j % PALETTE.length] });
  });
  page.groups = [];
  for (const units of bySlave.values()) page.groups.push(...units.values());
}

// ---------------------------------------------------------------------------------------
// Chart instances: a group drawn in one canvas, with its own decimation and legend.
// ---------------------------------------------------------------------------------------

const charts = [];
const drawListeners = [];
let pick = () => {};

/** Builds page.groups and a chart for each in #charts; `onPick(i, done)` moves the cursor. */
export function buildCharts(onPick) {
  pick = onPick;
  el.charts.textContent = '';
  makeGroups();
  for (const g of page.groups) addChart(g, el.charts);
  window.addEventListener('resize', requestDraw);
  requestDraw();
}

/** Draws group `g` in a new chart (head with title and legend, canvas) at the end of `container`. */
export function addChart(g, container) {
  const box = document.createElement('div');
  box.className = 'chart-box';
  box.dataset.group = g.key;
  const head = document.createElement('div');
  head.className = 'chart-head';
  const h = document.createElement('h3');
  h.textContent = g.key;
  const legend = document.createElement('div');
  legend.className = 'legend';
  for (const s of g.signals) {
    const item = document.createElement('span');
    item.className = 'legend-item';
    item.dataset.name = s.name;
    const swatch = document.createElement('span');
    swatch.className = 'swatch';
    swatch.style.background = s.color;
    item.append(swatch, document.createTextNode(s.name));
    legend.appendChild(item);
  }
  head.append(h, legend);
  const canvas = document.createElement('canvas');
  canvas.className = 'chart';
  canvas.dataset.group = g.key;
  canvas.style.height = CHART_HEIGHT + 'px';
  box.append(head, canvas);
  container.appendChild(box);
  const chart = { group: g, box, canvas, legend, cache: null, xRange: null, plotLeft: MARGIN.left, plotW: 0, resize: null };
  charts.push(chart);
  attachPointer(chart);
  if (typeof ResizeObserver === 'function') {
    chart.resize = new ResizeObserver(() => requestDraw());
    chart.resize.observe(canvas);
  }
  showVisibility(chart);
  requestDraw();
  return chart;
}

/** Takes `chart` out of the page (a closed panel). */
export function removeChart(chart) {
  const k = charts.indexOf(chart);
  if (k >= 0) charts.splice(k, 1);
  if (chart.resize) chart.resize.disconnect();
  chart.box.remove();
  publishZoom();
}

/** `fn()` runs after each redraw of the charts (the cursor, the rows or the window changed). */
export function onDraw(fn) {
  drawListeners.push(fn);
}

/** A chart whose series are all hidden (page.hidden) is not shown; legends grey hidden ones. */
function showVisibility(chart) {
  const signals = chart.group.signals;
  chart.box.hidden = signals.every((s) => page.hidden.has(s.name));
  for (const item of chart.legend.children) item.classList.toggle('off', page.hidden.has(item.dataset.name));
}

/** Applies a change of page.hidden to every chart and redraws. */
export function applyVisibility() {
  for (const c of charts) showVisibility(c);
  requestDraw();
}

// ---------------------------------------------------------------------------------------
// The time window shared by all charts: null shows the whole run, else [x0, x1] (s).
// ---------------------------------------------------------------------------------------

let zoom = null;

/** The whole run's x range: [t_start, t_end], extended when the data goes beyond t_end. */
function fullRange() {
  const n = page.store ? page.store.length : 0;
  let x0 = Number(page.meta.t_start), x1 = Number(page.meta.t_end);
  if (!Number.isFinite(x0)) x0 = n > 0 ? page.store.time(0) : 0;
  const lastT = n > 0 ? page.store.time(n - 1) : x0;
  if (!Number.isFinite(x1) || x1 <= x0) x1 = x0 + 1;      // no usable t_end: from the data
  if (lastT > x1) {
    // A finished run whose rows are all here gets its exact range; while rows still arrive
    // the range grows in steps of 25%, so the decimation is not rebuilt every batch.
    const complete = page.status && page.status.state === 'finished' && n >= (page.status.rows || 0);
    if (complete) {
      x1 = lastT;
    } else {
      while (x1 < lastT) x1 = x0 + (x1 - x0) * 1.25;
    }
  }
  return [x0, x1];
}

/** The window the charts show. */
function viewRange() {
  return zoom ? zoom : fullRange();
}

/**
 * Shows [x0, x1] (s) in every chart, moved inside the whole run and no narrower than a
 * millionth of it; a window that covers the whole run shows the whole run (and follows it).
 */
export function setZoom(x0, x1) {
  const [f0, f1] = fullRange();
  const full = f1 - f0;
  const minSpan = full * 1e-6;
  let span = x1 - x0;
  if (Number.isFinite(span) && !(span > minSpan)) {
    x0 = (x0 + x1) / 2 - minSpan / 2;
    span = minSpan;
  }
  if (Number.isFinite(span) && span < full) {
    const a = Math.max(f0, Math.min(x0, f1 - span));
    zoom = [a, a + span];
  } else {
    zoom = null;
  }
  requestDraw();
}

/** The time (s) under client x coordinate `clientX` in `chart`, inside its plot. */
function timeAt(chart, clientX) {
  const [x0, x1] = chart.xRange;
  const rect = chart.canvas.getBoundingClientRect();
  const frac = (clientX - rect.left - chart.plotLeft) / Math.max(1, chart.plotW);
  return x0 + Math.max(0, Math.min(1, frac)) * (x1 - x0);
}

/**
 * The pointer in a chart: the wheel zooms around the pointer's time, a drag pans the window,
 * a double-click shows the whole run; a click (a press that does not move) moves the cursor
 * to the nearest row at that time, like the time bar.
 */
function attachPointer(chart) {
  const canvas = chart.canvas;
  let press = null;                       // {x, range, panned} while the button is down
  canvas.addEventListener('wheel', (ev) => {
    if (!chart.xRange) return;
    ev.preventDefault();
    const delta = ev.deltaMode === 1 ? ev.deltaY * 16 : ev.deltaMode === 2 ? ev.deltaY * 400 : ev.deltaY;
    const f = Math.exp(delta * WHEEL_ZOOM);
    const t = timeAt(chart, ev.clientX);
    const [x0, x1] = chart.xRange;
    setZoom(t - (t - x0) * f, t + (x1 - t) * f);
  }, { passive: false });
  canvas.addEventListener('dblclick', () => setZoom(-Infinity, Infinity));
  canvas.addEventListener('pointerdown', (ev) => {
    if (ev.button !== 0 || !chart.xRange) return;
    press = { x: ev.clientX, range: chart.xRange.slice(), panned: false };
    canvas.setPointerCapture(ev.pointerId);
  });
  canvas.addEventListener('pointermove', (ev) => {
    if (!press) return;
    const dx = ev.clientX - press.x;
    if (!press.panned && Math.abs(dx) < PAN_THRESHOLD) return;
    press.panned = true;
    const [x0, x1] = press.range;
    const dt = -dx / Math.max(1, chart.plotW) * (x1 - x0);
    if (zoom) setZoom(x0 + dt, x1 + dt);
  });
  canvas.addEventListener('pointerup', (ev) => {
    if (press && !press.panned) pickAt(chart, ev.clientX);
    press = null;
  });
  canvas.addEventListener('pointercancel', () => { press = null; });
}

/** Moves the cursor to the row nearest the time under `clientX`. */
function pickAt(chart, clientX) {
  const store = page.store;
  if (!store || store.length === 0 || !chart.xRange) return;
  const t = timeAt(chart, clientX);
  let i = store.indexAtTime(t);
  if (i + 1 < store.length && Math.abs(store.time(i + 1) - t) < Math.abs(store.time(i) - t)) i++;
  pick(i, false);
  pick(i, true);
}

/**
 * For the tests: window.mastersimView.zoom = {zoomed, window: [x0, x1], charts: [{key,
 * panel, x0, x1}]}, the x range of every chart drawn (s).
 */
function publishZoom() {
  if (!window.mastersimView) return;
  const w = page.meta ? viewRange() : null;
  window.mastersimView.zoom = {
    zoomed: zoom !== null,
    window: w,
    charts: charts.filter((c) => c.xRange && !c.box.hidden).map((c) => ({
      key: c.group.key, panel: c.box.closest('.slave-panel') !== null, x0: c.xRange[0], x1: c.xRange[1],
    })),
  };
}

// ---------------------------------------------------------------------------------------
// Axis helpers: "nice" ticks (1, 2, 5 × 10^k) and labels without "-0".
// ---------------------------------------------------------------------------------------

/** Tick values inside [lo, hi]: the 1, 2, 5 × 10^k step whose tick count is nearest `count`. */
function ticks(lo, hi, count) {
  const range = hi - lo;
  let step = 1;
  if (range > 0 && Number.isFinite(range)) {
    const mag = Math.pow(10, Math.floor(Math.log10(range / count)));
    let best = Infinity;
    for (const m of [0.5, 1, 2, 5, 10, 20]) {
      const st = m * mag;
      const n = Math.floor(hi / st + 1e-9) - Math.ceil(lo / st - 1e-9) + 1;
      const score = Math.abs(n - count);
      if (score < best || (score === best && st > step)) { best = score; step = st; }
    }
  }
  const first = Math.ceil(lo / step - 1e-9);
  const last = Math.floor(hi / step + 1e-9);
  const out = [];
  for (let k = first; k <= last && out.length < 50; k++) out.push(k * step);
  return { step, values: out };
}

function tickLabel(v, step, maxAbs) {
  if (Math.abs(v) < step * 1e-6) return '0';                // also turns -0 into 0
  const stepExp = Math.floor(Math.log10(step) + 1e-9);
  let s;
  if (maxAbs >= 1e6 || maxAbs < 1e-3 || stepExp < -12) {
    const maxExp = Math.floor(Math.log10(maxAbs));
    s = v.toExponential(Math.max(0, Math.min(10, maxExp - stepExp)));
  } else {
    s = v.toFixed(Math.max(0, -stepExp));
  }
  if (/^-0(\.0*)?(e[+-]?\d+)?$/.test(s)) s = s.slice(1);     // never "-0"
  return s;
}


// ---------------------------------------------------------------------------------------
// Drawing
// ---------------------------------------------------------------------------------------

let drawPending = false;

/** Schedules one redraw of all charts for the next animation frame. */
export function requestDraw() {
  if (drawPending) return;
  drawPending = true;
  requestAnimationFrame(() => {
    drawPending = false;
    if (!page.meta) return;
    for (const c of charts) drawChart(c);
    publishZoom();
    for (const fn of drawListeners) fn();
  });
}

/** The buckets of `chart` for window [x0, x1] and `nb` columns, its visible series only. */
function decimation(chart, nb, x0, x1) {
  const shown = chart.group.signals.filter((s) => !page.hidden.has(s.name));
  const key = shown.map((s) => s.col).join(',');
  let c = chart.cache;
  if (!c || c.nb !== nb || c.x0 !== x0 || c.x1 !== x1 || c.key !== key) {
    c = new Decimation(nb, x0, x1, shown.map((s) => s.col + 1), key);
    c.signals = shown;
    chart.cache = c;
  }
  if (page.store) c.extend(page.store);
  return c;
}

/** The y range over the rows in the window, padded by 5 %; a flat signal gets ±10 %. */
function yRange(cache) {
  let lo = Infinity, hi = -Infinity;
  for (const a of cache.sig) {
    lo = Math.min(lo, a.lo);
    hi = Math.max(hi, a.hi);
    // Between two rows: the line from the row before to the row after.
    for (const p of [a.before, a.after]) {
      if (p && a.rows === 0) { lo = Math.min(lo, p[1]); hi = Math.max(hi, p[1]); }
    }
  }
  if (!(lo <= hi)) return [0, 1];
  if (lo === hi) {
    const d = lo === 0 ? 1 : Math.abs(lo) * 0.1;
    return [lo - d, hi + d];
  }
  const pad = (hi - lo) * 0.05;
  return [lo - pad, hi + pad];
}

/** Sizes the canvas to its CSS box in device pixels; returns its 2-D context, or null. */
function prepare(canvas) {
  const dpr = window.devicePixelRatio || 1;
  const cssW = canvas.clientWidth, cssH = canvas.clientHeight;
  if (cssW <= 0 || cssH <= 0) return null;
  const devW = Math.round(cssW * dpr), devH = Math.round(cssH * dpr);
  if (canvas.width !== devW || canvas.height !== devH) {
    canvas.width = devW;
    canvas.height = devH;
  }
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, cssW, cssH);
  return { ctx, dpr, cssW, cssH, devW };
}

function drawChart(chart) {
  if (chart.box.hidden) return;                           // not shown: no drawing cost
  const p = prepare(chart.canvas);
  if (!p) return;
  const { ctx, dpr, cssW, cssH, devW } = p;
  // One bucket per device pixel of the canvas width (the plot is a bit narrower, so a bucket
  // is at most one pixel column wide; the y labels' width never invalidates the buckets).
  const [x0, x1] = viewRange();
  chart.xRange = [x0, x1];
  const cache = decimation(chart, devW, x0, x1);
  const [lo, hi] = yRange(cache);

  // Y tick labels first: their width decides the left margin (in steps of 8 px, at most
  // 40 % of the width), so that long labels are never clipped.
  ctx.font = '11px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
  const yt = ticks(lo, hi, 5);
  const maxAbsY = Math.max(Math.abs(lo), Math.abs(hi));
  const yLabels = yt.values.map((v) => tickLabel(v, yt.step, maxAbsY));
  let labelW = 0;
  for (const l of yLabels) labelW = Math.max(labelW, ctx.measureText(l).width);
  const px0 = Math.min(Math.max(MARGIN.left, Math.ceil((labelW + 12) / 8) * 8), Math.floor(cssW * 0.4));
  const plot = { x: px0, y: MARGIN.top, w: cssW - px0 - MARGIN.right, h: cssH - MARGIN.top - MARGIN.bottom };
  chart.plotLeft = plot.x;
  chart.plotW = plot.w;
  if (plot.w < 10 || plot.h < 10) return;
  const X = (t) => plot.x + (t - x0) / (x1 - x0) * plot.w;
  const Y = (v) => plot.y + (hi - v) / (hi - lo) * plot.h;
  drawAxes(ctx, plot, { x0, x1, yt, yLabels, X, Y, cssW, cssH });
  ctx.save();
  ctx.beginPath();
  ctx.rect(plot.x, plot.y - 1, plot.w, plot.h + 2);
  ctx.clip();
  cache.signals.forEach((s, si) => drawSeries(ctx, cache, si, s.color, X, Y));
  ctx.restore();
  drawCursor(ctx, plot, X, dpr, x0, x1);
  if (!page.store || page.store.length === 0) {
    ctx.fillStyle = '#9aa0aa';
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    ctx.fillText('no data yet', plot.x + plot.w / 2, plot.y + plot.h / 2);
  }
}

/** Grid, ticks, labels (inside the canvas: the outer x labels are moved in) and axes. */
function drawAxes(ctx, plot, a) {
  const { x0, x1, yt, yLabels, X, Y, cssW, cssH } = a;
  ctx.lineWidth = 1;
  const xt = ticks(x0, x1, Math.max(2, Math.min(5, Math.round(plot.w / 100))));
  const maxAbsX = Math.max(Math.abs(x0), Math.abs(x1));
  ctx.strokeStyle = '#e6e8ec';
  ctx.beginPath();
  for (const v of xt.values) { const x = Math.round(X(v)) + 0.5; ctx.moveTo(x, plot.y); ctx.lineTo(x, plot.y + plot.h); }
  for (const v of yt.values) { const y = Math.round(Y(v)) + 0.5; ctx.moveTo(plot.x, y); ctx.lineTo(plot.x + plot.w, y); }
  ctx.stroke();

  ctx.fillStyle = '#555b66';
  ctx.textAlign = 'center';
  ctx.textBaseline = 'top';
  for (const v of xt.values) {
    const label = tickLabel(v, xt.step, maxAbsX);
    const half = ctx.measureText(label).width / 2;
    const x = Math.max(half + 1, Math.min(cssW - half - 1, X(v)));
    ctx.fillText(label, x, plot.y + plot.h + 5);
  }
  ctx.textAlign = 'right';
  ctx.textBaseline = 'middle';
  yt.values.forEach((v, k) => ctx.fillText(yLabels[k], plot.x - 6, Math.max(6, Y(v))));
  ctx.textBaseline = 'bottom';
  ctx.fillText('t [s]', plot.x + plot.w, cssH - 1);

  ctx.strokeStyle = '#9aa0aa';
  ctx.beginPath();
  ctx.moveTo(plot.x + 0.5, plot.y);
  ctx.lineTo(plot.x + 0.5, plot.y + plot.h + 0.5);
  ctx.lineTo(plot.x + plot.w, plot.y + plot.h + 0.5);
  ctx.stroke();
}

/**
 * Series `si` of `cache`: the envelope (the min..max band of the pixel columns holding more
 * than one row, translucent) and the line through each column's mean (a column of one row:
 * that row, at its time), from the row before the window to the row after it.
 */
function drawSeries(ctx, cache, si, color, X, Y) {
  const a = cache.sig[si];
  const bucketT = (cache.x1 - cache.x0) / cache.nb;
  const xc = (b) => X(cache.x0 + (b + 0.5) * bucketT);
  let band = false;
  for (let b = 0; b < cache.nb && !band; b++) band = a.n[b] > 1 && Y(a.min[b]) - Y(a.max[b]) > 1;
  if (band) {
    ctx.beginPath();
    let first = true;
    for (let b = 0; b < cache.nb; b++) {
      if (a.n[b] === 0) continue;
      if (first) { ctx.moveTo(xc(b), Y(a.max[b])); first = false; } else ctx.lineTo(xc(b), Y(a.max[b]));
    }
    for (let b = cache.nb - 1; b >= 0; b--) if (a.n[b] > 0) ctx.lineTo(xc(b), Y(a.min[b]));
    ctx.closePath();
    ctx.globalAlpha = 0.25;
    ctx.fillStyle = color;
    ctx.fill();
    ctx.globalAlpha = 1;
  }
  ctx.strokeStyle = color;
  ctx.lineWidth = 1.5;
  ctx.lineJoin = 'round';
  ctx.beginPath();
  let started = false;
  const to = (x, y) => { if (started) ctx.lineTo(x, y); else { ctx.moveTo(x, y); started = true; } };
  if (a.before) to(X(a.before[0]), Y(a.before[1]));
  for (let b = 0; b < cache.nb; b++) {
    const cnt = a.n[b];
    if (cnt === 1) to(X(a.tFirst[b]), Y(a.first[b]));
    else if (cnt > 1) to(xc(b), Y(a.sum[b] / cnt));
  }
  if (a.after) to(X(a.after[0]), Y(a.after[1]));
  if (a.rows === 1 && !a.before && !a.after) {
    // A single row: a dot, so that it is visible at all.
    const b = a.n.findIndex((cnt) => cnt > 0);
    ctx.lineTo(X(a.tFirst[b]) + 0.01, Y(a.first[b]));
    ctx.lineCap = 'round';
    ctx.lineWidth = 3;
  }
  ctx.stroke();
  ctx.lineCap = 'butt';
}

/**
 * The cursor line: at the cursor row when it does not follow the latest row, at the held
 * communication point when that has no row.
 */
function drawCursor(ctx, plot, X, dpr, x0, x1) {
  let t = null;
  if (page.point) t = page.point[0];
  else if (!page.follow && page.cursor >= 0 && page.store) t = page.store.time(page.cursor);
  if (t === null || !(t >= x0 && t <= x1)) return;
  const x = Math.round(X(t) * dpr) / dpr + 0.5 / dpr;
  ctx.strokeStyle = 'rgba(30, 34, 40, 0.75)';
  ctx.lineWidth = 1;
  ctx.beginPath();
  ctx.moveTo(x, plot.y);
  ctx.lineTo(x, plot.y + plot.h);
  ctx.stroke();
}
