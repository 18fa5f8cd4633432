// Diverse beam search and prompt-lookup decoding: their CLI flags
// byte-identical in the native CLI and both WASM builds, the same worked
// numbers through the JS wrapper as tests/c/test_strategies.c, and the
// Worker's requests (groups in the hypotheses, where each draft came from).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { loadEngineNode } from '../../web/src/engine/node.js';
import { EngineHost } from '../../web/src/worker/host.js';
import { engine, MODELS_DIR, needTransformer, runNative, runWasm, skipWithoutTransformer } from './helpers.js';

const bigramBytes = () => new Uint8Array(fs.readFileSync(path.join(MODELS_DIR, 'bigram.bin')));

async function sameEverywhere(args) {
  const native = runNative(args);
  for (const flavor of ['simd', 'scalar']) {
    const w = await runWasm(flavor, args);
    expect(w.status, `${flavor} ${args.join(' ')}`).toBe(native.status);
    expect(w.stdout.equals(native.stdout), `${flavor} ${args.join(' ')}`).toBe(true);
    expect(w.stderr).toBe(native.stderr);
  }
  return native;
}

describe('diverse beam search and prompt lookup are byte-identical everywhere', () => {
  const cases = [
    ['--beams', '4', '--num-beam-groups', '2', '--diversity-penalty', '0.5', '--steps', '20', '--prompt', 'Ma', '--json'],
    ['--beams', '6', '--num-beam-groups', '3', '--diversity-penalty', '2', '--length-penalty', '1', '--steps', '15'],
    ['--beams', '4', '--num-beam-groups', '4', '--diversity-penalty', '100', '--steps', '12', '--regex', '[A-Z][a-z]{2,5}', '--json'],
    ['--prompt-lookup', '4', '--steps', '60', '--prompt', 'AnnaAnnaAnn'],
    ['--prompt-lookup', '5', '--prompt-lookup-ngram', '3', '--steps', '40', '--prompt', 'MariaMari', '--temperature', '0.7', '--json', '--work'],
    ['--prompt-lookup', '3', '--steps', '40', '--top-k', '5', '--regex', '[A-Z][a-z]{2,6}'],
  ];
  it.each(cases.map((c) => [c.join(' '), c]))('%s', async (_, flags) => {
    for (const seed of ['1', '7']) {
      const r = await sameEverywhere(['generate', '--model', 'bigram', '--seed', seed, ...flags]);
      expect(r.status).toBe(0);
    }
  });

  it('bad settings are refused with the same words', async () => {
    const r = await sameEverywhere(['generate', '--model', 'bigram', '--beams', '6', '--num-beam-groups', '4']);
    expect(r.status).toBe(2);
    expect(r.stderr.toString()).toBe('sampler: --num-beam-groups: 6 beams do not split into 4 groups of the same size (beams must be a multiple of num-beam-groups)\n');
    const d = await sameEverywhere(['generate', '--model', 'bigram', '--num-beam-groups', '2']);
    expect(d.stderr.toString()).toMatch(/need --beams/);
    const l = await sameEverywhere(['generate', '--model', 'bigram', '--prompt-lookup', '0']);
    expect(l.stderr.toString()).toMatch(/--prompt-lookup: '0' is not an integer in 1..16/);
    const m = await sameEverywhere(['generate', '--model', 'bigram', '--prompt-lookup', '3', '--draft', 'bigram', '--speculate', '2']);
    expect(m.stderr.toString()).toMatch(/cannot be combined/);
  });

  it('one group is plain beam search, bit for bit; prompt lookup at T = 0 is greedy decoding', () => {
    const plain = runNative(['generate', '--model', 'bigram', '--beams', '4', '--steps', '25', '--prompt', 'Jo', '--json']);
    const one = runNative(['generate', '--model', 'bigram', '--beams', '4', '--num-beam-groups', '1', '--diversity-penalty', '3', '--steps', '25', '--prompt', 'Jo', '--json']);
    expect(one.stdout.equals(plain.stdout)).toBe(true);
    const greedy = runNative(['generate', '--model', 'bigram', '--steps', '80', '--prompt', 'Jo', '--temperature', '0']);
    const lookup = runNative(['generate', '--model', 'bigram', '--steps', '80', '--prompt', 'Jo', '--temperature', '0', '--prompt-lookup', '6']);
    expect(lookup.stdout.equals(greedy.stdout)).toBe(true);
    expect(lookup.stderr.toString()).toMatch(/^sampler: prompt lookup: \d+ of \d+ drafted tokens accepted/);
  });

  it.skipIf(skipWithoutTransformer)('the transformer', async () => {
    needTransformer();
    for (const flags of [
      ['--prompt-lookup', '6', '--steps', '60', '--prompt', 'And God said, Let there be light: and there was light. And God said, Let'],
      ['--beams', '4', '--num-beam-groups', '2', '--diversity-penalty', '1', '--steps', '20', '--json'],
    ]) {
      const r = await sameEverywhere(['generate', '--model', 'transformer', '--seed', '5', ...flags]);
      expect(r.status).toBe(0);
    }
  });
});

