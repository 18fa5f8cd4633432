// A model the engine trained (`sampler train --gguf`) against llama.cpp
// itself (wllama in Chromium): llama.cpp reads the GGUF file the trainer
// writes (llama architecture, F32, the character vocabulary as
// SentencePiece pieces), its next-token logits are the engine's within
// 1e-4, and from a text prompt (llama.cpp tokenizing it with the file's
// vocabulary) its greedy text is the engine's argmax at every position.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { IN_CI } from '../e2e/fixtures.js';
import { ROOT, ggufPath, registerGguf } from '../helpers/gguf-files.js';
import { oracleMissing, startOracle } from './llamacpp.js';

const SAMPLER = process.env.SAMPLER_CLI ?? path.join(ROOT, 'build/sampler');
const absent = oracleMissing() || (fs.existsSync(SAMPLER) ? '' : `${SAMPLER} is missing (./build.sh)`);
if (absent && IN_CI) throw new Error(`a trained model against llama.cpp: ${absent} (required under CI=true)`);

const VERSES = [
  'In the beginning God created the heaven and the earth.',
  'And the earth was without form, and void; and darkness was upon the face of the deep.',
  'And the Spirit of God moved upon the face of the waters.',
  'And God said, Let there be light: and there was light.',
  'And God saw the light, that it was good: and God divided the light from the darkness.',
  'And God called the light Day, and the darkness he called Night.',
];

/** the GGUF of 60 steps of a 2-layer model with a classifier of its own on the verses */
function trained() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trained-gguf-'));
  const text = path.join(dir, 'verses.txt');
  fs.writeFileSync(text, [...VERSES, ...VERSES, ...VERSES].join('\n') + '\n');
  const gguf = path.join(dir, 'trained.gguf');
  execFileSync(SAMPLER, ['train', '--text', text, '--dim', '32', '--hidden', '64', '--layers', '2', '--heads', '4', '--kv-heads', '2',
    '--tied', '0', '--context', '32', '--batch', '4', '--steps', '60', '--lr', '1e-2', '--seed', '5', '-o', path.join(dir, 'trained'), '--gguf', gguf],
  { stdio: ['ignore', 'ignore', 'pipe'] });
  const bytes = new Uint8Array(fs.readFileSync(gguf));
  fs.rmSync(dir, { recursive: true, force: true });
  return bytes;
}
if (!absent) registerGguf('trained-verses', 'a model sampler train wrote', trained);

/** @param {string} model @param {number[]} tokens */
function ours(model, tokens) {
  const out = execFileSync(SAMPLER, ['logits', '--model', ggufPath(model), '--tokens', tokens.join(',')], { maxBuffer: 1 << 28 });
  return JSON.parse(out.toString()).logits;
}

/** @param {string} model @param {string} text */
function encode(model, text) {
  return JSON.parse(execFileSync(SAMPLER, ['encode', '--model', ggufPath(model), '--text', text, '--bos']).toString()).ids;
}

const argmax = (/** @type {number[]} */ x) => x.reduce((best, v, i) => (v > x[best] ? i : best), 0);

describe.skipIf(absent)('a model the engine trained, against llama.cpp (wllama in Chromium)', () => {
  /** @type {Awaited<ReturnType<typeof startOracle>>} */
  let oracle;
  beforeAll(async () => {
    oracle = await startOracle();
  });
  afterAll(async () => {
    await oracle?.close();
  });

  test('its GGUF file: llama.cpp\'s logits within 1e-4, its greedy text the engine\'s', async () => {
    let worst = 0;
    for (const prompt of ['And God said', 'In the beginning', 'darkness']) {
      const ids = encode('trained-verses', prompt);
      const mine = ours('trained-verses', ids);
      const theirs = await oracle.logits('trained-verses', ids);
      worst = Math.max(worst, ...mine.at(-1).map((v, i) => Math.abs(v - theirs[i])));
    }
    console.log(`measured: a trained model, max |ours - llama.cpp| logit = ${worst.toExponential(2)}`);
    expect(worst).toBeLessThan(1e-4);
    await oracle.load('trained-verses');
    const prompt = 'And God said';
    const theirs = (await oracle.greedy(prompt, 24)).steps.map((s) => s.id);
    const ids = encode('trained-verses', prompt);
    const mine = ours('trained-verses', [...ids, ...theirs.slice(0, -1)]);
    const picks = mine.slice(ids.length - 1).map((l) => {
      l[2] = -Infinity; // llama.cpp's greedy runs with EOS masked
      return argmax(l);
    });
    expect(picks).toEqual(theirs);
  });
});
