// A look inside the model: `sampler inspect` prints the same bytes natively
// and in both WASM builds, and the page's engine (a session's preview and
// peek, StepRecord.inspect) gives the CLI's numbers bit for bit.  The
// numbers themselves are checked against a reference forward pass in
// tests/py/test_inspect_parity.py.
import fs from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

import { ggufMissing, ggufPath } from '../helpers/gguf-files.js';
import { FIXTURES, MODELS_DIR, engine, needFixtures, needTransformer, runNative, sameEverywhere, skipWithoutFixtures, skipWithoutTransformer } from './helpers.js';

const read = (/** @type {string} */ f) => new Uint8Array(fs.readFileSync(f));
const ifTransformer = it.skipIf(skipWithoutTransformer);

describe('sampler inspect', () => {
  ifTransformer('prints the same bytes natively and in both WASM builds (the shipped transformer)', async () => {
    needTransformer();
    const out = await sameEverywhere(['inspect', '--model', 'transformer', '--prompt', 'And God sa']);
    const j = JSON.parse(out.stdout.toString());
    // "And God sa": the begin token, the dummy space, 10 characters
    expect(j.position).toBe(11);
    expect(j.tokens).toHaveLength(12);
    expect([j.layers, j.heads, j.kv_heads]).toEqual([4, 4, 2]);
    expect(j.attention).toHaveLength(4);
    for (const layer of j.attention) {
      expect(layer).toHaveLength(4);
      for (const head of layer) {
        expect(head).toHaveLength(12);
        expect(Math.abs(head.reduce((a, b) => a + b, 0) - 1)).toBeLessThan(1e-5);
      }
    }
    expect(j.lens).toHaveLength(4);
    for (const layer of j.lens) expect(layer.map((e) => Object.keys(e))).toEqual(Array(5).fill(['id', 'p']));
    // a middle position, three tokens a layer
    const mid = await sameEverywhere(['inspect', '--model', 'transformer', '--prompt', 'And God sa', '--position', '4', '--top', '3']);
    const m = JSON.parse(mid.stdout.toString());
    expect(m.position).toBe(4);
    expect(m.attention[0][0]).toHaveLength(5);
    expect(m.lens[3]).toHaveLength(3);
  });

  it.skipIf(skipWithoutFixtures)('llama2.c\'s stories260K (8 heads over 4 key heads), by token ids', async () => {
    needFixtures();
    const ids = [1, 403, 407, 261, 378, 430, 275, 422, 365, 261, 389, 336];
    const out = await sameEverywhere(['inspect', '--model', path.join(FIXTURES, 'stories260K.bin'), '--tokens', ids.join(',')]);
    const j = JSON.parse(out.stdout.toString());
    expect([j.layers, j.heads, j.kv_heads, j.position]).toEqual([5, 8, 4, 11]);
  });

  it('a GGUF file with a 151 669-token vocabulary (qwen2): the same bytes everywhere', async () => {
    expect(ggufMissing('tiny-qwen2-f32')).toBe('');
    const out = await sameEverywhere(['inspect', '--model', ggufPath('tiny-qwen2-f32'), '--tokens', '9707,11,1879,0,358']);
    const j = JSON.parse(out.stdout.toString());
    expect([j.layers, j.heads, j.kv_heads]).toEqual([2, 4, 2]);
    expect(j.lens[1][0].id).toBeGreaterThanOrEqual(0);
  });

  ifTransformer('says what is wrong', async () => {
    const cases = [
      [['inspect', '--model', 'bigram', '--prompt', 'Al'], /a bigram has no attention: its only context is the previous token/],
      [['inspect', '--model', 'transformer', '--prompt', 'And', '--position', '9'], /--position: 9 is outside 0\.\.4/],
      [['inspect', '--model', 'transformer', '--prompt', 'And', '--tokens', '1'], /one of --tokens or --prompt/],
      [['inspect', '--model', 'transformer', '--tokens', '1,500'], /--tokens: item 1 is not a token id in 0\.\.98/],
      [['inspect', '--model', 'transformer', '--tokens', '1', '--top', '17'], /--top: 17 is outside 1\.\.16/],
    ];
    for (const [args, message] of cases) {
      const r = await sameEverywhere(/** @type {string[]} */ (args));
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/** @type {RegExp} */ (message));
    }
  });
});

