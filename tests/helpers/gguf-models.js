// @ts-check
/**
 * The GGUF files the tests compare the engine and llama.cpp on, made by the
 * writer (gguf.js):
 *
 *  - fromLlama2c: a llama2.c checkpoint (stories260K, the bench's model) as a
 *    `llama` GGUF.  No Q/K permutation: llama2.c already rotates the pairs
 *    (2i, 2i+1) as llama.cpp's LLAMA_ROPE_TYPE_NORM does.
 *  - randomModel: tiny random weights around a real vocabulary (`llama` or
 *    `qwen2`, the latter with Q/K/V biases).
 *  - logitsModel: a model whose next-token logits are exactly the ones given,
 *    at every position, so llama.cpp's own sampler chain runs on them.
 *  - idModel: a model whose last hidden state spells out the ids of the
 *    last 62 input tokens (llama.cpp's tokenizer, read back through an
 *    embedding request: wllama has no tokenize call).
 *
 * Vocabularies (vocab.js) give the tokenizer.* metadata.
 */
import { GGUF, arr, f32, u32 } from './gguf.js';

/** @typedef {import('./gguf.js').TensorType} TensorType */
/** @typedef {import('./gguf.js').TensorSpec} TensorSpec */
/** @typedef {import('./gguf.js').MetaValue} MetaValue */

/**
 * A vocabulary as GGUF's tokenizer.* keys hold it.
 * @typedef {Object} Vocab
 * @property {'llama' | 'gpt2'} model  tokenizer.ggml.model: SentencePiece (scores, byte fallback) or byte-level BPE (merges)
 * @property {string} [pre]  tokenizer.ggml.pre (BPE's pre-tokenizer: llama-bpe, smollm, qwen2, gpt-2)
 * @property {string[]} tokens
 * @property {number[]} [scores]
 * @property {number[]} types  1 normal, 2 unknown, 3 control, 4 user-defined, 5 unused, 6 byte
 * @property {string[]} [merges]
 * @property {number} [bos] @property {number} [eos] @property {number} [unk] @property {number} [pad]
 * @property {boolean} [addBos] @property {boolean} [addEos] @property {boolean} [addSpacePrefix]
 * @property {string} [chatTemplate]
 */

/**
 * The shape of a Llama-family model.
 * @typedef {Object} Shape
 * @property {number} dim  @property {number} ffn  @property {number} layers
 * @property {number} heads  @property {number} kvHeads  @property {number} [ctx]
 * @property {number} [eps]  @property {number} [ropeBase]
 */

/** tokenizer.* metadata of a vocabulary. @param {Vocab} v @returns {Record<string, MetaValue>} */
export function vocabMetadata(v) {
  /** @type {Record<string, MetaValue>} */
  const m = {
    'tokenizer.ggml.model': v.model,
    'tokenizer.ggml.tokens': v.tokens,
    'tokenizer.ggml.token_type': arr(GGUF.INT32, v.types),
  };
  if (v.pre) m['tokenizer.ggml.pre'] = v.pre;
  if (v.scores) m['tokenizer.ggml.scores'] = arr(GGUF.FLOAT32, v.scores);
  if (v.merges) m['tokenizer.ggml.merges'] = v.merges;
  if (v.bos !== undefined) m['tokenizer.ggml.bos_token_id'] = u32(v.bos);
  if (v.eos !== undefined) m['tokenizer.ggml.eos_token_id'] = u32(v.eos);
  if (v.unk !== undefined) m['tokenizer.ggml.unknown_token_id'] = u32(v.unk);
  if (v.pad !== undefined) m['tokenizer.ggml.padding_token_id'] = u32(v.pad);
  if (v.addBos !== undefined) m['tokenizer.ggml.add_bos_token'] = v.addBos;
  if (v.addEos !== undefined) m['tokenizer.ggml.add_eos_token'] = v.addEos;
  if (v.addSpacePrefix !== undefined) m['tokenizer.ggml.add_space_prefix'] = v.addSpacePrefix;
  if (v.chatTemplate) m['tokenizer.chat_template'] = v.chatTemplate;
  return m;
}

/**
 * general.* and ARCH.* metadata of a Llama-family model.
 * @param {'llama' | 'qwen2'} arch @param {Shape} s @param {number} nVocab @param {string} name
 * @returns {Record<string, MetaValue>}
 */
