// The batched verification and the matched drafts (bible-tiny, bible-bigram):
// speculative outputs byte-identical in the native CLI and both WASM builds,
// greedy speculative text = plain greedy text, constrained speculative and
// beam outputs valid (JSON.parse, the regex), and the engine's per-round
// report (work, rejection and residual) as the page reads it.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { engine, MODELS_DIR, runNative, runWasm } from './helpers.js';

const read = (f) => new Uint8Array(fs.readFileSync(path.join(MODELS_DIR, f)));

const CASES = [
  ['tiny T0', ['--draft', 'bible-tiny', '--speculate', '4', '--temperature', '0', '--steps', '120']],
  ['tiny T1', ['--draft', 'bible-tiny', '--speculate', '4', '--steps', '120', '--seed', '7']],
  ['bigram T0.8 k12', ['--draft', 'bible-bigram', '--speculate', '3', '--steps', '100', '--temperature', '0.8', '--top-k', '12', '--seed', '3']],
  ['tiny json', ['--draft', 'bible-tiny', '--speculate', '2', '--steps', '30', '--seed', '5', '--json', '--work']],
  ['tiny regex', ['--draft', 'bible-tiny', '--speculate', '4', '--steps', '80', '--seed', '2', '--regex', '(God|the LORD) (said|spake)[a-z ,]*\\.']],
  ['beam grammar', ['--beams', '3', '--steps', '60', '--grammar', 'json-object']],
];

