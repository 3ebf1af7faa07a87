// Video recordings of the main view.
//
// What is recorded: every visible <canvas> inside <main> (the scene, then the charts, in
// document order, at their places on the page) and a strip above them with the title and the
// cursor's time, drawn into one off-screen canvas per frame. Each frame is encoded in the
// page with WebCodecs' VideoEncoder (VP8) and the file is written by webm.js.
//
// - The Record button records in real time, at most 30 frames a second, each frame at the
//   time it was drawn; Stop finishes the encoding and downloads the file. When the encoder
//   falls behind, frames wait for it (up to about 64 MB of pictures) and beyond that are
//   skipped, so a slow machine gives fewer frames, never a longer or shorter video.
// - Record mode (`?record=1&fps=F&duration=D`, opened by `mastersim view --record`) renders a
//   replay of stored results: round(F × D) frames, the cursor moving from the first to the
//   last row at a constant pace in simulated time, each frame drawn at its fixed cursor
//   position and encoded at the time k / F, so that the file holds exactly those frames
//   whatever the machine's speed; the file is uploaded to POST /api/recording, and the
//   server writes it.
// The browser's MediaRecorder is not used: in headless Chromium on a busy machine it kept a
// fraction of a second of a 3 s recording, as it drops what its encoder has not finished.
//
// For the tests, window.mastersimView.recording: {state: 'idle' | 'recording' | 'encoding' |
// 'rendering' | 'done' | 'failed', frames, seconds (the button's), size (bytes), url (a blob:
// URL of the last video), error, box (the last recording's frame: {x0, y0} the page point, CSS
// px, drawn at video pixel (0, strip × scale), scale (video px per CSS px), strip (CSS px),
// width and height (video px)), so that a page point (x, y) is at video pixel
// ((x − x0) × scale, (strip + y − y0) × scale)}.

import { $, apiUrl, el, page, showMessage } from './page.js';
import { webmFile } from './webm.js';

const FPS = 30;                 // the button's frame rate
const STRIP = 28;               // CSS px above the canvases: title and cursor time
const MAX_WIDTH = 1920;         // the video is scaled down to fit these (VP8 allows 16383)
const MAX_HEIGHT = 2160;
const KEY_INTERVAL_US = 2e6;    // a key frame every 2 s of video
const QUEUE_BYTES = 64 * 2 ** 20; // pictures waiting for the encoder, at most

const status = { state: 'idle', frames: 0, seconds: 0, size: 0, url: null, error: null, box: null };
if (window.mastersimView) window.mastersimView.recording = status;

const button = $('record');
const nextFrame = () => new Promise((resolve) => requestAnimationFrame(resolve));

// ---------------------------------------------------------------------------------------
// The picture: the visible canvases of <main> and the time strip, in one canvas
// ---------------------------------------------------------------------------------------

/** The visible canvases inside <main>, in document order. */
function visibleCanvases() {
  const main = document.querySelector('main');
  if (!main) return [];
  return [...main.querySelectorAll('canvas')].filter((c) => {
    const r = c.getBoundingClientRect();
    const shown = typeof c.checkVisibility === 'function'
      ? c.checkVisibility({ visibilityProperty: true, opacityProperty: true })
      : c.offsetParent !== null;
    return shown && r.width > 0 && r.height > 0;
  });
}

/** A canvas's rectangle in page coordinates (CSS px). */
function pageRect(c) {
  const r = c.getBoundingClientRect();
  return { x: r.left + window.scrollX, y: r.top + window.scrollY, w: r.width, h: r.height };
}

/**
 * The video's frame, fixed when a recording starts: the box around the visible canvases
 * (page coordinates) plus the strip, scaled down to fit MAX_WIDTH × MAX_HEIGHT; even sizes.
 */
function frameBox() {
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (const c of visibleCanvases()) {
    const r = pageRect(c);
    x0 = Math.min(x0, r.x); y0 = Math.min(y0, r.y);
    x1 = Math.max(x1, r.x + r.w); y1 = Math.max(y1, r.y + r.h);
  }
  if (!(x1 > x0)) { x0 = 0; y0 = 0; x1 = 640; y1 = 360 - STRIP; }
  const w = x1 - x0, h = y1 - y0 + STRIP;
  const scale = Math.min(1, MAX_WIDTH / w, MAX_HEIGHT / h);
  const even = (v) => Math.max(2, 2 * Math.round(v * scale / 2));
  const box = { x0, y0, scale, strip: STRIP, width: even(w), height: even(h) };
  status.box = box;
  return box;
}

