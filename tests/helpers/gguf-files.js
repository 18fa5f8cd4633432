// @ts-check
/**
 * The test GGUF files by name, written on first use into build/gguf/ (and
 * rewritten when the code that makes them changes): every test, ours and
 * llama.cpp's, reads the same bytes.
 *
 *   import { ggufPath, ggufBytes, GGUF_FILES } from '../helpers/gguf-files.js';
 *   const file = ggufPath('stories260K-f32');      // build/gguf/stories260K-f32.gguf
 *
 * Names (GGUF_FILES says what each is):
 *   stories260K-{f32,f16,bf16,q8_0}   llama2.c's stories260K, converted (needs ../shared)
 *   tiny-spm-{f32,f16,bf16,q8_0,q4_0,q4_k,q6_k}[-deq]   random weights, Llama 2's SentencePiece vocabulary's first 4096 pieces (needs ../shared), 256 wide: every type's blocks fit; the output matrix F32;
 *       -deq: the same weights dequantized, in F32
 *   tiny-llama3-f32   random weights, Llama 3's vocabulary (llama-bpe), Llama 3's RoPE scaling (rope_freqs)
 *   tiny-qwen2-f32    random weights, qwen2 architecture (Q/K/V biases), Qwen2's vocabulary
 *   tiny-gpt2-f32, tiny-smollm-f32   random weights, GPT-2's vocabulary with the gpt-2 / smollm pre-tokenizer
 *   ids-{spm,llama-bpe,gpt-2,smollm,qwen2}   the token-id models (llama.cpp's tokenizer, read back; idModel)
 *   bench32k-{f32,q8_0,q4_0,q4_k}   the bench's stories15M-shaped model (build/bench/model32k.bin), as GGUF
 *   bench512-{f32,q8_0}   the same shape with a 512-token vocabulary (build/bench/model.bin), as GGUF
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { roundTrip, writeGguf } from './gguf.js';
import { idModel, llamaTensors, modelMetadata, randomWeights, readLlama2c, syntheticVocab, vocabMetadata } from './gguf-models.js';
import { LLAMA2C_DIR, gpt2Vocab, llama3Vocab, qwen2Vocab, spmAvailable, spmVocab } from './vocab.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(HERE, '../..');
export const GGUF_DIR = path.join(ROOT, 'build/gguf');
const SOURCES = ['gguf.js', 'gguf-models.js', 'vocab.js', 'gguf-files.js'].map((f) => path.join(HERE, f));

/** @typedef {import('./gguf.js').TensorType} TensorType */

/** @param {string} t */
const TYPE = (t) => /** @type {TensorType} */ (t.toUpperCase());

/** Llama 3.1's RoPE scaling as GGUF holds it: one factor per rotated pair (rope_freqs.weight). @param {number} headDim @param {number} base */
export function llama3RopeFactors(headDim, base, { factor = 32, low = 1, high = 4, original = 8192 } = {}) {
  const out = new Float32Array(headDim / 2);
  for (let i = 0; i < headDim / 2; i++) {
    const freq = 1 / base ** ((2 * i) / headDim);
    const wavelen = (2 * Math.PI) / freq;
    if (wavelen < original / high) out[i] = 1;
    else if (wavelen > original / low) out[i] = factor;
    else {
      const smooth = (original / wavelen - low) / (high - low);
      out[i] = 1 / ((1 - smooth) / factor + smooth);
    }
  }
  return out;
}

/**
 * What each name is, and how to make it: `needs` says which fixture it
 * needs (a test without it says so), `make` returns the file's bytes.
 * @type {Record<string, {what: string, needs?: 'llama2c' | 'bench' | 'bench512', make: () => Uint8Array}>}
 */
export const GGUF_FILES = {};

const LLAMA2C_TYPES = ['f32', 'f16', 'bf16', 'q8_0'];
for (const t of LLAMA2C_TYPES) {
  GGUF_FILES[`stories260K-${t}`] = {
    what: `llama2.c's stories260K (5 layers, 64 wide, 512 tokens), ${t.toUpperCase()} weights where the rows fit the blocks`,
    needs: 'llama2c',
    make: () => fromLlama2cFile(path.join(LLAMA2C_DIR, 'stories260K.bin'), 'stories260K', TYPE(t), spmVocab(512)),
  };
}

const SPM_SHAPE = { dim: 256, ffn: 512, layers: 2, heads: 4, kvHeads: 2, ctx: 256 };
/** tiny-spm's vocabulary: Llama 2's first 4096 pieces (its byte tokens among them; small files load fast).
 * Its output matrix stays F32 in every type: llama.cpp's logits are then its hidden state times that
 * matrix exactly (the oracle reads the hidden state), and every quantized product is inside the layers. */
