// The sampler chain through the WASM engine and the CLI: every parameter
// of the engine's registry round-trips through the CLI (its flag) and the
// JS wrapper (its name) to the same warp; the order reaches the engine;
// mirostat's state and XTC's draws are part of a session (a rewind, a
// look at the past and a second session find them as they were); and no
// hand-kept list of parameter names is left in the code.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { engine, MODELS_DIR, ROOT, runNative } from './helpers.js';

const bigramBytes = () => new Uint8Array(fs.readFileSync(path.join(MODELS_DIR, 'bigram.bin')));

/** A value away from a parameter's neutral one, inside its slider's range. */
function valueFor(p) {
  if (p.name === 'mirostat') return 2;
  if (p.name === 'xtc_threshold') return 0.05;
  // off below its slider (adaptive_target's -1): the value that turns it on
  if (p.neutral < p.uiMin) return p.uiOn;
  const v = p.neutral === p.uiMax ? p.uiMin + p.uiStep : Math.min(p.uiMax, p.neutral + p.uiStep * (p.type === 'int' ? 2 : 3));
  return p.type === 'int' ? Math.round(v) : Number(v.toFixed(4));
}

/** What else a parameter needs to take effect (its stage's switch). */
function companions(p) {
  if (p.stage === 'xtc' && p.name !== 'xtc_probability') return { xtc_probability: 1 };
  if (p.stage === 'xtc') return { xtc_threshold: 0.05 };
  if (p.stage === 'dry' && p.name !== 'dry_multiplier') return { dry_multiplier: 1 };
  if (p.stage === 'mirostat' && p.name !== 'mirostat') return { mirostat: 2 };
  if (p.stage === 'adaptive_p' && p.name !== 'adaptive_target') return { adaptive_target: 0.3 };
  if (p.name === 'dynatemp_exp') return { dynatemp_range: 0.5 };
  if (p.name === 'penalty_last_n') return { repetition_penalty: 1.5 };
  if (p.name === 'smoothing_curve') return { smoothing_factor: 1 };
  if (p.name === 'exp_decay_start') return { exp_decay_factor: 1.5 };
  if (p.stage === 'watermark' && p.name !== 'watermark_delta') return { watermark_delta: 2 };
  return {};
}

describe('the registry', () => {
  it('every parameter round-trips through the CLI and the WASM wrapper to the same warp', async () => {
    const e = await engine('simd');
    expect(e.params.length).toBeGreaterThanOrEqual(25);
    const logits = Array.from({ length: 40 }, (_, i) => Number((Math.sin(i * 1.7) * 3 - i * 0.05).toFixed(4)));
    const history = [3, 5, 3, 9, 3, 5, 3, 9, 3, 5];
    const s = e.createSampler(40);
    for (const p of e.params) {
      const settings = { ...companions(p), [p.name]: valueFor(p) };
      const args = ['warp', ...Object.entries(settings).flatMap(([k, v]) => [`--${e.params[e.paramIndex.get(k)].flag}`, String(v)])];
      const cli = runNative(args, JSON.stringify({ logits, history }));
      expect(cli.status, `${p.name}: ${cli.stderr}`).toBe(0);
      const fromCli = JSON.parse(cli.stdout.toString());
      const rec = s.warp(logits, history, settings);
      expect(fromCli.probs.map((x) => Math.fround(x)), p.name).toEqual([...rec.probs]);
      // and the setting does something (a neutral one would prove nothing)
      const plain = s.warp(logits, history, companions(p));
      // (a memory acts from the second step on; the length stages act on a session's end-of-text tokens at its
      // step: a bare warp knows neither, tests/c/test_chain_newer.c runs them)
      if (!['dry_penalty_last_n', 'penalty_last_n', 'mirostat_eta', 'min_new_tokens', 'exp_decay_start', 'exp_decay_factor', 'adaptive_decay'].includes(p.name)) {
        expect([...rec.probs], `${p.name} changes the warp`).not.toEqual([...plain.probs]);
      }
    }
    s.free();
  });

  it('the CLI\'s --help lists every parameter with its doc', () => {
    const help = runNative(['--help']).stdout.toString();
    return engine('simd').then((e) => {
      for (const p of e.params) {
        expect(help).toContain(`--${p.flag} `);
        expect(help).toContain(p.doc);
      }
    });
  });

  it('no hand-kept list of parameter names is left in the code (the names come from the engine)', () => {
    // a name of a newer parameter anywhere in the JavaScript or the CLI's
    // C would be a second declaration of it
    const files = [
      ...fs.readdirSync(path.join(ROOT, 'web/src'), { recursive: true }).map((f) => path.join('web/src', f)),
      ...fs.readdirSync(path.join(ROOT, 'c/cli')).map((f) => path.join('c/cli', f)),
      ...fs.readdirSync(path.join(ROOT, 'c/wasm')).map((f) => path.join('c/wasm', f)),
    ].filter((f) => /\.(js|jsx|c)$/.test(f) && !/\.test\./.test(f) && !f.endsWith('.gen.js') // (registry.gen.js: the engine's, written by the build)
      // (the catalogues translate the registry's entries by their keys, param.NAME.label: tests/js/i18n.test.js holds them to the registry)
      && !f.includes(path.join('i18n', 'catalogues'))
      // (so do the teaching texts, stage.NAME.plain / .why: tests/js/teach.test.js holds them to the registry)
      && !f.includes(path.join('teach', 'texts'))
      // (the course's chapters and words are lessons: they name settings as a lesson page's attributes and text do)
      && !f.includes(path.join('learn', 'chapters')) && !f.includes(path.join('learn', 'catalogues')));
    const hits = [];
    for (const f of files) {
      const text = fs.readFileSync(path.join(ROOT, f), 'utf8');
      for (const name of ['typical_p', 'frequency_penalty', 'penalty_last_n', 'xtc_probability', 'dry_multiplier', 'mirostat_tau', 'top_n_sigma']) {
        if (text.includes(name) || text.includes(name.replaceAll('_', '-'))) hits.push(`${f}: ${name}`);
      }
    }
    expect(hits).toEqual([]);
  });
});

