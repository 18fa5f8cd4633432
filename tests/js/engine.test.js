// The WASM engine through its JS wrapper: the lessons' worked examples,
// errors as exceptions, and sampling that follows the model (chi-square),
// in both the SIMD and the scalar build.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { simdSupported, splitSeed } from '../../web/src/engine/engine.js';
import { chiSquare, engine, MODELS_DIR } from './helpers.js';

const bigramBytes = () => new Uint8Array(fs.readFileSync(path.join(MODELS_DIR, 'bigram.bin')));

describe.each(['simd', 'scalar'])('the %s build', (flavor) => {
  it('runs the kernels it was built for', async () => {
    const e = await engine(flavor);
    expect(e.backend).toBe(flavor === 'simd' ? 'wasm-simd128' : 'scalar');
  });

  it('gives the worked examples of temperature', async () => {
    const s = (await engine(flavor)).createSampler(3);
    const t1 = s.warp([2, 1, 0], [], { temperature: 1 });
    expect([...t1.probs].map((p) => +p.toFixed(3))).toEqual([0.665, 0.245, 0.09]);
    const t05 = s.warp([2, 1, 0], [], { temperature: 0.5 });
    expect([...t05.probs].map((p) => +p.toFixed(3))).toEqual([0.867, 0.117, 0.016]);
    expect(t05.entropyBits).toBeLessThan(t05.entropyRawBits);
    const greedy = s.warp([2, 1, 0], [], { temperature: 0 });
    expect([...greedy.probs]).toEqual([1, 0, 0]);
    expect(greedy.cut[1]).toBe(2); // "temperature"
    s.free();
  });

  it('keeps 4 of (0.50, 0.20, 0.15, 0.08, 0.05, 0.02) at top-p 0.9', async () => {
    const s = (await engine(flavor)).createSampler(6);
    const logits = [0.5, 0.2, 0.15, 0.08, 0.05, 0.02].map(Math.log);
    const r = s.warp(logits, [], { top_p: 0.9 });
    expect(r.nKept).toBe(4);
    expect([...r.kept]).toEqual([0, 1, 2, 3]);
    expect(r.keptMass).toBeCloseTo(0.93, 6);
    expect(r.cut[5]).toBe(4); // "top_p"
    s.free();
  });

  it('applies penalties and bans as specified', async () => {
    const s = (await engine(flavor)).createSampler(3);
    // repetition 2: logit 2 (seen twice) -> 1, -1 -> -2
    const r = s.warp([2, -1, 0.5], [0, 1, 0], { repetition_penalty: 2 });
    const z = Math.exp(1) + Math.exp(-2) + Math.exp(0.5);
    expect(r.probs[0]).toBeCloseTo(Math.exp(1) / z, 6);
    const banned = s.warp([2, 1, 0], [], { logit_bias: [[0, -Infinity]] });
    expect(banned.probs[0]).toBe(0);
    expect(banned.cut[0]).toBe(1); // "bias"
    s.free();
  });

  it('throws TypeError and RangeError for bad parameters', async () => {
    const e = await engine(flavor);
    const s = e.createSampler(3);
    expect(() => s.warp([2, 1, 0], [], { temperature: 'hot' })).toThrow(TypeError);
    expect(() => s.warp([2, 1, 0], [], { temperature: -1 })).toThrow(/temperature must be/);
    expect(() => s.warp([2, 1, 0], [], { temperature: NaN })).toThrow(RangeError);
    expect(() => s.warp([2, 1, 0], [], { top_p: 1.5 })).toThrow(/top-p must be in \(0, 1\]/);
    expect(() => s.warp([2, 1, 0], [], { top_k: 2.5 })).toThrow(/top-k must be an integer/);
    expect(() => s.warp([2, 1, 0], [], { top_kk: 2 })).toThrow(TypeError);
    expect(() => s.warp([2, 1], [], {})).toThrow(RangeError);
    expect(() => s.warp([2, NaN, 0], [], {})).toThrow(/token 1 is NaN/);
    expect(() => splitSeed(-1)).toThrow(RangeError);
    expect(() => splitSeed('abc')).toThrow(TypeError);
    expect(splitSeed('18446744073709551615')).toEqual([0xffffffff, 0xffffffff]);
    // after all that, the sampler still works
    expect(s.warp([2, 1, 0], [], {}).nKept).toBe(3);
    s.free();
  });

  it('names what cuts a token as the engine does: the mask, the constraint and every cutting stage', async () => {
    const e = await engine(flavor);
    expect(e.cutNames.slice(0, 9)).toEqual(['kept', 'bias', 'temperature', 'top_k', 'top_p', 'min_p', 'typical_p', 'mask', 'constraint']);
    expect(e.cutNames.slice(9, 16)).toEqual(['top_n_sigma', 'epsilon', 'eta', 'top_a', 'xtc', 'no_repeat_ngram', 'mirostat']);
    // the field's newer samplers' codes, appended (the codes never renumber)
    expect(e.cutNames).toContain('top_h');
    expect(e.cutNames).toContain('bad_words');
    expect(e.cstring(e.x.api_cut_name(e.cutNames.length))).toBe('unknown');
  });

  it('reproduces the PCG32 reference stream', async () => {
    const e = await engine(flavor);
    const rng = e.x.api_rng_new(42, 0);
    const out = Array.from({ length: 6 }, () => e.x.api_rng_u32(rng));
    expect(out).toEqual([0xa15c02b7, 0x7b47f409, 0xba1d3330, 0x83d2f293, 0xbfa4784b, 0xcbed606e]);
    e.free(rng);
  });

  it('rejects a bad model file with a specific message and keeps working', async () => {
    const e = await engine(flavor);
    const good = bigramBytes();
    expect(() => e.loadModel(good.slice(0, good.length - 3))).toThrow(/bigram: file has \d+ bytes, header implies \d+/);
    expect(() => e.loadModel(new Uint8Array(10))).toThrow(/checkpoint:/);
    const m = e.loadModel(good);
    expect(m.kind).toBe('bigram');
    m.free();
  });

  it('samples the bigram\'s next characters with the model\'s frequencies (chi-square)', async () => {
    const e = await engine(flavor);
    const model = e.loadModel(bigramBytes());
    const session = e.createSession(model);
    session.start('', 99);
    const first = session.preview({});
    const probs = Array.from(first.probs);
    const counts = new Array(model.vocab).fill(0);
    // the first letter of every name: the step after each boundary token
    let total = 0;
    let prev = 0;
    for (let i = 0; i < 60000; i++) {
      const r = session.step({});
      if (prev === 0) { counts[r.token]++; total++; }
      prev = r.token;
    }
    const { stat, df, critical } = chiSquare(counts, probs, total);
    expect(total).toBeGreaterThan(5000);
    expect(stat).toBeLessThan(critical);
    // power: a uniform guess fails by far
    const uniform = probs.map(() => 1 / probs.length);
    expect(chiSquare(counts, uniform, total).stat).toBeGreaterThan(10 * critical);
    expect(df).toBeGreaterThan(10);
    session.free();
    model.free();
  }, 180_000); // hundreds of thousands of draws: a loaded machine takes minutes
});