/** An off-screen canvas of the box's size and its 2-D context. */
function frameCanvas(box) {
  const canvas = document.createElement('canvas');
  canvas.width = box.width;
  canvas.height = box.height;
  return { canvas, ctx: canvas.getContext('2d') };
}

/** Draws the current picture into `ctx`: white, the strip, then each visible canvas. */
function compose(ctx, box) {
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, box.width, box.height);
  ctx.setTransform(box.scale, 0, 0, box.scale, 0, 0);
  ctx.fillStyle = '#1f2430';
  ctx.font = '600 15px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
  ctx.textBaseline = 'middle';
  const time = el.cursorTime.textContent;
  ctx.fillText(el.title.textContent + (time ? '    t = ' + time + ' s' : ''), 8, STRIP / 2);
  for (const c of visibleCanvases()) {
    const r = pageRect(c);
    ctx.drawImage(c, r.x - box.x0, STRIP + r.y - box.y0, r.w, r.h);
  }
}

function failed(why) {
  status.state = 'failed';
  status.error = why;
  showMessage('recording: ' + why, true);
}

// ---------------------------------------------------------------------------------------
// The encoder: VideoFrames of the off-screen canvas into VP8, then a WebM file
// ---------------------------------------------------------------------------------------

class Video {
  /** A VP8 encoder for pictures of `box`'s size, at about `fps` frames a second. */
  static async open(box, fps) {
    if (typeof VideoEncoder !== 'function') {
      throw new Error("this browser has no WebCodecs VideoEncoder (Chromium 94, Firefox 130 or newer)");
    }
    const config = { codec: 'vp8', width: box.width, height: box.height, framerate: fps,
      bitrate: Math.round(box.width * box.height * fps * 0.1) };
    const support = await VideoEncoder.isConfigSupported(config);
    if (!support.supported) throw new Error('VP8 at ' + box.width + '×' + box.height + ' is not supported');
    return new Video(box, config);
  }

  constructor(box, config) {
    this.box = box;
    this.frames = [];
    this.failure = null;
    this.lastKey = -Infinity;
    this.maxQueue = Math.max(2, Math.floor(QUEUE_BYTES / (box.width * box.height * 4)));
    this.encoder = new VideoEncoder({
      output: (chunk) => {
        const data = new Uint8Array(chunk.byteLength);
        chunk.copyTo(data);
        this.frames.push({ timestamp: chunk.timestamp, key: chunk.type === 'key', data });
      },
      error: (e) => { this.failure = e; },
    });
    this.encoder.configure(config);
  }

  /** Whether the encoder has as many pictures waiting as it may. */
  full() { return this.encoder.encodeQueueSize >= this.maxQueue; }

  /** Encodes the picture of `canvas` at `timestamp` µs. */
  add(canvas, timestamp) {
    if (this.failure) throw this.failure;
    const frame = new VideoFrame(canvas, { timestamp });
    const key = timestamp - this.lastKey >= KEY_INTERVAL_US;
    if (key) this.lastKey = timestamp;
    this.encoder.encode(frame, { keyFrame: key });
    frame.close();
  }

  /** Waits until at most `n` pictures wait for the encoder. */
  async drain(n) {
    while (this.encoder.encodeQueueSize > n && !this.failure) {
      await new Promise((resolve) => this.encoder.addEventListener('dequeue', resolve, { once: true }));
    }
    if (this.failure) throw this.failure;
  }

  /** Encodes what waits, and returns the WebM file of `durationMs` milliseconds. */
  async finish(durationMs) {
    await this.encoder.flush();
    this.encoder.close();
    if (this.failure) throw this.failure;
    return webmFile(this.box.width, this.box.height, this.frames, durationMs);
  }
}

// ---------------------------------------------------------------------------------------
// The Record button: in real time
// ---------------------------------------------------------------------------------------

let active = null;      // the recording in progress

