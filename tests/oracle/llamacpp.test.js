// llama.cpp's side of the comparisons, checked on its own: the test GGUFs
// are valid for llama.cpp and mean what the writer says (the converted
// stories260K gives llama2.c's own logits; a quantized file gives what its
// dequantized weights give, up to llama.cpp's rounding of activations), and
// the logits model makes llama.cpp's sampler chain run on chosen logits.
// The figures each check measures are printed (the `measured:` lines).
import fs from 'node:fs';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { IN_CI } from '../e2e/fixtures.js';
import { ggufMissing, registerGguf } from '../helpers/gguf-files.js';
import { logitsModel, prng } from '../helpers/gguf-models.js';
import { writeGguf } from '../helpers/gguf.js';
import { LLAMA2C_DIR } from '../helpers/vocab.js';
import { oracleMissing, startOracle } from './llamacpp.js';

const absent = oracleMissing();
if (absent && IN_CI) throw new Error(`llama.cpp oracle: ${absent} (required under CI=true)`);
const noFixtures = ggufMissing('stories260K-f32');
if (noFixtures && IN_CI) throw new Error(`llama.cpp oracle: ${noFixtures} (required under CI=true)`);
if (absent) console.warn(`llama.cpp oracle skipped: ${absent}`);
if (noFixtures) console.warn(`llama.cpp oracle: the stories260K and Llama 2 vocabulary checks skipped: ${noFixtures}`);

