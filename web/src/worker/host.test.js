// The Worker's request handler over the real WASM engine (in Node): step
// summaries, determinism (previews never draw), branching, samples, the
// "other" bar of a large vocabulary, context ends, and bad files.
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

import { loadEngineNode } from '../engine/node.js';
import { charTokenizer, LLAMA_TOKENIZER, MODELS, needFixture, randomCheckpoint, skipWithoutLlamaTokenizer } from '../../../tests/e2e/fixtures.js';
import { EngineHost, errorOf } from './host.js';
import { TOP_BARS } from './summary.js';

const bigramPath = path.join(MODELS, 'bigram.bin');
const bigramBytes = () => new Uint8Array(fs.readFileSync(bigramPath));

function makeHost(options = {}) {
  return new EngineHost(loadEngineNode('simd'), {
    builtins: {
      bigram: { name: 'Bigram names', url: bigramPath, missing: 'no bigram' },
      transformer: { name: 'Tiny transformer', url: '/nonexistent/t.bin', tokenizerUrl: '/nonexistent/tt.bin', missing: 'The tiny transformer is not in this build yet.' },
    },
    fetchBytes: async (url) => (fs.existsSync(url) ? new Uint8Array(fs.readFileSync(url)) : null),
    ...options,
  });
}

/** The text a session makes with the engine directly, for comparison. */
async function directText(prompt, seed, params, steps) {
  const e = await loadEngineNode('simd');
  const model = e.loadModel(bigramBytes());
  const s = e.createSession(model);
  s.start(prompt, seed);
  let text = '';
  for (let i = 0; i < steps; i++) text += s.step(params).piece;
  s.free();
  model.free();
  return text;
}

const sum = (a) => Array.from(a).reduce((x, y) => x + y, 0);