export function modelMetadata(arch, s, nVocab, name) {
  return {
    'general.architecture': arch,
    'general.name': name,
    [`${arch}.context_length`]: u32(s.ctx ?? 512),
    [`${arch}.embedding_length`]: u32(s.dim),
    [`${arch}.block_count`]: u32(s.layers),
    [`${arch}.feed_forward_length`]: u32(s.ffn),
    [`${arch}.attention.head_count`]: u32(s.heads),
    [`${arch}.attention.head_count_kv`]: u32(s.kvHeads),
    [`${arch}.attention.layer_norm_rms_epsilon`]: f32(s.eps ?? 1e-5),
    [`${arch}.rope.freq_base`]: f32(s.ropeBase ?? 10000),
    [`${arch}.rope.dimension_count`]: u32(s.dim / s.heads),
    [`${arch}.vocab_size`]: u32(nVocab),
  };
}

/**
 * Which type a 2-D weight gets: `type`, or its fallback when the rows do
 * not divide into its blocks (as llama.cpp's quantizer falls back: a
 * K-quant on rows of 288 becomes a 32-block type).
 * @param {TensorType} type @param {number} rowLength
 * @returns {TensorType}
 */
export function weightType(type, rowLength) {
  const fallback = /** @type {Record<string, TensorType>} */ ({ Q4_K: 'Q4_0', Q6_K: 'Q8_0', Q4_0: 'F16', Q8_0: 'F16' });
  /** @type {TensorType} */
  let t = type;
  const blocks = /** @type {Record<string, number>} */ ({ Q4_K: 256, Q6_K: 256, Q4_0: 32, Q8_0: 32 });
  while (blocks[t] && rowLength % blocks[t] !== 0) t = fallback[t];
  return t;
}

/**
 * The tensors of a Llama-family model from its weights, each 2-D weight in
 * `type` (or its fallback), the norms and biases in F32.  Weights are given
 * row-major with `out` rows of `in` values (llama2.c's and PyTorch's layout),
 * which is ggml's [in, out].
 * @param {{embed: Float32Array, output?: Float32Array | null, norm: Float32Array, layers: Array<Record<string, Float32Array>>}} w
 *   layers[l]: attn_norm, attn_q, attn_k, attn_v, attn_output, ffn_norm, ffn_gate, ffn_down, ffn_up (and attn_q/k/v.bias for qwen2)
 * @param {Shape} s @param {number} nVocab
 * @param {{type?: TensorType, embedType?: TensorType, outputType?: TensorType}} [types]
 * @returns {TensorSpec[]}
 */
export function llamaTensors(w, s, nVocab, { type = 'F32', embedType, outputType } = {}) {
  const kvDim = (s.dim / s.heads) * s.kvHeads;
  /** @param {string} name @param {Float32Array} data @param {number} inN @param {number} outN @param {TensorType} t */
  const mat = (name, data, inN, outN, t) => ({ name, shape: [inN, outN], type: weightType(t, inN), data });
  /** @type {TensorSpec[]} */
  const out = [mat('token_embd.weight', w.embed, s.dim, nVocab, embedType ?? type)];
  out.push({ name: 'output_norm.weight', shape: [s.dim], data: w.norm });
  if (w.output) out.push(mat('output.weight', w.output, s.dim, nVocab, outputType ?? type));
  w.layers.forEach((L, l) => {
    const p = `blk.${l}.`;
    out.push({ name: `${p}attn_norm.weight`, shape: [s.dim], data: L.attn_norm });
    out.push(mat(`${p}attn_q.weight`, L.attn_q, s.dim, s.dim, type));
    out.push(mat(`${p}attn_k.weight`, L.attn_k, s.dim, kvDim, type));
    out.push(mat(`${p}attn_v.weight`, L.attn_v, s.dim, kvDim, type));
    if (L['attn_q.bias']) {
      out.push({ name: `${p}attn_q.bias`, shape: [s.dim], data: L['attn_q.bias'] });
      out.push({ name: `${p}attn_k.bias`, shape: [kvDim], data: L['attn_k.bias'] });
      out.push({ name: `${p}attn_v.bias`, shape: [kvDim], data: L['attn_v.bias'] });
    }
    out.push(mat(`${p}attn_output.weight`, L.attn_output, s.dim, s.dim, type));
    out.push({ name: `${p}ffn_norm.weight`, shape: [s.dim], data: L.ffn_norm });
    out.push(mat(`${p}ffn_gate.weight`, L.ffn_gate, s.dim, s.ffn, type));
    out.push(mat(`${p}ffn_down.weight`, L.ffn_down, s.ffn, s.dim, type));
    out.push(mat(`${p}ffn_up.weight`, L.ffn_up, s.dim, s.ffn, type));
  });
  return out;
}

// -------------------------------------------------------------- llama2.c checkpoints

