// Byte identity: the native CLI, the WASM SIMD build and the scalar WASM
// build print the same bytes for the same command, and `node
// build/sampler.mjs` is that same CLI.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { SAMPLER_SETTINGS } from '../golden/cases.js';
import { FIXTURES, lcg, needTransformer, skipWithoutTransformer, needFixtures, ROOT, runNative, runWasm, skipWithoutFixtures } from './helpers.js';

async function sameEverywhere(args, stdin = '') {
  const native = runNative(args, stdin);
  const simd = await runWasm('simd', args, stdin);
  const scalar = await runWasm('scalar', args, stdin);
  expect(simd.status).toBe(native.status);
  expect(scalar.status).toBe(native.status);
  expect(simd.stdout.equals(native.stdout)).toBe(true);
  expect(scalar.stdout.equals(native.stdout)).toBe(true);
  expect(simd.stderr).toBe(native.stderr);
  return native;
}

// the golden cases' first six settings
const SETTINGS = SAMPLER_SETTINGS.slice(0, 6);

describe('generate is byte-identical in every build', () => {
  it.each(SETTINGS.map((s) => [s.join(' ') || '(defaults)', s]))('bigram %s', async (_, settings) => {
    for (const seed of ['1', '42', '18446744073709551615']) {
      const text = await sameEverywhere(['generate', '--model', 'bigram', '--steps', '200', '--seed', seed, ...settings]);
      expect(text.status).toBe(0);
      expect(text.stdout.length).toBeGreaterThan(150);
      await sameEverywhere(['generate', '--model', 'bigram', '--steps', '50', '--seed', seed, '--json', ...settings]);
    }
  });

  it.skipIf(skipWithoutTransformer)('the shipped transformer', async () => {
    needTransformer();
    for (const settings of SETTINGS.slice(0, 4)) {
      const r = await sameEverywhere(['generate', '--model', 'transformer', '--prompt', 'The ', '--steps', '120', ...settings]);
      expect(r.status).toBe(0);
    }
  });

  it.skipIf(skipWithoutFixtures)('llama2.c logits (stories260K)', async () => {
    needFixtures();
    const tokens = Array.from({ length: 40 }, (_, i) => (i * 37 + 1) % 512).join(',');
    const r = await sameEverywhere(['logits', '--model', path.join(FIXTURES, 'stories260K.bin'), '--tokens', tokens]);
    expect(JSON.parse(r.stdout.toString()).logits).toHaveLength(40);
  });
});

// every newer sampler, and the chain in other orders
const CHAIN_SETTINGS = [
  ['--top-n-sigma', '1.2'],
  ['--epsilon-cutoff', '0.02', '--temperature', '1.4'],
  ['--eta-cutoff', '0.01', '--temperature', '1.2'],
  ['--top-a', '0.3'],
  ['--xtc-probability', '0.5', '--xtc-threshold', '0.08'],
  ['--dry-multiplier', '0.8', '--dry-base', '1.75', '--dry-allowed-length', '2', '--dry-sequence-breaker', 'a'],
  ['--dynatemp-range', '0.8', '--dynatemp-exp', '1.5'],
  ['--no-repeat-ngram-size', '3'],
  ['--mirostat', '1', '--mirostat-tau', '4'],
  ['--mirostat', '2', '--mirostat-tau', '3', '--mirostat-eta', '0.2', '--temperature', '0.9'],
  ['--samplers', 'llama.cpp', '--temperature', '0.7', '--top-p', '0.9', '--min-p', '0.05'],
  ['--samplers', 'hf', '--temperature', '1.5', '--top-k', '20', '--epsilon-cutoff', '0.01'],
  ['--samplers', 'top_p,temperature', '--temperature', '0.5', '--top-p', '0.8'],
];

describe('every sampler and order is byte-identical in every build', () => {
  it.each(CHAIN_SETTINGS.map((s) => [s.join(' '), s]))('bigram %s', async (_, settings) => {
    for (const seed of ['3', '77']) {
      const r = await sameEverywhere(['generate', '--model', 'bigram', '--steps', '150', '--seed', seed, ...settings]);
      expect(r.status).toBe(0);
      await sameEverywhere(['generate', '--model', 'bigram', '--steps', '30', '--seed', seed, '--json', ...settings]);
    }
  });

  it.skipIf(skipWithoutTransformer)('the shipped transformer', async () => {
    needTransformer();
    for (const settings of CHAIN_SETTINGS) {
      const r = await sameEverywhere(['generate', '--model', 'transformer', '--prompt', 'And God', '--steps', '60', '--seed', '5', ...settings]);
      expect(r.status).toBe(0);
    }
  });

  it('the errors too: a stage set but left out, an unknown stage', async () => {
    const left = await sameEverywhere(['generate', '--model', 'bigram', '--samplers', 'top_k', '--top-p', '0.5']);
    expect(left.status).toBe(2);
    expect(left.stderr).toContain('--top-p is set but the samplers\' order leaves out top_p');
    const unknown = await sameEverywhere(['generate', '--model', 'bigram', '--samplers', 'top_k,nope']);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain("'nope' is not a stage");
  });
});