describe('the step record\'s look inside', () => {
  for (const flavor of /** @type {const} */ (['simd', 'scalar'])) {
    ifTransformer(`${flavor}: a preview's and a peek's are the CLI's, bit for bit`, async () => {
      needTransformer();
      const e = await engine(flavor);
      const m = e.loadModel(read(path.join(MODELS_DIR, 'transformer.bin')));
      const tok = e.loadTokenizer(read(path.join(MODELS_DIR, 'transformer_tokenizer.bin')));
      const s = e.createSession(m, tok);
      try {
        s.setInspect({ attention: true, lens: true, top: 5 });
        s.start('And God sa', 3);
        const params = { temperature: 0.7, top_p: 0.9 };
        const live = s.preview(params).inspect;
        const cli = JSON.parse(runNative(['inspect', '--model', 'transformer', '--prompt', 'And God sa']).stdout.toString());
        expectSame(live, cli);
        // the last layer's lens is the model's distribution
        const rec = s.preview(params);
        const last = /** @type {NonNullable<typeof live>} */ (rec.inspect).lens;
        expect(last).not.toBeNull();
        const top = /** @type {NonNullable<typeof last>} */ (last);
        for (let k = 0; k < 5; k++) expect(top.p[3 * 5 + k]).toBe(/** @type {Float32Array} */ (rec.probsRaw)[top.ids[3 * 5 + k]]);
        expect(top.entropyBits[3]).toBe(rec.entropyRawBits);
        // a step's own record has none; its peek, later, is the same look again
        const step = s.step(params);
        expect(step.inspect).toBeNull();
        s.step(params);
        expectSame(/** @type {any} */ (s.peek(0, params).inspect), cli);
        // attention alone, then off
        s.setInspect({ attention: true });
        expect(s.preview(params).inspect?.lens).toBeNull();
        s.setInspect({});
        expect(s.preview(params).inspect).toBeNull();
      } finally {
        s.free();
        tok.free();
        m.free();
      }
    });
  }

  it('a bigram says why it has none', async () => {
    const e = await engine('simd');
    const m = e.loadModel(read(path.join(MODELS_DIR, 'bigram.bin')));
    const s = e.createSession(m, null);
    try {
      expect(() => s.setInspect({ attention: true })).toThrow(/a bigram has no attention: its only context is the previous token, whose row of its table/);
    } finally {
      s.free();
      m.free();
    }
  });
});

/**
 * The engine's record against the CLI's JSON: the same float32s.
 * @param {import('../../web/src/engine/step.js').Inspection | null} got @param {any} cli
 */
function expectSame(got, cli) {
  expect(got).not.toBeNull();
  const g = /** @type {import('../../web/src/engine/step.js').Inspection} */ (got);
  expect([g.pos, g.token, g.layers, g.heads, g.kvHeads, g.keys]).toEqual([cli.position, cli.token, cli.layers, cli.heads, cli.kv_heads, cli.position + 1]);
  const want = Float32Array.from(cli.attention.flat(2));
  expect(g.attention.length).toBe(want.length);
  let differ = 0;
  for (let i = 0; i < want.length; i++) differ += g.attention[i] !== want[i] ? 1 : 0;
  expect(differ).toBe(0);
  const lens = /** @type {NonNullable<typeof g.lens>} */ (g.lens);
  expect(Array.from(lens.ids)).toEqual(cli.lens.flat().map((/** @type {any} */ x) => x.id));
  expect(Array.from(lens.p)).toEqual(Array.from(Float32Array.from(cli.lens.flat().map((/** @type {any} */ x) => x.p))));
  // (a double printed with 9 digits)
  lens.entropyBits.forEach((h, l) => expect(Math.abs(h - cli.lens_entropy_bits[l])).toBeLessThan(1e-8 * Math.max(1, h)));
}
