// mastersim live view: the browser side of crates/live (the protocol is in docs/live.md).
//
// Plain ES2020 modules, no libraries:
//   page.js      the shared page state and small helpers,
//   rowstore.js  the rows held in the page,
//   charts.js    the charts and their legends, the shared time window (zoom, pan),
//   decimate.js  the min/max decimation per pixel column the charts draw from,
//   tree.js      the tree of shown objects (slaves, charts, variables, other modules' groups),
//   panels.js    a docked panel per slave (its charts and values),
//   control.js   control requests, the status line, the buttons and their colours,
//   scene.js     the scene (docs/live.md, "Scenes"), drawn from the cursor's row,
//   app.js       (this module) the event stream, the rows, the cursor, the time bar and
//                the values table.
// The page
//   1. reads the token from location.search and loads /api/meta,
//   2. builds the charts (one canvas per (slave, unit) group), the legend and the values table,
//   3. follows /api/stream (Server-Sent Events): `rows` events append rows to the row store,
//      `status` events carry the run's state as every page sees it (waiting, running, paused,
//      replay with its row, finished) and update the status line, colours and buttons,
//   4. lets the user move a cursor over the rows with the time bar or in a chart: at the end
//      of a drag a live run gets one `seek` (replay at that row, or leaving replay at the
//      last row), and controls the run with the toolbar.
// Text in the DOM is updated synchronously when data arrives; the canvases are redrawn at most
// once per animation frame, and only when something changed.

import { buildCharts, requestDraw } from './charts.js';
import { attachToolbar, control, seekable, showStatus, updateButtons } from './control.js';
import { PALETTE, apiUrl, el, formatTime, page, showMessage } from './page.js';
import { RowStore } from './rowstore.js';
import { buildPanels } from './panels.js';
import { buildTree } from './tree.js';
import './scene.js';

// For the tests: always the same object, its fields kept current.
const view = { rows: 0, cursor: -1, follow: true, state: null, why: '', point: null };
window.mastersimView = view;

function publishView() {
  view.rows = page.store ? page.store.length : 0;
  view.cursor = page.cursor;
  view.follow = page.follow;
  view.state = page.status ? page.status.state : null;
  view.why = el.why.textContent;
  view.point = page.point;
}

// ---------------------------------------------------------------------------------------
// Status: the shared state, and what it means for this page's cursor
// ---------------------------------------------------------------------------------------

function applyStatus(s) {
  const before = page.status ? page.status.state : null;
  page.status = s;
  showStatus(s);
  const n = page.store ? page.store.length : 0;
  if (s.state === 'replay' && s.replay && s.by !== page.viewId) {
    // Replay from another view (or a script): show its row here too.
    if (s.replay.row !== page.cursor) setCursor(s.replay.row, false);
  } else if (before === 'replay' && s.state !== 'replay' && s.state !== 'finished') {
    setCursor(n - 1, true);         // replay left: follow the newest row again
  }
  const point = s.state === 'paused' && Array.isArray(s.point) ? s.point : null;
  if (point !== page.point && (point === null || page.point === null || point[0] !== page.point[0])) {
    page.point = point;
    updateValues();
    updateCursorRow();
    requestDraw();
  }
  if (s.state !== before) requestDraw();      // a finished run may tighten the x range
  publishView();
  updateConnection();
}

// ---------------------------------------------------------------------------------------
// Connection state ("reconnecting…" while the stream is down)
// ---------------------------------------------------------------------------------------

let connected = false;
let everConnected = false;

