// The charts of the live view: one canvas per (slave, unit) group, in the order the columns
// first appear, each with a legend of checkboxes; drawn from a per-pixel decimation cache, at
// most once per animation frame.

import { PALETTE, el, page } from './page.js';

// ---------------------------------------------------------------------------------------
// Charts: one canvas per (slave, unit) group, in the order the columns first appear.
// ---------------------------------------------------------------------------------------

// CSS px around the plot; the left margin grows with the widest y tick label.
const MARGIN = { left: 48, right: 14, top: 10, bottom: 34 };
const CHART_HEIGHT = 260;                                     // CSS px

function groupKey(col) {
  let slave = col.slave;
  if (slave == null || slave === '') {
    const dot = col.name.indexOf('.');
    slave = dot > 0 ? col.name.slice(0, dot) : col.name;
  }
  const unit = col.unit == null || col.unit === '' ? '-' : String(col.unit);
  return slave + ' [' + unit + ']';
}

export function buildCharts(onPick) {
  el.charts.textContent = '';
  const byKey = new Map();
  page.groups = [];
  page.meta.columns.forEach((col, j) => {
    const key = groupKey(col);
    let g = byKey.get(key);
    if (!g) {
      g = { key, signals: [], canvas: null, legend: null, cache: null };
      byKey.set(key, g);
      page.groups.push(g);
    }
    g.signals.push({ col: j, name: col.name, color: PALETTE[j % PALETTE.length] });
  });
  // Each group: a head (title + legend) followed by its canvas, all children of #charts.
  for (const g of page.groups) {
    const head = document.createElement('div');
    head.className = 'chart-head';
    const h = document.createElement('h3');
    h.textContent = g.key;
    const legend = document.createElement('div');
    legend.className = 'legend';
    for (const s of g.signals) {
      const label = document.createElement('label');
      label.className = 'legend-item';
      const box = document.createElement('input');
      box.type = 'checkbox';
      box.className = 'signal-toggle';
      box.dataset.name = s.name;
      box.checked = true;
      box.addEventListener('change', () => {
        if (box.checked) page.hidden.delete(s.name); else page.hidden.add(s.name);
        requestDraw();
      });
      const swatch = document.createElement('span');
      swatch.className = 'swatch';
      swatch.style.background = s.color;
      label.append(box, swatch, document.createTextNode(s.name));
      legend.appendChild(label);
    }
    head.append(h, legend);
    const canvas = document.createElement('canvas');
    canvas.className = 'chart';
    canvas.dataset.group = g.key;
    canvas.style.height = CHART_HEIGHT + 'px';
    g.canvas = canvas;
    attachPointer(g, onPick);
    el.charts.append(head, canvas);
  }
  if (typeof ResizeObserver === 'function') {
    const ro = new ResizeObserver(() => requestDraw());
    for (const g of page.groups) ro.observe(g.canvas);
  }
  window.addEventListener('resize', requestDraw);
  requestDraw();
}

/**
 * A click or drag in a chart moves the cursor to the row at that time, like the time bar:
 * `onPick(i, done)`, `done` when the button is released.
 */
function attachPointer(g, onPick) {
  let dragging = false;
  let picked = -1;
  const move = (ev) => {
    if (!page.store || page.store.length === 0 || !g.xRange) return;
    const rect = g.canvas.getBoundingClientRect();
    const left = g.plotLeft || MARGIN.left;
    const plotW = rect.width - left - MARGIN.right;
    if (plotW <= 0) return;
    const frac = (ev.clientX - rect.left - left) / plotW;
    const t = g.xRange[0] + Math.max(0, Math.min(1, frac)) * (g.xRange[1] - g.xRange[0]);
    let i = page.store.indexAtTime(t);
    // The nearer of the two neighbouring rows.
    if (i + 1 < page.store.length && Math.abs(page.store.time(i + 1) - t) < Math.abs(page.store.time(i) - t)) i++;
    picked = i;
    onPick(i, false);
  };
  g.canvas.addEventListener('pointerdown', (ev) => {
    if (ev.button !== 0) return;
    dragging = true;
    picked = -1;
    g.canvas.setPointerCapture(ev.pointerId);
    move(ev);
  });
  g.canvas.addEventListener('pointermove', (ev) => { if (dragging) move(ev); });
  const end = () => {
    if (dragging && picked >= 0) onPick(picked, true);
    dragging = false;
  };
  g.canvas.addEventListener('pointerup', end);
  g.canvas.addEventListener('pointercancel', end);
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
// Decimation cache. Per chart and signal, the rows are reduced to one bucket per device
// pixel column of the plot: first/last value (with their times), min and max, count.
// The page.store is append-only, so new rows just extend the buckets; the cache is rebuilt only
// when the plot width or the x range changes. Drawing is then O(pixels), not O(rows).
// ---------------------------------------------------------------------------------------

function newCache(g, nb, x0, x1) {
  const sig = g.signals.map(() => ({
    n: new Uint32Array(nb),
    first: new Float64Array(nb), last: new Float64Array(nb),
    tFirst: new Float64Array(nb), tLast: new Float64Array(nb),
    min: new Float64Array(nb), max: new Float64Array(nb),
    lo: Infinity, hi: -Infinity,   // over all rows, for the y range
  }));
  return { nb, x0, x1, upTo: 0, sig };
}

/** Adds the rows not yet in the cache to its buckets. */
function extendCache(g) {
  const c = g.cache;
  const n = page.store.length;
  if (c.upTo >= n) return;
  const scale = c.nb / (c.x1 - c.x0);
  const ns = g.signals.length;
  const cols = g.signals.map((s) => s.col + 1);
  let i = c.upTo;
  while (i < n) {
    // Walk chunk by chunk for direct typed-array access.
    const chunk = page.store.chunks[i >> page.store.bits];
    const k0 = i & page.store.mask;
    const k1 = Math.min(page.store.chunkLen, k0 + (n - i));
    const T = chunk[0];
    for (let k = k0; k < k1; k++) {
      const t = T[k];
      if (!(t >= c.x0 && t <= c.x1)) continue;               // outside the range, or NaN
      let b = Math.floor((t - c.x0) * scale);
      if (b >= c.nb) b = c.nb - 1;
      for (let s = 0; s < ns; s++) {
        const v = chunk[cols[s]][k];
        if (!Number.isFinite(v)) continue;
        const a = c.sig[s];
        if (a.n[b] === 0) {
          a.first[b] = v; a.tFirst[b] = t; a.min[b] = v; a.max[b] = v;
        } else {
          if (v < a.min[b]) a.min[b] = v;
          if (v > a.max[b]) a.max[b] = v;
        }
        a.last[b] = v; a.tLast[b] = t;
        a.n[b]++;
        if (v < a.lo) a.lo = v;
        if (v > a.hi) a.hi = v;
      }
    }
    i += k1 - k0;
  }
  c.upTo = n;
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
    for (const g of page.groups) drawChart(g);
  });
}