describe('warp is byte-identical in every build', () => {
  it('on random and Zipf logits of 5000 tokens', async () => {
    const rand = lcg(7);
    for (let trial = 0; trial < 6; trial++) {
      const n = 5000;
      const logits = Array.from({ length: n }, (_, i) => (trial % 2 ? -1.07 * Math.log(1 + i) : 6 * (rand() - 0.5)));
      const history = Array.from({ length: 30 }, () => Math.floor(rand() * n));
      const request = JSON.stringify({ logits, history });
      const args = ['warp', '--temperature', String(0.5 + trial * 0.2), '--top-k', String(trial * 100), '--top-p', '0.9',
        '--min-p', '0.01', '--typical-p', trial === 5 ? '0.7' : '1', '--repetition-penalty', '1.2', '--seed', String(trial)];
      const r = await sameEverywhere(args, request);
      expect(r.status).toBe(0);
      const out = JSON.parse(r.stdout.toString());
      expect(out.probs).toHaveLength(n);
      expect(out.probs.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 5);
    }
  });
});

describe('the CLI refuses bad input the same way everywhere', () => {
  const cases = [
    [['generate', '--model', 'bigram', '--temperature', '-1'], 2, /--temperature must be a finite number >= 0 \(got -1\)/],
    [['generate', '--model', 'bigram', '--temperature', 'nan'], 2, /--temperature must be/],
    [['generate', '--model', 'bigram', '--top-p', '0'], 2, /--top-p must be in \(0, 1\]/],
    [['generate', '--model', 'bigram', '--top-k', '-2'], 2, /--top-k must be >= 0/],
    [['generate', '--model', 'bigram', '--top-k', 'ten'], 2, /--top-k: 'ten' is not an integer/],
    [['generate', '--model', 'bigram', '--seed', 'abc'], 2, /--seed: 'abc' is not an integer/],
    [['generate', '--model', 'bigram', '--seed', '-1'], 2, /--seed/],
    [['generate', '--model', 'bigram', '--steps'], 2, /--steps needs a value/],
    [['generate', '--model', 'bigram', '--logit-bias', '3'], 2, /--logit-bias: '3' is not ID=VALUE/],
    [['generate', '--model', 'bigram', '--logit-bias', '999=1'], 2, /--logit-bias token 999 is outside the vocabulary/],
    [['generate', '--model', 'bigram', '--frobnicate'], 2, /unknown option '--frobnicate'/],
    [['generate', '--model', 'nope.bin'], 1, /nope.bin: No such file or directory/],
    [['generate', '--model', 'bigram', '--prompt', 'Zoë'], 2, /the character 'ë'/],
    [['explode'], 2, /unknown command 'explode'/],
    [['warp'], 1, /request: expected '\{' at byte 0/],
  ];
  it.each(cases)('%j exits %i', async (args, status, message) => {
    const r = await sameEverywhere(args);
    expect(r.status).toBe(status);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('rejects malformed warp requests with the byte offset', async () => {
    for (const [req, msg] of [
      ['{"logits": [1, 2,]}', /expected a number at byte 17/],
      ['{"logits": [1, 2], "histroy": [0]}', /unknown or repeated key "histroy"/],
      ['{"logits": [1, 2], "history": [5]}', /history\[0\] = 5 is not a token id in 0..1/],
      ['{"logits": []}', /"logits" is missing or empty/],
      ['{"logits": [1e999]}', /logits\[0\] is out of float range/],
    ]) {
      const r = await sameEverywhere(['warp'], req);
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(msg);
    }
  });
});

it('node build/sampler.mjs is the same CLI as build/sampler', () => {
  const args = ['generate', '--model', 'bigram', '--steps', '80', '--seed', '3', '--top-k', '5'];
  const node = spawnSync('node', [path.join(ROOT, 'build/sampler.mjs'), ...args]);
  const native = runNative(args);
  expect(node.status).toBe(0);
  expect(node.stdout.equals(native.stdout)).toBe(true);
  const scalar = spawnSync('node', [path.join(ROOT, 'build/sampler.mjs'), ...args], { env: { ...process.env, SAMPLER_WASM: 'scalar' } });
  expect(scalar.stdout.equals(native.stdout)).toBe(true);
  const bad = spawnSync('node', [path.join(ROOT, 'build/sampler.mjs'), 'generate', '--model', 'bigram', '--top-p', '7']);
  expect(bad.status).toBe(2);
  expect(bad.stderr.toString()).toBe('sampler: --top-p must be in (0, 1] (got 7)\n');
});
