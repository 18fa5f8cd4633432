// Hostile files and bad parameters through the WASM build (both flavors):
// every malformed model or tokenizer is refused by loadModel/loadTokenizer
// with the very message the CLI prints (native and WASM), nothing leaks
// (the engine's heap is back where it was), and the engine still loads and
// runs a good model afterwards.  Bad parameters throw TypeError (not a
// number) or RangeError (out of range) with a message naming them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { EngineError, splitSeed } from '../../web/src/engine/engine.js';
import { need, skipWithout } from '../e2e/fixtures.js';
import { engine, NATIVE, runNative, runWasm } from './helpers.js';
import {
  bigram, checkpoint, checkpointFloats, concat, edit, floatAt, TINY, TINY_PIECES, TINY_SCORES, tokenizer,
} from './hostile_files.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sp-hardening-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
let fileNo = 0;
/** @param {Uint8Array} bytes @returns {string} a temporary file holding bytes */
function fileOf(bytes) {
  const file = path.join(tmp, `f${fileNo++}.bin`);
  fs.writeFileSync(file, bytes);
  return file;
}
const haveNative = fs.existsSync(NATIVE);

const tiny = checkpoint(TINY);
const tinySize = tiny.length; // 28 + 4 * 1320
const tinyTok = tokenizer();
const smallBigram = bigram();
// the tiny model's tensors (weight indices): embedding 0..95, rms_att
// 96..111, wq 112..239, ..., rms_final 1280..1287
const WQ = 96 + 16, RMS_FINAL = 1280;

const hugeCache = { dim: 2, hidden: 1, layers: 1000, heads: 1, kvHeads: 1, vocab: 1, seqLen: 1000000 };
const wide = { dim: 65536, hidden: 65536, layers: 1, heads: 2, kvHeads: 1, vocab: 12, seqLen: 8 };