describe('EngineHost with the bigram', () => {
  let host;
  beforeAll(async () => {
    host = makeHost();
    await host.handle('loadModel', { model: 'bigram', builtin: 'bigram' });
    await host.handle('openSession', { session: 'a', model: 'bigram' });
  });

  it('generates exactly the engine\'s text for a seed', async () => {
    const params = { temperature: 0.8, top_k: 10, top_p: 0.9, min_p: 0, repetition_penalty: 1 };
    const r = await host.handle('start', { session: 'a', prompt: 'Ma', seed: '42', params, steps: 40 });
    expect(r.steps).toHaveLength(40);
    expect(r.steps.map((s) => s.piece).join('')).toBe(await directText('Ma', 42, params, 40));
    expect(r.steps.map((s) => s.index)).toEqual([...Array(40).keys()]);
    expect(r.next.kind).toBe('preview');
    expect(r.next.index).toBe(40);
    expect(r.status).toEqual({ nGenerated: 40, ready: true, finished: false, message: '' });
  });

  it('summarizes every token of a small vocabulary, ranked, with the engine\'s numbers', async () => {
    const r = await host.handle('start', { session: 'a', prompt: '', seed: 1, params: { top_k: 5 } });
    const n = r.next;
    expect(n.vocab).toBe(54);
    expect(n.full).toBe(true);
    expect(n.bars).toBe(54);
    expect(n.other).toBeNull();
    expect(new Set(n.ids).size).toBe(54);
    expect(n.nKept).toBe(5);
    expect(n.cut.filter((c) => c === 'kept')).toHaveLength(5);
    expect(n.cut.slice(5).every((c) => c === 'top_k')).toBe(true);
    expect(sum(n.final)).toBeCloseTo(1, 5);
    expect(sum(n.raw)).toBeCloseTo(1, 5);
    for (let i = 1; i < 54; i++) expect(n.tempered[i]).toBeLessThanOrEqual(n.tempered[i - 1]);
    expect(n.cum[53]).toBeCloseTo(1, 6); // the engine ranks a small vocabulary whole
    expect(n.pieces[n.ids.indexOf(0)]).toBe('\n');
    expect(n.pArgmax).toBe(n.final[0]);
  });

  it('previews without drawing: re-warping between steps leaves the text unchanged', async () => {
    const base = { temperature: 1, top_k: 0, top_p: 1, min_p: 0, repetition_penalty: 1 };
    const plain = await host.handle('start', { session: 'a', prompt: '', seed: 9, params: base, steps: 30 });
    await host.handle('start', { session: 'a', prompt: '', seed: 9, params: base });
    const pieces = [];
    for (let i = 0; i < 30; i++) {
      await host.handle('preview', { session: 'a', params: { ...base, temperature: 2.5 } });
      await host.handle('preview', { session: 'a', params: { ...base, top_k: 1 }, samples: { n: 1000, seed: i } });
      const r = await host.handle('step', { session: 'a', params: base });
      pieces.push(r.steps[0].piece);
    }
    expect(pieces.join('')).toBe(plain.steps.map((s) => s.piece).join(''));
  });

  it('re-warps the pending step when a setting changes', async () => {
    await host.handle('start', { session: 'a', prompt: 'Jo', seed: 3, params: {} });
    const hot = await host.handle('preview', { session: 'a', params: { temperature: 2 } });
    const cold = await host.handle('preview', { session: 'a', params: { temperature: 0.3 } });
    expect(hot.next.entropyBits).toBeGreaterThan(cold.next.entropyBits);
    expect(hot.next.entropyRawBits).toBe(cold.next.entropyRawBits);
    const greedy = await host.handle('preview', { session: 'a', params: { temperature: 0 } });
    expect(greedy.next.nKept).toBe(1);
    expect(greedy.next.cut[1]).toBe('temperature');
    expect(greedy.next.pArgmax).toBe(1);
  });

  it('branches: rewinds to a step and appends the chosen token, the rest replays the same draws', async () => {
    const params = { temperature: 1 };
    const r = await host.handle('start', { session: 'a', prompt: '', seed: 5, params, steps: 12 });
    const at = 4;
    const old = r.steps[at];
    const other = old.ids.find((id, i) => id !== old.token && old.cut[i] === 'kept');
    const b = await host.handle('branch', { session: 'a', index: at, token: other, params });
    expect(b.steps).toHaveLength(1);
    expect(b.steps[0].token).toBe(other);
    expect(b.steps[0].forced).toBe(true);
    expect(b.steps[0].index).toBe(at);
    expect(b.steps[0].u).toBe(old.u); // the same uniform as the first time
    expect(b.next.index).toBe(at + 1);
    // replaying the link (forced token at that index) gives the same text
    const more = await host.handle('step', { session: 'a', params, count: 5 });
    const branched = [...r.steps.slice(0, at), ...b.steps, ...more.steps].map((s) => s.piece).join('');
    const replay = await host.handle('start', { session: 'a', prompt: '', seed: 5, params, steps: at + 6, forced: [[at, other]] });
    expect(replay.steps.map((s) => s.piece).join('')).toBe(branched);
  });

  it('draws samples of the next token with their KL divergence', async () => {
    const r = await host.handle('start', { session: 'a', prompt: '', seed: 2, params: { top_k: 3 }, samples: { n: 1000, seed: 7 } });
    const s = r.samples;
    expect(s.n).toBe(1000);
    expect(sum(s.freq)).toBeCloseTo(1, 9);
    expect(Array.from(s.freq).filter((f) => f > 0).length).toBeLessThanOrEqual(3);
    // KL(empirical || final) in bits, from the frequencies and the final distribution
    const final = r.next.final;
    const want = Array.from(s.freq).reduce((a, f, i) => (f > 0 ? a + f * Math.log2(f / final[i]) : a), 0);
    expect(s.kl).toBeCloseTo(want, 5);
    expect(s.kl).toBeLessThan(0.05);
    const again = await host.handle('preview', { session: 'a', params: { top_k: 3 }, samples: { n: 1000, seed: 7 } });
    expect(Array.from(again.samples.freq)).toEqual(Array.from(s.freq));
  });

  it('refuses a prompt the tokenizer cannot encode and keeps the old text going', async () => {
    await host.handle('start', { session: 'a', prompt: '', seed: 11, params: {}, steps: 5 });
    await expect(host.handle('start', { session: 'a', prompt: 'Zoë', seed: 11, params: {} })).rejects.toThrow(/the character 'ë'/);
    const r = await host.handle('step', { session: 'a', params: {} });
    expect(r.status.nGenerated).toBe(6);
  });

  it('says when the built-in transformer is missing and keeps what is loaded', async () => {
    await expect(host.handle('loadModel', { model: 'transformer', builtin: 'transformer' })).rejects.toThrow('The tiny transformer is not in this build yet.');
    // the page says it in its language from the reason and its values
    const err = await host.handle('loadModel', { model: 'transformer', builtin: 'transformer' }).catch((e) => errorOf(e));
    expect(err).toEqual({ name: 'Error', message: 'The tiny transformer is not in this build yet.', reason: 'missing', vars: { model: 'transformer' } });
    const r = await host.handle('step', { session: 'a', params: {} });
    expect(r.steps).toHaveLength(1);
  });

  it('refuses a bad model file with the engine\'s message, the current model untouched', async () => {
    const good = bigramBytes();
    await expect(host.handle('loadModel', { model: 'bigram', bytes: good.slice(0, good.length - 3) }))
      .rejects.toThrow(/^bigram: file has \d+ bytes, header implies \d+$/);
    const ckpt = randomCheckpoint({ vocab: 40, seqLen: 8 });
    await expect(host.handle('loadModel', { model: 'x', bytes: ckpt.slice(0, ckpt.length - 100), tokenizerBytes: charTokenizer() }))
      .rejects.toThrow(/^checkpoint: file has \d+ bytes, header implies \d+/);
    // a tokenizer.bin chosen as the model is named as what it is
    await expect(host.handle('loadModel', { model: 'x', bytes: charTokenizer() }))
      .rejects.toThrow(/^model: this is a llama2\.c tokenizer\.bin \(33 pieces\), not a model: choose a checkpoint, with this file as its tokenizer$/);
    await expect(host.handle('loadModel', { model: 'x', bytes: randomCheckpoint({ vocab: 10, seqLen: 8 }), tokenizerBytes: charTokenizer() }))
      .rejects.toThrow(/^tokenizer: it has 33 pieces.*10 logits/);
    // what the page is told: which error the engine reported (its code, name and class) and which file it refused
    const told = (/** @type {any} */ args) => host.handle('loadModel', args).catch((e) => errorOf(e));
    expect(await told({ model: 'bigram', bytes: good.slice(0, good.length - 3) })).toMatchObject({ name: 'EngineError', code: 1, part: 'model' });
    expect(await told({ model: 'x', bytes: ckpt, tokenizerBytes: new Uint8Array(7) })).toMatchObject({ code: 1, part: 'tokenizer' });
    expect(await told({ model: 'x', bytes: charTokenizer() })).toMatchObject({ code: 13, reason: 'tokenizer_as_model', kind: 'format', part: 'model' });
    expect(await told({ model: 'x', bytes: randomCheckpoint({ vocab: 10, seqLen: 8 }), tokenizerBytes: charTokenizer() }))
      .toMatchObject({ part: 'pair' });
    expect(host.models.has('x')).toBe(false);
    const r = await host.handle('step', { session: 'a', params: {} });
    expect(r.steps[0].vocab).toBe(54);
  });
});

