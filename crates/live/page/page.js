// The page's shared state and small helpers, used by every other module of the live view.

export const $ = (id) => document.getElementById(id);

const token = new URLSearchParams(location.search).get('token') || '';

/** URL of an API endpoint with the token (and optional extra query parameters) appended. */
export function apiUrl(path, params) {
  const q = new URLSearchParams(params || {});
  q.set('token', token);
  return path + '?' + q.toString();
}

/** Tableau 10, cycled per column index. */
export const PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f',
  '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];

/** A JSON value of a row as a float64 (numbers exactly as parsed; Booleans as 0/1). */
export function num(v) {
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  return NaN;
}

export const el = {
  title: $('title'), state: $('state'), why: $('why'), simTime: $('sim-time'),
  computedTime: $('computed-time'), pacing: $('pacing'), ending: $('ending'),
  connection: $('connection'), controls: $('controls'), message: $('message'),
  start: $('start'), pause: $('pause'), resume: $('resume'), step: $('step'), stop: $('stop'),
  realtime: $('realtime'), factor: $('factor'), timebar: $('timebar'),
  cursorTime: $('cursor-time'), cursorRow: $('cursor-row'), charts: $('charts'),
  values: $('values'),
};

/**
 * What the modules share. `status.state` is the run's state as every page sees it (waiting,
 * running, paused, replay, finished); `stored` is true for stored results (`mastersim view`),
 * which the page scrubs by itself. `point` is the held communication point `[t, v0, …]` shown
 * instead of the cursor row after a single step that wrote no row.
 */
export const page = {
  meta: null, store: null, status: null, stored: false,
  cursor: -1, follow: true, point: null,
  groups: [], hidden: new Set(),
  // This page's name in the commands it sends; the status names the view that holds the run.
  viewId: Math.random().toString(36).slice(2) + Date.now().toString(36),
};

let messageTimer = 0;

/** Shows `text` in the message line (red when `isError`) for 15 s; never alert(). */
export function showMessage(text, isError) {
  el.message.textContent = text;
  el.message.className = text ? (isError ? 'error' : 'info') : '';
  clearTimeout(messageTimer);
  if (text) messageTimer = setTimeout(() => showMessage(''), 15000);
}

/**
 * A time (s) as people read it: to the precision of the run's time grid (meta.time_decimals,
 * trailing zeros trimmed, never -0), so that 17.900000000000002 reads 17.9; the shortest
 * round trip (String) when the server gives no precision.
 */
export function formatTime(t) {
  const decimals = page.meta ? page.meta.time_decimals : null;
  if (typeof decimals !== 'number' || !Number.isFinite(t)) return String(t);
  let text = t.toFixed(Math.min(decimals, 100));
  if (text.includes('.')) text = text.replace(/0+$/, '').replace(/\.$/, '');
  if (/^-[0.]*$/.test(text)) text = text.slice(1);
  return text;
}