/** @type {Array<[string, () => Uint8Array, string]>} */
const BAD_MODELS = [
  ['a checkpoint cut in half', () => tiny.slice(0, tinySize / 2),
    `checkpoint: file has ${tinySize / 2} bytes, header implies ${tinySize}`],
  ['a checkpoint one byte short', () => tiny.slice(0, tinySize - 1),
    `checkpoint: file has ${tinySize - 1} bytes, header implies ${tinySize}`],
  ['a checkpoint one byte long', () => concat(tiny, [0]),
    `checkpoint: file has ${tinySize + 1} bytes, header implies ${tinySize}`],
  ['an empty file', () => new Uint8Array(0), 'checkpoint: file has 0 bytes, shorter than the 28-byte header'],
  ['a 27-byte file', () => tiny.slice(0, 27), 'checkpoint: file has 27 bytes, shorter than the 28-byte header'],
  ['dim 0', () => edit(tiny, [[0, 'i32', 0]]), 'checkpoint: dim must be > 0 (got 0)'],
  ['hidden_dim -1', () => edit(tiny, [[4, 'i32', -1]]), 'checkpoint: hidden_dim must be > 0 (got -1)'],
  ['n_layers 0', () => edit(tiny, [[8, 'i32', 0]]), 'checkpoint: n_layers must be > 0 (got 0)'],
  ['n_heads 3', () => edit(tiny, [[12, 'i32', 3]]), 'checkpoint: n_heads (3) does not divide dim (8)'],
  ['n_kv_heads 3', () => edit(tiny, [[16, 'i32', 3]]), 'checkpoint: n_kv_heads (3) does not divide n_heads (2)'],
  ['an odd head size', () => edit(tiny, [[12, 'i32', 8]]), 'checkpoint: head size 1 (dim 8 / n_heads 8) is odd'],
  ['vocab 2 000 000', () => edit(tiny, [[20, 'i32', 2000000]]),
    'checkpoint: vocab_size must be in 1..1000000 in absolute value (got 2000000)'],
  ['vocab -2^31', () => edit(tiny, [[20, 'i32', -2147483648]]),
    'checkpoint: vocab_size must be in 1..1000000 in absolute value (got -2147483648)'],
  ['seq_len -1', () => edit(tiny, [[24, 'i32', -1]]), 'checkpoint: seq_len must be > 0 (got -1)'],
  ['seq_len 2 000 000', () => edit(tiny, [[24, 'i32', 2000000]]), 'checkpoint: seq_len must be in 1..1000000 (got 2000000)'],
  ['sizes past 32 bits', () => edit(tiny, [[0, 'i32', 65536], [4, 'i32', 65536], [8, 'i32', 1]]),
    `checkpoint: file has ${tinySize} bytes, header implies ${28 + 4 * checkpointFloats(wide)}`],
  ['sizes past 64 bits', () => edit(tiny, [[0, 'i32', 2 ** 30], [4, 'i32', 2 ** 30], [8, 'i32', 2 ** 30]]),
    "checkpoint: the header's sizes are too large"],
  ['a NaN weight', () => edit(tiny, [[floatAt(WQ + 88), 'f32', NaN]]), 'checkpoint: weight 88 (wq) is not finite'],
  ['an infinite weight', () => edit(tiny, [[floatAt(RMS_FINAL + 3), 'f32', -Infinity]]),
    'checkpoint: weight 3 (rms_final_weight) is not finite'],
  ['a KV cache the file does not pay for', () => checkpoint(hugeCache),
    'checkpoint: seq_len 1000000 needs 15263 MiB of KV cache and activations (n_layers 1000, kv_dim 2, ' +
    'n_heads 1), more than the 1024 MiB limit'],
  ['a cut bigram', () => smallBigram.slice(0, smallBigram.length - 1), 'bigram: file has 175 bytes, header implies 176'],
  ['a bigram of version 3', () => edit(smallBigram, [[4, 'u32', 3]]),
    'bigram: version 3 is not supported (this engine reads versions 1 and 2)'],
  ['a bigram of 4097 tokens', () => edit(smallBigram, [[8, 'u32', 4097]]), 'bigram: vocab 4097 is out of range (2..4096)'],
  ['a bigram boundary past the vocabulary', () => edit(smallBigram, [[12, 'u32', 6]]),
    'bigram: boundary token 6 is not below vocab 6'],
  ['a bigram piece of length 0', () => edit(smallBigram, [[16, 'u8', 0]]),
    'bigram: piece 0 has length 0 (a character has 1 to 4 bytes)'],
  ['a bigram piece that is not UTF-8', () => edit(smallBigram, [[19, 'u8', 0xff]]),
    'bigram: piece 1 (bytes ff) is not one UTF-8 character'],
  ['a bigram piece with a NUL', () => edit(smallBigram, [[19, 'u8', 0]]), 'bigram: piece 1 contains a NUL byte'],
  ['duplicate bigram pieces', () => edit(smallBigram, [[21, 'u8', 0x61]]), 'bigram: pieces 1 and 2 are the same'],
  ['bigram padding that is not zero', () => edit(smallBigram, [[31, 'u8', 1]]), 'bigram: padding byte 31 is not zero'],
  ['a NaN bigram logit', () => edit(smallBigram, [[32 + 4 * 13, 'f32', NaN]]), 'bigram: logit 13 (row 2) is not finite'],
];

const tokSize = tinyTok.length; // 4 + 12 x 8 + 35
/** @type {Array<[string, () => Uint8Array, string]>} */
const BAD_TOKENIZERS = [
  ['a 3-byte file', () => tinyTok.slice(0, 3), 'tokenizer: file has 3 bytes, shorter than its 4-byte header'],
  ['the header only', () => tinyTok.slice(0, 4), 'tokenizer: the file has no pieces'],
  ['a cut last piece', () => tinyTok.slice(0, tokSize - 1), 'tokenizer: truncated in piece 11: 3 bytes declared, 2 left'],
  ['3 trailing bytes', () => concat(tinyTok, [1, 2, 3]),
    `tokenizer: truncated at piece 12 (byte ${tokSize} of ${tokSize + 3}): no room for its score and length`],
  ['a negative length', () => edit(tinyTok, [[8, 'i32', -1]]),
    "tokenizer: piece 0 has length -1 (must be in 1..6, the file's max_token_length)"],
  ['a zero length', () => edit(tinyTok, [[8, 'i32', 0]]), 'tokenizer: piece 0 has length 0 (must be in 1..6'],
  ['a length past max_token_length', () => edit(tinyTok, [[8, 'i32', 7]]), 'tokenizer: piece 0 has length 7 (must be in 1..6'],
  ['a length of 2^31-1', () => edit(tinyTok, [[8, 'i32', 2147483647]]), 'tokenizer: piece 0 has length 2147483647'],
  ['a length past the end', () => edit(tinyTok, [[0, 'i32', 65536], [8, 'i32', 60000]]),
    `tokenizer: truncated in piece 0: 60000 bytes declared, ${tokSize - 12} left`],
  ['a NaN score', () => edit(tinyTok, [[17, 'f32', NaN]]), 'tokenizer: piece 1 has a score that is not finite'],
  ['an infinite score', () => edit(tinyTok, [[17, 'f32', Infinity]]), 'tokenizer: piece 1 has a score that is not finite'],
  ['max_token_length 0', () => edit(tinyTok, [[0, 'i32', 0]]), 'tokenizer: max_token_length must be in 1..65536 (got 0)'],
  ['max_token_length 65537', () => edit(tinyTok, [[0, 'i32', 65537]]),
    'tokenizer: max_token_length must be in 1..65536 (got 65537)'],
  ['a NUL in a piece', () => edit(tinyTok, [[13, 'u8', 0]]), 'tokenizer: piece 0 contains a NUL byte'],
];

