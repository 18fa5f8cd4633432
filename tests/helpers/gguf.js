// @ts-check
/**
 * A GGUF writer for the tests: the header, metadata of every value type,
 * tensor infos and aligned tensor data; the quantizers that make the
 * tensor types the engine reads (F32, F16, BF16, Q8_0, Q4_0, Q4_K, Q6_K) are
 * in gguf_quant.js (re-exported here).
 *
 * The block layouts are ggml's (ggml-common.h; dequantization as in
 * ggml-quants.c).  The quantizers choose their scales simply (absolute
 * maximum, then the super-block's scales rounded to 6 or 8 bits): llama.cpp's
 * own quantizer searches for better ones, but any scales make a valid file,
 * and `dequantize` gives back exactly the weights a reader must compute.
 *
 *   import { writeGguf, u32, f32, arr, GGUF, GGML } from './gguf.js';
 *   const bytes = writeGguf({
 *     metadata: { 'general.architecture': 'llama', 'llama.block_count': u32(1), ... },
 *     tensors: [{ name: 'token_embd.weight', shape: [dim, vocab], type: 'Q8_0', data: floats }],
 *   });
 *
 * Shapes are ggml's: shape[0] is the row length (a matrix's inputs), so a
 * weight W with `out` rows of `in` values is [in, out], its floats row after
 * row.  Quantized types need shape[0] to be a multiple of their block size.
 */
import { GGML, quantize } from './gguf_quant.js';

export { GGML, dequantize, fromBF16, fromF16, quantize, roundTrip, toBF16, toF16 } from './gguf_quant.js';

/** GGUF's metadata value types (gguf.h: enum gguf_type). */
export const GGUF = Object.freeze({
  UINT8: 0, INT8: 1, UINT16: 2, INT16: 3, UINT32: 4, INT32: 5, FLOAT32: 6, BOOL: 7,
  STRING: 8, ARRAY: 9, UINT64: 10, INT64: 11, FLOAT64: 12,
});

/** @typedef {import('./gguf_quant.js').TensorType} TensorType */
/** @typedef {{type: number, value: any, elem?: number}} Typed */
/** @typedef {Typed | string | boolean | string[]} MetaValue  a bare string is a STRING, a boolean a BOOL, a string[] an ARRAY of STRING */
/** @typedef {{name: string, shape: number[], type?: TensorType, data: Float32Array | ArrayLike<number>}} TensorSpec */

// -------------------------------------------------------------- metadata values

/** @param {number} v */ export const u8 = (v) => ({ type: GGUF.UINT8, value: v });
/** @param {number} v */ export const i8 = (v) => ({ type: GGUF.INT8, value: v });
/** @param {number} v */ export const u16 = (v) => ({ type: GGUF.UINT16, value: v });
/** @param {number} v */ export const i16 = (v) => ({ type: GGUF.INT16, value: v });
/** @param {number} v */ export const u32 = (v) => ({ type: GGUF.UINT32, value: v });
/** @param {number} v */ export const i32 = (v) => ({ type: GGUF.INT32, value: v });
/** @param {number} v */ export const f32 = (v) => ({ type: GGUF.FLOAT32, value: v });
/** @param {boolean} v */ export const bool = (v) => ({ type: GGUF.BOOL, value: v });
/** @param {string} v */ export const str = (v) => ({ type: GGUF.STRING, value: v });
/** @param {number | bigint} v */ export const u64 = (v) => ({ type: GGUF.UINT64, value: v });
/** @param {number | bigint} v */ export const i64 = (v) => ({ type: GGUF.INT64, value: v });
/** @param {number} v */ export const f64 = (v) => ({ type: GGUF.FLOAT64, value: v });
/** An array of one element type (a GGUF.* number), e.g. arr(GGUF.FLOAT32, scores). @param {number} elem @param {ArrayLike<any>} values */
export const arr = (elem, values) => ({ type: GGUF.ARRAY, elem, value: values });

/** @param {MetaValue} v @returns {Typed} */
function typed(v) {
  if (typeof v === 'string') return str(v);
  if (typeof v === 'boolean') return bool(v);
  if (Array.isArray(v)) return arr(GGUF.STRING, v);
  if (v && typeof v === 'object' && typeof v.type === 'number') return v;
  throw new Error(`gguf: a metadata value needs a type (u32(), f32(), ...): ${JSON.stringify(v)}`);
}

// -------------------------------------------------------------- the byte writer