describe('EngineHost with llama2.c checkpoints', () => {
  it('says before a download whether a model file of that size fits the engine\'s memory', async () => {
    const host = makeHost();
    await expect(host.handle('checkSize', { size: 1e9 })).resolves.toBeUndefined();
    const told = await host.handle('checkSize', { size: 2.5e9 }).catch((e) => errorOf(e));
    expect(told).toMatchObject({ code: 3 });
    expect(told.message).toMatch(/^model: the file is 2500 MB \(2500000000 bytes\); this engine's memory holds at most \d+ MB/);
  });

  it('explores a checkpoint chosen without its tokenizer: its tokens are ids', async () => {
    const host = makeHost();
    const info = await host.handle('loadModel', { model: 'alone', bytes: randomCheckpoint({ vocab: 40, seqLen: 16 }), name: 'alone.bin' });
    expect(info).toEqual({ model: 'alone', name: 'alone.bin', kind: 'transformer', vocab: 40, seqLen: 16, ends: [], ids: true, tokenizer: null, chat: null });
    await host.handle('openSession', { session: 's', model: 'alone' });
    const r = await host.handle('start', { session: 's', prompt: '<5><17>', seed: 1, params: { temperature: 1 }, steps: 6 });
    expect(r.steps).toHaveLength(6);
    for (const st of r.steps) expect(st.piece).toBe(`<${st.token}>`);
    await expect(host.handle('start', { session: 's', prompt: 'hello', seed: 1, params: {} })).rejects.toThrow(/no token's label matches the text at byte offset 0 \('h'\)/);
  });

  it('stops calmly at the end of the context', async () => {
    const host = makeHost();
    const info = await host.handle('loadModel', { model: 'tiny', bytes: randomCheckpoint({ vocab: 33, seqLen: 8 }), tokenizerBytes: charTokenizer(), name: 'tiny.bin' });
    expect(info).toEqual({ model: 'tiny', name: 'tiny.bin', kind: 'transformer', vocab: 33, seqLen: 8, ends: [1, 2], ids: false, tokenizer: 'bpe', chat: null });
    await host.handle('openSession', { session: 's', model: 'tiny' });
    const r = await host.handle('start', { session: 's', prompt: 'ab', seed: 1, params: { temperature: 1 }, steps: 50 });
    // prompt: BOS, " ", "a", "b" = 4 tokens; 4 more fill the context
    expect(r.steps.length).toBeLessThanOrEqual(4);
    expect(r.status.ready).toBe(false);
    expect(r.next).toBeNull();
    expect(r.status.message).toMatch(/context is full \(8 tokens\)|ended the text/);
    expect(r.status.reason === 'context' ? r.status.n : r.status.reason).toBe(r.status.reason === 'context' ? 8 : 'end');
    const again = await host.handle('step', { session: 's', params: {} });
    expect(again.steps).toHaveLength(0);
    await expect(host.handle('start', { session: 's', prompt: 'abcdefghij', seed: 1, params: {} })).rejects.toThrow(/leave no room in the model's context of 8/);
  });

  it('says when the model ends its text', async () => {
    const host = makeHost();
    await host.handle('loadModel', { model: 'tiny', bytes: randomCheckpoint({ vocab: 33, seqLen: 64 }), tokenizerBytes: charTokenizer() });
    await host.handle('openSession', { session: 's', model: 'tiny' });
    await host.handle('start', { session: 's', prompt: 'a', seed: 1, params: {} });
    const r = await host.handle('step', { session: 's', params: {}, force: 2 }); // </s>
    expect(r.status).toMatchObject({ ready: false, finished: true, reason: 'end' });
    expect(r.status.message).toMatch(/ended the text/);
    expect(r.next).toBeNull();
  });

  it('gives every token a bar for a vocabulary of 99 (the shipped transformer\'s size)', async () => {
    const host = makeHost();
    const chars = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join('');
    await host.handle('loadModel', { model: 'c', bytes: randomCheckpoint({ vocab: 99, seqLen: 64, scale: 1.5 }), tokenizerBytes: charTokenizer(`\n${chars}`) });
    await host.handle('openSession', { session: 's', model: 'c' });
    const r = await host.handle('start', { session: 's', prompt: 'In the', seed: 3, params: { top_p: 0.8 } });
    const n = r.next;
    expect(n.full).toBe(true);
    expect(n.bars).toBe(99);
    expect(n.other).toBeNull();
    expect(new Set(n.ids).size).toBe(99);
    // the engine ranks all 99 (the page re-sorts nothing): each row has
    // its cumulative mass, and the order is the engine's (ties by id)
    expect(Number.isFinite(n.cum[64])).toBe(true);
    expect(n.cum[98]).toBeCloseTo(1, 6);
    for (let i = 1; i < 99; i++) {
      expect(n.tempered[i]).toBeLessThanOrEqual(n.tempered[i - 1]);
      if (n.tempered[i] === n.tempered[i - 1]) expect(n.ids[i]).toBeGreaterThan(n.ids[i - 1]);
      expect(n.cum[i]).toBeGreaterThanOrEqual(n.cum[i - 1]);
    }
    expect(sum(n.final)).toBeCloseTo(1, 5);
    expect(n.pieces[n.ids.indexOf(4)]).toBe(' ');
  });

  it.skipIf(skipWithoutLlamaTokenizer)('summarizes a 32000-token vocabulary as the top 30 and an "other" bar', async () => {
    needFixture(LLAMA_TOKENIZER);
    const host = makeHost();
    const info = await host.handle('loadModel', {
      model: 'big', bytes: randomCheckpoint({ vocab: 32000, seqLen: 32, scale: 2 }),
      tokenizerBytes: new Uint8Array(fs.readFileSync(LLAMA_TOKENIZER)),
    });
    expect(info.vocab).toBe(32000);
    await host.handle('openSession', { session: 's', model: 'big' });
    const r = await host.handle('start', { session: 's', prompt: 'Once', seed: 4, params: { top_p: 0.5 }, steps: 2, samples: { n: 1000, seed: 1 } });
    const n = r.next;
    expect(n.full).toBe(false);
    expect(n.bars).toBe(TOP_BARS);
    expect(n.ids).toHaveLength(64); // the nucleus view gets the engine's TOP_N
    expect(n.other.count).toBe(32000 - 30);
    // shown bars + other = the whole distribution, for each kind of mass
    expect(sum(n.final.slice(0, 30)) + n.other.final).toBeCloseTo(1, 5);
    expect(sum(n.raw.slice(0, 30)) + n.other.raw).toBeCloseTo(1, 5);
    expect(n.other.tempered).toBeCloseTo(1 - n.cum[29], 5);
    const keptShown = n.cut.slice(0, 30).filter((c) => c === 'kept').length;
    expect(n.other.kept + keptShown).toBe(n.nKept);
    expect(sum(r.samples.freq.slice(0, 30)) + r.samples.otherFreq).toBeCloseTo(1, 9);
    expect(r.steps.every((s) => typeof s.piece === 'string')).toBe(true);
  });
});
