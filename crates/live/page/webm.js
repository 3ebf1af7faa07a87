// A WebM file of VP8 frames, written in the page (for `mastersim view --record`, which
// encodes each frame itself with WebCodecs' VideoEncoder, so that the file holds exactly the
// frames drawn, at exact times). WebM is a subset of Matroska, an EBML format: every element
// is its ID, its size as a variable-length integer, then its payload. Written here: the EBML
// header (DocType "webm"), one Segment with Info (timestamps in milliseconds, the duration),
// Tracks (one VP8 video track) and Clusters of SimpleBlocks, a new Cluster at each key frame.
// Spec: Matroska (RFC 9559) and its WebM profile (webmproject.org, "WebM Container
// Guidelines"); EBML (RFC 8794).

const encoder = new TextEncoder();

/** Bytes of `parts` (Uint8Arrays) one after another. */
function join(parts) {
  let length = 0;
  for (const p of parts) length += p.length;
  const out = new Uint8Array(length);
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}

/** An unsigned integer as its shortest big-endian bytes (at least one). */
function bigEndian(n) {
  const bytes = [];
  let rest = n;
  do { bytes.unshift(rest % 256); rest = Math.floor(rest / 256); } while (rest > 0);
  return Uint8Array.from(bytes);
}

/** An element size as an EBML variable-length integer (1–8 bytes; all ones is reserved). */
function sizeField(n) {
  let length = 1;
  while (length < 8 && n >= 2 ** (7 * length) - 1) length++;
  const out = new Uint8Array(length);
  let rest = n;
  for (let i = length - 1; i >= 0; i--) { out[i] = rest % 256; rest = Math.floor(rest / 256); }
  out[0] |= 0x80 >> (length - 1);
  return out;
}

/** An element: its ID (whose bytes carry their own length marker), size and payload. */
function element(id, payload) {
  return join([bigEndian(id), sizeField(payload.length), payload]);
}

const uint = (id, n) => element(id, bigEndian(n));
const text = (id, s) => element(id, encoder.encode(s));
function float(id, x) {
  const bytes = new Uint8Array(8);
  new DataView(bytes.buffer).setFloat64(0, x);
  return element(id, bytes);
}

// Element IDs (Matroska / EBML).
const ID = {
  EBML: 0x1A45DFA3, EBMLVersion: 0x4286, EBMLReadVersion: 0x42F7, EBMLMaxIDLength: 0x42F2,
  EBMLMaxSizeLength: 0x42F3, DocType: 0x4282, DocTypeVersion: 0x4287, DocTypeReadVersion: 0x4285,
  Segment: 0x18538067, Info: 0x1549A966, TimestampScale: 0x2AD7B1, MuxingApp: 0x4D80,
  WritingApp: 0x5741, Duration: 0x4489, Tracks: 0x1654AE6B, TrackEntry: 0xAE, TrackNumber: 0xD7,
  TrackUID: 0x73C5, TrackType: 0x83, FlagLacing: 0x9C, CodecID: 0x86, Video: 0xE0,
  PixelWidth: 0xB0, PixelHeight: 0xBA, Cluster: 0x1F43B675, Timestamp: 0xE7, SimpleBlock: 0xA3,
};

/**
 * The WebM file of a `width` × `height` VP8 video whose encoded frames are `frames`
 * ({timestamp in µs, key: boolean, data: Uint8Array}, in order, the first a key frame),
 * lasting `durationMs` milliseconds.
 */
export function webmFile(width, height, frames, durationMs) {
  const header = element(ID.EBML, join([
    uint(ID.EBMLVersion, 1), uint(ID.EBMLReadVersion, 1), uint(ID.EBMLMaxIDLength, 4),
    uint(ID.EBMLMaxSizeLength, 8), text(ID.DocType, 'webm'), uint(ID.DocTypeVersion, 2),
    uint(ID.DocTypeReadVersion, 2),
  ]));
  const info = element(ID.Info, join([
    uint(ID.TimestampScale, 1000000), text(ID.MuxingApp, 'mastersim'),
    text(ID.WritingApp, 'mastersim live view'), float(ID.Duration, durationMs),
  ]));
  const track = element(ID.TrackEntry, join([
    uint(ID.TrackNumber, 1), uint(ID.TrackUID, 1), uint(ID.TrackType, 1),
    uint(ID.FlagLacing, 0), text(ID.CodecID, 'V_VP8'),
    element(ID.Video, join([uint(ID.PixelWidth, width), uint(ID.PixelHeight, height)])),
  ]));
  const clusters = [];
  let cluster = null;
  const close = () => {
    if (cluster) clusters.push(element(ID.Cluster, join([uint(ID.Timestamp, cluster.start), ...cluster.blocks])));
  };
  for (const f of frames) {
    const ms = Math.round(f.timestamp / 1000);
    // A block's time is a signed 16-bit offset from its cluster's.
    if (!cluster || f.key || ms - cluster.start > 30000) {
      close();
      cluster = { start: ms, blocks: [] };
    }
    const head = new Uint8Array(4);
    head[0] = 0x81;                                     // track 1, as a 1-byte size field
    new DataView(head.buffer).setInt16(1, ms - cluster.start);
    head[3] = f.key ? 0x80 : 0x00;                      // the key-frame flag
    cluster.blocks.push(element(ID.SimpleBlock, join([head, f.data])));
  }
  close();
  return join([header, element(ID.Segment, join([info, element(ID.Tracks, track), ...clusters]))]);
}
