// Small model files built in memory for the hardening and soak tests: a
// llama2.c checkpoint, a tokenizer.bin and a bigram file, valid or broken
// on purpose.  The layouts are those of c/engine/model/transformer.c, bpe.c
// and bigram.c (tests/fuzz/build_files.h builds the same shapes in C).

/** A growable little-endian byte writer. */
export class Bytes {
  constructor() {
    this.buf = new Uint8Array(256);
    this.view = new DataView(this.buf.buffer);
    this.length = 0;
  }

  /** @param {number} n */
  reserve(n) {
    if (this.length + n <= this.buf.length) return;
    let cap = this.buf.length;
    while (cap < this.length + n) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  /** @param {ArrayLike<number>} bytes */
  put(bytes) {
    this.reserve(bytes.length);
    this.buf.set(bytes, this.length);
    this.length += bytes.length;
    return this;
  }

  /** @param {number} v */
  i32(v) {
    this.reserve(4);
    this.view.setInt32(this.length, v, true);
    this.length += 4;
    return this;
  }

  /** @param {number} v */
  u32(v) {
    this.reserve(4);
    this.view.setUint32(this.length, v, true);
    this.length += 4;
    return this;
  }

  /** @param {number} v */
  f32(v) {
    this.reserve(4);
    this.view.setFloat32(this.length, v, true);
    this.length += 4;
    return this;
  }

  /** a copy of what was written */
  bytes() {
    return this.buf.slice(0, this.length);
  }
}

const utf8 = new TextEncoder();

/**
 * @typedef {{dim: number, hidden: number, layers: number, heads: number,
 *   kvHeads: number, vocab: number, seqLen: number}} Config
 */

/** The tiny model: 2 layers, dim 8, 2 heads sharing a KV head, 12 tokens, a context of 8. */
export const TINY = { dim: 8, hidden: 16, layers: 2, heads: 2, kvHeads: 1, vocab: 12, seqLen: 8 };

/** @param {Config} c floats after the 28-byte header */
export function checkpointFloats(c) {
  const hs = c.dim / c.heads, kv = hs * c.kvHeads, V = Math.abs(c.vocab);
  let n = V * c.dim + c.layers * c.dim + c.layers * c.dim * c.dim + 2 * c.layers * kv * c.dim +
    c.layers * c.dim * c.dim + c.layers * c.dim + 3 * c.layers * c.hidden * c.dim + c.dim + c.seqLen * hs;
  if (c.vocab < 0) n += V * c.dim;
  return n;
}

/**
 * A llama2.c checkpoint with deterministic small weights (rms weights near 1).
 * @param {Config} c @param {number} [seed]
 */
export function checkpoint(c, seed = 1) {
  const b = new Bytes();
  for (const v of [c.dim, c.hidden, c.layers, c.heads, c.kvHeads, c.vocab, c.seqLen]) b.i32(v);
  const n = checkpointFloats(c);
  const hs = c.dim / c.heads, kv = hs * c.kvHeads, V = Math.abs(c.vocab);
  const rmsAtt = V * c.dim;
  const rmsFfn = rmsAtt + c.layers * c.dim + 2 * c.layers * c.dim * c.dim + 2 * c.layers * kv * c.dim;
  const rmsFinal = rmsFfn + c.layers * c.dim + 3 * c.layers * c.hidden * c.dim;
  const isRms = (i) => (i >= rmsAtt && i < rmsAtt + c.layers * c.dim) ||
    (i >= rmsFfn && i < rmsFfn + c.layers * c.dim) || (i >= rmsFinal && i < rmsFinal + c.dim);
  b.reserve(4 * n);
  for (let i = 0; i < n; i++) {
    const w = 0.5 * Math.sin(seed * 12.9898 + i * 78.233);
    b.f32(isRms(i) ? 1 + w : w);
  }
  return b.bytes();
}

/** byte offset of weight i (after the header) */
export const floatAt = (i) => 28 + 4 * i;

export const TINY_PIECES = ['<unk>', '<s>', '</s>', ' ', 'a', 'b', 'c', 'ab', ' a', '<0x0A>', '<0xFF>', 'abc'];
export const TINY_SCORES = [0, 0, 0, -1, -2, -2, -2, 2, 1, 0, 0, 3];

/**
 * A tokenizer.bin.
 * @param {string[]} pieces @param {number[]} [scores] @param {number} [maxLen]
 */
export function tokenizer(pieces = TINY_PIECES, scores = TINY_SCORES, maxLen = 6) {
  const b = new Bytes().i32(maxLen);
  pieces.forEach((p, i) => {
    const bytes = utf8.encode(p);
    b.f32(scores ? scores[i] ?? 0 : 0).i32(bytes.length).put(bytes);
  });
  return b.bytes();
}

export const SMALL_BIGRAM_PIECES = ['\n', 'a', 'b', ' ', 'é', '€'];

/**
 * A bigram file: "SPBG", version 1, pieces, zero padding, logits[v][v].
 * @param {string[]} [pieces] @param {number} [boundary]
 */
export function bigram(pieces = SMALL_BIGRAM_PIECES, boundary = 0) {
  const b = new Bytes().put(utf8.encode('SPBG')).u32(1).u32(pieces.length).u32(boundary);
  for (const p of pieces) {
    const bytes = utf8.encode(p);
    b.put([bytes.length]).put(bytes);
  }
  b.put(new Uint8Array((4 - (b.length % 4)) % 4));
  const v = pieces.length;
  for (let i = 0; i < v * v; i++) b.f32(2 * Math.sin(i * 1.7 + 0.3));
  return b.bytes();
}

/**
 * A copy of bytes with edits applied: [offset, kind, value] with kind
 * 'u8' | 'i32' | 'u32' | 'f32'.
 * @param {Uint8Array} bytes @param {Array<[number, string, number]>} edits
 */
export function edit(bytes, edits) {
  const out = bytes.slice();
  const view = new DataView(out.buffer);
  for (const [at, kind, value] of edits) {
    if (kind === 'u8') out[at] = value;
    else if (kind === 'i32') view.setInt32(at, value, true);
    else if (kind === 'u32') view.setUint32(at, value, true);
    else if (kind === 'f32') view.setFloat32(at, value, true);
    else throw new Error(`edit: unknown kind ${kind}`);
  }
  return out;
}

/** bytes followed by extra */
export function concat(bytes, extra) {
  const out = new Uint8Array(bytes.length + extra.length);
  out.set(bytes);
  out.set(extra, bytes.length);
  return out;
}
