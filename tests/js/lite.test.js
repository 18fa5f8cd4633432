// The lesson engine (build/engine-lite-*.wasm: the engine without the GGUF
// reader and its tokenizers, which course chapters and embedded playgrounds
// load) is the same engine for everything it reads: the same texts, the
// same probabilities to the bit, as the whole engine; a GGUF file is refused
// with a message that says where to open it.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { loadEngine } from '../../web/src/engine/engine.js';
import { BUILD_DIR, MODELS_DIR } from '../../web/src/engine/node.js';
import { writeGguf } from '../helpers/gguf.js';
import { logitsModel } from '../helpers/gguf-models.js';
import { FIXTURES, needFixtures, skipWithoutFixtures } from './helpers.js';

const load = (name) => loadEngine(fs.readFileSync(path.join(BUILD_DIR, `${name}.wasm`)));
const fileSize = (name) => fs.statSync(path.join(BUILD_DIR, `${name}.wasm`)).size;

const SETTINGS = [
  {},
  { temperature: 0 },
  { temperature: 0.7, top_k: 10, top_p: 0.9 },
  { temperature: 1.3, min_p: 0.05, repetition_penalty: 1.3, penalty_last_n: 16 },
  { typical_p: 0.8, dry_multiplier: 0.8, xtc_probability: 0.5, xtc_threshold: 0.1 },
  { mirostat: 2, mirostat_tau: 3 },
];

/** A text's tokens and every step's final probabilities' bits. */
function run(e, modelBytes, tokBytes, prompt, seed, params) {
  const model = typeof modelBytes === 'string' ? e.handmadeModel(modelBytes) : e.loadModel(modelBytes);
  const tok = tokBytes === 'ids' ? e.idsTokenizer(model.vocab) : tokBytes ? e.loadTokenizer(tokBytes, model.vocab) : null;
  const s = e.createSession(model, tok);
  s.start(prompt, seed);
  const tokens = [];
  const bits = [];
  for (let i = 0; i < 40; i++) {
    const r = s.step(params);
    tokens.push(r.token);
    bits.push(Buffer.from(new Float32Array(r.probs).buffer).toString('base64'));
    if (s.finished) break;
  }
  s.free();
  tok?.free();
  model.free();
  return { tokens, bits };
}

const MODELS = [
  ['bigram', () => fs.readFileSync(path.join(MODELS_DIR, 'bigram.bin')), null, ''],
  ['transformer', () => fs.readFileSync(path.join(MODELS_DIR, 'transformer.bin')), fs.readFileSync(path.join(MODELS_DIR, 'transformer_tokenizer.bin')), 'In the beginning'],
  ['hand-made', () => 'logits:a=2,b=1,c=0,d=-1', null, ''],
];

describe.each(['simd', 'scalar'])('the lesson engine (%s) = the whole engine', (flavor) => {
  it.each(MODELS.map(([name, ...rest]) => [name, ...rest]))('%s: the same tokens and probability bits, six settings, two seeds', async (_, bytes, tok, prompt) => {
    const full = await load(`engine-${flavor}`);
    const lite = await load(`engine-lite-${flavor}`);
    for (const params of SETTINGS) {
      for (const seed of [1, 42]) {
        const want = run(full, bytes(), tok, prompt, seed, params);
        expect(want.tokens.length).toBeGreaterThan(0);
        expect(run(lite, bytes(), tok, prompt, seed, params)).toEqual(want);
      }
    }
  }, 120_000);

  it.skipIf(skipWithoutFixtures)('stories260K (a llama2.c checkpoint, its tokens as ids): the same tokens and bits', async () => {
    needFixtures();
    const full = await load(`engine-${flavor}`);
    const lite = await load(`engine-lite-${flavor}`);
    const model = () => fs.readFileSync(path.join(FIXTURES, 'stories260K.bin'));
    for (const params of SETTINGS.slice(0, 3)) {
      const want = run(full, model(), 'ids', '', 7, params);
      expect(want.tokens.length).toBeGreaterThan(0);
      expect(run(lite, model(), 'ids', '', 7, params)).toEqual(want);
    }
  }, 120_000);

  it('a GGUF file: the whole engine reads it; the lesson engine refuses it and says where to open it', async () => {
    const full = await load(`engine-${flavor}`);
    const lite = await load(`engine-lite-${flavor}`);
    const file = writeGguf(logitsModel([2, 1, 0, -1]));
    const m = full.loadModel(file);
    expect(m.vocab).toBe(4);
    m.free();
    expect(() => lite.loadModel(writeGguf(logitsModel([2, 1, 0, -1])))).toThrow(/lesson engine, which reads no GGUF files; open the file in the playground's own page/);
    expect(() => lite.loadTokenizer(file, 4)).toThrow(/lesson engine/);
  });

  it('is smaller: what a course chapter or an embed downloads', () => {
    // the reason it exists; the page's budgets are in tests/e2e/course.test.js
    expect(fileSize(`engine-lite-${flavor}`)).toBeLessThan(0.8 * fileSize(`engine-${flavor}`));
  });
});
