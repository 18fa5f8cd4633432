// @ts-check
/**
 * The tensor types the tests' GGUF writer (gguf.js) makes, and their
 * conversions: half floats, the quantizers and the dequantization a reader
 * must compute.  The block layouts are ggml's (ggml-common.h; dequantization
 * as in ggml-quants.c); the quantizers choose their scales simply (absolute
 * maximum, then the super-block's scales rounded to 6 or 8 bits).
 */

/** The tensor types this writer makes, with ggml's ids (ggml.h: enum ggml_type), block sizes and bytes per block. */
export const GGML = Object.freeze({
  F32: { id: 0, block: 1, bytes: 4 },
  F16: { id: 1, block: 1, bytes: 2 },
  Q4_0: { id: 2, block: 32, bytes: 18 },
  Q8_0: { id: 8, block: 32, bytes: 34 },
  Q4_K: { id: 12, block: 256, bytes: 144 },
  Q6_K: { id: 14, block: 256, bytes: 210 },
  BF16: { id: 30, block: 1, bytes: 2 },
});

/** @typedef {keyof typeof GGML} TensorType */

// -------------------------------------------------------------- half floats

const f32buf = new Float32Array(1);
const u32buf = new Uint32Array(f32buf.buffer);

/** float -> IEEE half bits, round to nearest even (as a CPU's conversion does). @param {number} x */
export function toF16(x) {
  f32buf[0] = x;
  const u = u32buf[0];
  const sign = (u >>> 16) & 0x8000;
  const exp = (u >>> 23) & 0xff;
  let mant = u & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let h = mant >>> shift;
    const rest = mant & ((1 << shift) - 1);
    const half = 1 << (shift - 1);
    if (rest > half || (rest === half && (h & 1))) h += 1;
    return sign | h;
  }
  let h = (e << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && (h & 1))) h += 1; // may carry into the exponent: still right
  return sign | h;
}

/** IEEE half bits -> float. @param {number} h */
export function fromF16(h) {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >>> 10) & 0x1f;
  const mant = h & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 0x1f) return mant ? NaN : sign * Infinity;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

/** float -> bfloat16 bits as ggml makes them (round to nearest even; NaN stays a quiet NaN). @param {number} x */
export function toBF16(x) {
  f32buf[0] = x;
  const u = u32buf[0];
  if ((u & 0x7fffffff) > 0x7f800000) return ((u >>> 16) | 64) & 0xffff;
  return ((u + (0x7fff + ((u >>> 16) & 1))) >>> 16) & 0xffff;
}

/** bfloat16 bits -> float. @param {number} h */
export function fromBF16(h) {
  u32buf[0] = (h & 0xffff) << 16;
  return f32buf[0];
}

/** the nearest float32 of x @param {number} x */
const fround = Math.fround;
/** C's roundf: halves away from zero (Math.round takes them up) @param {number} x */
const roundf = (x) => Math.sign(x) * Math.round(Math.abs(x));

// -------------------------------------------------------------- quantizers

/**
 * Floats -> the bytes of a tensor of `type` (its length a multiple of the block size).
 * @param {TensorType} type @param {Float32Array} x
 * @returns {Uint8Array}
 */