async function start() {
  status.state = 'recording';
  const box = frameBox();
  const { canvas, ctx } = frameCanvas(box);
  let video;
  try {
    video = await Video.open(box, FPS);
  } catch (e) {
    failed(e && e.message ? e.message : String(e));
    return;
  }
  const rec = { video, began: performance.now(), last: -Infinity };
  active = rec;
  Object.assign(status, { state: 'recording', frames: 0, seconds: 0, size: 0, error: null });
  const tick = (now) => {
    if (active !== rec) return;
    status.seconds = (now - rec.began) / 1000;
    if (now - rec.last >= 1000 / FPS - 2 && !video.full()) {
      rec.last = now;
      compose(ctx, box);
      try {
        video.add(canvas, Math.max(0, Math.round((now - rec.began) * 1000)));
        status.frames++;
      } catch (e) {
        active = null;
        failed(e && e.message ? e.message : String(e));
      }
    }
    showButton();
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
  showButton();
}

async function stop() {
  const rec = active;
  active = null;
  if (!rec) return;
  const seconds = (performance.now() - rec.began) / 1000;
  status.state = 'encoding';
  showButton();
  try {
    const bytes = await rec.video.finish(seconds * 1000);
    download(new Blob([bytes], { type: 'video/webm' }), seconds);
  } catch (e) {
    failed(e && e.message ? e.message : String(e));
  }
  showButton();
}

/** The recording as a file: a blob: URL for the tests and a download. */
function download(blob, seconds) {
  if (status.url) URL.revokeObjectURL(status.url);
  const stamp = new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-');
  const name = (el.title.textContent || 'mastersim').replace(/[^\w.-]+/g, '_');
  Object.assign(status, { state: 'done', seconds, size: blob.size, url: URL.createObjectURL(blob) });
  const a = document.createElement('a');
  a.href = status.url;
  a.download = name + '-' + stamp + '.webm';
  document.body.appendChild(a);
  a.click();
  a.remove();
}

function showButton() {
  if (!button) return;
  const on = active !== null;
  button.classList.toggle('recording', on);
  button.disabled = status.state === 'encoding' || status.state === 'rendering';
  const s = Math.floor(status.seconds);
  const clock = Math.floor(s / 60) + ':' + String(s % 60).padStart(2, '0');
  button.textContent = on ? '■ Stop ' + clock : status.state === 'encoding' ? 'encoding…' : '● Record';
  button.title = on ? 'Stop recording and download the video' : 'Record the view as a WebM video';
}

if (button) {
  button.addEventListener('click', () => {
    if (active) stop();
    else if (!['recording', 'encoding', 'rendering'].includes(status.state)) start();
  });
  showButton();
}

// ---------------------------------------------------------------------------------------
// Record mode: a replay rendered frame by frame (mastersim view --record)
// ---------------------------------------------------------------------------------------

/** Waits until the page holds every row of the stored results and has drawn them. */
async function allRows() {
  for (;;) {
    const s = page.status;
    if (page.store && s && s.state === 'finished' && page.store.length >= (s.rows || 0) &&
        page.store.length > 0) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await nextFrame();
  await nextFrame();
}

/** Moves the cursor to row `i` as the time bar does (this page only: no seek is sent). */
function moveCursor(i) {
  el.timebar.value = String(i);
  el.timebar.dispatchEvent(new Event('input', { bubbles: true }));
}

/** Renders `n` frames of the replay at `fps` into a WebM file. */
async function renderFrames(n, fps, box) {
  const { canvas, ctx } = frameCanvas(box);
  const video = await Video.open(box, fps);
  const store = page.store, last = store.length - 1;
  const t0 = store.time(0), t1 = store.time(last);
  for (let k = 0; k < n; k++) {
    const t = n === 1 ? t1 : t0 + (t1 - t0) * (k / (n - 1));
    moveCursor(k === n - 1 ? last : store.indexAtTime(t));
    await nextFrame();            // the charts redraw in this frame, before this callback
    compose(ctx, box);
    video.add(canvas, Math.round(k * 1e6 / fps));
    await video.drain(2);         // each waiting picture is a copy: stay close to the encoder
    status.frames = k + 1;
  }
  const bytes = await video.finish(n * 1000 / fps);
  if (video.frames.length !== n) throw new Error('the encoder returned ' + video.frames.length + ' of ' + n + ' frames');
  return bytes;
}

async function upload(body, type) {
  const resp = await fetch(apiUrl('/api/recording'), {
    method: 'POST', headers: { 'Content-Type': type }, body,
  });
  if (!resp.ok) throw new Error('/api/recording: ' + resp.status + ' ' + (await resp.text()));
}

async function renderReplay(fps, duration) {
  status.state = 'rendering';
  showButton();
  try {
    if (!(fps > 0) || !(duration > 0)) throw new Error('record mode needs fps > 0 and duration > 0');
    await allRows();
    const bytes = await renderFrames(Math.max(1, Math.round(fps * duration)), fps, frameBox());
    Object.assign(status, { state: 'done', size: bytes.length });
    await upload(bytes, 'video/webm');
  } catch (e) {
    const why = e && e.message ? e.message : String(e);
    failed(why);
    try { await upload(JSON.stringify({ error: why }), 'application/json'); } catch (e2) { /* the server times out */ }
  }
}

const params = new URLSearchParams(location.search);
if (params.get('record') === '1') {
  renderReplay(Number(params.get('fps')), Number(params.get('duration')));
}
