// The engine's tokenizers from GGUF files against llama.cpp's, on the
// corpus (corpus.js) and each vocabulary's special tokens, one vocabulary
// per supported pre-tokenizer (spm, llama-bpe, gpt-2, smollm, qwen2).
// llama.cpp's ids: read back through the id models (llamacpp.js: tokenize),
// as llama-server tokenizes a prompt (BOS when the file says add_bos_token,
// special tokens parsed).  Ours: the native CLI, `sampler encode --tokenizer
// FILE.gguf --text TEXT [--bos]`, the same file.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { IN_CI } from '../e2e/fixtures.js';
import { ROOT, VOCABS, ggufMissing, ggufPath } from '../helpers/gguf-files.js';
import { CORPUS, SPECIALS } from './corpus.js';
import { oracleMissing, startOracle } from './llamacpp.js';

const SAMPLER = process.env.SAMPLER_CLI ?? path.join(ROOT, 'build/sampler');
const absent = oracleMissing() || (fs.existsSync(SAMPLER) ? '' : `${SAMPLER} is missing (./build.sh)`);
if (absent && IN_CI) throw new Error(`engine tokenizers against llama.cpp: ${absent} (required under CI=true)`);
const noSpm = ggufMissing('ids-spm');
if (noSpm && IN_CI) throw new Error(`engine tokenizers against llama.cpp: ${noSpm} (required under CI=true)`);

/** @param {string} vocab @param {string} text @returns {number[]} */
function ours(vocab, text) {
  const bos = VOCABS[vocab]().addBos ? ['--bos'] : [];
  const out = execFileSync(SAMPLER, ['encode', '--tokenizer', ggufPath(`ids-${vocab}`), '--text', text, ...bos]);
  return JSON.parse(out.toString()).ids;
}

describe.skipIf(absent)("the engine's tokenizers against llama.cpp's", () => {
  /** @type {Awaited<ReturnType<typeof startOracle>>} */
  let oracle;
  beforeAll(async () => {
    oracle = await startOracle();
  });
  afterAll(async () => {
    await oracle?.close();
  });

  for (const vocab of Object.keys(VOCABS)) {
    test.skipIf(vocab === 'spm' && noSpm)(`${vocab}: the same ids on every string of the corpus and its special tokens`, async () => {
      const texts = [...CORPUS, ...SPECIALS[/** @type {keyof typeof SPECIALS} */ (vocab)]];
      let same = 0;
      for (const text of texts) {
        expect(ours(vocab, text), `${vocab}: ${JSON.stringify(text)}`).toEqual(await oracle.tokenize(vocab, text));
        same++;
      }
      console.log(`measured: ${vocab}: ${same}/${texts.length} strings tokenized as llama.cpp does`);
    });
  }
});