describe.each(['simd', 'scalar'])('the wrapper in the %s build', (flavor) => {
  it('diverse beams: the worked numbers after "Ma" (tests/c/test_strategies.c)', async () => {
    const e = await engine(flavor);
    const model = e.loadModel(bigramBytes());
    const b = e.createBeamSearch(model, null, { width: 4, groups: 2, diversity: 0.5 });
    b.start('Ma');
    const h = b.step({});
    // group 0: n -1.5061, r -1.7750; group 1: the name's end -1.8191, n -1.5061 - 0.5
    expect(h.map((x) => x.text)).toEqual(['n', 'r', '\n', 'n']);
    expect(h.map((x) => x.group)).toEqual([0, 0, 1, 1]);
    expect(h.map((x) => x.penalty)).toEqual([0, 0, 0, 0.5]);
    const want = [-1.5061, -1.7750, -1.8191, -2.0061];
    h.forEach((x, i) => expect(x.score).toBeCloseTo(want[i], 4));
    expect(() => e.createBeamSearch(model, null, { width: 6, groups: 4 })).toThrow(/6 beams do not split into 4 groups/);
    b.free();
    model.free();
  });

  it('prompt lookup: the first earlier match, and greedy text at T = 0', async () => {
    const e = await engine(flavor);
    const model = e.loadModel(bigramBytes());
    const s = e.createSession(model);
    const sp = e.createPromptLookup(s, 3, 2);
    sp.start('xabqabzab', 1);
    const r = sp.round({ temperature: 0 });
    // "ab" first occurs after "x": the draft is "qab" (token 4 onward)
    expect(Array.from(r.drafted, (id) => model.tokenizer.piece(id)).join('')).toBe('qab');
    expect(r.match).toEqual({ at: 4, ngram: 2 });
    const plain = e.createSession(model);
    plain.start('Jo', 1);
    for (let i = 0; i < 60; i++) plain.step({ temperature: 0 });
    sp.start('Jo', 1);
    while (s.nGenerated < 60) sp.round({ temperature: 0 });
    expect(Array.from(s.tokens).slice(0, plain.nTokens)).toEqual(Array.from(plain.tokens));
    const t = sp.totals();
    expect(t.accepted).toBeGreaterThan(0);
    expect(sp.work().matched).toBe(true);
    [sp, s, plain, model].forEach((x) => x.free());
  });
});

describe('the Worker', () => {
  const bigramPath = path.join(MODELS_DIR, 'bigram.bin');
  const makeHost = async () => {
    const host = new EngineHost(loadEngineNode('simd'), {
      builtins: { bigram: { name: 'Bigram names', url: bigramPath, missing: 'no bigram' } },
      fetchBytes: async (url) => (fs.existsSync(url) ? new Uint8Array(fs.readFileSync(url)) : null),
    });
    await host.handle('loadModel', { model: 'bigram', builtin: 'bigram' });
    await host.handle('openSession', { session: 'a', model: 'bigram' });
    return host;
  };

  it('beamStart with groups: each hypothesis says its group and its penalty', async () => {
    const host = await makeHost();
    const r = await host.handle('beamStart', { session: 'a', prompt: 'Ma', width: 4, lengthPenalty: 0, groups: 2, diversity: 100, params: {}, steps: 1 });
    expect(r.groups).toBe(2);
    expect(r.diversity).toBe(100);
    expect(r.hypotheses.map((h) => [h.text, h.group, h.penalty])).toEqual([['n', 0, 0], ['r', 0, 0], ['\n', 1, 0], ['l', 1, 0]]);
    await expect(host.handle('beamStart', { session: 'a', prompt: 'Ma', width: 6, groups: 4, params: {} })).rejects.toThrow(/6 beams do not split into 4 groups/);
  });

  it('specStart with no draft model and an n-gram: prompt lookup, each round saying where its draft came from', async () => {
    const host = await makeHost();
    const r = await host.handle('specStart', { session: 'a', draft: '', n: 4, ngram: 2, prompt: 'AnnaAnn', seed: 3, params: { temperature: 0 }, rounds: 6 });
    expect(r.draft).toBe('');
    expect(r.ngram).toBe(2);
    expect(r.rounds).toHaveLength(6);
    // the first round: "nn" first occurs in "Anna", and "a" then "Ann" follow
    expect(r.rounds[0].match).toEqual({ at: -4, ngram: 2 });
    expect(r.rounds[0].drafted.map((d) => d.piece).join('')).toBe('aAnn');
    expect(r.rounds.every((x) => x.match && (x.match.at === null || x.match.ngram >= 1))).toBe(true);
    expect(r.totals.drafted).toBeGreaterThan(0);
  });
});

describe('links', () => {
  it('carry diverse beam search and prompt lookup, and only when on', async () => {
    const { defaultState, parseHash, serializeHash } = await import('../../web/src/app/hash.js');
    const diverse = parseHash('#model=bigram&strategy=beam&beams=6&length_penalty=1&num_beam_groups=3&diversity_penalty=0.5').state;
    expect(diverse.beam).toEqual({ width: 6, lengthPenalty: 1, groups: 3, diversity: 0.5 });
    expect(serializeHash(diverse)).toContain('beams=6&length_penalty=1&num_beam_groups=3&diversity_penalty=0.5');
    // the groups must split the beams: else plain beam search, said in a notice
    const bad = parseHash('#strategy=beam&beams=4&num_beam_groups=3');
    expect(bad.state.beam.groups).toBeUndefined();
    expect(bad.notices.length).toBe(1);
    const lookup = parseHash('#model=bigram&strategy=speculative&prompt_lookup=5&prompt_lookup_ngram=3').state;
    expect(lookup.spec).toEqual({ draft: 'lookup', n: 5, ngram: 3 });
    const link = serializeHash(lookup);
    expect(link).toContain('prompt_lookup=5&prompt_lookup_ngram=3');
    expect(link).not.toContain('draft=');
    expect(parseHash(link).state.spec).toEqual(lookup.spec);
    // off: nothing new in a link
    const plain = serializeHash({ ...defaultState(), strategy: 'beam' });
    expect(plain).not.toMatch(/num_beam_groups|diversity_penalty|prompt_lookup/);
    expect(parseHash('#prompt_lookup_ngram=9').notices.length).toBe(1);
  });
});