function updateConnection() {
  let text = '';
  const status = page.status;
  if (!connected && everConnected) {
    // A finished run whose rows are all here has nothing more to send: no alarm then.
    const complete = status && status.state === 'finished' && page.store &&
      page.store.length >= (status.rows || 0);
    text = complete ? '' : 'reconnecting…';
  } else if (!connected && page.meta) {
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
      const held = page.store.length;
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
    const held = page.store.length;
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

/** Appends rows[skip..] to the page.store and updates everything that depends on the row count. */
function appendRows(rows, skip) {
  for (let i = skip; i < rows.length; i++) page.store.push(rows[i]);
  const n = page.store.length;
  el.computedTime.textContent = n > 0 ? formatTime(page.store.time(n - 1)) : '';
  el.timebar.max = String(Math.max(0, n - 1));
  el.timebar.disabled = n === 0;
  if (page.follow || page.cursor < 0) {
    setCursor(n - 1, true);
  } else {
    el.timebar.value = String(page.cursor);
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
  const n = page.store ? page.store.length : 0;
  if (n === 0) i = -1; else i = Math.max(0, Math.min(n - 1, i));
  page.follow = followNow;
  const changed = i !== page.cursor;
  page.cursor = i;
  if (i >= 0) el.timebar.value = String(i);
  if (changed || page.point) updateValues();
  updateCursorRow();
  publishView();
  requestDraw();          // the cursor line appears, moves or disappears
}

/** The held communication point without a row, when the cursor follows the newest row. */
function shownPoint() {
  return page.follow ? page.point : null;
}

function updateCursorRow() {
  const n = page.store ? page.store.length : 0;
  let text = page.cursor >= 0 ? 'row ' + (page.cursor + 1) + ' of ' + n : '';
  if (shownPoint()) text = 'communication point (no result row here)';
  el.cursorRow.textContent = text;
}

/**
 * Fills the value cells and #cursor-time from the cursor row, or from the held communication
 * point after a single step that wrote no row (String(v): exact).
 */
function updateValues() {
  if (!page.meta) return;
  const point = shownPoint();
  if (point) {
    el.cursorTime.textContent = formatTime(point[0]);
    for (let j = 0; j < valueCells.length; j++) valueCells[j].textContent = String(point[j + 1]);
    return;
  }
  if (page.cursor < 0) {
    el.cursorTime.textContent = '';
    for (const c of valueCells) c.textContent = '';
    return;
  }
  el.cursorTime.textContent = formatTime(page.store.time(page.cursor));
  for (let j = 0; j < valueCells.length; j++) {
    valueCells[j].textContent = String(page.store.get(j + 1, page.cursor));
  }
}

/**
 * The user moved the cursor to row `i` (time bar or a chart); `done` at the end of the drag
 * (or for each arrow key). The cursor moves at once; at the end of a drag a live run gets
 * one `seek`: below the last row it enters or moves replay, at the last row it leaves replay
 * (the run continues if replay paused it). A running run at the last row gets nothing.
 * Stored results, a waiting and a finished run are scrubbed in the page only.
 */
function userMovedCursor(i, done) {
  const n = page.store ? page.store.length : 0;
  if (n === 0) return;
  const last = n - 1;
  const row = Math.max(0, Math.min(last, i));
  setCursor(row, row === last);
  if (!done || !seekable()) return;
  if (row === last && page.status.state === 'running') return;
  control('seek', { row });
}

// `input` fires while dragging and for the arrow keys; `change` once the drag ends (and for
// each arrow key).
el.timebar.addEventListener('input', () => userMovedCursor(Math.round(Number(el.timebar.value)), false));
el.timebar.addEventListener('change', () => userMovedCursor(Math.round(Number(el.timebar.value)), true));

let valueCells = [];

function buildValuesTable() {
  el.values.textContent = '';
  valueCells = [];
  page.meta.columns.forEach((col, j) => {
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

attachToolbar(() => setCursor(page.store ? page.store.length - 1 : -1, true));

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
        if (source === old) openStream({ from: String(page.store.length + queuedRows()) });
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
    applyStatus(s);
  });
}

/** Rows received but not yet appended (the end of the last queued batch beyond the store). */
function queuedRows() {
  if (queue.length === 0) return 0;
  const b = queue[queue.length - 1];
  return Math.max(0, b.from + b.rows.length - page.store.length);
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
  page.meta = await loadMeta();
  if (el.message.className === 'error') showMessage('');
  if (!Array.isArray(page.meta.columns)) page.meta.columns = [];
  page.stored = page.meta.mode === 'replay';
  const title = page.meta.title == null ? '' : String(page.meta.title);
  document.title = 'mastersim – ' + title;
  el.title.textContent = title;
  if (page.stored) {
    el.controls.hidden = true;
    showStatus({ state: 'finished' });
  }
  page.store = new RowStore(page.meta.columns.length);
  buildValuesTable();
  buildCharts(userMovedCursor);
  buildTree();
  buildPanels();
  updateButtons();
  publishView();
  updateConnection();
  openStream();
}

main();