it('detects SIMD in this Node', () => {
  expect(simdSupported()).toBe(true);
});

describe.each(['simd', 'scalar'])('step records (%s)', (flavor) => {
  it('rank the nucleus and draw samples with their KL divergence', async () => {
    const e = await engine(flavor);
    const s = e.createSampler(6);
    const r = s.warp([0.5, 0.2, 0.15, 0.08, 0.05, 0.02].map(Math.log), [], { top_p: 0.9 });
    expect([...r.top.ids]).toEqual([0, 1, 2, 3, 4, 5]);
    expect(r.top.cum[2]).toBeCloseTo(0.85, 6);
    expect(r.top.cum[5]).toBeCloseTo(1, 6);
    const { counts, kl } = s.sampleCounts(100000, 5);
    expect(counts[4] + counts[5]).toBe(0); // cut tokens are never drawn
    expect(counts.reduce((a, b) => a + b, 0)).toBe(100000);
    // KL(empirical || final) in bits, from the counts and the nucleus's renormalized probabilities
    const final = [0.5, 0.2, 0.15, 0.08].map((p) => p / 0.93);
    const want = final.reduce((a, p, i) => (counts[i] ? a + (counts[i] / 100000) * Math.log2(counts[i] / 100000 / p) : a), 0);
    expect(kl).toBeCloseTo(want, 6);
    expect(kl).toBeLessThan(0.001);
    const few = s.sampleCounts(20, 5);
    expect(few.kl).toBeGreaterThan(kl); // fewer samples, further from the truth
    s.free();
  });
});
