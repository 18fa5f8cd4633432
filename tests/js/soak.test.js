// The soak: one WASM engine instance, 1 000 generations of 100 tokens
// (100 000 tokens), each with a new seed, the session freed or reused in
// turn; the engine's heap in use (dlmalloc's mallinfo, api_heap_used) must
// be the same after as before (after a warm-up), the WASM memory must
// not grow, and a seed must write the same text after 1 000 restarts as at
// first.  The same for many short runs of a tiny transformer to the end
// of its context.  Native leaks are ASan's job (tests/c/test_hostile.c).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { isEngineError } from '../../web/src/engine/engine.js';
import { engine, MODELS_DIR } from './helpers.js';
import { checkpoint, TINY, tokenizer } from './hostile_files.js';

const bigramBytes = () => new Uint8Array(fs.readFileSync(path.join(MODELS_DIR, 'bigram.bin')));
const mib = (n) => `${(n / 1048576).toFixed(2)} MiB`;

/** @param {import('../../web/src/engine/engine.js').Engine} e */
function heap(e) {
  return { used: e.x.api_heap_used(), arena: e.x.api_heap_arena(), memory: e.memory.buffer.byteLength };
}

describe.each(['simd', 'scalar'])('soak (%s)', (flavor) => {
  it('generates 100 000 tokens over 1 000 restarts without the heap growing', async () => {
    const e = await engine(flavor);
    const model = e.loadModel(bigramBytes());
    const params = { temperature: 0.9, top_p: 0.95, repetition_penalty: 1.1, top_k: 40 };
    let session = null;
    let tokens = 0;
    /** the text of each of the first rounds, from the warm-up: the same seed must give it again after any number of restarts */
    const first = new Map();
    const changed = [];
    /** one generation; a new session every other round */
    const round = (i) => {
      if (i % 2 === 0) {
        session?.free();
        session = e.createSession(model);
      }
      session.start('the', i * 7919);
      for (let k = 0; k < 100; k++) {
        session.step(params);
        tokens++;
      }
      const text = Array.from(session.tokens).join(',');
      if (!first.has(i)) first.set(i, text);
      else if (first.get(i) !== text) changed.push(i);
      if (i % 100 === 99) {
        session.rewind(50);
        session.preview(params);
      }
    };
    for (let i = 0; i < 20; i++) round(i); // warm-up
    session.free();
    session = null;
    const before = heap(e);
    const t0 = performance.now();
    tokens = 0;
    for (let i = 0; i < 1000; i++) round(i);
    session.free();
    session = null;
    const ms = performance.now() - t0;
    const after = heap(e);
    console.log(`soak ${flavor}: ${tokens} tokens in ${(ms / 1000).toFixed(1)} s; heap in use ${before.used} -> ` +
      `${after.used} bytes, dlmalloc arena ${mib(before.arena)} -> ${mib(after.arena)}, ` +
      `WASM memory ${mib(before.memory)} -> ${mib(after.memory)}`);
    expect(tokens).toBe(100000);
    expect(changed).toEqual([]); // rounds 0..19 wrote the warm-up's texts again
    expect(after.used).toBe(before.used);
    expect(after.memory).toBe(before.memory);
    model.free();
  });

  it('runs a tiny transformer to the end of its context 2 000 times without the heap growing', async () => {
    const e = await engine(flavor);
    const model = e.loadModel(checkpoint(TINY));
    const tok = e.loadTokenizer(tokenizer());
    const run = (i) => {
      const session = e.createSession(model, tok);
      session.start('ab', i);
      let n = 0;
      for (;;) {
        try {
          session.step({ logit_bias: [[1, -Infinity], [2, -Infinity]], temperature: 1.2 });
          n++;
        } catch (err) {
          if (!isEngineError(err, 'context_full')) throw err;
          break;
        }
      }
      session.free();
      return n;
    };
    for (let i = 0; i < 20; i++) run(i);
    const before = heap(e);
    let tokens = 0;
    for (let i = 0; i < 2000; i++) tokens += run(i);
    const after = heap(e);
    expect(tokens).toBe(2000 * 5);
    expect(after.used).toBe(before.used);
    expect(after.memory).toBe(before.memory);
    tok.free();
    model.free();
  });

  it('loads and frees models and tokenizers 200 times without the heap growing', async () => {
    const e = await engine(flavor);
    const bytes = bigramBytes(), ckpt = checkpoint(TINY), tb = tokenizer();
    const cycle = () => {
      const m = e.loadModel(bytes);
      m.free();
      const t = e.loadModel(ckpt);
      const k = e.loadTokenizer(tb);
      k.free();
      t.free();
    };
    cycle();
    const before = heap(e);
    for (let i = 0; i < 200; i++) cycle();
    expect(heap(e)).toEqual(before);
  });
});