/**
 * A llama2.c checkpoint (legacy float32 format: 7 int32 of header, then the
 * weights; a negative vocab_size means a separate classifier) as weights.
 * @param {Uint8Array} bin
 */
export function readLlama2c(bin) {
  const v = new DataView(bin.buffer, bin.byteOffset, bin.byteLength);
  const [dim, ffn, layers, heads, kvHeads, vocabSigned, ctx] = Array.from({ length: 7 }, (_, i) => v.getInt32(i * 4, true));
  const shared = vocabSigned > 0;
  const nVocab = Math.abs(vocabSigned);
  const headSize = dim / heads;
  const kvDim = headSize * kvHeads;
  const floats = new Float32Array(bin.buffer.slice(bin.byteOffset + 28, bin.byteOffset + bin.byteLength));
  let at = 0;
  const take = (/** @type {number} */ n) => floats.subarray(at, (at += n));
  const embed = take(nVocab * dim);
  const rmsAtt = take(layers * dim);
  const wq = take(layers * dim * dim);
  const wk = take(layers * dim * kvDim);
  const wv = take(layers * dim * kvDim);
  const wo = take(layers * dim * dim);
  const rmsFfn = take(layers * dim);
  const w1 = take(layers * ffn * dim);
  const w2 = take(layers * dim * ffn);
  const w3 = take(layers * ffn * dim);
  const norm = take(dim);
  take(ctx * headSize); // freq_cis_real (unused: RoPE is computed)
  take(ctx * headSize);
  const output = shared ? null : take(nVocab * dim);
  const slice = (/** @type {Float32Array} */ a, /** @type {number} */ l, /** @type {number} */ n) => a.subarray(l * n, (l + 1) * n);
  return {
    shape: /** @type {Shape} */ ({ dim, ffn, layers, heads, kvHeads, ctx, eps: 1e-5, ropeBase: 10000 }),
    nVocab,
    weights: {
      embed,
      norm,
      output,
      layers: Array.from({ length: layers }, (_, l) => ({
        attn_norm: slice(rmsAtt, l, dim),
        attn_q: slice(wq, l, dim * dim),
        attn_k: slice(wk, l, dim * kvDim),
        attn_v: slice(wv, l, dim * kvDim),
        attn_output: slice(wo, l, dim * dim),
        ffn_norm: slice(rmsFfn, l, dim),
        ffn_gate: slice(w1, l, ffn * dim),
        ffn_down: slice(w2, l, dim * ffn),
        ffn_up: slice(w3, l, ffn * dim),
      })),
    },
  };
}

// -------------------------------------------------------------- random weights

/**
 * A seeded PRNG for the weights (splitmix32: small, and the same numbers in every run).
 * @param {number} seed
 */
export function prng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    z = (z ^ (z >>> 16)) >>> 0;
    return z / 4294967296;
  };
}

/**
 * Random Llama-family weights: uniform in ±scale/sqrt(inputs) (so the
 * activations keep their size through the layers), norms near 1, and for
 * qwen2 the Q/K/V biases.  `peak` > 0 adds peak/dim times token t's
 * embedding to the output row of token t + 1: the greedy text then walks
 * with a margin (random logits over a large vocabulary have near-ties that
 * any rounding flips; a trained model's do not), the layers still moving
 * every logit.
 * @param {Shape} s @param {number} nVocab
 * @param {{seed?: number, tied?: boolean, biases?: boolean, scale?: number, peak?: number}} [o]
 */
export function randomWeights(s, nVocab, { seed = 1, tied = false, biases = false, scale = 1, peak = 0 } = {}) {
  const rnd = prng(seed);
  const kvDim = (s.dim / s.heads) * s.kvHeads;
  const uni = (/** @type {number} */ n, /** @type {number} */ a) => Float32Array.from({ length: n }, () => (rnd() * 2 - 1) * a);
  const near1 = (/** @type {number} */ n) => Float32Array.from({ length: n }, () => 1 + (rnd() * 2 - 1) * 0.2);
  const w = (/** @type {number} */ inN, /** @type {number} */ outN) => uni(inN * outN, (scale * Math.sqrt(3)) / Math.sqrt(inN));
  const embed = uni(nVocab * s.dim, 1);
  const output = tied ? null : w(s.dim, nVocab);
  if (output && peak) {
    for (let v = 0; v < nVocab; v++) {
      const prev = (v + nVocab - 1) % nVocab;
      for (let k = 0; k < s.dim; k++) output[v * s.dim + k] += (peak / s.dim) * embed[prev * s.dim + k];
    }
  }
  return {
    embed,
    norm: near1(s.dim),
    output,
    layers: Array.from({ length: s.layers }, () => ({
      attn_norm: near1(s.dim),
      attn_q: w(s.dim, s.dim),
      attn_k: w(s.dim, kvDim),
      attn_v: w(s.dim, kvDim),
      attn_output: w(s.dim, s.dim),
      ffn_norm: near1(s.dim),
      ffn_gate: w(s.dim, s.ffn),
      ffn_down: w(s.ffn, s.dim),
      ffn_up: w(s.dim, s.ffn),
      ...(biases ? { 'attn_q.bias': uni(s.dim, 0.5), 'attn_k.bias': uni(kvDim, 0.5), 'attn_v.bias': uni(kvDim, 0.5) } : {}),
    })),
  };
}

