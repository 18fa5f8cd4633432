// The playground's engine (switch.js) over the real WASM engines in Node:
// it starts on the lesson engine and moves to the whole engine when a GGUF
// file is opened, losing nothing — each session's text and sampler state,
// the models, the order of the requests; a bad file or a whole engine that
// cannot start leaves the lesson engine running.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { loadEngine } from '../engine/engine.js';
import { BUILD_DIR } from '../engine/node.js';
import { MODELS } from '../../../tests/e2e/fixtures.js';
import { writeGguf } from '../../../tests/helpers/gguf.js';
import { logitsModel } from '../../../tests/helpers/gguf-models.js';
import { EngineHost, errorOf } from './host.js';
import { SwitchingClient, needsWholeEngine } from './switch.js';

const bigramPath = path.join(MODELS, 'bigram.bin');
const wasm = (name) => fs.readFileSync(path.join(BUILD_DIR, `${name}.wasm`));

/**
 * A client of a host in this process, answering one request at a time in
 * order, as the Worker does (engine.worker.js); args are cloned as
 * postMessage clones them.
 * @param {'lite' | 'full'} engine @param {{fail?: boolean}} [opts]
 */
function hostClient(engine, { fail = false } = {}) {
  const enginePromise = fail ? Promise.reject(new TypeError('Failed to fetch')) : loadEngine(wasm(engine === 'lite' ? 'engine-lite-simd' : 'engine-simd'));
  enginePromise.catch(() => {});
  const host = new EngineHost(enginePromise, {
    builtins: { bigram: { name: 'Bigram names', url: bigramPath, missing: 'no bigram' } },
    fetchBytes: async (url) => new Uint8Array(fs.readFileSync(url)),
  });
  let queue = Promise.resolve();
  const client = {
    engine, host, terminated: false, seen: /** @type {string[]} */ ([]),
    request(op, args = {}, transfer = [], { onProgress } = {}) {
      if (client.terminated) return Promise.reject(Object.assign(new Error('the engine worker was stopped'), { reason: 'worker' }));
      if (op === 'stopGenerate') return Promise.resolve(host.stopGenerate(args.session)); // at once
      client.seen.push(op);
      const copy = structuredClone(args);
      const progress = (loaded, total) => onProgress?.({ loaded, total });
      const p = queue.then(() => host.handle(op, copy, { progress })).catch((err) => {
        throw Object.assign(new Error(errorOf(err).message), errorOf(err));
      });
      queue = p.catch(() => {});
      return p;
    },
    terminate() { client.terminated = true; },
  };
  return client;
}

/** a switching client and the clients it made */
function switching(opts = {}) {
  const made = [];
  const c = new SwitchingClient((engine) => {
    const h = hostClient(engine, engine === 'full' ? opts : {});
    made.push(h);
    return h;
  });
  return { c, made };
}

const P = { temperature: 1.2, top_k: 20, mirostat: 2, mirostat_tau: 3 };
const gguf = () => writeGguf(logitsModel([2, 1, 0, -1]));

/** Makes two panels' texts: steps, a branch, a fast-forward, a text started anew, a hand-made model. */
async function history(c) {
  await c.request('loadModel', { model: 'bigram', builtin: 'bigram' });
  await c.request('openSession', { session: 'main', model: 'bigram' });
  await c.request('start', { session: 'main', prompt: 'an', seed: 9, params: P, steps: 2 });
  await c.request('start', { session: 'main', prompt: 'ma', seed: 4, params: P, steps: 3 });
  await c.request('step', { session: 'main', params: P, count: 2 });
  await c.request('branch', { session: 'main', index: 3, token: 5, params: P });
  await c.request('generate', { session: 'main', params: P, n: 7 });
  await c.request('loadModel', { model: 'handmade', handmade: 'logits:2,1,0,3' });
  await c.request('loadModel', { model: 'bigram', builtin: 'bigram' }); // already loaded: changes nothing
  await c.request('openSession', { session: 'cmp-1', model: 'handmade' });
  await c.request('start', { session: 'cmp-1', prompt: '', seed: 3, params: P, steps: 4 });
  await c.request('openSession', { session: 'gone', model: 'bigram' });
  await c.request('closeSession', { session: 'gone' });
}

/** what a session holds: its tokens, and the next steps' tokens and probabilities */
async function future(c, session) {
  const { stats } = await c.request('lab', { session });
  const r = await c.request('step', { session, params: P, count: 5 });
  return { stats, next: r.steps.map((s) => [s.token, s.p, s.entropy]) };
}

