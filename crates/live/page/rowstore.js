// The rows held by the page: time plus one Float64Array per column, in fixed-size chunks
// (append only, so a million rows never need one huge reallocation). Column 0 is the time.

import { num } from './page.js';

export class RowStore {
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