/** @param {() => void} fn @returns {Error} what fn threw */
function thrown(fn) {
  try {
    fn();
  } catch (err) {
    return /** @type {Error} */ (err);
  }
  throw new Error('expected an exception');
}

/** Loads the tiny model and tokenizer and generates a few tokens. */
function runsAGoodModel(e) {
  const model = e.loadModel(tiny);
  const tok = e.loadTokenizer(tinyTok);
  const session = e.createSession(model, tok);
  session.start('ab', 7);
  const params = { logit_bias: [[1, -Infinity], [2, -Infinity]] }; // no end of text
  for (let i = 0; i < 3; i++) expect(session.step(params).token).toBeLessThan(12);
  session.free();
  tok.free();
  model.free();
}

describe.each(['simd', 'scalar'])('hostile files through the WASM engine (%s)', (flavor) => {
  it.each(BAD_MODELS)('refuses %s with the CLI\'s message', async (_name, make, expected) => {
    const e = await engine(flavor);
    runsAGoodModel(e); // warm: the heap below is the steady one
    const heap = e.x.api_heap_used();
    const bytes = make();
    const err = thrown(() => e.loadModel(bytes));
    expect(err).toBeInstanceOf(EngineError);
    expect(err.message).toContain(expected);
    expect(err.message).not.toMatch(/[\n\r]/);
    expect(e.x.api_heap_used()).toBe(heap); // nothing kept from the failure
    runsAGoodModel(e);
    expect(e.x.api_heap_used()).toBe(heap);
    // the CLI over the same engine says the same, with status 1
    const file = fileOf(bytes);
    const cli = await runWasm(flavor, ['generate', '--model', file, '--steps', '1']);
    expect(cli.status).toBe(1);
    expect(cli.stderr).toBe(`sampler: ${file}: ${err.message}\n`);
  });

  it.each(BAD_TOKENIZERS)('refuses a tokenizer with %s with the CLI\'s message', async (_name, make, expected) => {
    const e = await engine(flavor);
    runsAGoodModel(e);
    const heap = e.x.api_heap_used();
    const bytes = make();
    const err = thrown(() => e.loadTokenizer(bytes));
    expect(err).toBeInstanceOf(EngineError);
    expect(err.message).toContain(expected);
    expect(e.x.api_heap_used()).toBe(heap);
    runsAGoodModel(e);
    const file = fileOf(bytes);
    const cli = await runWasm(flavor, ['encode', '--tokenizer', file, '--text', 'ab']);
    expect(cli.status).toBe(1);
    expect(cli.stderr).toBe(`sampler: ${file}: ${err.message}\n`);
  });

  it('refuses a tokenizer that is not the model\'s', async () => {
    const e = await engine(flavor);
    const model = e.loadModel(tiny);
    for (const pieces of [TINY_PIECES.slice(0, 11), [...TINY_PIECES, 'z']]) {
      const tok = e.loadTokenizer(tokenizer(pieces, null));
      const err = thrown(() => e.createSession(model, tok));
      expect(err).toBeInstanceOf(EngineError);
      expect(err.message).toBe(`tokenizer: it has ${pieces.length} pieces, the model 12 logits: not its tokenizer`);
      tok.free();
      // the CLI reads the model's count of pieces and says the same
      const cli = await runWasm(flavor, ['generate', '--model', fileOf(tiny), '--tokenizer',
        fileOf(tokenizer(pieces, null))]);
      expect(cli.status).toBe(1);
      expect(cli.stderr).toContain(`(the file has ${pieces.length} pieces, the model 12 logits: not its tokenizer)`);
    }
    model.free();
  });

  it('reports logits that overflow instead of sampling from them', async () => {
    const e = await engine(flavor);
    // layers all zero, embedding rows of ones, row 5 of 3e38: logit 5 = +inf
    const edits = [];
    for (let i = 0; i < 96; i++) edits.push([floatAt(i), 'f32', Math.floor(i / 8) === 5 ? 3e38 : 1]);
    const zeros = checkpoint(TINY).map((b, i) => (i < 28 ? b : 0));
    const rms = (i) => (i >= 96 && i < 112) || (i >= 496 && i < 512) || (i >= 1280 && i < 1288);
    for (let i = 96; i < 1288; i++) if (rms(i)) edits.push([floatAt(i), 'f32', 1]);
    const model = e.loadModel(edit(zeros, edits));
    const tok = e.loadTokenizer(tinyTok);
    const session = e.createSession(model, tok);
    session.start('', 1);
    const err = thrown(() => session.step({}));
    expect(err).toBeInstanceOf(EngineError);
    expect(err.message).toBe("logits: token 5 is +inf; the model's output is not finite");
    expect(session.nTokens).toBe(1);
    session.free();
    tok.free();
    model.free();
  });

  it('stops a full context cleanly and refuses to go on', async () => {
    const e = await engine(flavor);
    const model = e.loadModel(tiny);
    const tok = e.loadTokenizer(tinyTok);
    const session = e.createSession(model, tok);
    const params = { logit_bias: [[1, -Infinity], [2, -Infinity]] };
    session.start('ab', '18446744073709551615');
    expect(session.nPrompt).toBe(3);
    const tokens = [];
    for (let i = 0; i < 5; i++) tokens.push(session.step(params).token);
    for (let i = 0; i < 3; i++) {
      const err = thrown(() => session.step(params));
      expect(err).toBeInstanceOf(EngineError);
      // which error it is, from the engine's list: context_full, of the class state
      expect(err).toMatchObject({ code: 6, reason: 'context_full', kind: 'state' });
      expect(err.message).toBe("context full: 8 tokens, the model's seq_len");
    }
    expect(() => session.preview(params)).toThrow(/context full/);
    expect(session.nTokens).toBe(8);
    // rewinding: out of range refused, in range regenerates the same text
    expect(() => session.rewind(6)).toThrow(new RangeError('rewind: 6 is outside 0..5'));
    expect(() => session.rewind(-1)).toThrow(RangeError);
    expect(() => session.rewind(1.5)).toThrow(TypeError);
    session.rewind(1);
    for (let i = 1; i < 5; i++) expect(session.step(params).token).toBe(tokens[i]);
    // a forced end of text finishes it
    session.rewind(0);
    session.step(params, { force: 2 });
    expect(session.finished).toBe(true);
    expect(() => session.step(params)).toThrow('the text is finished: the model emitted its end-of-text token');
    // prompts: too long for the context, outside the vocabulary
    expect(() => session.start('abcabcabcabcabcabcabc', 1)).toThrow(
      new RangeError("prompt: 9 tokens leave no room in the model's context of 8"));
    expect(() => session.start('a\tb', 1)).toThrow(
      new RangeError("prompt: the character '\\t' (byte offset 1) is not in the model's vocabulary"));
    expect(() => session.step({})).toThrow('session: not started');
    session.free();
    tok.free();
    model.free();
  });

  // quadratic merging took minutes on 1 MB; linear takes a fraction of a
  // second (the bound is that gap, not a timing budget: a loaded machine
  // must not fail it)
  it('encodes a 2 MB prompt in linear time', async () => {
    const e = await engine(flavor);
    const tok = e.loadTokenizer(tinyTok);
    const text = 'abc'.repeat(700000);
    const t0 = performance.now();
    const ids = tok.encode(text, { bos: true });
    const ms = performance.now() - t0;
    expect(ids.length).toBe(2 + 700000);
    expect(ms).toBeLessThan(30000);
    expect(() => tok.encode('a'.repeat((1 << 24) + 1))).toThrow(
      new RangeError('prompt: 16777217 bytes is too long (at most 16777216)'));
    tok.free();
  });
});