export function quantize(type, x) {
  const { block, bytes } = GGML[type];
  if (x.length % block) throw new Error(`gguf: ${type} quantizes whole blocks of ${block}`);
  const out = new Uint8Array((x.length / block) * bytes);
  const v = new DataView(out.buffer);
  switch (type) {
    case 'F32':
      for (let i = 0; i < x.length; i++) v.setFloat32(i * 4, x[i], true);
      break;
    case 'F16':
      for (let i = 0; i < x.length; i++) v.setUint16(i * 2, toF16(x[i]), true);
      break;
    case 'BF16':
      for (let i = 0; i < x.length; i++) v.setUint16(i * 2, toBF16(x[i]), true);
      break;
    case 'Q8_0':
      for (let b = 0; b < x.length / 32; b++) quantQ8_0(x.subarray(b * 32, b * 32 + 32), v, b * 34);
      break;
    case 'Q4_0':
      for (let b = 0; b < x.length / 32; b++) quantQ4_0(x.subarray(b * 32, b * 32 + 32), v, b * 18);
      break;
    case 'Q4_K':
      for (let b = 0; b < x.length / 256; b++) quantQ4_K(x.subarray(b * 256, b * 256 + 256), out, b * 144);
      break;
    case 'Q6_K':
      for (let b = 0; b < x.length / 256; b++) quantQ6_K(x.subarray(b * 256, b * 256 + 256), out, b * 210);
      break;
    default:
      throw new Error(`gguf: no quantizer for ${type}`);
  }
  return out;
}

/** block_q8_0 { ggml_half d; int8_t qs[32]; }: x = d * q. @param {Float32Array} x @param {DataView} v @param {number} at */
function quantQ8_0(x, v, at) {
  let amax = 0;
  for (let i = 0; i < 32; i++) amax = Math.max(amax, Math.abs(x[i]));
  const d = fround(amax / 127);
  const id = d ? fround(1 / d) : 0;
  v.setUint16(at, toF16(d), true);
  for (let i = 0; i < 32; i++) v.setInt8(at + 2 + i, roundf(fround(x[i] * id)));
}

/**
 * block_q4_0 { ggml_half d; uint8_t qs[16]; }: element j in the low nibble
 * of qs[j], element j + 16 in the high one; x = d * (q - 8).
 * @param {Float32Array} x @param {DataView} v @param {number} at
 */
function quantQ4_0(x, v, at) {
  let max = 0;
  for (let i = 0; i < 32; i++) if (Math.abs(x[i]) > Math.abs(max)) max = x[i];
  const d = fround(max / -8);
  const id = d ? fround(1 / d) : 0;
  v.setUint16(at, toF16(d), true);
  const q = (/** @type {number} */ f) => Math.min(15, Math.trunc(fround(f * id) + 8.5));
  for (let j = 0; j < 16; j++) v.setUint8(at + 2 + j, q(x[j]) | (q(x[j + 16]) << 4));
}

/**
 * block_q4_K { ggml_half d, dmin; uint8_t scales[12]; uint8_t qs[128]; }:
 * 8 sub-blocks of 32, each with a 6-bit scale sc and a 6-bit min m packed in
 * scales[] (get_scale_min_k4), x = d*sc*q - dmin*m with q in 0..15; the qs
 * of each 64 values: sub-block 2c in the low nibbles of qs[32c..32c+31],
 * sub-block 2c+1 in their high nibbles.
 * @param {Float32Array} x @param {Uint8Array} out @param {number} at
 */
function quantQ4_K(x, out, at) {
  const scale = new Float64Array(8);
  const min = new Float64Array(8);
  for (let s = 0; s < 8; s++) {
    let lo = 0;
    let hi = 0;
    for (let i = 0; i < 32; i++) {
      lo = Math.min(lo, x[s * 32 + i]);
      hi = Math.max(hi, x[s * 32 + i]);
    }
    scale[s] = (hi - lo) / 15;
    min[s] = -lo;
  }
  const d = fromF16(toF16(Math.max(...scale) / 63));
  const dmin = fromF16(toF16(Math.max(...min) / 63));
  const sc = new Uint8Array(8);
  const m = new Uint8Array(8);
  for (let s = 0; s < 8; s++) {
    sc[s] = d ? Math.min(63, roundf(scale[s] / d)) : 0;
    m[s] = dmin ? Math.min(63, roundf(min[s] / dmin)) : 0;
  }
  const v = new DataView(out.buffer, out.byteOffset);
  v.setUint16(at, toF16(d), true);
  v.setUint16(at + 2, toF16(dmin), true);
  const scales = out.subarray(at + 4, at + 16);
  for (let j = 0; j < 4; j++) {
    scales[j] = (sc[j] & 63) | ((sc[j + 4] >> 4) << 6);
    scales[j + 4] = (m[j] & 63) | ((m[j + 4] >> 4) << 6);
    scales[j + 8] = (sc[j + 4] & 15) | ((m[j + 4] & 15) << 4);
  }
  const L = new Uint8Array(256);
  for (let s = 0; s < 8; s++) {
    const step = fround(d * sc[s]);
    const off = fround(dmin * m[s]);
    for (let i = 0; i < 32; i++) {
      const q = step ? roundf((x[s * 32 + i] + off) / step) : 0;
      L[s * 32 + i] = Math.max(0, Math.min(15, q));
    }
  }
  const qs = out.subarray(at + 16, at + 144);
  for (let c = 0; c < 4; c++) {
    for (let l = 0; l < 32; l++) qs[c * 32 + l] = L[c * 64 + l] | (L[c * 64 + 32 + l] << 4);
  }
}

