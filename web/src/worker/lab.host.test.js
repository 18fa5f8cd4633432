// The decoding lab's Worker requests over the real WASM engine (in Node):
// constraints, time travel with peek, metrics/stats/counters in every
// answer, beam search and speculative decoding.
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

import { loadEngineNode } from '../engine/node.js';
import { charTokenizer, MODELS, randomCheckpoint } from '../../../tests/e2e/fixtures.js';
import { EngineHost } from './host.js';

const bigramPath = path.join(MODELS, 'bigram.bin');
/** the characters of the bigram's names, so it can draft for this model */
const CHARS = '\n abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-.,';

function makeHost() {
  return new EngineHost(loadEngineNode('simd'), {
    builtins: { bigram: { name: 'Bigram names', url: bigramPath, missing: 'no bigram' } },
    fetchBytes: async (url) => (fs.existsSync(url) ? new Uint8Array(fs.readFileSync(url)) : null),
  });
}

/** A host with the bigram and a small random character transformer loaded. */
async function labHost() {
  const host = makeHost();
  await host.handle('loadModel', { model: 'bigram', builtin: 'bigram' });
  await host.handle('loadModel', {
    model: 'tiny', name: 'tiny.bin', tokenizerBytes: charTokenizer(CHARS),
    bytes: randomCheckpoint({ vocab: 3 + CHARS.length, seqLen: 96, dim: 16, hidden: 32, layers: 2, heads: 2, kvHeads: 2, scale: 1 }),
  });
  await host.handle('openSession', { session: 'a', model: 'bigram' });
  await host.handle('openSession', { session: 't', model: 'tiny' });
  return host;
}

/** The engine's own greedy text, for comparison. */
async function greedyText(prompt, steps) {
  const e = await loadEngineNode('simd');
  const model = e.loadModel(new Uint8Array(fs.readFileSync(bigramPath)));
  const s = e.createSession(model);
  s.start(prompt, 1);
  let text = '';
  for (let i = 0; i < steps; i++) text += s.step({ temperature: 0 }).piece;
  s.free();
  model.free();
  return text;
}

const text = (r) => r.steps.map((s) => s.piece).join('');