// -------------------------------------------------------------- the logits model

/**
 * A model whose logits are `logits`, exactly, at every position (llama.cpp
 * runs its real sampler chain on them; the sampler tests use it).
 *
 * How: one layer whose weights are all zero (attention and FFN add nothing
 * to the residual), every token's embedding the same unit vector e0, RMS
 * epsilon 0 and the final norm's weight 1/4 on a 16-wide model, so the last
 * hidden state is exactly e0 (rms(e0) = 1/4, a power of two); the output
 * matrix holds the logits in its column 0, so logits = W e0 = the chosen
 * values, with no rounding (every other product is an exact zero).  In F32:
 * a quantized output would round them.
 *
 * The vocabulary: `vocab`, or a synthetic SentencePiece one of logits.length
 * tokens (<unk>, <s>, </s>, then the pieces "t3", "t4", ...), so any size works.
 * @param {ArrayLike<number>} logits
 * @param {{vocab?: Vocab, name?: string}} [o]
 * @returns {{metadata: Record<string, MetaValue>, tensors: TensorSpec[]}}
 */
export function logitsModel(logits, { vocab, name = 'logits' } = {}) {
  const n = logits.length;
  const v = vocab ?? syntheticVocab(n);
  if (v.tokens.length !== n) throw new Error(`logitsModel: ${n} logits for a vocabulary of ${v.tokens.length}`);
  const s = { dim: 16, ffn: 32, layers: 1, heads: 1, kvHeads: 1, ctx: 4096, eps: 0 };
  const zeros = (/** @type {number} */ k) => new Float32Array(k);
  const embed = new Float32Array(n * s.dim);
  for (let t = 0; t < n; t++) embed[t * s.dim] = 1;
  const output = new Float32Array(n * s.dim);
  for (let t = 0; t < n; t++) output[t * s.dim] = logits[t];
  const weights = {
    embed,
    norm: new Float32Array(s.dim).fill(0.25),
    output,
    layers: [{
      attn_norm: new Float32Array(s.dim).fill(1),
      attn_q: zeros(s.dim * s.dim), attn_k: zeros(s.dim * s.dim), attn_v: zeros(s.dim * s.dim), attn_output: zeros(s.dim * s.dim),
      ffn_norm: new Float32Array(s.dim).fill(1),
      ffn_gate: zeros(s.dim * s.ffn), ffn_down: zeros(s.dim * s.ffn), ffn_up: zeros(s.dim * s.ffn),
    }],
  };
  return {
    metadata: { ...modelMetadata('llama', s, n, name), ...vocabMetadata(v) },
    tensors: llamaTensors(weights, s, n),
  };
}

/** how many tokens the id model reads back */
export const ID_MODEL_TOKENS = 62;

/**
 * A model whose hidden state at the last position holds the ids of the
 * last 62 tokens of its input, exactly: llama.cpp's tokenization of a text,
 * read back from an embedding request (pooling 'last').
 *
 * Token t's embedding (F16, exact) is (2048, t >> 8, t & 255, 0...), 128
 * wide.  One layer of 62 query heads sharing one key/value head, each 256
 * wide: the keys are constant vectors that RoPE turns by position, head h's
 * query is turned back by h steps, and the rotation frequencies (rope_freqs,
 * base 1) are 2*pi*k/256 for k = 1..128, so a query at position P scores
 * sum_k cos(2*pi*k*(P - j - h)/256): 128 at j = P - h, at most 0 elsewhere
 * (the Dirichlet kernel) — a gap of ~190 after the 1/16 scale, so the
 * softmax puts all of its weight (the rest underflows) on token P - h.
 * The value is (2048, 256*hi + lo) = (2048, t), times the same norm scale;
 * head h's value lands in the residual at 3 + 2h, 4 + 2h, and
 * t = 2048 * h[4 + 2h] / h[3 + 2h] whatever the final norm does.  The FFN is
 * zero.  Needs llama.cpp's F32 KV cache (an F16 V cache would round t).
 * @param {Vocab} vocab
 * @returns {{metadata: Record<string, MetaValue>, tensors: TensorSpec[]}}
 */