describe.each(['simd', 'scalar'])('bad parameters through the JS API (%s)', (flavor) => {
  /** @type {Array<[object, ErrorConstructor, RegExp | string]>} */
  const CASES = [
    [{ temperature: 'hot' }, TypeError, 'temperature must be a number (got string)'],
    [{ temperature: null }, TypeError, 'temperature must be a number (got object)'],
    [{ top_k: '5' }, TypeError, 'top-k must be a number (got string)'],
    [{ temperature: NaN }, RangeError, 'temperature must be a finite number >= 0 (got nan)'],
    [{ temperature: -1 }, RangeError, 'temperature must be a finite number >= 0 (got -1)'],
    [{ temperature: Infinity }, RangeError, 'temperature must be a finite number >= 0 (got inf)'],
    [{ temperature: 1e300 }, RangeError, 'temperature must be a finite number >= 0 (got inf)'],
    [{ top_k: 2.5 }, RangeError, 'top-k must be an integer (got 2.5)'],
    [{ top_k: -1 }, RangeError, 'top-k must be >= 0 (got -1)'],
    [{ top_k: Infinity }, RangeError, 'top-k must be an integer (got inf)'],
    [{ top_k: 2 ** 31 }, RangeError, 'top-k must be an integer'],
    [{ top_p: 0 }, RangeError, 'top-p must be in (0, 1] (got 0)'],
    [{ top_p: 1.5 }, RangeError, 'top-p must be in (0, 1] (got 1.5)'],
    [{ top_p: NaN }, RangeError, 'top-p must be in (0, 1] (got nan)'],
    [{ min_p: -0.1 }, RangeError, 'min-p must be in [0, 1]'],
    [{ typical_p: 0 }, RangeError, 'typical-p must be in (0, 1] (got 0)'],
    [{ repetition_penalty: 0 }, RangeError, 'repetition-penalty must be a finite number > 0 (got 0)'],
    [{ frequency_penalty: NaN }, RangeError, 'frequency-penalty must be a finite number (got nan)'],
    [{ presence_penalty: -Infinity }, RangeError, 'presence-penalty must be a finite number (got -inf)'],
    [{ penalty_last_n: -1 }, RangeError, 'penalty-last-n must be >= 0 (got -1)'],
    [{ penalty_last_n: 0.5 }, RangeError, 'penalty-last-n must be an integer (got 0.5)'],
    [{ logit_bias: [[99999, 1]] }, RangeError, 'logit-bias token 99999 is outside the vocabulary (0..11)'],
    [{ logit_bias: [[2 ** 31, 1]] }, RangeError, 'logit-bias token 2.14748e+09 is not a token id'],
    [{ logit_bias: [[-1, 1]] }, RangeError, 'logit-bias token -1 is not a token id'],
    [{ logit_bias: [[1.5, 1]] }, RangeError, 'logit-bias token 1.5 is not a token id'],
    [{ logit_bias: [[1, NaN]] }, RangeError, 'logit-bias value for token 1 must be a finite number or -inf (got nan)'],
    [{ logit_bias: [[1, Infinity]] }, RangeError, 'logit-bias value for token 1 must be a finite number or -inf'],
    [{ logit_bias: [[1, 'x']] }, TypeError, 'logit_bias: the value for token 1 is a string, not a number'],
    [{ logit_bias: [[1]] }, TypeError, 'logit_bias entries must be [token, value] pairs'],
    [{ logit_bias: Array.from({ length: 257 }, (_, i) => [i % 12, 1]) }, RangeError, 'logit-bias: at most 256 entries'],
    [{ top_kk: 3 }, TypeError, 'unknown sampler parameter "top_kk"'],
  ];

  it.each(CASES)('%o throws', async (params, type, message) => {
    const e = await engine(flavor);
    const model = e.loadModel(tiny);
    const tok = e.loadTokenizer(tinyTok);
    const session = e.createSession(model, tok);
    session.start('ab', 3);
    const heap = e.x.api_heap_used();
    for (const call of [() => session.step(params), () => session.preview(params)]) {
      const err = thrown(call);
      expect(err).toBeInstanceOf(type);
      expect(err.message).toContain(message);
    }
    expect(session.nGenerated).toBe(0); // nothing happened
    expect(e.x.api_heap_used()).toBe(heap);
    expect(session.step({}).token).toBeGreaterThanOrEqual(0); // and it goes on
    session.free();
    tok.free();
    model.free();
  });

  it('names its errors: the engine\'s list, read from the engine', async () => {
    const e = await engine(flavor);
    expect(e.errors.map((i) => i.name)).toEqual([
      'ok', 'format', 'arg', 'nomem', 'state', 'unsatisfiable',
      'context_full', 'finished', 'no_token', 'logits', 'regex', 'prompt', 'prompt_long', 'tokenizer_as_model']);
    expect(e.errors.map((i) => i.kind)).toEqual([
      'ok', 'format', 'arg', 'nomem', 'state', 'unsatisfiable', 'state', 'state', 'state', 'format', 'arg', 'arg', 'arg', 'format']);
    const model = e.loadModel(smallBigram);
    const session = e.createSession(model);
    session.start('', 1);
    expect(thrown(() => session.constrain({ regex: '[a-' }))).toMatchObject({ name: 'RangeError', reason: 'regex', kind: 'arg' });
    const prompt = thrown(() => session.start('\u2603', 1));
    expect(prompt).toBeInstanceOf(RangeError);
    expect(prompt).toMatchObject({ code: 11, reason: 'prompt', kind: 'arg' });
    expect(thrown(() => e.loadModel(new Uint8Array(3)))).toMatchObject({ name: 'EngineError', code: 1, reason: 'format' });
    session.free();
    const tmodel = e.loadModel(tiny);
    const tok = e.loadTokenizer(tinyTok);
    const t = e.createSession(tmodel, tok);
    expect(thrown(() => t.start('ab'.repeat(8), 1))).toMatchObject({ reason: 'prompt_long', kind: 'arg' });
    [t, tok, tmodel, model].forEach((x) => x.free());
  });

  it('checks seeds, prompts, forced tokens and samplers', async () => {
    const e = await engine(flavor);
    const model = e.loadModel(tiny);
    const tok = e.loadTokenizer(tinyTok);
    const session = e.createSession(model, tok);
    expect(() => session.start('ab', -1)).toThrow(new RangeError('seed must be an integer in 0..2^64-1 (got -1)'));
    expect(() => session.start('ab', 1.5)).toThrow(RangeError);
    expect(() => session.start('ab', NaN)).toThrow(RangeError);
    expect(() => session.start('ab', 2n ** 64n)).toThrow(RangeError);
    expect(() => session.start('ab', 'abc')).toThrow(TypeError);
    expect(() => session.start('ab', null)).toThrow(TypeError);
    expect(() => session.start(42, 1)).toThrow(new TypeError('prompt must be a string'));
    expect(splitSeed(2n ** 64n - 1n)).toEqual([0xffffffff, 0xffffffff]);
    session.start('ab', 2n ** 64n - 1n);
    // a lone surrogate becomes U+FFFD, which this vocabulary lacks
    expect(() => session.start('a\ud800', 1)).toThrow(RangeError);
    // a NUL ends the C string: the prompt is cut there, or refused
    try {
      session.start('ab\0zz', 1);
      expect(session.nPrompt).toBe(3);
    } catch (err) {
      expect(err).toBeInstanceOf(RangeError);
      expect(/** @type {Error} */ (err).message).toMatch(/prompt/);
    }
    session.start('ab', 1);
    expect(() => session.step({}, { force: 1.5 })).toThrow(TypeError);
    expect(() => session.step({}, { force: 12 })).toThrow(new RangeError('force: token 12 is outside the vocabulary (0..11)'));
    expect(() => session.step({}, { force: -2 })).toThrow(new RangeError('force: token -2 is outside the vocabulary (0..11)'));
    expect(session.nGenerated).toBe(0);
    session.free();
    tok.free();
    model.free();

    expect(() => e.createSampler(0)).toThrow(RangeError);
    expect(() => e.createSampler(1.5)).toThrow(RangeError);
    expect(() => e.loadModel([1, 2, 3])).toThrow(TypeError);
    expect(() => e.loadTokenizer('x')).toThrow(TypeError);
    const s = e.createSampler(4);
    expect(() => s.warp([1, 2, 3])).toThrow(new RangeError('logits must have 4 entries (got 3)'));
    expect(() => s.warp([1, NaN, 2, 3])).toThrow(new EngineError("logits: token 1 is NaN; the model's output is not finite", 1));
    expect(() => s.warp([1, 2, Infinity, 3])).toThrow('logits: token 2 is +inf');
    expect(() => s.warp([-Infinity, -Infinity, -Infinity, -Infinity])).toThrow('logits: every token is masked (-inf)');
    expect(() => s.warp([1, 2, 3, 4], [0, 4], { repetition_penalty: 1.5 })).toThrow(
      new RangeError('history token 4 is outside the vocabulary (0..3)'));
    expect(() => s.warp([1, 2, 3, 4], [], { logit_bias: [[0, -Infinity], [1, -Infinity], [2, -Infinity], [3, -Infinity]] }))
      .toThrow('no token left: every token is banned');
    // which error each is, by the engine's list (sampler.h SP_ERRORS), never by its words
    expect(thrown(() => s.warp([1, NaN, 2, 3]))).toMatchObject({ code: 9, reason: 'logits', kind: 'format' });
    expect(thrown(() => s.warp([-Infinity, -Infinity, -Infinity, -Infinity]))).toMatchObject({ code: 4, reason: 'state', kind: 'state' });
    expect(thrown(() => s.warp([1, 2, 3, 4], [], { logit_bias: [[0, -Infinity], [1, -Infinity], [2, -Infinity], [3, -Infinity]] })))
      .toMatchObject({ code: 8, reason: 'no_token', kind: 'state' });
    expect(thrown(() => s.warp([1, 2, 3, 4], [0, 4], { repetition_penalty: 1.5 }))).toMatchObject({ code: 2, reason: 'arg', kind: 'arg' });
    const r = s.warp([3.4e38, -3.4e38, 0, 1e-45], [0, 0, 0], { temperature: 1e-30, repetition_penalty: 1e-30 });
    expect(r.probs.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 6);
    expect(() => s.draw(1)).toThrow(RangeError);
    expect(() => s.draw(NaN)).toThrow(RangeError);
    expect(() => s.sampleCounts(0, 1)).toThrow(RangeError);
    s.free();
  });
});