describe('the lab in the Worker host', () => {
  let host;
  beforeAll(async () => {
    host = await labHost();
  });

  it('carries the engine\'s metrics, stats and counters in every answer that changes the text, stats only from where they changed', async () => {
    const r = await host.handle('start', { session: 'a', prompt: '', seed: 3, params: { temperature: 0.8 }, steps: 20 });
    expect(r.lab.metrics.tokens).toBe(20);
    expect(r.lab.statsFrom).toBe(0);
    expect(r.lab.stats).toHaveLength(20);
    r.lab.stats.forEach((st, i) => {
      expect(st.entropyBits).toBeCloseTo(r.steps[i].entropyBits, 5);
      expect(st.nKept).toBe(r.steps[i].nKept);
      expect(st.p).toBeCloseTo(r.steps[i].p, 6);
    });
    expect(r.lab.counters).toMatchObject({ flops: 0, tokens: 21 }); // the bigram counts tokens only
    // the counters' history: after the prompt, after each step, and now
    expect(r.lab.costs.map((c) => c.n)).toEqual([...Array(21).keys(), 20]);
    expect(r.lab.costs.map((c) => c.tokens).slice(0, 3)).toEqual([1, 2, 3]);
    const s = await host.handle('step', { session: 'a', params: { temperature: 0.8 }, count: 3 });
    expect(s.lab.costs.map((c) => c.n)).toEqual([21, 22, 23, 23]);
    expect(s.lab.statsFrom).toBe(20);
    expect(s.lab.stats).toHaveLength(3);
    expect(s.lab.metrics.tokens).toBe(23);
    // a slider move changes no text: its answer is the next token only (the hot path)
    const p = await host.handle('preview', { session: 'a', params: { temperature: 2 } });
    expect(p.lab).toBeUndefined();
    expect(p.next.index).toBe(23);
    const b = await host.handle('branch', { session: 'a', index: 5, token: 10, params: {} });
    expect(b.lab.statsFrom).toBe(5);
    expect(b.lab.stats).toHaveLength(1);
    expect(b.lab.metrics.tokens).toBe(6);
    const l = await host.handle('lab', { session: 'a' });
    expect(l.stats).toHaveLength(6);
    expect((await host.handle('lab', { session: 'a', from: 4 })).stats).toHaveLength(2);
    expect(await host.handle('metrics', { session: 'a' })).toEqual(l.metrics);
    expect(await host.handle('counters', { session: 'a' })).toEqual(l.counters);
  });

  it('bans tokens through logit_bias: cut stage "bias", never drawn', async () => {
    const ban = [[0, -Infinity], [27, -Infinity]];
    const r = await host.handle('start', { session: 'a', prompt: '', seed: 4, params: { logit_bias: ban }, steps: 40 });
    expect(r.steps.every((s) => s.token !== 0 && s.token !== 27)).toBe(true);
    const n = r.next;
    expect(n.cut[n.ids.indexOf(0)]).toBe('bias');
    expect(n.final[n.ids.indexOf(27)]).toBe(0);
  });

  it('constrains the text: masked tokens carry the stage "constraint", the text matches, then it is complete', async () => {
    const params = { temperature: 1.5 };
    for (const seed of [1, 2, 3]) {
      const r = await host.handle('start', { session: 'a', prompt: '', seed, params, steps: 30, constraint: { regex: '[A-Z][a-z]{2,5}' } });
      expect(text(r)).toMatch(/^[A-Z][a-z]{2,5}$/);
      expect(r.status.ready).toBe(false);
      expect(r.status.message).toMatch(/matches the constraint/);
      expect(r.steps[0].cut.filter((c) => c === 'constraint').length).toBeGreaterThan(20);
      expect(r.steps[0].cut[r.steps[0].ids.indexOf(0)]).toBe('constraint'); // no end before a letter
    }
    const j = await host.handle('start', { session: 'a', prompt: '', seed: 5, params: { temperature: 2 }, steps: 30, constraint: { grammar: 'json' } });
    expect(() => JSON.parse(text(j))).not.toThrow();
  });

  it('refuses a bad constraint with the engine\'s message and keeps the old text', async () => {
    const ok = await host.handle('start', { session: 'a', prompt: '', seed: 8, params: {}, steps: 4 });
    const err = await host.handle('start', { session: 'a', prompt: '', seed: 8, params: {}, constraint: { regex: '(oops' } }).catch((e) => e);
    expect(err.name).toBe('ConstraintError');
    expect(err.message).toBe("regex: missing ')' at offset 5");
    expect(err).toMatchObject({ reason: 'regex', kind: 'arg' }); // the page's message is chosen by these
    const un = await host.handle('start', { session: 'a', prompt: '', seed: 8, params: {}, constraint: { regex: '[0-9]+' } }).catch((e) => e);
    expect(un.message).toMatch(/no text this model's vocabulary can write matches it/);
    expect(un).toMatchObject({ name: 'ConstraintError', kind: 'unsatisfiable' }); // refused before a step: well formed, but nothing this vocabulary writes matches it
    const more = await host.handle('step', { session: 'a', params: {} });
    expect(more.status.nGenerated).toBe(5);
    expect(more.steps[0].index).toBe(4);
    expect(text(ok)).toHaveLength(4);
  });

  it('constrain applies and lifts a constraint on the running text', async () => {
    await host.handle('start', { session: 'a', prompt: '', seed: 8, params: {} });
    const c = await host.handle('constrain', { session: 'a', constraint: { regex: 'Bo[a-z]*' }, params: {} });
    expect(c.next.nKept).toBe(1);
    expect(c.next.pieces[0]).toBe('B');
    const off = await host.handle('constrain', { session: 'a', constraint: null, params: {} });
    expect(off.next.nKept).toBe(54);
  });

  it('peek re-warps a past step under new settings without touching the text', async () => {
    const params = { temperature: 1, top_p: 0.9 };
    const r = await host.handle('start', { session: 'a', prompt: 'Ma', seed: 6, params, steps: 10 });
    const same = await host.handle('peek', { session: 'a', index: 4, params });
    expect(same.step.kind).toBe('peek');
    expect(same.step.token).toBe(r.steps[4].token);
    expect(Array.from(same.step.final)).toEqual(Array.from(r.steps[4].final));
    expect(same.step.p).toBeCloseTo(r.steps[4].p, 7);
    const hot = await host.handle('peek', { session: 'a', index: 4, params: { temperature: 2.5 }, samples: { n: 1000, seed: 1 } });
    expect(hot.step.nKept).toBeGreaterThan(r.steps[4].nKept);
    expect(hot.samples.index).toBe(4);
    expect(Array.from(hot.samples.freq).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
    const go = await host.handle('step', { session: 'a', params, count: 5 });
    const plain = await host.handle('start', { session: 'a', prompt: 'Ma', seed: 6, params, steps: 15 });
    expect(text(r) + text(go)).toBe(text(plain));
    await expect(host.handle('peek', { session: 'a', index: 99, params })).rejects.toThrow(/peek: step 99 is outside 0..15/);
  });

  it('beam search: width 1 is greedy; wider beams are ranked, with their log-probabilities', async () => {
    const one = await host.handle('beamStart', { session: 'a', prompt: 'Ro', width: 1, params: {}, steps: 15 });
    expect(one.hypotheses[0].text).toBe(await greedyText('Ro', 15));
    expect(one.expansions).toBe(15);
    expect(one.status.ready).toBe(true);
    const four = await host.handle('beamStart', { session: 'a', prompt: 'Ro', width: 4, lengthPenalty: 0.5, params: {} });
    expect(four.hypotheses).toHaveLength(1);
    let r = four;
    for (let i = 0; i < 15; i++) r = await host.handle('beamStep', { session: 'a', params: {} });
    expect(r.hypotheses).toHaveLength(4);
    expect(r.lengthPenalty).toBe(0.5);
    for (let i = 1; i < 4; i++) expect(r.hypotheses[i].score).toBeLessThanOrEqual(r.hypotheses[0].score);
    expect(r.hypotheses[0].logprob).toBeGreaterThanOrEqual(one.hypotheses[0].logprob - 1e-9);
    expect(r.hypotheses.every((h) => h.length === 15)).toBe(true);
    // the metrics follow the best beam (the engine's, of that text)
    expect(r.lab.metrics.tokens).toBe(15);
    expect(r.lab.stats).toHaveLength(15);
    expect(r.lab.metrics.meanEntropyBits).toBe(0); // beam search picks: no sampling
    expect(r.lab.counters).toBeNull();
    await expect(host.handle('beamStart', { session: 'a', prompt: 'Ro', width: 0, params: {} })).rejects.toThrow(/beams must be in 1..64/);
    // the refused start left the running search alone
    const more = await host.handle('beamStep', { session: 'a', params: {} });
    expect(more.expansions).toBe(16);
  });

  it('beam search ends calmly at the context\'s end, and bans apply to it', async () => {
    const r = await host.handle('beamStart', { session: 't', prompt: 'ab', width: 3, params: { logit_bias: [[1, -Infinity], [2, -Infinity]] }, steps: 200 });
    expect(r.status.ready).toBe(false);
    expect(r.status.message).toMatch(/context full|ended its text/);
    expect(r.hypotheses.every((h) => !h.finished)).toBe(true); // <s> and </s> were banned
    const again = await host.handle('beamStep', { session: 't', params: {} });
    expect(again.expansions).toBe(r.expansions);
  });

  it('speculative decoding: the bigram drafting for itself is always accepted', async () => {
    const r = await host.handle('specStart', { session: 'a', draft: 'bigram', n: 4, prompt: '', seed: 3, params: { temperature: 1 }, rounds: 10 });
    expect(r.rounds).toHaveLength(10);
    expect(r.totals.rounds).toBe(10);
    expect(r.totals.accepted).toBe(r.totals.drafted);
    expect(r.rounds.every((x) => x.rejected === null)).toBe(true);
    expect(r.rounds.every((x) => x.tokens.length === 5 && x.tokens[4].status === 'bonus')).toBe(true);
    expect(r.status.nGenerated).toBe(50);
    expect(r.lab.stats).toHaveLength(50);
    expect(r.lab.metrics.tokens).toBe(50);
    expect(r.next.index).toBe(50);
    const more = await host.handle('specRound', { session: 'a', params: { temperature: 1 } });
    expect(more.rounds[0].round).toBe(11);
    expect(more.rounds[0].index).toBe(50);
    expect(more.lab.statsFrom).toBe(50);
  });

  it('speculative decoding: another draft gets some tokens rejected and corrected', async () => {
    const r = await host.handle('specStart', { session: 't', draft: 'bigram', n: 3, prompt: 'Ma', seed: 2, params: {}, rounds: 8 });
    const statuses = new Set(r.rounds.flatMap((x) => x.tokens.map((t) => t.status)));
    expect(statuses.has('corrected')).toBe(true);
    const rejected = r.rounds.filter((x) => x.rejected);
    expect(rejected.length).toBeGreaterThan(0);
    for (const x of rejected) {
      const at = x.tokens.findIndex((t) => t.status === 'corrected');
      expect(x.drafted[at].token).toBe(x.rejected.token);
      expect(x.tokens.slice(0, at).every((t, i) => t.token === x.drafted[i].token && t.status === 'accepted')).toBe(true);
    }
    expect(r.totals.accepted).toBeLessThan(r.totals.drafted);
    // a transformer: the cache's counters grow, and with a cache the work is smaller
    expect(r.lab.counters.flops).toBeGreaterThan(0);
    expect(r.lab.counters.flops).toBeLessThan(r.lab.counters.flopsNoCache);
    // temperature 0: speculative decoding gives the greedy text
    const g = await host.handle('specStart', { session: 't', draft: 'bigram', n: 4, prompt: 'Ma', seed: 2, params: { temperature: 0 }, rounds: 6 });
    const greedy = await host.handle('start', { session: 't', prompt: 'Ma', seed: 9, params: { temperature: 0 }, steps: g.status.nGenerated });
    expect(g.rounds.flatMap((x) => x.tokens.map((t) => t.piece)).join('')).toBe(text(greedy));
    await expect(host.handle('specRound', { session: 't', params: {} })).rejects.toThrow(/no speculative decoding/);
    await expect(host.handle('specStart', { session: 't', draft: 'nope', n: 3, prompt: '', seed: 1, params: {} })).rejects.toThrow(/no model "nope"/);
  });

  it('counts the KV cache\'s work for a transformer: O(T) with the cache, O(T^2) without', async () => {
    const r = await host.handle('start', { session: 't', prompt: 'Ma', seed: 1, params: {}, steps: 0 });
    const c0 = r.lab.counters;
    const rows = [];
    for (let i = 0; i < 12; i++) rows.push((await host.handle('step', { session: 't', params: {} })).lab.counters);
    const last = rows.at(-1);
    expect(last.tokens).toBe(c0.tokens + 12);
    expect(last.kvReused).toBeGreaterThan(c0.kvReused);
    expect(last.kvWritten).toBeGreaterThan(c0.kvWritten);
    // without a cache each step costs more than the step before
    const d = rows.map((c, i) => c.flopsNoCache - (i ? rows[i - 1].flopsNoCache : c0.flopsNoCache));
    for (let i = 1; i < d.length; i++) expect(d[i]).toBeGreaterThan(d[i - 1]);
    expect(last.flopsNoCache / last.flops).toBeGreaterThan(c0.flopsNoCache / c0.flops);
  });

  it('frees what the lab made when the session goes', async () => {
    await host.handle('beamStart', { session: 'a', prompt: '', width: 2, params: {} });
    await host.handle('openSession', { session: 'x', model: 'tiny' });
    await host.handle('specStart', { session: 'x', draft: 'bigram', n: 2, prompt: '', seed: 1, params: {} });
    expect(host.closeSession('a')).toBe(true);
    // the draft model goes: the speculator that used it goes with it
    host.freeModel('bigram');
    expect(host.sessions.get('x').spec).toBeNull();
    await expect(host.handle('specRound', { session: 'x', params: {} })).rejects.toThrow(/no speculative decoding/);
    const r = await host.handle('step', { session: 'x', params: {} });
    expect(r.steps).toHaveLength(1);
  });
});
