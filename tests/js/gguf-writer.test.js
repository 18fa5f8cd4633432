// The tests' GGUF writer (tests/helpers/gguf.js) writes what it says: the
// header, metadata of every value type, tensor infos and aligned data read
// back; each quantizer's round trip within its format's resolution, on
// worked blocks whose bytes are known.
import { describe, expect, test } from 'vitest';

import {
  GGML, GGUF, arr, bool, dequantize, f32, f64, fromBF16, fromF16, i16, i32, i64, i8, quantize, readGguf, roundTrip, str,
  toBF16, toF16, u16, u32, u64, u8, writeGguf,
} from '../helpers/gguf.js';
import { logitsModel, prng, syntheticVocab } from '../helpers/gguf-models.js';

describe('the GGUF writer', () => {
  test('header, metadata of every type, tensor infos and aligned data read back', () => {
    const data = Float32Array.from({ length: 64 }, (_, i) => i / 8);
    const bytes = writeGguf({
      metadata: {
        u8: u8(200), i8: i8(-100), u16: u16(60000), i16: i16(-30000), u32: u32(4000000000), i32: i32(-2000000000),
        f32: f32(0.5), bool: bool(true), str: str('héllo'), plain: 'text', arr: arr(GGUF.FLOAT32, [1, 2.5]),
        strings: ['a', 'bc'], u64: u64(2n ** 40n), i64: i64(-(2n ** 40n)), f64: f64(Math.PI),
      },
      tensors: [{ name: 'a', shape: [32, 2], data }, { name: 'b', shape: [32], type: 'Q8_0', data: data.subarray(0, 32) }],
      alignment: 64,
    });
    const g = readGguf(bytes);
    expect(g.version).toBe(3);
    expect(g.metadata).toMatchObject({
      u8: 200, i8: -100, u16: 60000, i16: -30000, u32: 4000000000, i32: -2000000000, f32: 0.5, bool: true,
      str: 'héllo', plain: 'text', arr: [1, 2.5], strings: ['a', 'bc'], u64: 2n ** 40n, i64: -(2n ** 40n), f64: Math.PI,
      'general.alignment': 64,
    });
    expect(g.tensors.map((t) => [t.name, t.shape, t.type, t.offset])).toEqual([['a', [32, 2], 'F32', 0], ['b', [32], 'Q8_0', 256]]);
    expect(g.dataStart % 64).toBe(0);
    expect(bytes.length).toBe(g.dataStart + 256 + 64); // 34 bytes of Q8_0 padded to 64
    const a = new Float32Array(bytes.buffer.slice(g.dataStart, g.dataStart + 256));
    expect(Array.from(a)).toEqual(Array.from(data));
  });

  test('a row that does not fit the blocks, a value without a type, a wrong count: refused with the reason', () => {
    expect(() => writeGguf({ tensors: [{ name: 'x', shape: [48], type: 'Q8_0', data: new Float32Array(48) }] })).toThrow(/multiple of 32/);
    expect(() => writeGguf({ metadata: { n: /** @type {any} */ (3) } })).toThrow(/needs a type/);
    expect(() => writeGguf({ tensors: [{ name: 'x', shape: [4], data: new Float32Array(3) }] })).toThrow(/4 values/);
  });
});

describe('half floats', () => {
  test('F16: exact values, rounding to nearest even, subnormals, infinities', () => {
    expect(toF16(1)).toBe(0x3c00);
    expect(toF16(-2)).toBe(0xc000);
    expect(toF16(65504)).toBe(0x7bff);
    expect(toF16(65520)).toBe(0x7c00); // rounds up to infinity
    expect(toF16(1 + 2 ** -11)).toBe(0x3c00); // a tie: to even
    expect(toF16(1 + 3 * 2 ** -11)).toBe(0x3c02);
    expect(toF16(2 ** -24)).toBe(0x0001);
    expect(fromF16(0x0001)).toBe(2 ** -24);
    expect(fromF16(0x3555)).toBeCloseTo(1 / 3, 3);
    for (const x of [0.1, -3.75, 1e-3, 1000.5]) expect(Math.abs(fromF16(toF16(x)) - x)).toBeLessThanOrEqual(Math.abs(x) * 2 ** -11);
  });

  test('BF16: the top 16 bits, rounded to nearest even', () => {
    expect(toBF16(1)).toBe(0x3f80);
    expect(fromBF16(toBF16(3.140625))).toBe(3.140625);
    expect(toBF16(1 + 2 ** -8)).toBe(0x3f80); // a tie: to even
    expect(toBF16(1 + 3 * 2 ** -8)).toBe(0x3f82);
    expect(Number.isNaN(fromBF16(toBF16(NaN)))).toBe(true);
  });
});