/**
 * block_q6_K { uint8_t ql[128]; uint8_t qh[64]; int8_t scales[16]; ggml_half d; }:
 * 16 sub-blocks of 16 with an 8-bit scale each, x = d*scale*(q - 32), q's low
 * 4 bits in ql and high 2 bits in qh, interleaved as dequantize_row_q6_K reads them.
 * @param {Float32Array} x @param {Uint8Array} out @param {number} at
 */
function quantQ6_K(x, out, at) {
  const scale = new Float64Array(16);
  for (let s = 0; s < 16; s++) {
    let amax = 0;
    for (let i = 0; i < 16; i++) amax = Math.max(amax, Math.abs(x[s * 16 + i]));
    scale[s] = amax / 31;
  }
  const d = fromF16(toF16(Math.max(...scale) / 127));
  const sc = new Int8Array(16);
  for (let s = 0; s < 16; s++) sc[s] = d ? Math.min(127, roundf(scale[s] / d)) : 0;
  const L = new Uint8Array(256);
  for (let s = 0; s < 16; s++) {
    const step = fround(d * sc[s]);
    for (let i = 0; i < 16; i++) {
      const q = step ? roundf(x[s * 16 + i] / step) : 0;
      L[s * 16 + i] = Math.max(-32, Math.min(31, q)) + 32;
    }
  }
  const ql = out.subarray(at, at + 128);
  const qh = out.subarray(at + 128, at + 192);
  for (let h = 0; h < 2; h++) {
    for (let l = 0; l < 32; l++) {
      const n = h * 128;
      const q1 = L[n + l];
      const q2 = L[n + l + 32];
      const q3 = L[n + l + 64];
      const q4 = L[n + l + 96];
      ql[h * 64 + l] = (q1 & 15) | ((q3 & 15) << 4);
      ql[h * 64 + l + 32] = (q2 & 15) | ((q4 & 15) << 4);
      qh[h * 32 + l] = (q1 >> 4) | ((q2 >> 4) << 2) | ((q3 >> 4) << 4) | ((q4 >> 4) << 6);
    }
  }
  for (let s = 0; s < 16; s++) out[at + 192 + s] = sc[s] & 0xff;
  new DataView(out.buffer, out.byteOffset).setUint16(at + 208, toF16(d), true);
}

// -------------------------------------------------------------- dequantizers

/**
 * A tensor's bytes -> its float32 values, as ggml's dequantize_row_* computes
 * them (float32 arithmetic, in its order): the weights a reader must use.
 * @param {TensorType} type @param {Uint8Array} bytes @param {number} n
 * @returns {Float32Array}
 */
