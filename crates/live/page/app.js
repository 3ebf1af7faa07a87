// mastersim live view: the browser side of crates/live (contract: the live API spec).
//
// Plain ES2020, no modules, no libraries. The page
//   1. reads the token from location.search and loads /api/meta,
//   2. builds the charts (one canvas per (slave, unit) group), the legend and the values table,
//   3. follows /api/stream (Server-Sent Events): `rows` events append rows to an in-memory
//      store, `status` events update the status line and the buttons,
//   4. lets the user move a cursor over the rows with the time bar (pausing and resuming a live
//      run as described in the spec) and control the run with the toolbar.
// Text in the DOM is updated synchronously when data arrives; the canvases are redrawn at most
// once per animation frame, and only when something changed.
'use strict';

(function () {
  // ---------------------------------------------------------------------------------------
  // Small helpers
  // ---------------------------------------------------------------------------------------

  const $ = (id) => document.getElementById(id);

  const token = new URLSearchParams(location.search).get('token') || '';

  /** URL of an API endpoint with the token (and optional extra query parameters) appended. */
  function apiUrl(path, params) {
    const q = new URLSearchParams(params || {});
    q.set('token', token);
    return path + '?' + q.toString();
  }

  /** Tableau 10, cycled per column index. */
  const PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f',
    '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];

  /** A JSON value of a row as a float64 (numbers exactly as parsed; Booleans as 0/1). */
  function num(v) {
    if (typeof v === 'number') return v;
    if (typeof v === 'boolean') return v ? 1 : 0;
    return NaN;
  }

  const el = {
    title: $('title'), state: $('state'), simTime: $('sim-time'),
    computedTime: $('computed-time'), pacing: $('pacing'), ending: $('ending'),
    connection: $('connection'), controls: $('controls'), message: $('message'),
    start: $('start'), pause: $('pause'), resume: $('resume'), step: $('step'), stop: $('stop'),
    realtime: $('realtime'), factor: $('factor'), timebar: $('timebar'),
    cursorTime: $('cursor-time'), cursorRow: $('cursor-row'), charts: $('charts'),
    values: $('values'),
  };

  // ---------------------------------------------------------------------------------------
  // Messages (errors of control requests, load problems): a small line, never alert()
  // ---------------------------------------------------------------------------------------

  let messageTimer = 0;

  function showMessage(text, isError) {
    el.message.textContent = text;
    el.message.className = text ? (isError ? 'error' : 'info') : '';
    clearTimeout(messageTimer);
    if (text) messageTimer = setTimeout(() => showMessage(''), 15000);
  }

  // ---------------------------------------------------------------------------------------
  // Row store: time plus one Float64Array per column, in fixed-size chunks (append only, so
  // a million rows never need one huge reallocation). Column 0 is the time.
  // ---------------------------------------------------------------------------------------

  class RowStore {
    constructor(ncols) {
      this.ncols = ncols;              // value columns (without time)
      // Chunk length: a power of two, about 1 MiB of doubles per chunk.
      let bits = 10;
      while (bits < 17 && (1 << (bits + 1)) * (ncols + 1) <= 131072) bits++;
      this.bits = bits;
      this.chunkLen = 1 << bits;
      this.mask = this.chunkLen - 1;
      this.chunks = [];                // chunk = array of ncols + 1 Float64Array(chunkLen)
      this.length = 0;
    }

    /** Appends one row [t, v0, ..., v_{n-1}]; missing entries become NaN. */
    push(row) {
      const c = this.length >> this.bits;
      if (c === this.chunks.length) {
        const chunk = [];
        for (let j = 0; j <= this.ncols; j++) chunk.push(new Float64Array(this.chunkLen));
        this.chunks.push(chunk);
      }
      const chunk = this.chunks[c];
      const k = this.length & this.mask;
      for (let j = 0; j <= this.ncols; j++) chunk[j][k] = num(row[j]);
      this.length++;
    }

    /** Value of column `col` (0 = time, j + 1 = column j) in row `i`. */
    get(col, i) {
      return this.chunks[i >> this.bits][col][i & this.mask];
    }

    time(i) { return this.get(0, i); }

    /** Index of the last row with time <= t (0 if none); the times are non-decreasing. */
    indexAtTime(t) {
      let lo = 0, hi = this.length - 1;
      if (hi < 0) return -1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (this.time(mid) <= t) lo = mid; else hi = mid - 1;
      }
      return lo;
    }
  }

  // ---------------------------------------------------------------------------------------
  // Page state
  // ---------------------------------------------------------------------------------------

  let meta = null;            // /api/meta
  let store = null;           // RowStore
  let status = null;          // last status (event or control answer)
  let replay = false;
  let cursor = -1;            // row index shown in the values table (-1: no rows yet)
  let follow = true;          // cursor follows the latest row
  let groups = [];            // charts, see buildCharts()
  const hidden = new Set();   // names of signals switched off in the legends

  // For the tests: always the same object, its fields kept current.
  const view = { rows: 0, cursor: -1, follow: true };
  window.mastersimView = view;

  function publishView() {
    view.rows = store ? store.length : 0;
    view.cursor = cursor;
    view.follow = follow;
  }

  // ---------------------------------------------------------------------------------------
  // Control requests. They run one after another (so a pause and a resume sent in quick
  // succession arrive in order). `expected` is the state the queued commands will lead to;
  // the time bar decides on it, so one drag sends a single pause, not one per input event.
  // ---------------------------------------------------------------------------------------

  let controlChain = Promise.resolve();
  let controlsPending = 0;
  let expected = null;        // 'paused' | 'running' | null
  let realTimePending = 0;    // real_time requests in flight (status does not overwrite the inputs)

  function effectiveState() {
    if (controlsPending > 0 && expected) return expected;
    return status ? status.state : null;
  }

  function control(command, extra) {
    const body = Object.assign({ command }, extra || {});
    if (command === 'pause') expected = 'paused';
    else if (command === 'resume' || command === 'start') expected = 'running';
    if (command === 'real_time') realTimePending++;
    controlsPending++;
    const run = async () => {
      try {
        const resp = await fetch(apiUrl('/api/control'), {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        });
        let answer = null;
        try { answer = await resp.json(); } catch (e) { answer = null; }
        if (!resp.ok) {
          const why = answer && answer.error ? answer.error : resp.status + ' ' + resp.statusText;
          showMessage(command + ': ' + why, true);
        } else {
          if (el.message.className === 'error') showMessage('');
          // The answer is the status when the command arrived; the run reaches the new state
          // a moment later, and the event stream reports it. Only the stream sets the status,
          // so that a late answer never overwrites a newer state.
        }
      } catch (e) {
        showMessage(command + ': ' + (e && e.message ? e.message : 'request failed'), true);
      } finally {
        controlsPending--;
        if (command === 'real_time') realTimePending--;
        if (controlsPending === 0) expected = null;
        updateButtons();
      }
    };
    controlChain = controlChain.then(run, run);
    updateButtons();
    return controlChain;
  }

  // ---------------------------------------------------------------------------------------
  // Status line and buttons
  // ---------------------------------------------------------------------------------------

  /** Pacing figures, e.g. "real time ×1 · total 0.990 · rolling 1.000 · 0 overruns". */
  function pacingText(s) {
    const parts = [];
    if (s.real_time != null) parts.push('real time ×' + String(s.real_time));
    const p = s.pacing;
    if (p) {
      if (typeof p.total_factor === 'number') parts.push('total ' + p.total_factor.toFixed(3));
      if (typeof p.rolling_factor === 'number') parts.push('rolling ' + p.rolling_factor.toFixed(3));
      if (typeof p.overruns === 'number') {
        let o = p.overruns + (p.overruns === 1 ? ' overrun' : ' overruns');
        if (p.overruns > 0 && typeof p.max_overrun === 'number') {
          o += ' (max ' + p.max_overrun.toFixed(3) + ' s)';
        }
        parts.push(o);
      }
    }
    return parts.join(' · ');
  }

  function applyStatus(s) {
    status = s;
    el.state.textContent = replay ? 'replay' : String(s.state);
    el.state.className = 'state-' + (replay ? 'replay' : s.state);
    el.simTime.textContent = s.t == null ? '' : formatTime(s.t);
    el.pacing.textContent = pacingText(s);
    el.ending.textContent = s.state === 'finished' && s.ending ? s.ending : '';
    // Keep the pacing inputs in step with the server (not while the user edits them).
    if (!replay && realTimePending === 0) {
      el.realtime.checked = s.real_time != null;
      if (s.real_time != null && document.activeElement !== el.factor) {
        el.factor.value = String(s.real_time);
        lastSentFactor = s.real_time;
      }
      if (s.real_time == null) lastSentFactor = null;
    }
    updateButtons();
    updateConnection();
  }

  /** Enables the buttons that make sense for the current state. */
  function updateButtons() {
    const st = status ? status.state : null;
    const live = !replay && st != null;
    el.start.disabled = !(live && st === 'waiting');
    el.pause.disabled = !(live && st === 'running');
    el.resume.disabled = !(live && st === 'paused');
    el.step.disabled = !(live && (st === 'waiting' || st === 'paused'));
    el.stop.disabled = !(live && st !== 'finished');
    el.realtime.disabled = !(live && st !== 'finished');
    el.factor.disabled = el.realtime.disabled;
  }

  el.start.addEventListener('click', () => { setFollow(true); control('start'); });
  el.pause.addEventListener('click', () => control('pause'));
  el.resume.addEventListener('click', () => { setFollow(true); control('resume'); });
  el.step.addEventListener('click', () => { setFollow(true); control('step'); });
  el.stop.addEventListener('click', () => control('stop'));

  // Real-time pacing: the checkbox switches it, the number is the factor. Changing either
  // sends {"command": "real_time", "factor": number-or-null}. The factor is sent on `change`
  // and, while typing, shortly after the last `input`; the same value is not sent twice.
  let lastSentFactor;         // undefined: nothing sent yet
  let factorTimer = 0;

  function sendRealTime() {
    clearTimeout(factorTimer);
    let factor = null;
    if (el.realtime.checked) {
      factor = Number(el.factor.value);
      if (el.factor.value.trim() === '' || !Number.isFinite(factor) || factor <= 0) {
        showMessage('real time: the factor must be a number > 0', true);
        return;
      }
    }
    if (factor === lastSentFactor) return;
    lastSentFactor = factor;
    control('real_time', { factor });
  }

  el.realtime.addEventListener('change', () => { lastSentFactor = undefined; sendRealTime(); });
  el.factor.addEventListener('change', sendRealTime);
  el.factor.addEventListener('input', () => {
    clearTimeout(factorTimer);
    factorTimer = setTimeout(sendRealTime, 600);
  });

  // ---------------------------------------------------------------------------------------
  // Connection state ("reconnecting…" while the stream is down)
  // ---------------------------------------------------------------------------------------

  let connected = false;
  let everConnected = false;

  function updateConnection() {
    let text = '';
    if (!connected && everConnected) {
      // A finished run whose rows are all here has nothing more to send: no alarm then.
      const complete = status && status.state === 'finished' && store &&
        store.length >= (status.rows || 0);
      text = complete ? '' : 'reconnecting…';
    } else if (!connected && meta) {
      text = 'connecting…';
    }
    el.connection.textContent = text;
    el.connection.className = 'field' + (text ? ' warn' : '');
  }

  // ---------------------------------------------------------------------------------------
  // Rows: the stream delivers batches {from, rows}. They are applied strictly in order; a
  // batch that starts beyond the rows held first has the gap fetched from /api/rows, and
  // batches arriving in the meantime wait in the queue.
  // ---------------------------------------------------------------------------------------

  const queue = [];
  let pumping = false;
  const GAP_CHUNK = 200000;   // rows per /api/rows request when filling a gap

  function enqueueRows(batch) {
    if (!batch || !Array.isArray(batch.rows) || typeof batch.from !== 'number') return;
    queue.push(batch);
    pump();
  }

  async function pump() {
    if (pumping) return;
    pumping = true;
    try {
      while (queue.length > 0) {
        const batch = queue[0];
        const held = store.length;
        if (batch.from > held) {
          // Gap: fetch rows held .. min(from, held + GAP_CHUNK) and loop.
          const to = Math.min(batch.from, held + GAP_CHUNK);
          const got = await fetchRows(held, to);
          if (!got) {
            await new Promise((r) => setTimeout(r, 1000));    // nothing appended: retry later
          }
          continue;
        }
        queue.shift();
        const skip = held - batch.from;                         // overlap already held
        if (skip < batch.rows.length) appendRows(batch.rows, skip);
      }
    } finally {
      pumping = false;
    }
  }

  /** Fetches rows [from, to) and appends them; returns the number appended or null on error. */
  async function fetchRows(from, to) {
    try {
      const resp = await fetch(apiUrl('/api/rows', { from: String(from), to: String(to) }));
      if (!resp.ok) throw new Error('/api/rows: ' + resp.status + ' ' + resp.statusText);
      const answer = await resp.json();
      const held = store.length;
      const start = typeof answer.from === 'number' ? answer.from : from;
      const rows = Array.isArray(answer.rows) ? answer.rows : [];
      if (start > held || rows.length === 0) return null;
      const skip = held - start;
      if (skip < rows.length) appendRows(rows, skip);
      return Math.max(0, rows.length - skip);
    } catch (e) {
      showMessage('could not fetch missing rows: ' + (e && e.message ? e.message : e), true);
      return null;
    }
  }

  /** Appends rows[skip..] to the store and updates everything that depends on the row count. */
  function appendRows(rows, skip) {
    for (let i = skip; i < rows.length; i++) store.push(rows[i]);
    const n = store.length;
    el.computedTime.textContent = n > 0 ? String(store.time(n - 1)) : '';
    el.timebar.max = String(Math.max(0, n - 1));
    el.timebar.disabled = n === 0;
    if (follow || cursor < 0) {
      setCursor(n - 1, true);
    } else {
      el.timebar.value = String(cursor);
      updateCursorRow();
    }
    publishView();
    updateConnection();
    requestDraw();
  }

  // ---------------------------------------------------------------------------------------
  // Cursor, time bar and values table
  // ---------------------------------------------------------------------------------------

  /** Shows row `i` in the values table; `followNow` tells whether it is the followed last row. */
  function setCursor(i, followNow) {
    const n = store ? store.length : 0;
    if (n === 0) i = -1; else i = Math.max(0, Math.min(n - 1, i));
    follow = followNow;
    const changed = i !== cursor;
    cursor = i;
    if (i >= 0) el.timebar.value = String(i);
    if (changed) updateValues();
    updateCursorRow();
    publishView();
    requestDraw();          // the cursor line appears, moves or disappears
  }

  function setFollow(on) {
    const n = store ? store.length : 0;
    if (on) setCursor(n - 1, true);
    else setCursor(cursor, false);
  }

  function updateCursorRow() {
    const n = store ? store.length : 0;
    el.cursorRow.textContent = cursor >= 0 ? 'row ' + (cursor + 1) + ' of ' + n : '';
  }

  /**
   * A time (s) as people read it: to the precision of the run's time grid (meta.time_decimals,
   * trailing zeros trimmed, never -0), so that 17.900000000000002 reads 17.9; the shortest
   * round trip (String) when the server gives no precision.
   */
  function formatTime(t) {
    const decimals = meta ? meta.time_decimals : null;
    if (typeof decimals !== 'number' || !Number.isFinite(t)) return String(t);
    let text = t.toFixed(Math.min(decimals, 100));
    if (text.includes('.')) text = text.replace(/0+$/, '').replace(/\.$/, '');
    if (/^-[0.]*$/.test(text)) text = text.slice(1);
    return text;
  }

  /** Fills the value cells and #cursor-time from the cursor row (String(v): exact). */
  function updateValues() {
    if (!meta) return;
    if (cursor < 0) {
      el.cursorTime.textContent = '';
      for (const c of valueCells) c.textContent = '';
      return;
    }
    el.cursorTime.textContent = formatTime(store.time(cursor));
    for (let j = 0; j < valueCells.length; j++) {
      valueCells[j].textContent = String(store.get(j + 1, cursor));
    }
  }

  /**
   * The user moved the cursor to row `i` (time bar or a click in a chart). Below the last
   * row: stop following and pause a running run. At the last row: follow again and resume a
   * paused run. In replay mode only the cursor moves.
   */
  function userMovedCursor(i) {
    const n = store ? store.length : 0;
    if (n === 0) return;
    const last = n - 1;
    if (i >= last) {
      setCursor(last, true);
      if (!replay && effectiveState() === 'paused') control('resume');
    } else {
      setCursor(i, false);
      if (!replay && effectiveState() === 'running') control('pause');
    }
  }

  // `input` fires while dragging and for the arrow keys alike.
  el.timebar.addEventListener('input', () => userMovedCursor(Math.round(Number(el.timebar.value))));

  let valueCells = [];

  function buildValuesTable() {
    el.values.textContent = '';
    valueCells = [];
    meta.columns.forEach((col, j) => {
      const tr = document.createElement('tr');
      tr.dataset.name = col.name;
      const name = document.createElement('td');
      name.textContent = col.name;
      name.className = 'name';
      name.style.borderLeftColor = PALETTE[j % PALETTE.length];
      const unit = document.createElement('td');
      unit.textContent = col.unit == null ? '' : String(col.unit);
      unit.className = 'unit';
      const value = document.createElement('td');
      value.className = 'value';
      tr.append(name, unit, value);
      el.values.appendChild(tr);
      valueCells.push(value);
    });
  }

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

  function buildCharts() {
    el.charts.textContent = '';
    const byKey = new Map();
    groups = [];
    meta.columns.forEach((col, j) => {
      const key = groupKey(col);
      let g = byKey.get(key);
      if (!g) {
        g = { key, signals: [], canvas: null, legend: null, cache: null };
        byKey.set(key, g);
        groups.push(g);
      }
      g.signals.push({ col: j, name: col.name, color: PALETTE[j % PALETTE.length] });
    });
    // Each group: a head (title + legend) followed by its canvas, all children of #charts.
    for (const g of groups) {
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
          if (box.checked) hidden.delete(s.name); else hidden.add(s.name);
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
      attachPointer(g);
      el.charts.append(head, canvas);
    }
    if (typeof ResizeObserver === 'function') {
      const ro = new ResizeObserver(() => requestDraw());
      for (const g of groups) ro.observe(g.canvas);
    }
    window.addEventListener('resize', requestDraw);
    requestDraw();
  }

  /** A click or drag in a chart moves the cursor to the row at that time (like the time bar). */
  function attachPointer(g) {
    let dragging = false;
    const move = (ev) => {
      if (!store || store.length === 0 || !g.xRange) return;
      const rect = g.canvas.getBoundingClientRect();
      const left = g.plotLeft || MARGIN.left;
      const plotW = rect.width - left - MARGIN.right;
      if (plotW <= 0) return;
      const frac = (ev.clientX - rect.left - left) / plotW;
      const t = g.xRange[0] + Math.max(0, Math.min(1, frac)) * (g.xRange[1] - g.xRange[0]);
      let i = store.indexAtTime(t);
      // The nearer of the two neighbouring rows.
      if (i + 1 < store.length && Math.abs(store.time(i + 1) - t) < Math.abs(store.time(i) - t)) i++;
      userMovedCursor(i);
    };
    g.canvas.addEventListener('pointerdown', (ev) => {
      if (ev.button !== 0) return;
      dragging = true;
      g.canvas.setPointerCapture(ev.pointerId);
      move(ev);
    });
    g.canvas.addEventListener('pointermove', (ev) => { if (dragging) move(ev); });
    const end = () => { dragging = false; };
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
  // The store is append-only, so new rows just extend the buckets; the cache is rebuilt only
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
    const n = store.length;
    if (c.upTo >= n) return;
    const scale = c.nb / (c.x1 - c.x0);
    const ns = g.signals.length;
    const cols = g.signals.map((s) => s.col + 1);
    let i = c.upTo;
    while (i < n) {
      // Walk chunk by chunk for direct typed-array access.
      const chunk = store.chunks[i >> store.bits];
      const k0 = i & store.mask;
      const k1 = Math.min(store.chunkLen, k0 + (n - i));
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
  function requestDraw() {
    if (drawPending) return;
    drawPending = true;
    requestAnimationFrame(() => {
      drawPending = false;
      for (const g of groups) drawChart(g);
    });
  }

  /** The x range: [t_start, t_end], extended when the data goes beyond t_end. */
  function xRange() {
    const n = store ? store.length : 0;
    let x0 = Number(meta.t_start), x1 = Number(meta.t_end);
    if (!Number.isFinite(x0)) x0 = n > 0 ? store.time(0) : 0;
    const lastT = n > 0 ? store.time(n - 1) : x0;
    if (!Number.isFinite(x1) || x1 <= x0) x1 = x0 + 1;      // no usable t_end: from the data
    if (lastT > x1) {
      // A finished run whose rows are all here gets its exact range; while rows still arrive
      // the range grows in steps of 25%, so the decimation cache is not rebuilt every batch.
      const complete = status && status.state === 'finished' && n >= (status.rows || 0);
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
    if (store) extendCache(g);
    const cache = g.cache;

    // The y range over the visible signals, padded; a flat signal gets a symmetric range.
    let lo = Infinity, hi = -Infinity;
    g.signals.forEach((s, si) => {
      if (hidden.has(s.name)) return;
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
      if (hidden.has(s.name)) return;
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

    // The cursor line, when the cursor does not follow the latest row.
    if (!follow && cursor >= 0 && store) {
      const t = store.time(cursor);
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

    if (!store || store.length === 0) {
      ctx.fillStyle = '#9aa0aa';
      ctx.textAlign = 'center';
      ctx.textBaseline = 'middle';
      ctx.fillText('no data yet', px0 + pw / 2, py0 + ph / 2);
    }
  }

  // ---------------------------------------------------------------------------------------
  // The event stream
  // ---------------------------------------------------------------------------------------

  let source = null;

  function openStream(params) {
    source = new EventSource(apiUrl('/api/stream', params));
    source.addEventListener('open', () => {
      connected = true;
      everConnected = true;
      updateConnection();
    });
    source.addEventListener('error', () => {
      connected = false;
      updateConnection();
      // EventSource reconnects by itself (with Last-Event-ID) unless the server refused the
      // stream outright; then start a new one from the rows held, a little later.
      if (source.readyState === EventSource.CLOSED) {
        const old = source;
        setTimeout(() => {
          if (source === old) openStream({ from: String(store.length + queuedRows()) });
        }, 3000);
      }
    });
    source.addEventListener('rows', (ev) => {
      let batch;
      try { batch = JSON.parse(ev.data); } catch (e) { return; }
      enqueueRows(batch);
    });
    source.addEventListener('status', (ev) => {
      let s;
      try { s = JSON.parse(ev.data); } catch (e) { return; }
      const before = status ? status.state : null;
      applyStatus(s);
      if (s.state !== before) requestDraw();      // a finished run may tighten the x range
    });
  }

  /** Rows received but not yet appended (the end of the last queued batch beyond the store). */
  function queuedRows() {
    if (queue.length === 0) return 0;
    const b = queue[queue.length - 1];
    return Math.max(0, b.from + b.rows.length - store.length);
  }

  // ---------------------------------------------------------------------------------------
  // Start: load the metadata (retrying until it is there), then build the page and stream.
  // ---------------------------------------------------------------------------------------

  async function loadMeta() {
    for (;;) {
      try {
        const resp = await fetch(apiUrl('/api/meta'));
        if (!resp.ok) {
          let why = resp.status + ' ' + resp.statusText;
          try { const j = await resp.json(); if (j && j.error) why = j.error; } catch (e) { /* not JSON */ }
          if (resp.status === 403) why += ' (is the token in the URL?)';
          throw new Error(why);
        }
        return await resp.json();
      } catch (e) {
        showMessage('could not load /api/meta: ' + (e && e.message ? e.message : e), true);
        await new Promise((r) => setTimeout(r, 3000));
      }
    }
  }

  async function main() {
    publishView();
    meta = await loadMeta();
    if (el.message.className === 'error') showMessage('');
    if (!Array.isArray(meta.columns)) meta.columns = [];
    replay = meta.mode === 'replay';
    const title = meta.title == null ? '' : String(meta.title);
    document.title = 'mastersim – ' + title;
    el.title.textContent = title;
    if (replay) {
      el.controls.hidden = true;
      el.state.textContent = 'replay';
      el.state.className = 'state-replay';
    }
    store = new RowStore(meta.columns.length);
    buildValuesTable();
    buildCharts();
    updateButtons();
    publishView();
    updateConnection();
    openStream();
  }

  main();
})();