describe('the order and the session', () => {
  it('the order reaches the engine, and a stage set but left out is refused', async () => {
    const e = await engine('simd');
    const s = e.createSampler(6);
    const x = [2, 1.5, 1, 0.5, 0, -0.5];
    expect(s.warp(x, [], { temperature: 0.5, top_p: 0.8, samplers: 'temperature,top_p' }).nKept).toBe(2);
    expect(s.warp(x, [], { temperature: 0.5, top_p: 0.8, samplers: 'top_p,temperature' }).nKept).toBe(3);
    expect(s.warp(x, [], { temperature: 0.5, top_p: 0.8, samplers: 'llama.cpp' }).nKept).toBe(3);
    expect(() => s.warp(x, [], { top_p: 0.8, samplers: 'top_k' })).toThrow(/top-p is set but the samplers' order leaves out top_p/);
    expect(() => s.warp(x, [], { samplers: 'top_k,spice' })).toThrow(/'spice' is not a stage/);
    const rec = s.warp(x, [], { top_k: 4, min_p: 0.3 });
    expect(rec.cuts.map(({ stage, cut }) => ({ stage, cut }))).toEqual([{ stage: 'top_k', cut: 2 }, { stage: 'min_p', cut: 1 }]);
    // and the model's probability each one cut: e^0 + e^-0.5 and e^0.5 over the sum (the engine's sum of probs_raw)
    const z = x.reduce((a, v) => a + Math.exp(v), 0);
    expect(rec.cuts[0].mass).toBeCloseTo((Math.exp(0) + Math.exp(-0.5)) / z, 6);
    expect(rec.cuts[1].mass).toBeCloseTo(Math.exp(0.5) / z, 6);
    expect(rec.cuts[0].mass).toBe(rec.probsRaw[4] + rec.probsRaw[5]);
    s.free();
  });

  it('DRY\'s sequence breakers as texts are the model\'s tokens for them, as the CLI\'s --dry-sequence-breaker', async () => {
    const e = await engine('simd');
    const m = e.loadModel(bigramBytes());
    const dry = { dry_multiplier: 1.5, dry_allowed_length: 1, repetition_penalty: 1 };
    const text = (params) => {
      const s = e.createSession(m);
      s.start('Ma', 4);
      let out = '';
      for (let i = 0; i < 80; i++) out += s.step(params).piece;
      s.free();
      return out;
    };
    const withTexts = text({ ...dry, dry_sequence_breakers: ['\n', 'a'] });
    const ids = (t) => Array.from(m.tokenizer.encode(t));
    expect(withTexts).toBe(text({ ...dry, dry_breakers: [ids('\n'), ids('a')] }));
    expect(withTexts).not.toBe(text(dry)); // the breakers matter here
    const cli = runNative(['generate', '--model', 'bigram', '--prompt', 'Ma', '--seed', '4', '--steps', '80', '--dry-multiplier', '1.5',
      '--dry-allowed-length', '1', '--dry-sequence-breaker', '\n', '--dry-sequence-breaker', 'a']);
    expect(cli.stdout.toString()).toBe(`Ma${withTexts}\n`);
    const s = e.createSession(m);
    s.start('', 1);
    expect(() => s.step({ ...dry, dry_sequence_breakers: [''] })).toThrow(new RangeError('dry-sequence-breaker: "" is no token'));
    expect(() => s.step({ ...dry, dry_sequence_breakers: ['abcdefghij'] })).toThrow(/is more than 8 tokens/);
    s.free();
    m.free();
  });

  it('mirostat\'s target and XTC\'s draws are the session\'s: a rewind and a second session give the same text', async () => {
    const e = await engine('simd');
    const m = e.loadModel(bigramBytes());
    const params = { mirostat: 2, mirostat_tau: 3, xtc_probability: 0.4, xtc_threshold: 0.1 };
    const run = (s, n) => Array.from({ length: n }, () => s.step(params).piece).join('');
    const a = e.createSession(m);
    a.start('', 9);
    const first = run(a, 40);
    const atTen = a.peek(10, params);
    a.rewind(10);
    const again = first.slice(0, 10) + run(a, 30);
    expect(again).toBe(first);
    const b = e.createSession(m);
    b.start('', 9);
    expect(run(b, 40)).toBe(first);
    // a look at step 10 finds the distribution it had (mu as it was then)
    b.rewind(40);
    expect([...b.peek(10, params).probs]).toEqual([...atTen.probs]);
    // and mirostat and XTC change the text (they are not no-ops)
    const c = e.createSession(m);
    c.start('', 9);
    expect(Array.from({ length: 40 }, () => c.step({}).piece).join('')).not.toBe(first);
    for (const s of [a, b, c]) s.free();
    m.free();
  });
});