class Bytes {
  constructor(size = 1 << 16) {
    this.buf = new Uint8Array(size);
    this.view = new DataView(this.buf.buffer);
    this.n = 0;
  }
  /** @param {number} k */
  room(k) {
    if (this.n + k <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.n + k) size *= 2;
    const b = new Uint8Array(size);
    b.set(this.buf.subarray(0, this.n));
    this.buf = b;
    this.view = new DataView(b.buffer);
  }
  /** @param {number} v */ u8(v) { this.room(1); this.view.setUint8(this.n, v); this.n += 1; }
  /** @param {number} v */ i8(v) { this.room(1); this.view.setInt8(this.n, v); this.n += 1; }
  /** @param {number} v */ u16(v) { this.room(2); this.view.setUint16(this.n, v, true); this.n += 2; }
  /** @param {number} v */ i16(v) { this.room(2); this.view.setInt16(this.n, v, true); this.n += 2; }
  /** @param {number} v */ u32(v) { this.room(4); this.view.setUint32(this.n, v, true); this.n += 4; }
  /** @param {number} v */ i32(v) { this.room(4); this.view.setInt32(this.n, v, true); this.n += 4; }
  /** @param {number} v */ f32(v) { this.room(4); this.view.setFloat32(this.n, v, true); this.n += 4; }
  /** @param {number} v */ f64(v) { this.room(8); this.view.setFloat64(this.n, v, true); this.n += 8; }
  /** @param {number | bigint} v */ u64(v) { this.room(8); this.view.setBigUint64(this.n, BigInt(v), true); this.n += 8; }
  /** @param {number | bigint} v */ i64(v) { this.room(8); this.view.setBigInt64(this.n, BigInt(v), true); this.n += 8; }
  /** @param {Uint8Array} b */ bytes(b) { this.room(b.length); this.buf.set(b, this.n); this.n += b.length; }
  /** GGUF's string: a u64 byte count, then UTF-8 without a terminator. @param {string | Uint8Array} s */
  string(s) {
    const b = typeof s === 'string' ? new TextEncoder().encode(s) : s;
    this.u64(b.length);
    this.bytes(b);
  }
  /** @param {number} alignment */
  pad(alignment) { const k = (alignment - (this.n % alignment)) % alignment; this.room(k); this.n += k; }
  done() { return this.buf.slice(0, this.n); }
}

/** @param {Bytes} w @param {number} type @param {any} v */
function writeScalar(w, type, v) {
  switch (type) {
    case GGUF.UINT8: return w.u8(v);
    case GGUF.INT8: return w.i8(v);
    case GGUF.UINT16: return w.u16(v);
    case GGUF.INT16: return w.i16(v);
    case GGUF.UINT32: return w.u32(v);
    case GGUF.INT32: return w.i32(v);
    case GGUF.FLOAT32: return w.f32(v);
    case GGUF.BOOL: return w.u8(v ? 1 : 0);
    case GGUF.STRING: return w.string(v);
    case GGUF.UINT64: return w.u64(v);
    case GGUF.INT64: return w.i64(v);
    case GGUF.FLOAT64: return w.f64(v);
    default: throw new Error(`gguf: value type ${type} cannot be an array's element here`);
  }
}

/**
 * The bytes of a GGUF file.
 * @param {{metadata?: Record<string, MetaValue>, tensors?: TensorSpec[], version?: number, alignment?: number}} spec
 *   alignment: the data's alignment (general.alignment is written when it is not 32)
 * @returns {Uint8Array}
 */