/** max |a - b| over the entries of two vectors @param {ArrayLike<number>} a @param {ArrayLike<number>} b */
export function maxAbsDiff(a, b) {
  expect(a.length).toBe(b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

/** log softmax in float64 @param {ArrayLike<number>} x */
export function logSoftmax(x) {
  let max = -Infinity;
  for (let i = 0; i < x.length; i++) max = Math.max(max, x[i]);
  let s = 0;
  for (let i = 0; i < x.length; i++) s += Math.exp(x[i] - max);
  const lse = max + Math.log(s);
  return Float64Array.from(x, (v) => v - lse);
}

describe.skipIf(absent)('llama.cpp (wllama in Chromium) as the oracle', () => {
  /** @type {Awaited<ReturnType<typeof startOracle>>} */
  let oracle;
  beforeAll(async () => {
    oracle = await startOracle();
  });
  afterAll(async () => {
    await oracle?.close();
  });

  test('the logits model: llama.cpp reports exactly the chosen logits, and runs its sampler chain on them', async () => {
    const rnd = prng(7);
    const logits = Float32Array.from({ length: 40 }, () => Math.fround(rnd() * 8 - 4));
    logits[17] = 5.5; // one clear maximum
    registerGguf('logits-test', 'the logits model on 40 chosen logits', () => writeGguf(logitsModel(logits)));
    const info = await oracle.load('logits-test');
    expect(info.n_vocab).toBe(40);

    // raw: the 20 most likely tokens' log-probabilities are log softmax(logits), at every step
    const want = logSoftmax(logits);
    const g = await oracle.generate({ prompt: '', max_tokens: 3, temperature: 0, top_k: 1, n_probs: 20 });
    expect(g.steps.map((s) => s.id)).toEqual([17, 17, 17]);
    let worst = 0;
    for (const s of g.steps) {
      expect(s.top).toHaveLength(20);
      for (const t of s.top) worst = Math.max(worst, Math.abs(/** @type {number} */ (t.logprob) - want[t.id]));
    }
    console.log(`measured: logits model, |llama.cpp log-prob - log softmax(chosen)| <= ${worst.toExponential(2)}`);
    expect(worst).toBeLessThan(2e-6);

    // through the chain: top_k 5 then temperature 2, post-sampling probabilities = softmax(top-5 logits / 2)
    const chain = await oracle.generate({
      prompt: '', max_tokens: 1, samplers: ['top_k', 'temperature'], top_k: 5, temperature: 2, n_probs: 10, post_sampling_probs: true, seed: 3,
    });
    const top5 = Array.from(logits.keys()).sort((a, b) => logits[b] - logits[a]).slice(0, 5);
    const z = top5.reduce((acc, i) => acc + Math.exp(logits[i] / 2), 0);
    const probs = chain.steps[0].top;
    expect(probs.map((p) => p.id)).toEqual(top5);
    for (const p of probs) expect(Math.abs(/** @type {number} */ (p.prob) - Math.exp(logits[p.id] / 2) / z)).toBeLessThan(1e-6);
    expect(top5).toContain(chain.steps[0].id);
  });

  describe.skipIf(noFixtures)('stories260K converted from llama2.c', () => {
    const golden = noFixtures ? null : JSON.parse(fs.readFileSync(path.join(LLAMA2C_DIR, 'stories260K.golden.json'), 'utf8'));

    test("llama.cpp's logits on the converted file are llama2.c's (run.c) within 1e-4", async () => {
      let worst = 0;
      for (const [pos, want] of Object.entries(golden.logits_at_positions)) {
        const p = Number(pos);
        const input = [golden.start_token, ...golden.greedy_next_tokens.slice(0, p)];
        const got = await oracle.logits('stories260K-f32', input);
        worst = Math.max(worst, maxAbsDiff(got, want));
      }
      console.log(`measured: stories260K F32, max |llama.cpp - run.c| logit = ${worst.toExponential(2)}`);
      expect(worst).toBeLessThan(1e-4);
    });

    test("llama.cpp's greedy text from BOS is run.c's, 64 tokens", async () => {
      await oracle.load('stories260K-f32');
      const g = await oracle.greedy('', 64);
      expect(g.steps.map((s) => s.id)).toEqual(golden.greedy_next_tokens.slice(0, 64));
    });
  });

  describe.skipIf(noFixtures)("quantized files: llama.cpp on each type against its dequantized weights in F32", () => {
    // The tiny-spm model (2 layers, 256 wide, Llama 2's first 4096 pieces)
    // in each type, and the same weights dequantized into an F32 file.  A
    // wrong block layout gives unrelated logits (and another text).  What is
    // left is llama.cpp's quantized path: before each matrix product it
    // rounds the activations to the weights' "vec_dot_type" — Q8_0 blocks
    // (32 values, one F16 scale) for Q8_0 and Q4_0 weights, Q8_K blocks (256
    // values, an F32 scale) for Q4_K and Q6_K — an error of up to 1/254 of
    // each block's largest activation, summed over the 256 or 512 inputs of
    // each product and carried through the two layers (the output matrix is
    // F32 here).  Measured: 7.9e-2 (Q8_0), 7.9e-2 (Q4_0), 8.3e-2 (Q4_K), 8.5e-2 (Q6_K)
    // at most over the logits of two prompts; an engine that multiplies
    // F32 activations by the dequantized weights sits that far from
    // llama.cpp on the quantized file, and within 1e-4 of it on the -deq one.
    const PROMPTS = [[1, 450, 1230, 263, 2462], [1, 306, 626, 3692, 889, 13]];
    /** the bound each type's activation rounding stays under (measured above) */
    const BOUND = { q8_0: 0.15, q4_0: 0.15, q4_k: 0.15, q6_k: 0.15 };
    for (const t of /** @type {(keyof typeof BOUND)[]} */ (Object.keys(BOUND))) {
      test(`${t.toUpperCase()}: the same logits (within llama.cpp's activation rounding) and the same 64-token greedy text`, async () => {
        // all of one file's work, then the other's: one load each
        const q = [];
        for (const input of PROMPTS) q.push(await oracle.logits(`tiny-spm-${t}`, input));
        const a = (await oracle.greedy('Once upon a time', 64)).steps.map((s) => s.id);
        const d = [];
        for (const input of PROMPTS) d.push(await oracle.logits(`tiny-spm-${t}-deq`, input));
        const b = (await oracle.greedy('Once upon a time', 64)).steps.map((s) => s.id);
        const worst = Math.max(...q.map((x, i) => maxAbsDiff(x, d[i])));
        console.log(`measured: ${t.toUpperCase()}, max |llama.cpp(quantized file) - llama.cpp(its weights in F32)| logit = ${worst.toExponential(2)}`);
        expect(worst).toBeLessThan(BOUND[t]);
        expect(a).toHaveLength(64);
        expect(a).toEqual(b);
      });
    }
  });
});
