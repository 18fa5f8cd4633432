// Classifier-free guidance (--cfg-scale, --negative-prompt; HF's
// UnbatchedClassifierFreeGuidanceLogitsProcessor): the worked numbers in
// every build, a guided text byte-identical in the native CLI and both
// WASM builds, the typed wrapper's session giving that very text, and its
// step record's three distributions.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { MODELS_DIR, engine, needTransformer, runNative, sameEverywhere, skipWithoutTransformer } from './helpers.js';

describe('classifier-free guidance', () => {
  it('warp: cond 2,1,0, uncond 1,1,1, scale 1.5 gives .785597/.175290/.039112 in every build; scale 1 is off', async () => {
    const req = JSON.stringify({ logits: [2, 1, 0], uncond_logits: [1, 1, 1] });
    const r = await sameEverywhere(['warp', '--cfg-scale', '1.5'], req);
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout.toString());
    [0.785597, 0.175290, 0.039112].forEach((want, i) => expect(Math.abs(out.probs[i] - want)).toBeLessThan(1e-6));
    expect(out.probs_uncond.map((p) => +p.toFixed(6))).toEqual([0.333333, 0.333333, 0.333333]);
    expect(out.probs_raw.map((p) => +p.toFixed(6))).toEqual([0.665241, 0.244728, 0.090031]);
    const off = JSON.parse(runNative(['warp'], req).stdout.toString());
    expect(off.probs_cfg).toBeUndefined();
    expect(off.probs).toEqual(off.probs_raw);
    // on without the second run: refused, and the CLI names the key
    const bad = runNative(['warp', '--cfg-scale', '2'], JSON.stringify({ logits: [2, 1, 0] }));
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('"uncond_logits", the unconditional logits');
    const short = runNative(['warp', '--cfg-scale', '2'], JSON.stringify({ logits: [2, 1, 0], uncond_logits: [1] }));
    expect(short.stderr).toContain('"uncond_logits" has 1 entries');
  });

  it.skipIf(skipWithoutTransformer)('the shipped transformer: a guided text is byte-identical in the CLI builds and the wrapper, and differs from the plain one', async () => {
    needTransformer();
    const args = ['generate', '--model', 'transformer', '--prompt', 'And God said', '--steps', '40', '--seed', '5'];
    const plain = runNative(args);
    const guided = await sameEverywhere([...args, '--cfg-scale', '2', '--negative-prompt', 'And the king']);
    expect(guided.status).toBe(0);
    expect(guided.stdout.equals(plain.stdout)).toBe(false);
    const lastOnly = await sameEverywhere([...args, '--cfg-scale', '1.5']); // the prompt's last token alone
    expect(lastOnly.stdout.equals(plain.stdout)).toBe(false);
    // a negative prompt equal to the prompt: the plain text at any scale
    expect(runNative([...args, '--cfg-scale', '3', '--negative-prompt', 'And God said']).stdout.equals(plain.stdout)).toBe(true);
    // --beams and speculative decoding do not take it: said
    const beams = runNative([...args, '--cfg-scale', '2', '--beams', '2']);
    expect(beams.status).toBe(2);
    expect(beams.stderr).toContain('--cfg-scale and --negative-prompt cannot be combined');
    // the page's engine: the same text, in both builds
    const read = (f) => new Uint8Array(fs.readFileSync(path.join(MODELS_DIR, f)));
    for (const flavor of /** @type {const} */ (['simd', 'scalar'])) {
      const e = await engine(flavor);
      const model = e.loadModel(read('transformer.bin'));
      const tok = e.loadTokenizer(read('transformer_tokenizer.bin'), model.vocab);
      const s = e.createSession(model, tok);
      const params = { cfg_scale: 2, negative_prompt: 'And the king' };
      s.start('And God said', 5);
      let text = '', rec = null;
      for (let i = 0; i < 40 && !s.finished; i++) {
        rec = s.step(params);
        text += rec.piece;
      }
      expect('And God said' + text, flavor).toBe(guided.stdout.toString().replace(/\n$/, ''));
      // the step record: the two runs and the mix (a distribution each)
      const sum = (a) => a.reduce((x, y) => x + y, 0);
      expect(rec.probsUncond).not.toBe(null);
      expect(sum(rec.probsUncond)).toBeCloseTo(1, 5);
      expect(sum(rec.probsCfg)).toBeCloseTo(1, 5);
      // nothing after it at these settings: the final distribution is the mix (its own softmax, in float)
      expect(Math.max(...rec.probsCfg.map((p, i) => Math.abs(p - rec.probs[i])))).toBeLessThan(1e-6);
      // a rewind and the same steps again: the same tokens (both runs consistent)
      const before = s.tokens;
      s.rewind(10);
      while (s.nTokens < before.length && !s.finished) s.step(params);
      expect(Array.from(s.tokens)).toEqual(Array.from(before));
      // scale 1: no guidance in the record
      expect(s.peek(3, { negative_prompt: 'And the king' }).probsCfg).toBe(null);
      [s, tok, model].forEach((x) => x.free());
    }
  });
});
