// Run in the live view's page (WebDriver's execute_async; the last argument is the callback):
// replaces the page's rows with 10^6 synthetic rows (a slow wave with a fast ripple, one per
// column, t = 0 … 999.999 s) and measures, median of 5, the time of one redraw of all charts
// (ms): `full` rebuilds the decimation (the end time, so the x range, changed), `cached` draws
// from it,
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
  // The time of the charts' own animation-frame callback: requestAnimationFrame is wrapped
  // while requestDraw() asks for it (when a draw was pending already, the change is made
  // again a frame later).
  async function timed(change) {
    for (;;) {
      await frame(); await frame();
      let ms = null;
      const raf = window.requestAnimationFrame;
      window.requestAnimationFrame = (cb) => raf.call(window, (ts) => {
        const t0 = performance.now();
        cb(ts);
        ms = performance.now() - t0;
      });
      try { change(); charts.requestDraw(); } finally { window.requestAnimationFrame = raf; }
      await frame(); await frame();
      if (ms !== null) return ms;
    }
  }
  let end = 1000.5, shift = 0;
  const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];
  const out = { rows: n, charts: document.querySelectorAll('canvas.chart').length };
  const full = [], cached = [], windowed = [];
  for (let k = 0; k < 5; k++) {
    full.push(await timed(() => {
      if (charts.setZoom) charts.setZoom(-Infinity, Infinity);       // the whole run
      page.meta.t_end = end++;
    }));
    cached.push(await timed(() => {}));
    if (charts.setZoom) windowed.push(await timed(() => { shift += 0.01; charts.setZoom(100 * k + shift, 100 * k + 100 + shift); }));
  }
  if (charts.setZoom) charts.setZoom(-Infinity, Infinity);
  await timed(() => {});
  out.full = median(full);
  out.cached = median(cached);
  if (windowed.length) out.window = median(windowed);
  done(out);
})().catch((e) => done({ error: String(e && e.stack || e) }));
