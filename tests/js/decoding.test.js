// The decoding lab's engine features through the WASM wrapper: constrained
// decoding, beam search, speculative sampling, metrics and counters; and
// their CLI flags, byte-identical in every build.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { loadEngineNode } from '../../web/src/engine/node.js';
import { EngineHost } from '../../web/src/worker/host.js';
import { engine, MODELS_DIR, needTransformer, runNative, sameEverywhere, skipWithoutTransformer } from './helpers.js';
import { bigram } from './hostile_files.js';

const bigramBytes = () => new Uint8Array(fs.readFileSync(path.join(MODELS_DIR, 'bigram.bin')));


describe('the CLI flags of the decoding lab are byte-identical everywhere', () => {
  const cases = [
    ['--regex', '[A-Z][a-z]{2,6}(-[A-Z][a-z]+)?', '--steps', '20', '--temperature', '1.5'],
    ['--grammar', 'json', '--steps', '30'],
    ['--beams', '4', '--steps', '20', '--prompt', 'Ma'],
    ['--beams', '3', '--length-penalty', '1', '--steps', '12', '--json'],
    ['--draft', 'bigram', '--speculate', '4', '--steps', '40', '--top-k', '20'],
    ['--steps', '120', '--metrics', '--top-p', '0.8'],
  ];
  it.each(cases.map((c) => [c.join(' '), c]))('%s', async (_, flags) => {
    for (const seed of ['1', '7']) {
      const r = await sameEverywhere(['generate', '--model', 'bigram', '--seed', seed, ...flags]);
      expect(r.status).toBe(0);
    }
  });

  it.skipIf(skipWithoutTransformer)('the transformer under a regex, as JSON, and drafted by the bigram', async () => {
    needTransformer();
    for (const flags of [
      ['--regex', '(The|And) [a-z]+( [a-z]+){2,4}\\.', '--steps', '60'],
      ['--grammar', 'json', '--steps', '60', '--temperature', '0.8'],
      ['--draft', 'bigram', '--speculate', '3', '--steps', '60'],
      ['--beams', '3', '--steps', '30'],
    ]) {
      const r = await sameEverywhere(['generate', '--model', 'transformer', '--seed', '5', ...flags]);
      expect(r.status).toBe(0);
    }
  });
});

describe.each(['simd', 'scalar'])('decoding lab in the %s build', (flavor) => {
  it('constrained text always matches, whatever the seed and temperature', async () => {
    const e = await engine(flavor);
    const model = e.loadModel(bigramBytes());
    const s = e.createSession(model);
    const pattern = /^[A-Z][a-z]{2,5}(-[A-Z][a-z]{1,3})?$/;
    for (let seed = 0; seed < 30; seed++) {
      s.start('', seed);
      s.constrain({ regex: '[A-Z][a-z]{2,5}(-[A-Z][a-z]{1,3})?' }, 16);
      let text = '';
      let maskedShown = false;
      while (!s.finished && s.nGenerated < 16) {
        const r = s.step({ temperature: (seed % 4) * 0.7 });
        text += r.piece;
        maskedShown ||= Array.from(r.cut).includes(8); // "constraint"
      }
      expect(text).toMatch(pattern);
      expect(maskedShown).toBe(true);
    }
    expect(() => s.constrain({ regex: '(oops' })).toThrow(/regex: missing '\)'/);
    expect(() => s.constrain({ regex: 'x{40}' }, 10)).toThrow(/needs at least 40/);
    s.free();
    model.free();
  });

  it('JSON-constrained text parses', async () => {
    const e = await engine(flavor);
    const model = e.loadModel(bigramBytes());
    const s = e.createSession(model);
    for (let seed = 0; seed < 10; seed++) {
      s.start('', seed);
      s.constrain({ grammar: 'json' }, 20);
      let text = '';
      while (!s.finished && s.nGenerated < 20) text += s.step({ temperature: 2 }).piece;
      expect(() => JSON.parse(text)).not.toThrow();
    }
    s.free();
    model.free();
  });

  it('beam search: width 1 is greedy, wider beams score at least as well', async () => {
    const e = await engine(flavor);
    const model = e.loadModel(bigramBytes());
    const s = e.createSession(model);
    s.start('Ro', 1);
    let greedy = '';
    for (let i = 0; i < 15; i++) greedy += s.step({ temperature: 0 }).piece;
    const b1 = e.createBeamSearch(model, null, { width: 1 });
    b1.start('Ro');
    for (let i = 0; i < 15; i++) b1.step({});
    expect(b1.hypotheses()[0].text).toBe(greedy);
    const b4 = e.createBeamSearch(model, null, { width: 4 });
    b4.start('Ro');
    let hyps;
    for (let i = 0; i < 15; i++) hyps = b4.step({});
    expect(hyps).toHaveLength(4);
    expect(hyps[0].logprob).toBeGreaterThanOrEqual(b1.hypotheses()[0].logprob);
    expect(() => e.createBeamSearch(model, null, { width: 0 })).toThrow(/beams must be in 1..64/);
    [b1, b4, s, model].forEach((x) => x.free());
  });

  it('beam search under a constraint ends its text where the CLI does (the engine says where)', async () => {
    // the bigram's boundary ends a constrained text: its "\n" is not text
    const e = await engine(flavor);
    const model = e.loadModel(bigramBytes());
    for (const width of [1, 3, 4]) {
      const b = e.createBeamSearch(model, null, { width });
      b.constrain({ regex: '[A-Z][a-z]{2,4}' });
      b.start('');
      for (let i = 0; i < 20 && b.live > 0; i++) b.step({});
      const best = b.hypotheses()[0];
      const cli = runNative(['generate', '--model', 'bigram', '--beams', String(width), '--regex', '[A-Z][a-z]{2,4}', '--steps', '20']);
      expect(cli.status).toBe(0);
      expect(best.text + '\n').toBe(cli.stdout.toString());
      expect(best.text).toBe(width === 1 ? 'San' : 'Man');
      expect(best.finished).toBe(true);
      b.free();
    }
    model.free();
  });

  it('speculative sampling reports accepted, corrected and bonus tokens', async () => {
    const e = await engine(flavor);
    const model = e.loadModel(bigramBytes());
    const s = e.createSession(model);
    const sp = e.createSpeculator(s, model, null, 3);
    sp.start('', 4);
    const statuses = new Set();
    let text = '';
    for (let r = 0; r < 20; r++) {
      const round = sp.round({ temperature: 1 });
      expect(round.tokens.length).toBeGreaterThanOrEqual(1);
      expect(round.tokens.length).toBeLessThanOrEqual(4);
      round.tokens.forEach((t) => { statuses.add(t.status); text += t.piece; });
    }
    // the same model drafts for itself: every draft is accepted
    expect([...statuses].sort()).toEqual(['accepted', 'bonus']);
    const totals = sp.totals();
    expect(totals.accepted).toBe(totals.drafted);
    expect(text.length).toBe(s.nGenerated);
    sp.free();
    s.free();
    model.free();
  });

  it('metrics and per-step stats come from the engine', async () => {
    const e = await engine(flavor);
    const model = e.loadModel(bigramBytes());
    const s = e.createSession(model);
    s.start('', 1);
    for (let i = 0; i < 50; i++) s.step({ temperature: 0 });
    const m = s.metrics();
    expect(m.tokens).toBe(50);
    expect(m.meanEntropyBits).toBe(0); // greedy: one token kept
    expect(m.meanNucleus).toBe(1);
    expect(m.longestRepeat).toBeGreaterThan(20); // greedy loops
    expect(m.perplexity).toBeGreaterThan(1);
    const stats = s.stats();
    expect(stats).toHaveLength(50);
    expect(stats.every((x) => x.p === 1 && x.nKept === 1)).toBe(true);
    expect(s.counters().tokens).toBe(51); // boundary + 50
    s.free();
    model.free();
  });
});