describe('the quantizers: ggml block layouts', () => {
  const rnd = prng(5);
  const x = Float32Array.from({ length: 512 }, () => (rnd() * 2 - 1) * 3);

  test('bytes per block as ggml-common.h has them', () => {
    for (const [t, n] of /** @type {const} */ ([['F32', 2048], ['F16', 1024], ['BF16', 1024], ['Q8_0', 16 * 34], ['Q4_0', 16 * 18], ['Q4_K', 2 * 144], ['Q6_K', 2 * 210]])) {
      expect(quantize(t, x).length).toBe(n);
      expect(GGML[t].bytes * (512 / GGML[t].block)).toBe(n);
    }
  });

  test('Q8_0 worked block: d = max|x| / 127 as F16, then round(x / d)', () => {
    const b = new Float32Array(32);
    b[0] = 127;
    b[1] = -63.5;
    b[2] = 1;
    const q = quantize('Q8_0', b);
    expect(q[0] | (q[1] << 8)).toBe(0x3c00); // d = 1
    expect(new Int8Array(q.buffer, 2, 3)).toEqual(Int8Array.of(127, -64, 1)); // -63.5: halves away from zero, as ggml's roundf
    expect(Array.from(dequantize('Q8_0', q, 32).subarray(0, 3))).toEqual([127, -64, 1]);
  });

  test('Q4_0 worked block: d = (the value of largest magnitude) / -8; element j low nibble, j + 16 high', () => {
    const b = new Float32Array(32);
    b[0] = -8; // d = 1, q = 0
    b[16] = 7; // q = 15
    b[1] = 3; // q = 11
    const q = quantize('Q4_0', b);
    expect(q[0] | (q[1] << 8)).toBe(0x3c00);
    expect(q[2]).toBe(0 | (15 << 4));
    expect(q[3]).toBe(11 | (8 << 4));
    const d = dequantize('Q4_0', q, 32);
    expect([d[0], d[16], d[1], d[17]]).toEqual([-8, 7, 3, 0]);
  });

  test('every type round-trips within its resolution', () => {
    const amax = 3;
    const bound = { F32: 0, F16: amax * 2 ** -11, BF16: amax * 2 ** -8, Q8_0: amax / 127, Q4_0: amax / 8, Q4_K: (2 * amax) / 15, Q6_K: amax / 31 };
    for (const [t, b] of Object.entries(bound)) {
      const y = roundTrip(/** @type {any} */ (t), x);
      let worst = 0;
      for (let i = 0; i < x.length; i++) worst = Math.max(worst, Math.abs(y[i] - x[i]));
      expect(worst, t).toBeLessThanOrEqual(b * 1.01 + 1e-7);
      if (t !== 'F32') expect(worst, t).toBeGreaterThan(0); // it did quantize
    }
  });

  test('Q4_K and Q6_K: the scales of each sub-block are used (a block with one loud sub-block keeps the quiet ones)', () => {
    const b = Float32Array.from({ length: 256 }, (_, i) => (i < 32 ? 10 : 0.01) * Math.sin(i));
    for (const t of /** @type {const} */ (['Q4_K', 'Q6_K'])) {
      const y = roundTrip(t, b);
      let worst = 0;
      for (let i = 32; i < 256; i++) worst = Math.max(worst, Math.abs(y[i] - b[i]));
      expect(worst, t).toBeLessThan(0.01);
    }
  });
});

describe('the logits model', () => {
  test('its output matrix holds the chosen logits in column 0, every embedding is e0, epsilon 0', () => {
    const logits = [1.5, -2, 0.25, 7, -Infinity];
    const m = logitsModel(logits);
    const out = m.tensors.find((t) => t.name === 'output.weight');
    const emb = m.tensors.find((t) => t.name === 'token_embd.weight');
    expect(Array.from(logits, (_, v) => out?.data[v * 16])).toEqual(logits);
    expect(Array.from({ length: 5 }, (_, v) => emb?.data[v * 16])).toEqual([1, 1, 1, 1, 1]);
    expect(m.metadata['llama.attention.layer_norm_rms_epsilon']).toEqual(f32(0));
    expect(syntheticVocab(5).tokens).toEqual(['<unk>', '<s>', '</s>', 't3', 't4']);
  });
});