const SPM_VOCAB = 4096;
for (const t of ['f32', 'f16', 'bf16', 'q8_0', 'q4_0', 'q4_k', 'q6_k']) {
  GGUF_FILES[`tiny-spm-${t}`] = {
    what: `random weights (2 layers, 256 wide, grouped-query 4/2 heads), Llama 2's first 4096 pieces, ${t.toUpperCase()}`,
    needs: 'llama2c',
    make: () => {
      const vocab = spmVocab(SPM_VOCAB);
      const w = randomWeights(SPM_SHAPE, vocab.tokens.length, { seed: 11, peak: 24 });
      return writeGguf({
        metadata: { ...modelMetadata('llama', SPM_SHAPE, vocab.tokens.length, `tiny-spm-${t}`), ...vocabMetadata(vocab) },
        tensors: llamaTensors(w, SPM_SHAPE, vocab.tokens.length, { type: TYPE(t), outputType: 'F32' }),
      });
    },
  };
}

// The same weights as each quantized tiny-spm, dequantized into an F32
// file: llama.cpp on the two differs only by what its quantized path does
// to the activations (the layouts are checked by their agreement).
for (const t of ['f16', 'bf16', 'q8_0', 'q4_0', 'q4_k', 'q6_k']) {
  GGUF_FILES[`tiny-spm-${t}-deq`] = {
    what: `tiny-spm-${t}'s weights dequantized, in F32`,
    needs: 'llama2c',
    make: () => {
      const vocab = spmVocab(SPM_VOCAB);
      const w = randomWeights(SPM_SHAPE, vocab.tokens.length, { seed: 11, peak: 24 });
      const tensors = llamaTensors(w, SPM_SHAPE, vocab.tokens.length, { type: TYPE(t), outputType: 'F32' })
        .map((x) => ({ ...x, type: /** @type {TensorType} */ ('F32'), data: roundTrip(x.type ?? 'F32', Float32Array.from(x.data)) }));
      return writeGguf({
        metadata: { ...modelMetadata('llama', SPM_SHAPE, vocab.tokens.length, `tiny-spm-${t}-deq`), ...vocabMetadata(vocab) },
        tensors,
      });
    },
  };
}

const SMALL = { dim: 64, ffn: 128, layers: 2, heads: 4, kvHeads: 2, ctx: 256 };

GGUF_FILES['tiny-llama3-f32'] = {
  what: "random weights (2 layers, 64 wide), Llama 3's vocabulary and pre-tokenizer, RoPE base 500 000 with Llama 3's scaling (rope_freqs), tied embeddings",
  make: () => {
    const vocab = llama3Vocab();
    const shape = { ...SMALL, ropeBase: 500000 };
    const w = randomWeights(shape, vocab.tokens.length, { seed: 12, tied: true });
    const tensors = llamaTensors(w, shape, vocab.tokens.length);
    tensors.push({ name: 'rope_freqs.weight', shape: [shape.dim / shape.heads / 2], data: llama3RopeFactors(shape.dim / shape.heads, shape.ropeBase) });
    return writeGguf({ metadata: { ...modelMetadata('llama', shape, vocab.tokens.length, 'tiny-llama3'), ...vocabMetadata(vocab) }, tensors });
  },
};

GGUF_FILES['tiny-qwen2-f32'] = {
  what: "random weights (2 layers, 64 wide), qwen2 architecture with Q/K/V biases, Qwen2's vocabulary and pre-tokenizer, RMS epsilon 1e-6, RoPE base 1 000 000, tied embeddings",
  make: () => {
    const vocab = qwen2Vocab();
    const shape = { ...SMALL, eps: 1e-6, ropeBase: 1000000 };
    const w = randomWeights(shape, vocab.tokens.length, { seed: 13, tied: true, biases: true });
    return writeGguf({
      metadata: { ...modelMetadata('qwen2', shape, vocab.tokens.length, 'tiny-qwen2'), ...vocabMetadata(vocab) },
      tensors: llamaTensors(w, shape, vocab.tokens.length),
    });
  },
};

for (const pre of ['gpt2', 'smollm']) {
  GGUF_FILES[`tiny-${pre}-f32`] = {
    what: `random weights (2 layers, 64 wide), GPT-2's vocabulary with the ${pre === 'gpt2' ? 'gpt-2' : 'smollm'} pre-tokenizer, a separate output matrix`,
    make: () => {
      const vocab = gpt2Vocab(pre === 'gpt2' ? 'gpt-2' : 'smollm');
      const w = randomWeights(SMALL, vocab.tokens.length, { seed: 14 });
      return writeGguf({
        metadata: { ...modelMetadata('llama', SMALL, vocab.tokens.length, `tiny-${pre}`), ...vocabMetadata(vocab) },
        tensors: llamaTensors(w, SMALL, vocab.tokens.length),
      });
    },
  };
}