describe('the playground\'s engine: lesson engine first, the whole engine for a GGUF file', () => {
  it('knows a GGUF file by its first bytes, given as a model or a tokenizer', () => {
    const g = gguf();
    expect(needsWholeEngine({ bytes: g })).toBe(true);
    expect(needsWholeEngine({ bytes: g.buffer.slice(g.byteOffset, g.byteOffset + g.byteLength) })).toBe(true);
    expect(needsWholeEngine({ bytes: fs.readFileSync(bigramPath), tokenizerBytes: g })).toBe(true);
    expect(needsWholeEngine({ bytes: new Uint8Array(fs.readFileSync(bigramPath)) })).toBe(false);
    expect(needsWholeEngine({ builtin: 'bigram' })).toBe(false);
    expect(needsWholeEngine({ bytes: new Uint8Array([0x47, 0x47]) })).toBe(false);
  });

  it('moves to the whole engine for a GGUF file: every session goes on exactly as it would have', async () => {
    const { c, made } = switching();
    const ref = hostClient('full'); // the same requests on the whole engine from the start
    await history(c);
    await history(ref);
    expect(made.map((m) => m.engine)).toEqual(['lite']);
    const info = await c.request('loadModel', { model: 'file-1', bytes: gguf(), name: 'l.gguf' });
    expect(info).toMatchObject({ vocab: 4, tokenizer: 'spm' });
    expect(made.map((m) => m.engine)).toEqual(['lite', 'full']);
    expect(c.engine).toBe('full');
    expect(made[0].terminated).toBe(true);
    // the new engine was told only what counts: one start of main (the later one), no closed session, one bigram load
    expect(made[1].seen.filter((op) => op === 'start')).toHaveLength(2); // main's last start, cmp-1's
    expect(made[1].seen.filter((op) => op === 'loadModel')).toHaveLength(3); // the GGUF, the bigram, the hand-made model
    for (const s of ['main', 'cmp-1']) expect(await future(c, s)).toEqual(await future(ref, s));
    expect((await c.request('openSession', { session: 'g', model: 'file-1' })).model).toBe('file-1');
    await expect(c.request('openSession', { session: 'x', model: 'gone' })).rejects.toThrow(/no model "gone"/);
  }, 60_000);

  it('a fast-forward a stop cut short is told again as the tokens it made', async () => {
    const { c, made } = switching();
    await c.request('loadModel', { model: 'bigram', builtin: 'bigram' });
    await c.request('openSession', { session: 'main', model: 'bigram' });
    await c.request('start', { session: 'main', prompt: '', seed: 1, params: P });
    // stopped after its first chunk
    const gen = c.request('generate', { session: 'main', params: P, n: 400 }, [], { onProgress: () => c.request('stopGenerate', { session: 'main' }) });
    const made0 = (await gen).generated.tokens.length;
    const before = await c.request('lab', { session: 'main' });
    await c.request('loadModel', { model: 'file-1', bytes: gguf() });
    expect(made[1].engine).toBe('full');
    const after = await c.request('lab', { session: 'main' });
    expect(after.metrics.nGenerated ?? after.stats.n).toEqual(before.metrics.nGenerated ?? before.stats.n);
    expect(after.stats).toEqual(before.stats);
    expect(made0).toBeGreaterThan(0);
    expect(made0).toBeLessThan(400);
  }, 60_000);

  it('a bad GGUF file changes nothing: the lesson engine runs on; requests made meanwhile wait, in order', async () => {
    const { c, made } = switching();
    await history(c);
    const before = await c.request('lab', { session: 'main' });
    const bad = gguf().slice(0, 40);
    const load = c.request('loadModel', { model: 'file-1', bytes: bad, name: 'bad.gguf' });
    const during = c.request('lab', { session: 'main' }); // sent while the move runs
    await expect(load).rejects.toMatchObject({ kind: 'format' });
    expect(await during).toEqual(before);
    expect(c.engine).toBe('lite');
    expect(made[1].terminated).toBe(true);
    expect(made[0].terminated).toBe(false);
    // the good file after it moves
    await c.request('loadModel', { model: 'file-2', bytes: gguf() });
    expect(c.engine).toBe('full');
    expect(await c.request('lab', { session: 'main' })).toEqual(before);
  }, 60_000);

  it('a whole engine that cannot be fetched: a clear error, the lesson engine runs on', async () => {
    const { c, made } = switching({ fail: true });
    await history(c);
    await expect(c.request('loadModel', { model: 'file-1', bytes: gguf() }))
      .rejects.toMatchObject({ reason: 'wholeEngine', message: expect.stringMatching(/^a GGUF file: the page reads it with its whole engine, which could not be fetched \(Failed to fetch\); open it again once online$/) });
    expect(c.engine).toBe('lite');
    expect(made[1].terminated).toBe(true);
    expect((await c.request('step', { session: 'main', params: P })).steps).toHaveLength(1);
  }, 60_000);
});