describe('speculative decoding with the matched drafts', () => {
  it.each(CASES)('%s: native = WASM SIMD = WASM scalar, byte for byte', async (name, args) => {
    const full = ['generate', '--model', 'transformer', '--prompt', 'And ', ...args];
    const native = runNative(full);
    expect(native.status).toBe(0);
    for (const flavor of ['simd', 'scalar']) {
      const w = await runWasm(flavor, full);
      expect({ status: w.status, stdout: w.stdout.toString(), stderr: w.stderr }).toEqual({
        status: native.status, stdout: native.stdout.toString(), stderr: native.stderr,
      });
    }
  });

  it('at T = 0 the text is plain greedy decoding\'s, with either draft and any k', () => {
    const plain = runNative(['generate', '--model', 'transformer', '--prompt', 'And God said', '--steps', '200', '--temperature', '0']);
    for (const draft of ['bible-tiny', 'bible-bigram', 'bigram']) {
      for (const k of ['1', '3', '6']) {
        const r = runNative(['generate', '--model', 'transformer', '--prompt', 'And God said', '--steps', '200', '--temperature', '0',
          '--draft', draft, '--speculate', k]);
        expect(r.stdout.toString()).toBe(plain.stdout.toString());
      }
    }
  });

  it('--work counts one batched pass a round, and the tokens per pass', () => {
    const r = runNative(['generate', '--model', 'transformer', '--prompt', 'And God said', '--steps', '100', '--temperature', '0',
      '--draft', 'bible-tiny', '--speculate', '4', '--work']);
    const rounds = Number(/in (\d+) rounds/.exec(r.stderr)[1]);
    const [, passes, fed] = /verification: (\d+) batched passes over (\d+) positions/.exec(r.stderr).map(Number);
    expect(passes).toBe(rounds);
    expect(fed).toBeGreaterThanOrEqual(rounds); // at least the last token each round
    const [, tPasses, , tokens, perPass] = /work: target: (\d+) forward passes over (\d+) positions; (\d+) tokens generated, ([\d.]+) per pass/.exec(r.stderr);
    // and the prompt's prefill; a last round past --steps is cut back by a
    // rewind, which feeds the new last token again
    expect(Number(tPasses)).toBeGreaterThanOrEqual(passes + 1);
    expect(Number(tPasses)).toBeLessThanOrEqual(passes + 2);
    expect(Number(perPass)).toBeCloseTo(Number(tokens) / Number(tPasses), 2);
    expect(Number(tokens) / passes).toBeGreaterThan(1.5); // the draft earns its keep
  });

  it('constrained speculative and beam outputs are valid JSON (JSON.parse) and match their regex', () => {
    for (const seed of ['1', '2', '3', '4']) {
      for (const strategy of [['--draft', 'bible-tiny', '--speculate', '4'], ['--draft', 'bible-bigram', '--speculate', '3']]) {
        const j = runNative(['generate', '--model', 'transformer', '--grammar', 'json', '--steps', '120', '--seed', seed, '--temperature', '0.9', ...strategy]);
        expect(j.status).toBe(0);
        expect(() => JSON.parse(j.stdout.toString())).not.toThrow();
        const o = runNative(['generate', '--model', 'transformer', '--grammar', 'json-object', '--steps', '120', '--seed', seed, ...strategy]);
        const obj = JSON.parse(o.stdout.toString());
        expect(typeof obj === 'object' && obj !== null && !Array.isArray(obj)).toBe(true);
        const pattern = '(yea|nay)( (yea|nay)){2,4}';
        const r = runNative(['generate', '--model', 'transformer', '--regex', pattern, '--steps', '40', '--seed', seed, ...strategy]);
        expect(r.stdout.toString().trimEnd()).toMatch(new RegExp(`^(${pattern})$`));
      }
    }
    for (const width of ['2', '4']) {
      const j = runNative(['generate', '--model', 'transformer', '--beams', width, '--grammar', 'json', '--steps', '80']);
      expect(() => JSON.parse(j.stdout.toString())).not.toThrow();
      const pattern = '(God|the LORD) (said|spake)[a-z ,]*\\.';
      const r = runNative(['generate', '--model', 'transformer', '--prompt', 'And ', '--beams', width, '--regex', pattern, '--steps', '60']);
      expect(r.stdout.toString().trimEnd().slice('And '.length)).toMatch(new RegExp(`^(${pattern})$`));
      const b = runNative(['generate', '--model', 'bigram', '--beams', width, '--regex', '[A-Z][a-z]{2,5}', '--steps', '20']);
      expect(b.stdout.toString().trimEnd()).toMatch(/^[A-Z][a-z]{2,5}$/);
    }
  });

  it('the engine reports each round: the pass, the rejection and its residual max(0, p - q)', async () => {
    const e = await engine('simd');
    const target = e.loadModel(read('transformer.bin'));
    const tok = e.loadTokenizer(read('transformer_tokenizer.bin'), target.vocab);
    const draft = e.loadModel(read('bible_bigram.bin'));
    const s = e.createSession(target, tok);
    const sp = e.createSpeculator(s, draft, tok, 4);
    sp.start('And God said', 11);
    let rejections = 0, rounds = 0, passesBefore = 0;
    while (s.nGenerated < 120 && !s.finished) {
      const before = sp.totals();
      const r = sp.round({ temperature: 1 });
      rounds++;
      const w = sp.work();
      expect(w.matched).toBe(true);
      expect(w.targetPasses).toBe(passesBefore + 1);
      passesBefore = w.targetPasses;
      const rej = sp.rejection();
      const corrected = r.tokens.findIndex((t) => t.status === 'corrected');
      if (corrected < 0) {
        expect(rej).toBeNull();
        continue;
      }
      rejections++;
      expect(rej.at).toBe(corrected);
      expect(rej.drafted).toBe(r.drafted[corrected]);
      expect(rej.p[rej.drafted]).toBeLessThan(rej.q[rej.drafted]);
      // the residual: max(0, p - q), rescaled to 1
      let mass = 0;
      for (let i = 0; i < target.vocab; i++) mass += Math.max(0, rej.p[i] - rej.q[i]);
      expect(rej.residualMass).toBeCloseTo(mass, 5);
      for (let i = 0; i < target.vocab; i++) expect(rej.residual[i]).toBeCloseTo(Math.max(0, rej.p[i] - rej.q[i]) / mass, 5);
      // the correction was drawn from it: a token the residual gives mass to
      expect(rej.residual[r.tokens[corrected].token]).toBeGreaterThan(0);
      const after = sp.totals();
      expect(after.accepted - before.accepted).toBe(corrected);
    }
    expect(rejections).toBeGreaterThan(5);
    expect(rounds).toBe(sp.totals().rounds);
    const c = s.counters();
    expect(c.passes).toBe(sp.work().targetPasses + 1); // and the prompt
    sp.free();
    s.free();
  });
});
