// Fast-forward (the Worker's generate request) over the real WASM engine:
// the same tokens, pieces, stats and next distribution as stepping one
// token at a time, progress as it goes, a stop between chunks, and a calm
// end at the end of the model's context.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { loadEngineNode } from '../engine/node.js';
import { charTokenizer, MODELS, randomCheckpoint } from '../../../tests/e2e/fixtures.js';
import { EngineHost } from './host.js';

const bigramPath = path.join(MODELS, 'bigram.bin');

function makeHost() {
  return new EngineHost(loadEngineNode('simd'), {
    builtins: { bigram: { name: 'Bigram names', url: bigramPath, missing: 'no bigram' } },
    fetchBytes: async (url) => (fs.existsSync(url) ? new Uint8Array(fs.readFileSync(url)) : null),
  });
}

async function twoSessions(model, loadArgs) {
  const host = makeHost();
  await host.handle('loadModel', { model, ...loadArgs });
  await host.handle('openSession', { session: 'stepped', model });
  await host.handle('openSession', { session: 'fast', model });
  return host;
}

const PARAMS = [
  { temperature: 0.8, top_k: 10, top_p: 0.9, repetition_penalty: 1.2 },
  { temperature: 1.3, min_p: 0.05, dry_multiplier: 0.8, xtc_probability: 0.5, xtc_threshold: 0.1 },
  { temperature: 1, mirostat: 2 },
  { frequency_penalty: 0.3, dry_multiplier: 0.8, dry_allowed_length: 1, watermark_delta: 2, adaptive_target: 0.3 },
];

describe('generate (fast-forward)', () => {
  it.each(PARAMS.map((p) => [JSON.stringify(p), p]))('gives the text stepping gives, token for token: %s', async (_, params) => {
    const host = await twoSessions('bigram', { builtin: 'bigram' });
    await host.handle('start', { session: 'stepped', prompt: 'Ma', seed: '7', params });
    await host.handle('start', { session: 'fast', prompt: 'Ma', seed: '7', params });
    const stepped = [];
    let last;
    for (let i = 0; i < 120; i++) {
      last = await host.handle('step', { session: 'stepped', params });
      stepped.push(...last.steps);
      if (!last.status.ready) break;
    }
    const progress = [];
    const fast = await host.handle('generate', { session: 'fast', params, n: 120 }, { progress: (d, t) => progress.push([d, t]) });
    expect(fast.generated.tokens.map((t) => t.token)).toEqual(stepped.map((s) => s.token));
    expect(fast.generated.tokens.map((t) => t.piece).join('')).toBe(stepped.map((s) => s.piece).join(''));
    expect(fast.generated.tokens.map((t) => t.index)).toEqual(stepped.map((s) => s.index));
    expect(fast.generated.stopped).toBe(false);
    expect(fast.status).toEqual(last.status);
    // the per-token stats, the metrics and the next distribution: the same bits
    const a = await host.handle('lab', { session: 'stepped' });
    const b = await host.handle('lab', { session: 'fast' });
    expect(b.stats).toEqual(a.stats);
    expect(b.metrics).toEqual(a.metrics);
    expect(fast.lab.stats).toEqual(a.stats);
    if (last.next) expect(Array.from(fast.next.final)).toEqual(Array.from(last.next.final));
    // progress counts up to what was asked (or the end of the text)
    for (let i = 1; i < progress.length; i++) expect(progress[i][0]).toBeGreaterThan(progress[i - 1][0]);
    expect(progress.every(([d, t]) => d <= t && t === 120)).toBe(true);
    // a step record on demand: peek re-warps a generated step as it was
    const k = Math.min(5, stepped.length - 1);
    const peek = await host.handle('peek', { session: 'fast', index: k, params });
    expect(Array.from(peek.step.final)).toEqual(Array.from(stepped[k].final));
    expect(peek.step.token).toBe(stepped[k].token);
    // the strip's marks of the fast-forward, in one request: each step's
    // state as stepping gave it (the numbers about the drawn token too)
    const st = await host.handle('states', { session: 'fast', from: 0, to: stepped.length, params });
    expect(st.states).toEqual(stepped.map((s) => s.state));
    expect(Object.keys(st.states[3]).length).toBeGreaterThan(8);
    await expect(host.handle('states', { session: 'fast', from: 2, to: stepped.length + 1, params })).rejects.toThrow(/states: from and to/);
  });

  it('stops between chunks when asked, and the text so far stays', async () => {
    const host = makeHost();
    await host.handle('loadModel', { model: 't', bytes: randomCheckpoint({ vocab: 33, seqLen: 2048 }), tokenizerBytes: charTokenizer() });
    await host.handle('openSession', { session: 's', model: 't' });
    await host.handle('start', { session: 's', prompt: 'a', seed: 3, params: {} });
    let asked = false;
    const running = host.handle('generate', { session: 's', params: {}, n: 1800 }, {
      progress: () => {
        if (!asked) { asked = true; host.handle('stopGenerate', { session: 's' }); }
      },
    });
    const r = await running;
    expect(asked).toBe(true);
    // stopped after the first chunk, unless the model ended its text first
    expect(r.generated.stopped || r.status.finished).toBe(true);
    if (r.generated.stopped) expect(r.generated.tokens.length).toBeLessThan(1800);
    expect(r.status.nGenerated).toBe(r.generated.tokens.length);
    // and it goes on from there, as a step would
    if (r.status.ready) {
      const more = await host.handle('generate', { session: 's', params: {}, n: 3 });
      expect(more.generated.tokens[0].index).toBe(r.generated.tokens.length);
    }
  });

  it('ends calmly at the end of the context', async () => {
    const host = makeHost();
    await host.handle('loadModel', { model: 't', bytes: randomCheckpoint({ vocab: 33, seqLen: 12 }), tokenizerBytes: charTokenizer() });
    await host.handle('openSession', { session: 's', model: 't' });
    await host.handle('start', { session: 's', prompt: 'ab', seed: 1, params: { temperature: 1 } });
    const r = await host.handle('generate', { session: 's', params: { temperature: 1 }, n: 50 });
    expect(r.generated.tokens.length).toBeLessThanOrEqual(8);
    expect(r.status.ready).toBe(false);
    expect(r.status.message).toMatch(/context is full \(12 tokens\)|ended the text/);
    await expect(host.handle('generate', { session: 's', params: {}, n: 0 })).rejects.toThrow(/n must be a whole number/);
  });
});