describe.each(['simd', 'scalar'])('time travel in the %s build', (flavor) => {
  it('peek(n) re-warps a past step exactly as it was, and leaves the text alone', async () => {
    const e = await engine(flavor);
    const model = e.loadModel(bigramBytes());
    const a = e.createSession(model), b = e.createSession(model);
    a.start('Al', 8);
    b.start('Al', 8);
    const steps = Array.from({ length: 12 }, () => a.step({ top_p: 0.9 }));
    for (let i = 0; i < 12; i++) b.step({ top_p: 0.9 });
    const past = a.peek(5, { top_p: 0.9 });
    expect(Array.from(past.probs)).toEqual(Array.from(steps[5].probs));
    const wider = a.peek(5, { top_p: 1, temperature: 2 });
    expect(wider.nKept).toBeGreaterThan(past.nKept);
    expect(() => a.peek(13)).toThrow(/peek: step 13 is outside 0..12/);
    // the text goes on as if nothing happened
    for (let i = 0; i < 20; i++) expect(a.step({}).token).toBe(b.step({}).token);
    [a, b, model].forEach((x) => x.free());
  });
});

describe('the JSON object constraint (the usual "JSON mode")', () => {
  // the shipped bigram writes names (no '{'): this one's characters can
  // write JSON, and its table is a fixed wave, not trained
  const JSON_PIECES = ['\n', '{', '}', '"', ':', ',', ' ', 'a', 'b', '1', '[', ']', 't', 'r', 'u', 'e'];
  const jsonBigram = path.join(os.tmpdir(), `spg-json-bigram-${process.pid}.bin`);
  beforeAll(() => fs.writeFileSync(jsonBigram, bigram(JSON_PIECES)));
  afterAll(() => fs.rmSync(jsonBigram, { force: true }));
  const isObject = (/** @type {string} */ text) => {
    const v = JSON.parse(text);
    return v !== null && typeof v === 'object' && !Array.isArray(v);
  };
  const seeds = ['1', '2', '3', '4', '5', '6'];

  it('--grammar json-object writes an object, byte-identical in every build (a JSON-character bigram)', async () => {
    const distinct = new Set();
    for (const seed of seeds) {
      const r = await sameEverywhere(['generate', '--model', jsonBigram, '--grammar', 'json-object', '--steps', '40', '--seed', seed, '--temperature', '1.5']);
      expect(r.status).toBe(0);
      expect(isObject(r.stdout.toString())).toBe(true);
      distinct.add(r.stdout.toString());
      // --grammar json is free to write other values; json-object is not
      const any = await sameEverywhere(['generate', '--model', jsonBigram, '--grammar', 'json', '--steps', '40', '--seed', seed, '--temperature', '1.5']);
      expect(() => JSON.parse(any.stdout.toString())).not.toThrow();
    }
    expect(distinct.size).toBeGreaterThan(3); // the seeds make different objects
  });

  it.skipIf(skipWithoutTransformer)('--grammar json-object writes an object with the transformer, byte-identical in every build', async () => {
    needTransformer();
    for (const seed of seeds.slice(0, 4)) {
      const r = await sameEverywhere(['generate', '--model', 'transformer', '--grammar', 'json-object', '--steps', '120', '--seed', seed, '--temperature', '0.8']);
      expect(r.status).toBe(0);
      expect(isObject(r.stdout.toString())).toBe(true);
    }
  });

  // llama.cpp's json.gbnf: ws ::= | " " | "\n" [ \t]{0,20}; an object
  // with at least one member; the shipped transformer, seeds 1-20
  it.skipIf(skipWithoutTransformer)('JSON mode on the shipped transformer: whitespace bounded, objects with members (seeds 1-20)', () => {
    needTransformer();
    const hasMember = (/** @type {string} */ text) => {
      try {
        const v = JSON.parse(text);
        return v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length > 0;
      } catch {
        return false;
      }
    };
    let members = 0;
    for (let seed = 1; seed <= 20; seed++) {
      const r = runNative(['generate', '--model', 'transformer', '--grammar', 'json-object', '--steps', '120', '--seed', String(seed)]);
      expect(r.status).toBe(0);
      const text = r.stdout.toString().replace(/\n$/, '');
      expect(text).not.toMatch(/\s{21,}/);
      if (hasMember(text)) members++;
      const any = runNative(['generate', '--model', 'transformer', '--grammar', 'json', '--steps', '120', '--seed', String(seed)]);
      expect(any.stdout.toString()).not.toMatch(/\s{22,}/);
    }
    expect(members).toBeGreaterThanOrEqual(10);
  });

  it.skipIf(skipWithoutTransformer)('a prompt that opens an object is continued, not restarted', async () => {
    needTransformer();
    for (const seed of ['1', '2', '3']) {
      const r = await sameEverywhere(['generate', '--model', 'transformer', '--grammar', 'json-object', '--steps', '60', '--seed', seed, '--prompt', '{"name": "']);
      expect(r.status).toBe(0);
      const text = r.stdout.toString();
      expect(text.startsWith('{"name": "')).toBe(true);
      const v = JSON.parse(text);
      expect(typeof v.name).toBe('string');
    }
  });

  it('a vocabulary that cannot write "{" is refused with the engine\'s reason', async () => {
    const r = await sameEverywhere(['generate', '--model', 'bigram', '--grammar', 'json-object']);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe("sampler: --grammar: no text this model's vocabulary can write matches it\n");
    const e = await engine('simd');
    const model = e.loadModel(bigramBytes());
    const s = e.createSession(model);
    s.start('', 1);
    expect(() => s.constrain({ grammar: 'json_object' }, 20)).toThrow(/no text this model's vocabulary can write matches it/);
    s.free();
    model.free();
  });

  it.each(['simd', 'scalar'])('the %s engine and the Worker host ask for it as {grammar: "json_object"}: the CLI\'s very text', async (flavor) => {
    const e = await engine(flavor);
    const model = e.loadModel(new Uint8Array(fs.readFileSync(jsonBigram)));
    const s = e.createSession(model);
    const host = new EngineHost(loadEngineNode(flavor), { builtins: {}, fetchBytes: async () => null });
    await host.handle('loadModel', { model: 'json', name: 'json.bin', bytes: new Uint8Array(fs.readFileSync(jsonBigram)) });
    await host.handle('openSession', { session: 'j', model: 'json' });
    for (const seed of seeds) {
      s.start('', Number(seed));
      s.constrain({ grammar: 'json_object' }, 40);
      let text = '';
      while (!s.finished && s.nGenerated < 40) text += s.step({ temperature: 1.5 }).piece;
      expect(isObject(text)).toBe(true);
      const cli = runNative(['generate', '--model', jsonBigram, '--grammar', 'json-object', '--steps', '40', '--seed', seed, '--temperature', '1.5']);
      expect(`${text}\n`).toBe(cli.stdout.toString());
      const r = await host.handle('start', {
        session: 'j', prompt: '', seed: Number(seed), params: { temperature: 1.5 }, steps: 40,
        constraint: { grammar: 'json_object' }, budget: 40,
      });
      expect(r.steps.map((st) => st.piece).join('')).toBe(text);
      expect(r.status.finished).toBe(true);
    }
    expect(() => s.constrain({ grammar: 'yaml' })).toThrow(TypeError);
    s.free();
    model.free();
  });
});
