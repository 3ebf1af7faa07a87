// Run in the live view's page (WebDriver's execute_async; the last argument is the callback):
// replaces the page's rows with 10^6 synthetic rows (a slow wave with a fast ripple, one per
// column, t = 0 … 999.999 s) and measures, median of 5, the time of one redraw of all charts
// (ms): `full` rebuilds the decimation (the plot width changed), `cached` draws from it,
// `window` (when the page has a shared time window) rebuilds it for a tenth of the run.
// Works with any version of the page that exports buildCharts/requestDraw from /charts.js.
const done = arguments[arguments.length - 1];
(async () => {
  const { page } = await import('/page.js');
  const { RowStore } = await import('/rowstore.js');
  const charts = await import('/charts.js');
  const n = 1000000;
  const ncols = page.meta.columns.length;
  const store = new RowStore(ncols);
  const row = new Array(ncols + 1);
  for (let i = 0; i < n; i++) {
    const t = i * 1e-3;
    row[0] = t;
    for (let j = 1; j <= ncols; j++) row[j] = Math.sin(t * 0.02 * j) + 0.2 * Math.sin(t * 37);
    store.push(row);
  }
  page.store = store;
  page.meta.t_start = 0;
  page.meta.t_end = (n - 1) * 1e-3;
  page.status = Object.assign({}, page.status, { state: 'finished', rows: n });
  page.follow = true;
  page.cursor = n - 1;
  const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
  const box = document.getElementById('charts');
  async function timed(change) {
    await frame(); await frame(); await frame();
    let t0 = 0;
    requestAnimationFrame(() => { t0 = performance.now(); });
    change();
    charts.requestDraw();
    return new Promise((r) => requestAnimationFrame(() => r(performance.now() - t0)));
  }
  const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];
  const out = { rows: n, charts: document.querySelectorAll('canvas.chart').length };
  const full = [], cached = [], windowed = [];
  for (let k = 0; k < 5; k++) {
    full.push(await timed(() => { box.style.width = k % 2 ? '' : 'calc(100% - 3px)'; }));
    cached.push(await timed(() => {}));
    if (charts.setZoom) windowed.push(await timed(() => charts.setZoom(100 * k, 100 * k + 100)));
  }
  if (charts.setZoom) charts.setZoom(-Infinity, Infinity);
  box.style.width = '';
  await timed(() => {});
  out.full = median(full);
  out.cached = median(cached);
  if (windowed.length) out.window = median(windowed);
  done(out);
})().catch((e) => done({ error: String(e && e.stack || e) }));