/** The x range: [t_start, t_end], extended when the data goes beyond t_end. */
function xRange() {
  const n = page.store ? page.store.length : 0;
  let x0 = Number(page.meta.t_start), x1 = Number(page.meta.t_end);
  if (!Number.isFinite(x0)) x0 = n > 0 ? page.store.time(0) : 0;
  const lastT = n > 0 ? page.store.time(n - 1) : x0;
  if (!Number.isFinite(x1) || x1 <= x0) x1 = x0 + 1;      // no usable t_end: from the data
  if (lastT > x1) {
    // A finished run whose rows are all here gets its exact range; while rows still arrive
    // the range grows in steps of 25%, so the decimation cache is not rebuilt every batch.
    const complete = page.status && page.status.state === 'finished' && n >= (page.status.rows || 0);
    if (complete) {
      x1 = lastT;
    } else {
      while (x1 < lastT) x1 = x0 + (x1 - x0) * 1.25;
    }
  }
  return [x0, x1];
}

function drawChart(g) {
  const canvas = g.canvas;
  const dpr = window.devicePixelRatio || 1;
  const cssW = canvas.clientWidth, cssH = canvas.clientHeight;
  if (cssW <= 0 || cssH <= 0) return;
  const devW = Math.round(cssW * dpr), devH = Math.round(cssH * dpr);
  if (canvas.width !== devW || canvas.height !== devH) {
    canvas.width = devW;
    canvas.height = devH;
  }
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, cssW, cssH);

  // Decimate into buckets, one per device pixel of the canvas width (the plot is a bit
  // narrower, so a bucket is at most one pixel column wide; the y labels' width then never
  // invalidates the cache).
  const [x0, x1] = xRange();
  g.xRange = [x0, x1];
  const nb = devW;
  if (!g.cache || g.cache.nb !== nb || g.cache.x0 !== x0 || g.cache.x1 !== x1) {
    g.cache = newCache(g, nb, x0, x1);
  }
  if (page.store) extendCache(g);
  const cache = g.cache;

  // The y range over the visible signals, padded; a flat signal gets a symmetric range.
  let lo = Infinity, hi = -Infinity;
  g.signals.forEach((s, si) => {
    if (page.hidden.has(s.name)) return;
    lo = Math.min(lo, cache.sig[si].lo);
    hi = Math.max(hi, cache.sig[si].hi);
  });
  if (!(lo <= hi)) { lo = 0; hi = 1; }
  else if (lo === hi) {
    const d = lo === 0 ? 1 : Math.abs(lo) * 0.1;
    lo -= d; hi += d;
  } else {
    const pad = (hi - lo) * 0.05;
    lo -= pad; hi += pad;
  }

  // Y tick labels first: their width decides the left margin (in steps of 8 px).
  ctx.font = '11px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
  const yt = ticks(lo, hi, 5);
  const maxAbsY = Math.max(Math.abs(lo), Math.abs(hi));
  const yLabels = yt.values.map((v) => tickLabel(v, yt.step, maxAbsY));
  let labelW = 0;
  for (const l of yLabels) labelW = Math.max(labelW, ctx.measureText(l).width);
  const px0 = Math.max(MARGIN.left, Math.ceil((labelW + 12) / 8) * 8), py0 = MARGIN.top;
  g.plotLeft = px0;
  const pw = cssW - px0 - MARGIN.right;
  const ph = cssH - MARGIN.top - MARGIN.bottom;
  if (pw < 10 || ph < 10) return;

  const X = (t) => px0 + (t - x0) / (x1 - x0) * pw;
  const Y = (v) => py0 + (hi - v) / (hi - lo) * ph;

  // Grid, ticks and labels.
  ctx.lineWidth = 1;
  const xt = ticks(x0, x1, Math.max(2, Math.min(5, Math.round(pw / 100))));
  const maxAbsX = Math.max(Math.abs(x0), Math.abs(x1));
  ctx.strokeStyle = '#e6e8ec';
  ctx.beginPath();
  for (const v of xt.values) { const x = Math.round(X(v)) + 0.5; ctx.moveTo(x, py0); ctx.lineTo(x, py0 + ph); }
  for (const v of yt.values) { const y = Math.round(Y(v)) + 0.5; ctx.moveTo(px0, y); ctx.lineTo(px0 + pw, y); }
  ctx.stroke();

  ctx.fillStyle = '#555b66';
  ctx.textAlign = 'center';
  ctx.textBaseline = 'top';
  for (const v of xt.values) ctx.fillText(tickLabel(v, xt.step, maxAbsX), X(v), py0 + ph + 5);
  ctx.textAlign = 'right';
  ctx.textBaseline = 'middle';
  yt.values.forEach((v, k) => ctx.fillText(yLabels[k], px0 - 6, Y(v)));
  ctx.textAlign = 'right';
  ctx.textBaseline = 'bottom';
  ctx.fillText('t [s]', px0 + pw, cssH - 1);

  // Axes.
  ctx.strokeStyle = '#9aa0aa';
  ctx.beginPath();
  ctx.moveTo(px0 + 0.5, py0);
  ctx.lineTo(px0 + 0.5, py0 + ph + 0.5);
  ctx.lineTo(px0 + pw, py0 + ph + 0.5);
  ctx.stroke();

  // The signals, clipped to the plot area.
  ctx.save();
  ctx.beginPath();
  ctx.rect(px0, py0 - 1, pw, ph + 2);
  ctx.clip();
  ctx.lineWidth = 1.5;
  ctx.lineJoin = 'round';
  const half = 0.5 / dpr;                                     // centre of a device pixel
  const bucketT = (x1 - x0) / nb;                             // time span of a bucket
  g.signals.forEach((s, si) => {
    if (page.hidden.has(s.name)) return;
    const a = cache.sig[si];
    ctx.strokeStyle = s.color;
    ctx.beginPath();
    let started = false;
    let points = 0;
    for (let b = 0; b < cache.nb; b++) {
      const cnt = a.n[b];
      if (cnt === 0) continue;
      const xf = X(a.tFirst[b]);
      if (!started) { ctx.moveTo(xf, Y(a.first[b])); started = true; } else ctx.lineTo(xf, Y(a.first[b]));
      if (cnt > 1) {
        // Many rows in this pixel column: its min/max as a vertical stroke.
        const xc = X(x0 + (b + 0.5) * bucketT);
        ctx.lineTo(xc, Y(a.min[b]));
        ctx.lineTo(xc, Y(a.max[b]));
        ctx.lineTo(X(a.tLast[b]), Y(a.last[b]));
      }
      points += cnt;
    }
    if (points === 1) {
      // A single row: a dot, so that it is visible at all.
      for (let b = 0; b < cache.nb; b++) {
        if (a.n[b] === 0) continue;
        ctx.lineTo(X(a.tFirst[b]) + 0.01, Y(a.first[b]));
        ctx.lineCap = 'round';
        ctx.lineWidth = 3;
        break;
      }
    }
    ctx.stroke();
    ctx.lineCap = 'butt';
    ctx.lineWidth = 1.5;
  });
  ctx.restore();

  // The cursor line: at the cursor row when it does not follow the latest row, at the held
  // communication point when that has no row.
  let cursorT = null;
  if (page.point) cursorT = page.point[0];
  else if (!page.follow && page.cursor >= 0 && page.store) cursorT = page.store.time(page.cursor);
  if (cursorT !== null) {
    const t = cursorT;
    if (t >= x0 && t <= x1) {
      const x = Math.round(X(t) * dpr) / dpr + half;
      ctx.strokeStyle = 'rgba(30, 34, 40, 0.75)';
      ctx.lineWidth = 1;
      ctx.beginPath();
      ctx.moveTo(x, py0);
      ctx.lineTo(x, py0 + ph);
      ctx.stroke();
    }
  }

  if (!page.store || page.store.length === 0) {
    ctx.fillStyle = '#9aa0aa';
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    ctx.fillText('no data yet', px0 + pw / 2, py0 + ph / 2);
  }
}

// ---------------------------------------------------------------------------------------
// The event stream
// ---------------------------------------------------------------------------------------