/** the vocabularies of the tokenization checks, by pre-tokenizer (SentencePiece: spm) */
/** @type {Record<string, () => import('./gguf-models.js').Vocab>} */
export const VOCABS = {
  spm: () => spmVocab(),
  'llama-bpe': () => llama3Vocab(),
  'gpt-2': () => gpt2Vocab('gpt-2'),
  smollm: () => gpt2Vocab('smollm'),
  qwen2: () => qwen2Vocab(),
};
for (const [name, vocab] of Object.entries(VOCABS)) {
  GGUF_FILES[`ids-${name}`] = {
    what: `the token-id model over the ${name} vocabulary (gguf-models.js: idModel): llama.cpp's tokens of a text, read back`,
    ...(name === 'spm' ? { needs: /** @type {const} */ ('llama2c') } : {}),
    make: () => writeGguf(idModel(vocab())),
  };
}

for (const t of ['f32', 'q8_0', 'q4_0', 'q4_k']) {
  GGUF_FILES[`bench32k-${t}`] = {
    what: `the bench's stories15M-shaped model with the 32 000-token vocabulary (build/bench/model32k.bin), ${t.toUpperCase()}`,
    needs: 'bench',
    make: () => fromLlama2cFile(path.join(ROOT, 'build/bench/model32k.bin'), `bench32k-${t}`, TYPE(t), spmAvailable() ? spmVocab() : null),
  };
}

for (const t of ['f32', 'q8_0']) {
  GGUF_FILES[`bench512-${t}`] = {
    what: `the bench's stories15M-shaped model with a 512-token vocabulary (build/bench/model.bin), ${t.toUpperCase()}`,
    needs: 'bench512',
    make: () => fromLlama2cFile(path.join(ROOT, 'build/bench/model.bin'), `bench512-${t}`, TYPE(t), null),
  };
}

/**
 * A llama2.c checkpoint as a `llama` GGUF: 2-D weights in `type` (or its
 * fallback where the rows do not fit its blocks: stories260K's FFN is 172
 * wide), norms in F32, the classifier shared when the checkpoint shares it.
 * @param {string} file @param {string} name @param {TensorType} type
 * @param {import('./gguf-models.js').Vocab | null} vocab  null (or not the model's size): a synthetic one
 */
export function fromLlama2cFile(file, name, type, vocab) {
  const { shape, nVocab, weights } = readLlama2c(new Uint8Array(fs.readFileSync(file)));
  const v = vocab && vocab.tokens.length === nVocab ? vocab : syntheticVocab(nVocab);
  return writeGguf({
    metadata: { ...modelMetadata('llama', shape, nVocab, name), ...vocabMetadata(v) },
    tensors: llamaTensors(weights, shape, nVocab, { type }),
  });
}

/**
 * Adds a test GGUF made by a test (a logits model, a hostile file): from
 * then on ggufPath(name) writes and finds it like the others.
 * @param {string} name @param {string} what @param {() => Uint8Array} make
 */
export function registerGguf(name, what, make) {
  GGUF_FILES[name] = { what, make };
  const out = path.join(GGUF_DIR, `${name}.gguf`);
  if (fs.existsSync(out)) fs.rmSync(out); // made anew: the test's bytes, not an older test's
}

/** Why a file cannot be made here ('' when it can). @param {string} name */
export function ggufMissing(name) {
  const f = GGUF_FILES[name];
  if (!f) throw new Error(`no test GGUF named ${name}`);
  if (f.needs === 'llama2c' && !fs.existsSync(path.join(LLAMA2C_DIR, 'stories260K.bin'))) return `${LLAMA2C_DIR} is missing`;
  if (f.needs === 'bench' && !fs.existsSync(path.join(ROOT, 'build/bench/model32k.bin'))) return 'build/bench/model32k.bin is missing (bench/run.sh writes it)';
  if (f.needs === 'bench512' && !fs.existsSync(path.join(ROOT, 'build/bench/model.bin'))) return 'build/bench/model.bin is missing (bench/run.sh writes it)';
  return '';
}

/**
 * The path of a test GGUF, written now if it is missing or older than the
 * code that makes it.
 * @param {string} name
 */
export function ggufPath(name) {
  const f = GGUF_FILES[name];
  if (!f) throw new Error(`no test GGUF named ${name}`);
  const why = ggufMissing(name);
  if (why) throw new Error(`cannot write ${name}.gguf: ${why}`);
  const out = path.join(GGUF_DIR, `${name}.gguf`);
  const newest = Math.max(...SOURCES.map((s) => fs.statSync(s).mtimeMs));
  if (!fs.existsSync(out) || fs.statSync(out).mtimeMs < newest) {
    fs.mkdirSync(GGUF_DIR, { recursive: true });
    const bytes = f.make();
    fs.writeFileSync(`${out}.tmp`, bytes);
    fs.renameSync(`${out}.tmp`, out);
  }
  return out;
}

/** The bytes of a test GGUF. @param {string} name */
export function ggufBytes(name) {
  return new Uint8Array(fs.readFileSync(ggufPath(name)));
}