const NATIVE_MISSING = `${NATIVE} is missing (./build.sh)`;
describe.skipIf(skipWithout(haveNative, NATIVE_MISSING))('the native CLI', () => {
  it('prints the same messages as the WASM CLI, with status 1 for files and 2 for arguments', async () => {
    need(haveNative, NATIVE_MISSING);
    for (const [, make, expected] of [...BAD_MODELS.slice(0, 6), ...BAD_MODELS.slice(-6)]) {
      const file = fileOf(make());
      const native = runNative(['generate', '--model', file, '--steps', '1']);
      const wasm = await runWasm('simd', ['generate', '--model', file, '--steps', '1']);
      expect(native.status).toBe(1);
      expect(native.stderr).toContain(expected);
      expect(native.stderr).toBe(wasm.stderr);
    }
    const model = fileOf(tiny);
    fs.writeFileSync(path.join(path.dirname(model), 'tokenizer.bin'), tinyTok);
    for (const [args, message] of [
      [['--temperature', 'nan'], 'sampler: --temperature must be a finite number >= 0 (got nan)\n'],
      [['--top-p', '1.5'], 'sampler: --top-p must be in (0, 1] (got 1.5)\n'],
      [['--top-k', 'x'], "sampler: --top-k: 'x' is not an integer\n"],
      [['--logit-bias', '4000000000=1'], "sampler: --logit-bias: '4000000000' is not a token id\n"],
      [['--logit-bias', '99=1'], 'sampler: --logit-bias token 99 is outside the vocabulary (0..11)\n'],
      [['--seed', '18446744073709551616'], "sampler: --seed: '18446744073709551616' is not an integer in 0..18446744073709551615\n"],
      [['--steps', '-1'], "sampler: --steps: '-1' is not an integer in 0..100000000\n"],
      [['--prompt', 'a\tb'], "sampler: prompt: the character '\\t' (byte offset 1) is not in the model's vocabulary\n"],
      [['--temperature', 'a\nb'], "sampler: --temperature: 'a\\nb' is not a number\n"],
    ]) {
      const native = runNative(['generate', '--model', model, ...args]);
      const wasm = await runWasm('scalar', ['generate', '--model', model, ...args]);
      expect(native.status).toBe(2);
      expect(wasm.status).toBe(2);
      expect(native.stderr).toBe(message);
      expect(wasm.stderr).toBe(message);
    }
  });
});
