// GGUF models, byte for byte across the builds: the native CLI, the WASM
// SIMD CLI and the WASM scalar CLI print the same logits and generate the
// same text for a model of every weight type (F32, F16, BF16, Q8_0, Q4_0,
// Q4_K, Q6_K), the llama and qwen2 architectures, Llama 3's RoPE factors;
// stories260K converted to GGUF prints its llama2.c checkpoint's logits;
// and the engine refuses a file larger than its memory before reading it.
// The files are the oracle's (tests/helpers/gguf-files.js): llama.cpp reads
// the same bytes in tests/oracle.
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { engine, FIXTURES, needFixtures, runNative, sameEverywhere, skipWithoutFixtures } from './helpers.js';
import { ggufMissing, ggufPath, registerGguf } from '../helpers/gguf-files.js';
import { llamaTensors, modelMetadata, randomWeights, vocabMetadata } from '../helpers/gguf-models.js';
import { writeGguf } from '../helpers/gguf.js';
import { TOKEN, qwen2Vocab } from '../helpers/vocab.js';

const TYPES = ['f32', 'f16', 'bf16', 'q8_0', 'q4_0', 'q4_k', 'q6_k'];
const FILES = [...TYPES.map((t) => `tiny-spm-${t}`), 'tiny-qwen2-f32', 'tiny-llama3-f32', 'stories260K-f32'];

/** The file's path, or null (and a skip, or under CI a failure) when the
 * fixtures it is made from are missing. @param {string} name */
function file(name) {
  const why = ggufMissing(name);
  if (!why) return ggufPath(name);
  if (!skipWithoutFixtures) needFixtures();
  console.warn(`gguf: ${name} skipped: ${why}`);
  return null;
}

/** Runs args natively and in both WASM builds (helpers.js); expects a
 * success and one output (and the same notes on stderr: speculative
 * decoding's acceptance rate). */
async function sameText(args) {
  const native = await sameEverywhere(args);
  expect(native.status, native.stderr).toBe(0);
  return native.stdout.toString();
}

describe('GGUF models: native = WASM SIMD = WASM scalar, byte for byte', () => {
  it.each(FILES)('%s: logits and a sampled text', async (name) => {
    const f = file(name);
    if (!f) return;
    const logits = JSON.parse(await sameText(['logits', '--model', f, '--tokens', '1,29,450,3,17,300,2']));
    expect(logits.logits.length).toBe(7);
    expect(logits.logits[6].every(Number.isFinite)).toBe(true);
    const text = await sameText(['generate', '--model', f, '--prompt', 'Once upon a time', '--steps', '12',
      '--seed', '11', '--temperature', '0.9', '--top-p', '0.95', '--json']);
    expect(text.trim().split('\n').length).toBeGreaterThan(1);
  }, 120_000);

  it('speculative decoding verifies with batched passes of the same bits: greedy, its text is plain greedy\'s', async () => {
    const target = file('tiny-spm-q4_k'), draft = file('tiny-spm-q8_0');
    if (!target || !draft) return;
    const greedy = ['--prompt', 'The cat sat', '--steps', '20', '--seed', '3', '--temperature', '0'];
    const plain = await sameText(['generate', '--model', target, ...greedy]);
    const spec = await sameText(['generate', '--model', target, '--draft', draft, '--speculate', '4', ...greedy]);
    expect(spec).toBe(plain);
  }, 120_000);
});

describe('a padded vocabulary (Qwen2\'s 151 936 rows)', () => {
  // Qwen2's output has 151 936 rows and its tokenizer 151 669 tokens;
  // llama.cpp's converter fills the list up to the rows with "[PAD<id>]"
  // tokens of type UNUSED, and that is what a Qwen2 GGUF holds
  const ROWS = 151936;
  registerGguf('tiny-qwen2-padded-f32', "tiny-qwen2's shape and vocabulary padded to 151 936 tokens with [PAD<id>] unused ones", () => {
    const v = qwen2Vocab();
    const tokens = [...v.tokens], types = [...v.types];
    for (let i = tokens.length; i < ROWS; i++) {
      tokens.push(`[PAD${i}]`);
      types.push(TOKEN.UNUSED);
    }
    const shape = { dim: 64, ffn: 128, layers: 2, heads: 4, kvHeads: 2, ctx: 256, eps: 1e-6, ropeBase: 1000000 };
    const w = randomWeights(shape, ROWS, { seed: 13, tied: true, biases: true });
    return writeGguf({
      metadata: { ...modelMetadata('qwen2', shape, ROWS, 'tiny-qwen2-padded'), ...vocabMetadata({ ...v, tokens, types }) },
      tensors: llamaTensors(w, shape, ROWS),
    });
  });

  it('loads with every row\'s logit, encodes as the unpadded tokenizer does, never to a pad token; the same bytes in every build', async () => {
    const padded = ggufPath('tiny-qwen2-padded-f32'), plain = file('tiny-qwen2-f32');
    if (!plain) return;
    const logits = JSON.parse(await sameText(['logits', '--model', padded, '--tokens', '151643,9707,151935']));
    expect(logits.logits.map((/** @type {number[]} */ l) => l.length)).toEqual([ROWS, ROWS, ROWS]);
    expect(logits.logits.every((/** @type {number[]} */ l) => l.every(Number.isFinite))).toBe(true);
    const text = 'Hello world, <|im_start|>user\n123 456 [PAD151700] x<|im_end|>';
    const ids = JSON.parse(await sameText(['encode', '--tokenizer', padded, '--text', text])).ids;
    const want = JSON.parse(runNative(['encode', '--tokenizer', plain, '--text', text]).stdout.toString()).ids;
    expect(ids).toEqual(want);
    expect(Math.max(...ids)).toBeLessThan(qwen2Vocab().tokens.length);
    const gen = await sameText(['generate', '--model', padded, '--prompt', 'Hello', '--steps', '8', '--seed', '5', '--json']);
    expect(gen.trim().split('\n').length).toBeGreaterThan(1);
  }, 180_000);
});

describe('stories260K as GGUF', () => {
  it('prints the llama2.c checkpoint\'s logits, byte for byte (F32 weights, the same kernels)', async () => {
    const f = file('stories260K-f32');
    if (!f) return;
    const tokens = ['--tokens', '1,5,9,100,200,300,400,511'];
    const gguf = runNative(['logits', '--model', f, ...tokens]);
    const ckpt = runNative(['logits', '--model', path.join(FIXTURES, 'stories260K.bin'), ...tokens]);
    expect(gguf.status).toBe(0);
    expect(gguf.stdout.equals(ckpt.stdout)).toBe(true);
  });
});

describe('memory', () => {
  it.each(['simd', 'scalar'])('%s: a file larger than the engine\'s memory is refused before it is read, with its size', async (flavor) => {
    const e = await engine(/** @type {'simd' | 'scalar'} */ (flavor));
    expect(e.x.api_memory_limit()).toBe(2 ** 31);
    expect(e.x.api_model_check_size(1e9)).toBe(1);
    expect(e.x.api_model_check_size(2.4e9)).toBe(0);
    expect(e.lastError()).toBe('model: the file is 2400 MB (2400000000 bytes); this engine\'s memory holds at most '
      + '2147 MB, and a model needs 134 MB of it beside its file');
    expect(e.x.api_model_check_size(2 ** 31 - 100e6)).toBe(0);
  });
});
