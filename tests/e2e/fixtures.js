// Test fixtures made on the fly: random llama2.c checkpoints (legacy
// float32 format) of any vocabulary and context size.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(here, '../..');
export const DIST = path.join(ROOT, 'dist');
export const MODELS = path.join(ROOT, 'models');
/** the llama2.c fixtures: $LLAMA2C_FIXTURES (as the Python tests read it), else ../shared/fixtures/llama2c beside the repository */
export const FIXTURES = process.env.LLAMA2C_FIXTURES || path.resolve(ROOT, '../shared/fixtures/llama2c');
export const LLAMA_TOKENIZER = path.join(FIXTURES, 'tokenizer.bin');
export const haveLlamaTokenizer = fs.existsSync(LLAMA_TOKENIZER);
/** A CI run (CI=true): there a missing llama2.c fixture fails the tests
 * that need it; elsewhere they skip. */
export const IN_CI = /^(1|true|yes)$/i.test(process.env.CI ?? '');
/** Skip the tests that need the Llama 2 tokenizer (missing, not CI). */
export const skipWithoutLlamaTokenizer = !haveLlamaTokenizer && !IN_CI;

/**
 * Fails, saying which, when a llama2.c fixture file is missing (a test
 * runs without its fixture only under CI, to fail here).
 * @param {string} file
 */
export function needFixture(file) {
  if (!fs.existsSync(file)) {
    throw new Error(`${file} is missing: the llama2.c fixtures (../shared/fixtures/llama2c) are required under CI=true`);
  }
}
export const haveTransformer = fs.existsSync(path.join(MODELS, 'transformer.bin'))
  && fs.existsSync(path.join(MODELS, 'transformer_tokenizer.bin'));

/**
 * Whether the tests that need something missing skip: outside CI they do,
 * and say once which and why; under CI=true they run, and fail where they
 * call need() — a missing prerequisite is never a silent pass.
 * @param {boolean} have @param {string} what  what is missing, and how to get it
 */
export function skipWithout(have, what) {
  if (have || IN_CI) return false;
  console.warn(`skipped (not under CI): ${what}`);
  return true;
}

/**
 * Fails, saying what is missing (a test that needs it runs without it only
 * under CI=true, to fail here).
 * @param {boolean} have @param {string} what
 */
export function need(have, what) {
  if (!have) throw new Error(`${what}: required under CI=true`);
}

const TRANSFORMER_MISSING = 'models/transformer.bin and models/transformer_tokenizer.bin are missing (the tiny transformer: models/train_transformer.py)';
/** Skip the tests that need the shipped tiny transformer: missing, and not CI. */
export const skipWithoutTransformer = skipWithout(haveTransformer, TRANSFORMER_MISSING);
/** Fails when the shipped tiny transformer is missing (under CI=true). */
export const needTransformer = () => need(haveTransformer, TRANSFORMER_MISSING);

/**
 * A random llama2.c checkpoint: header (dim, hidden_dim, n_layers, n_heads,
 * n_kv_heads, vocab_size, seq_len) then the float32 weights in llama2.c's
 * order, with the classifier shared with the embedding.
 * @param {{vocab?: number, seqLen?: number, dim?: number, hidden?: number, layers?: number, heads?: number, kvHeads?: number, seed?: number, scale?: number}} [o]
 * @returns {Uint8Array}
 */
export function randomCheckpoint({ vocab = 32000, seqLen = 32, dim = 8, hidden = 16, layers = 1, heads = 2, kvHeads = 2, seed = 1, scale = 0.6 } = {}) {
  const headSize = dim / heads;
  const kvDim = kvHeads * headSize;
  const counts = [
    vocab * dim, // token_embedding
    layers * dim, // rms_att
    layers * dim * dim, // wq
    layers * kvDim * dim, // wk
    layers * kvDim * dim, // wv
    layers * dim * dim, // wo
    layers * dim, // rms_ffn
    layers * hidden * dim, // w1
    layers * dim * hidden, // w2
    layers * hidden * dim, // w3
    dim, // rms_final
    seqLen * (headSize / 2), // freq_cis_real
    seqLen * (headSize / 2), // freq_cis_imag
  ];
  const total = counts.reduce((a, b) => a + b, 0);
  const buf = new ArrayBuffer(28 + 4 * total);
  new Int32Array(buf, 0, 7).set([dim, hidden, layers, heads, kvHeads, vocab, seqLen]);
  const w = new Float32Array(buf, 28, total);
  let s = seed >>> 0;
  for (let i = 0; i < total; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    w[i] = (s / 2 ** 32 - 0.5) * 2 * scale;
  }
  // the RMS norm weights: 1, as a trained model's are near 1
  let off = counts[0];
  w.fill(1, off, off + counts[1]);
  off += counts[1] + counts[2] + counts[3] + counts[4] + counts[5];
  w.fill(1, off, off + counts[6]);
  off += counts[6] + counts[7] + counts[8] + counts[9];
  w.fill(1, off, off + counts[10]);
  return new Uint8Array(buf);
}

/**
 * A llama2.c tokenizer.bin with the given pieces (score 0 each).
 * @param {string[]} pieces
 */
export function makeTokenizer(pieces) {
  const blobs = pieces.map((p) => Buffer.from(p, 'utf8'));
  const size = 4 + blobs.reduce((a, b) => a + 8 + b.length, 0);
  const out = Buffer.alloc(size);
  let o = out.writeInt32LE(Math.max(...blobs.map((b) => b.length)), 0);
  for (const b of blobs) {
    o = out.writeFloatLE(0, o);
    o = out.writeInt32LE(b.length, o);
    o += b.copy(out, o);
  }
  return new Uint8Array(out);
}

/** A small character tokenizer like the shipped transformer's: <unk>, <s>, </s>, then characters. */
export function charTokenizer(chars = '\n abcdefghijklmnopqrstuvwxyz.,') {
  return makeTokenizer(['<unk>', '<s>', '</s>', ...chars]);
}