export function dequantize(type, bytes, n) {
  const y = new Float32Array(n);
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const h = (/** @type {number} */ at) => fromF16(v.getUint16(at, true));
  switch (type) {
    case 'F32':
      for (let i = 0; i < n; i++) y[i] = v.getFloat32(i * 4, true);
      break;
    case 'F16':
      for (let i = 0; i < n; i++) y[i] = h(i * 2);
      break;
    case 'BF16':
      for (let i = 0; i < n; i++) y[i] = fromBF16(v.getUint16(i * 2, true));
      break;
    case 'Q8_0':
      for (let b = 0; b < n / 32; b++) {
        const d = h(b * 34);
        for (let i = 0; i < 32; i++) y[b * 32 + i] = fround(d * v.getInt8(b * 34 + 2 + i));
      }
      break;
    case 'Q4_0':
      for (let b = 0; b < n / 32; b++) {
        const d = h(b * 18);
        for (let j = 0; j < 16; j++) {
          const q = bytes[b * 18 + 2 + j];
          y[b * 32 + j] = fround(((q & 15) - 8) * d);
          y[b * 32 + j + 16] = fround(((q >> 4) - 8) * d);
        }
      }
      break;
    case 'Q4_K':
      for (let b = 0; b < n / 256; b++) {
        const at = b * 144;
        const d = h(at);
        const dmin = h(at + 2);
        const q = bytes.subarray(at + 4, at + 16);
        const scaleMin = (/** @type {number} */ j) => (j < 4
          ? [q[j] & 63, q[j + 4] & 63]
          : [(q[j + 4] & 15) | ((q[j - 4] >> 6) << 4), (q[j + 4] >> 4) | ((q[j] >> 6) << 4)]);
        for (let c = 0; c < 4; c++) {
          const [sc1, m1] = scaleMin(2 * c);
          const [sc2, m2] = scaleMin(2 * c + 1);
          const d1 = fround(d * sc1);
          const mm1 = fround(dmin * m1);
          const d2 = fround(d * sc2);
          const mm2 = fround(dmin * m2);
          for (let l = 0; l < 32; l++) {
            const qq = bytes[at + 16 + c * 32 + l];
            y[b * 256 + c * 64 + l] = fround(fround(d1 * (qq & 15)) - mm1);
            y[b * 256 + c * 64 + 32 + l] = fround(fround(d2 * (qq >> 4)) - mm2);
          }
        }
      }
      break;
    case 'Q6_K':
      for (let b = 0; b < n / 256; b++) {
        const at = b * 210;
        const d = h(at + 208);
        for (let half = 0; half < 2; half++) {
          const ql = at + half * 64;
          const qh = at + 128 + half * 32;
          const sc = at + 192 + half * 8;
          for (let l = 0; l < 32; l++) {
            const is = l >> 4;
            const hb = bytes[qh + l];
            const q1 = ((bytes[ql + l] & 15) | (((hb >> 0) & 3) << 4)) - 32;
            const q2 = ((bytes[ql + l + 32] & 15) | (((hb >> 2) & 3) << 4)) - 32;
            const q3 = ((bytes[ql + l] >> 4) | (((hb >> 4) & 3) << 4)) - 32;
            const q4 = ((bytes[ql + l + 32] >> 4) | (((hb >> 6) & 3) << 4)) - 32;
            const s = (/** @type {number} */ k) => v.getInt8(sc + is + k);
            const o = b * 256 + half * 128;
            y[o + l] = fround(fround(d * s(0)) * q1);
            y[o + l + 32] = fround(fround(d * s(2)) * q2);
            y[o + l + 64] = fround(fround(d * s(4)) * q3);
            y[o + l + 96] = fround(fround(d * s(6)) * q4);
          }
        }
      }
      break;
    default:
      throw new Error(`gguf: no dequantizer for ${type}`);
  }
  return y;
}

/** What a tensor of `type` holds after the round trip: dequantize(quantize(x)). @param {TensorType} type @param {Float32Array} x */
export function roundTrip(type, x) {
  return dequantize(type, quantize(type, x), x.length);
}