export function idModel(vocab) {
  const n = vocab.tokens.length;
  const H = ID_MODEL_TOKENS;
  const E = 128;
  const D = 256; // head width = key/value length = rotated dims
  const C = 2048;
  const A = Math.sqrt(24); // query and key gains: a score gap of 24 * 128 / 16
  const theta = (/** @type {number} */ k) => (2 * Math.PI * (k + 1)) / D;
  const embed = new Float32Array(n * E);
  for (let t = 0; t < n; t++) {
    embed[t * E] = C;
    embed[t * E + 1] = t >> 8;
    embed[t * E + 2] = t & 255;
  }
  const wq = new Float32Array(H * D * E);
  const wk = new Float32Array(D * E);
  const wv = new Float32Array(D * E);
  const wo = new Float32Array(E * H * D);
  const x0 = Math.sqrt(E); // the normed embedding's first coordinate, near enough
  for (let k = 0; k < D / 2; k++) {
    wk[2 * k * E] = A / x0;
    for (let h = 0; h < H; h++) {
      wq[(h * D + 2 * k) * E] = (A * Math.cos(-h * theta(k))) / x0;
      wq[(h * D + 2 * k + 1) * E] = (A * Math.sin(-h * theta(k))) / x0;
    }
  }
  wv[0] = 1;
  wv[E + 1] = 256;
  wv[E + 2] = 1;
  for (let h = 0; h < H; h++) {
    wo[(3 + 2 * h) * H * D + h * D] = 1;
    wo[(4 + 2 * h) * H * D + h * D + 1] = 1;
  }
  const ffn = 32;
  const s = { dim: E, ffn, layers: 1, heads: H, kvHeads: 1, ctx: 512, eps: 0, ropeBase: 1 };
  const ones = (/** @type {number} */ k) => new Float32Array(k).fill(1);
  return {
    metadata: {
      ...modelMetadata('llama', s, n, 'token ids'),
      'llama.attention.key_length': u32(D),
      'llama.attention.value_length': u32(D),
      'llama.rope.dimension_count': u32(D),
      ...vocabMetadata(vocab),
    },
    tensors: [
      { name: 'token_embd.weight', shape: [E, n], type: 'F16', data: embed },
      { name: 'output_norm.weight', shape: [E], data: ones(E) },
      { name: 'rope_freqs.weight', shape: [D / 2], data: Float32Array.from({ length: D / 2 }, (_, k) => 1 / theta(k)) },
      { name: 'blk.0.attn_norm.weight', shape: [E], data: ones(E) },
      { name: 'blk.0.attn_q.weight', shape: [E, H * D], data: wq },
      { name: 'blk.0.attn_k.weight', shape: [E, D], data: wk },
      { name: 'blk.0.attn_v.weight', shape: [E, D], data: wv },
      { name: 'blk.0.attn_output.weight', shape: [H * D, E], data: wo },
      { name: 'blk.0.ffn_norm.weight', shape: [E], data: ones(E) },
      { name: 'blk.0.ffn_gate.weight', shape: [E, ffn], data: new Float32Array(E * ffn) },
      { name: 'blk.0.ffn_down.weight', shape: [ffn, E], data: new Float32Array(E * ffn) },
      { name: 'blk.0.ffn_up.weight', shape: [E, ffn], data: new Float32Array(E * ffn) },
    ],
  };
}

/**
 * A SentencePiece vocabulary of n tokens with no meaning: <unk>, <s>, </s>,
 * then "t3", "t4", ... (n >= 3).
 * @param {number} n
 * @returns {Vocab}
 */
export function syntheticVocab(n) {
  if (n < 3) throw new Error('syntheticVocab: at least 3 tokens (<unk>, <s>, </s>)');
  const tokens = Array.from({ length: n }, (_, i) => (i === 0 ? '<unk>' : i === 1 ? '<s>' : i === 2 ? '</s>' : `t${i}`));
  return {
    model: 'llama',
    tokens,
    scores: tokens.map((_, i) => -i),
    types: tokens.map((_, i) => (i === 0 ? 2 : i < 3 ? 3 : 1)),
    bos: 1,
    eos: 2,
    unk: 0,
    addBos: true,
    addEos: false,
  };
}
