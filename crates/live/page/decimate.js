// Min/max decimation per pixel column: the rows of a chart's time window [x0, x1] reduced to
// one bucket per device pixel column (row count, sum, min, max, and the first row's time and
// value). Drawing is then O(pixels), not O(rows): a million rows draw as a line (the mean of
// each column) inside its envelope (the min..max band of each column).
//
// The row store is append-only with non-decreasing times, so a window is filled once from its
// first row (a binary search) and then only extended by new rows; rows beyond x1 stop the scan.
// The last row before x0 and the first after x1 are kept too, so that the line reaches the
// plot's edges when the window lies between two rows.

/** Per signal: the buckets of one window, and the rows just outside it. */
function signalBuckets(nb) {
  return {
    n: new Uint32Array(nb),
    sum: new Float64Array(nb),
    min: new Float64Array(nb),
    max: new Float64Array(nb),
    tFirst: new Float64Array(nb),
    first: new Float64Array(nb),
    lo: Infinity, hi: -Infinity,      // over the rows inside the window (the y range)
    rows: 0,                          // rows inside the window with a finite value
    before: null, after: null,        // [t, v] of the nearest rows outside the window
  };
}

/**
 * The buckets of `nb` pixel columns over the time window [x0, x1] (s) for the store columns
 * `cols` (1-based: column j + 1 is value column j). `key` says what the buckets were made for;
 * the chart makes new ones when it changes.
 */
export class Decimation {
  constructor(nb, x0, x1, cols, key) {
    this.nb = nb;
    this.x0 = x0;
    this.x1 = x1;
    this.cols = cols;
    this.key = key;
    this.sig = cols.map(() => signalBuckets(nb));
    this.upTo = -1;                   // rows of the store looked at (-1: not started)
    this.done = false;                // a row beyond x1 was seen: later rows cannot fall inside
  }

  /** Adds the store's rows not yet looked at. */
  extend(store) {
    const n = store.length;
    if (this.upTo < 0) this.upTo = n > 0 ? store.indexAtTime(this.x0) : 0;
    let i = this.upTo;
    while (i < n && !this.done) {
      // Chunk by chunk: first the bucket of each row, then each signal in a tight loop.
      const chunk = store.chunks[i >> store.bits];
      const k0 = i & store.mask;
      const k1 = Math.min(store.chunkLen, k0 + (n - i));
      const [from, to] = this.bucketRows(chunk, k0, k1);
      for (let s = 0; s < this.cols.length; s++) this.addRows(this.sig[s], chunk[this.cols[s]], chunk[0], from, to);
      i += k1 - k0;
    }
    this.upTo = this.done ? n : i;
  }

  /**
   * Puts the bucket of each row k0..k1 of `chunk` into this.bucket (its rows inside the window
   * are from..to); keeps the rows just outside the window; returns [from, to].
   */
  bucketRows(chunk, k0, k1) {
    const T = chunk[0];
    if (!this.bucket || this.bucket.length < T.length) this.bucket = new Int32Array(T.length);
    const bucket = this.bucket;
    const { x0, x1, nb } = this;
    const scale = nb / (x1 - x0);
    let from = k0, to = k1;
    for (let k = k0; k < k1; k++) {
      const t = T[k];
      if (t < x0) { this.outside(chunk, k, t, 'before'); from = k + 1; continue; }
      if (t > x1) { this.outside(chunk, k, t, 'after'); this.done = true; to = k; break; }
      if (!(t >= x0)) { bucket[k] = -1; continue; }               // NaN
      const b = Math.floor((t - x0) * scale);
      bucket[k] = b < nb ? b : nb - 1;
    }
    return [from, Math.max(from, to)];
  }

  /**
   * Adds the values V[from..to] (times T, their buckets in this.bucket) to the signal's
   * buckets `a`.
   */
  addRows(a, V, T, from, to) {
    const bucket = this.bucket;
    const { n, sum, min, max, tFirst, first } = a;
    let lo = a.lo, hi = a.hi, rows = 0;
    for (let k = from; k < to; k++) {
      const b = bucket[k];
      const v = V[k];
      if (b < 0 || !(v - v === 0)) continue;                       // NaN time, or not finite
      if (n[b] === 0) {
        first[b] = v; min[b] = v; max[b] = v; sum[b] = v;
        tFirst[b] = T[k];
      } else {
        if (v < min[b]) min[b] = v;
        if (v > max[b]) max[b] = v;
        sum[b] += v;
      }
      n[b]++;
      rows++;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    a.lo = lo; a.hi = hi; a.rows += rows;
  }

  /** Keeps row `k` of `chunk` (time `t`) as the nearest row before or after the window. */
  outside(chunk, k, t, side) {
    for (let s = 0; s < this.cols.length; s++) {
      const v = chunk[this.cols[s]][k];
      if (Number.isFinite(v)) this.sig[s][side] = [t, v];
    }
  }
}
