// The llama2.c reference fixtures through the WASM builds: stories260K's
// logits within 1e-4 and every greedy token, and the Llama 2 tokenizer's
// encodings, as run.c computes them.  (The C tests check the native build;
// the identity tests check that native and WASM agree byte for byte.)
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

import { engine, FIXTURES, needFixtures, skipWithoutFixtures } from './helpers.js';

const golden = (name) => JSON.parse(fs.readFileSync(path.join(FIXTURES, name), 'utf8'));
const bytes = (name) => new Uint8Array(fs.readFileSync(path.join(FIXTURES, name)));

describe.skipIf(skipWithoutFixtures).each(['simd', 'scalar'])('llama2.c fixtures in the %s build', (flavor) => {
  beforeAll(needFixtures);

  it('stories260K: every greedy token and the logits within 1e-4', async () => {
    const g = golden('stories260K.golden.json');
    const e = await engine(flavor);
    const model = e.loadModel(bytes('stories260K.bin'));
    expect(model.vocab).toBe(g.config.vocab_size);
    expect(model.seqLen).toBe(g.config.seq_len);
    // the model's own tokenizer is not available: a session with stand-in
    // pieces drives the forward pass, and greedy (T 0) reads the argmax
    const tok = e.loadTokenizer(fakeTokenizer(model.vocab), model.vocab);
    const s = e.createSession(model, tok);
    s.start('', 0); // BOS = 1 at position 0, as the golden run starts
    let worst = 0;
    for (let pos = 0; pos < g.greedy_next_tokens.length; pos++) {
      const r = s.preview({ temperature: 0 });
      const want = g.logits_at_positions[String(pos)];
      if (want) {
        for (let i = 0; i < want.length; i++) worst = Math.max(worst, Math.abs(r.logits[i] - want[i]));
      }
      expect(r.kept[0]).toBe(g.greedy_next_tokens[pos]);
      if (pos + 1 < g.greedy_next_tokens.length) s.step({ temperature: 0 }, { force: g.greedy_next_tokens[pos] });
    }
    expect(worst).toBeLessThan(1e-4);
    s.free();
    tok.free();
    model.free();
  });

  it('the Llama 2 tokenizer: every reference encoding', async () => {
    const g = golden('tokenizer.golden.json');
    const e = await engine(flavor);
    const tok = e.loadTokenizer(bytes('tokenizer.bin'), g.vocab_size);
    for (const c of g.encode) {
      expect(Array.from(tok.encode(c.text, { bos: c.bos, eos: c.eos }))).toEqual(c.ids);
    }
    tok.free();
  });
});

/** A tokenizer.bin of `vocab` distinct pieces (no merges): enough to drive
 * a checkpoint whose own tokenizer is missing. */
function fakeTokenizer(vocab) {
  const pieces = Array.from({ length: vocab }, (_, i) => (i === 1 ? '<s>' : i === 2 ? '</s>' : `t${i}`));
  const enc = new TextEncoder();
  const parts = [new Int32Array([8])];
  for (const p of pieces) {
    const b = enc.encode(p);
    parts.push(new Float32Array([0]), new Int32Array([b.length]), b);
  }
  const size = parts.reduce((n, p) => n + p.byteLength, 0);
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(new Uint8Array(p.buffer, p.byteOffset, p.byteLength), at);
    at += p.byteLength;
  }
  return out;
}