export function writeGguf({ metadata = {}, tensors = [], version = 3, alignment = 32 }) {
  const meta = { ...metadata };
  if (alignment !== 32 && !('general.alignment' in meta)) meta['general.alignment'] = u32(alignment);
  const encoded = tensors.map((t) => {
    const type = t.type ?? 'F32';
    if (!GGML[type]) throw new Error(`gguf: tensor type ${type} is not one the writer makes`);
    const data = encodeTensor(type, t.data, t.shape);
    return { name: t.name, shape: t.shape, id: GGML[type].id, data };
  });
  const w = new Bytes();
  w.u32(0x46554747); // "GGUF"
  w.u32(version);
  w.u64(encoded.length);
  w.u64(Object.keys(meta).length);
  for (const [key, raw] of Object.entries(meta)) {
    const v = typed(raw);
    w.string(key);
    w.u32(v.type);
    if (v.type === GGUF.ARRAY) {
      if (v.elem === undefined) throw new Error(`gguf: array ${key} needs its element type`);
      w.u32(v.elem);
      w.u64(v.value.length);
      for (let i = 0; i < v.value.length; i++) writeScalar(w, v.elem, v.value[i]);
    } else {
      writeScalar(w, v.type, v.value);
    }
  }
  let offset = 0;
  const offsets = encoded.map((t) => {
    const at = offset;
    offset += t.data.length;
    offset += (alignment - (offset % alignment)) % alignment;
    return at;
  });
  encoded.forEach((t, i) => {
    w.string(t.name);
    w.u32(t.shape.length);
    for (const d of t.shape) w.u64(d);
    w.u32(t.id);
    w.u64(offsets[i]);
  });
  w.pad(alignment);
  encoded.forEach((t) => {
    w.bytes(t.data);
    w.pad(alignment);
  });
  return w.done();
}

/**
 * One tensor's data in its type.
 * @param {TensorType} type @param {ArrayLike<number>} data @param {number[]} shape
 * @returns {Uint8Array}
 */
export function encodeTensor(type, data, shape) {
  const n = shape.reduce((a, b) => a * b, 1);
  if (data.length !== n) throw new Error(`gguf: ${n} values for shape [${shape}], got ${data.length}`);
  const { block } = GGML[type];
  if (shape[0] % block !== 0) throw new Error(`gguf: ${type} needs rows of a multiple of ${block} values, not ${shape[0]}`);
  return quantize(type, Float32Array.from(data));
}

// -------------------------------------------------------------- a reader (for the writer's own tests)

/**
 * Reads a GGUF's header, metadata and tensor infos back (the tests' check
 * that the writer writes what it says; not the engine's parser).
 * @param {Uint8Array} bytes
 */
export function readGguf(bytes) {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  const u32r = () => { const x = v.getUint32(at, true); at += 4; return x; };
  const u64r = () => { const x = Number(v.getBigUint64(at, true)); at += 8; return x; };
  const strr = () => { const k = u64r(); const s = new TextDecoder().decode(bytes.subarray(at, at + k)); at += k; return s; };
  /** @param {number} type @returns {any} */
  const value = (type) => {
    switch (type) {
      case GGUF.UINT8: return v.getUint8(at++);
      case GGUF.INT8: return v.getInt8(at++);
      case GGUF.UINT16: at += 2; return v.getUint16(at - 2, true);
      case GGUF.INT16: at += 2; return v.getInt16(at - 2, true);
      case GGUF.UINT32: return u32r();
      case GGUF.INT32: at += 4; return v.getInt32(at - 4, true);
      case GGUF.FLOAT32: at += 4; return v.getFloat32(at - 4, true);
      case GGUF.BOOL: return v.getUint8(at++) !== 0;
      case GGUF.STRING: return strr();
      case GGUF.UINT64: at += 8; return v.getBigUint64(at - 8, true);
      case GGUF.INT64: at += 8; return v.getBigInt64(at - 8, true);
      case GGUF.FLOAT64: at += 8; return v.getFloat64(at - 8, true);
      case GGUF.ARRAY: {
        const elem = u32r();
        const k = u64r();
        const out = [];
        for (let i = 0; i < k; i++) out.push(value(elem));
        return out;
      }
      default: throw new Error(`readGguf: value type ${type}`);
    }
  };
  if (u32r() !== 0x46554747) throw new Error('readGguf: not a GGUF file');
  const version = u32r();
  const nTensors = u64r();
  const nKv = u64r();
  /** @type {Record<string, any>} */
  const metadata = {};
  for (let i = 0; i < nKv; i++) {
    const key = strr();
    metadata[key] = value(u32r());
  }
  const tensors = [];
  for (let i = 0; i < nTensors; i++) {
    const name = strr();
    const nd = u32r();
    const shape = [];
    for (let j = 0; j < nd; j++) shape.push(u64r());
    const id = u32r();
    const offset = u64r();
    const type = /** @type {TensorType | undefined} */ (Object.keys(GGML).find((k) => GGML[/** @type {TensorType} */ (k)].id === id));
    tensors.push({ name, shape, id, type, offset });
  }
  const alignment = metadata['general.alignment'] ?? 32;
  const dataStart = Math.ceil(at / alignment) * alignment;
  return { version, metadata, tensors, dataStart };
}
