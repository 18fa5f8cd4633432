// @ts-check
/**
 * step.js — a step record out of the engine: its numbers, its arrays
 * (copies, safe to keep), who cut what in the chain's order, and draws
 * from its final distribution with a PRNG of its own.
 */
import { splitSeed } from './seed.js';

/** how many ranked tokens a step record carries (a larger vocabulary's) */
export const TOP_N = 64;
/** a vocabulary up to this size is ranked whole (the page shows a bar for every token) */
export const RANK_ALL_MAX = 128;

/**
 * Everything the engine reports about one step (copies, safe to keep).
 * @typedef {Object} StepRecord
 * @property {number} vocab
 * @property {number} token       the chosen token, -1 for a preview
 * @property {number} p           its final probability
 * @property {number} u           the uniform that chose it (NaN for a preview)
 * @property {number} nKept       nucleus size
 * @property {number} keptMass    raw-distribution mass of the kept tokens
 * @property {number} entropyBits     of the final distribution
 * @property {number} entropyRawBits  of the model's distribution
 * @property {number} argmaxRaw
 * @property {Float32Array} probs     final distribution (0 where cut)
 * @property {Float32Array | null} probsRaw  softmax of the model's logits
 * @property {Float32Array | null} probsTempered  softmax after bias,
 *   penalties and temperature: what the truncating stages see
 * @property {{ids: Int32Array, cum: Float64Array}} top  the tokens the
 *   truncating stages rank first (descending, ties by id: sp_step_top), and
 *   the cumulative tempered mass after each: the nucleus view's bars and
 *   curve, the page's bars' order.  All of them for a vocabulary up to
 *   RANK_ALL_MAX, else the first TOP_N
 * @property {Float32Array} logits    the model's logits
 * @property {Uint8Array} cut         per token: index into cutNames
 * @property {string[]} cutNames      the engine's names of what cuts (Engine.cutNames)
 * @property {Array<{stage: string, cut: number, mass: number}>} cuts  who cut how many tokens, in the chain's order
 * @property {Int32Array} kept        kept token ids, ascending
 * @property {Int32Array} penalized   the tokens a penalty or DRY changed
 * @property {number} mirostatMu      the target surprise mirostat used (NaN: off)
 * @property {number} adaptiveAverage adaptive-p's running average of the drawn tokens' probabilities before it (NaN: off)
 * @property {number} adaptiveAim     the probability adaptive-p aimed at this step (NaN: off)
 * @property {number} watermarkGreen  the watermark: the drawn token green (1), red (0), or -1 (off, a preview, no previous token)
 * @property {number} greenMass       the green list's mass in the distribution the watermark saw, before its bias (NaN: off)
 * @property {number} spikeEntropy    that distribution's spike entropy, the paper's measure of what a step can carry (NaN: off)
 * @property {Uint8Array | null} green  the step's green list, 1 per green token (null: off)
 * @property {Float32Array | null} probsUncond  classifier-free guidance: the
 *   unconditional run's distribution (the negative prompt's, or the prompt's
 *   last token's alone), every token (null: off); the conditional one is probsRaw
 * @property {Float32Array | null} probsCfg  the mix the chain went on with,
 *   softmax of scale (cond - uncond) + uncond (null: off)
 * @property {Inspection | null} inspect  a look inside the model at this
 *   step's query position (Session.setInspect; null: not asked, or a step's
 *   own record: peek it)
 * @property {Record<string, number>} state  the stateful stages' numbers of
 *   this step, by their STEP_FIELDS names (STATE_FIELDS, and any field
 *   named watermark_*): the page's strip of the samplers' state
 * @property {Uint8Array} [pieceBytes] the chosen token's bytes (sessions)
 * @property {string} [piece]         the same, decoded (sessions)
 * @property {boolean} [end]          the token ended the text (sessions)
 */

/**
 * A look inside a transformer at one position (sp_inspection): what every
 * layer's heads attended to, and the logit lens.
 * @typedef {Object} Inspection
 * @property {number} pos      the query's position (the last token before the step)
 * @property {number} token    the token there
 * @property {number} layers
 * @property {number} heads
 * @property {number} kvHeads  heads h and h' share their keys when h / (heads / kvHeads) is the same
 * @property {number} keys     pos + 1: the cached positions attended to
 * @property {Float32Array} attention  [layers][heads][keys]: the softmax
 *   weights the forward pass computed (each row sums to 1)
 * @property {{top: number, ids: Int32Array, p: Float32Array, entropyBits: Float64Array} | null} lens
 *   after each layer, the residual stream through the final norm and the
 *   classifier: its `top` most probable tokens ([layers][top], most
 *   probable first) and each layer's entropy; the last layer's is the
 *   model's raw distribution (null: not asked)
 */

/**
 * A record's look inside, from its numbers (null when it has none).
 * @param {import('./engine.js').Engine} e @param {Record<string, number>} f
 * @returns {Inspection | null}
 */
function readInspection(e, f) {
  if (!(f.inspect_pos >= 0)) return null;
  const layers = f.inspect_layers, heads = f.inspect_heads, keys = f.inspect_keys, top = f.lens_top;
  return {
    pos: f.inspect_pos,
    token: f.inspect_token,
    layers,
    heads,
    kvHeads: f.inspect_kv_heads,
    keys,
    attention: e.floats(f.attention, layers * heads * keys).slice(),
    lens: top > 0 ? {
      top,
      ids: e.ints(f.lens_ids, layers * top).slice(),
      p: e.floats(f.lens_p, layers * top).slice(),
      entropyBits: new Float64Array(/** @type {WebAssembly.Memory} */ (e.memory).buffer, f.lens_entropy_bits, layers).slice(),
    } : null,
  };
}

/**
 * The step record's numbers that tell the stateful stages' state
 * (c/wasm/wasm_step.c STEP_FIELDS): mirostat's target μ, the surprise
 * of the drawn token in bits and its goal τ; adaptive-p's running average,
 * aim and target as it used it (NaN: off); how many tokens the penalties changed and the drawn token's count
 * in their window, how many candidates DRY penalized, the longest repeat
 * among them and the drawn token's (penalties_n, dry_n -1: off).  The
 * surprise and the drawn token's numbers need a drawn token.
 */
export const STATE_FIELDS = ['mirostat_mu', 'surprise_bits', 'mirostat_goal', 'adaptive_average', 'adaptive_aim', 'adaptive_goal', 'penalties_n', 'penalty_count_token',
  'dry_n', 'dry_longest', 'dry_length_token'];
/** the state fields that are about the drawn token (a watermark's too) */
export const TOKEN_STATE = /^(surprise_bits|penalty_count_token|dry_length_token|watermark_.*)$/;

/**
 * The state fields of a step's numbers (those the engine has: a field it
 * does not name is left out).
 * @param {Record<string, number>} f @returns {Record<string, number>}
 */
export function stateOf(f) {
  /** @type {Record<string, number>} */
  const out = {};
  for (const [k, v] of Object.entries(f)) if (STATE_FIELDS.includes(k) || k.startsWith('watermark_')) out[k] = v;
  return out;
}

/**
 * A step record's numbers and array addresses, read in one call
 * (wasm_step.c STEP_FIELDS names them, in order).  With a token: a past
 * step's record (a peek) read as if that token had been drawn (the
 * engine's numbers about the drawn token, for it: api_step_read_as).
 * @param {import('./engine.js').Engine} e @param {number} st pointer to an sp_step
 * @param {number} [token]
 * @returns {Record<string, number>}
 */
export function stepNumbers(e, st, token) {
  const fields = e.stepFields ??= e.cstring(e.x.api_step_fields()).split(',').filter(Boolean);
  const out = e.malloc(8 * fields.length);
  /** @type {Record<string, number>} */
  const f = {};
  try {
    if (token === undefined) e.x.api_step_read(st, out);
    else e.x.api_step_read_as(st, token, out);
    const values = new Float64Array(/** @type {WebAssembly.Memory} */ (e.memory).buffer, out, fields.length);
    fields.forEach((name, i) => { f[name] = values[i]; });
  } finally {
    e.free(out);
  }
  return f;
}

/**
 * Copies a step record out of the engine.
 * @param {import('./engine.js').Engine} e @param {number} st pointer to an sp_step
 * @param {number} [params] the settings it was warped with: the record
 *   then says who cut what, in the chain's order (`cuts`)
 * @returns {StepRecord}
 */
export function readStep(e, st, params = 0) {
  const x = e.x;
  const f = stepNumbers(e, st);
  const vocab = f.vocab;
  const n = vocab <= RANK_ALL_MAX ? vocab : TOP_N;
  const scratch = e.malloc(12 * n);
  let top;
  try {
    // doubles first: malloc aligns to 8, and so stays the Float64Array
    const count = x.api_step_top(st, n, scratch + 8 * n, scratch);
    top = {
      ids: e.ints(scratch + 8 * n, count).slice(),
      cum: new Float64Array(/** @type {WebAssembly.Memory} */ (e.memory).buffer, scratch, count).slice(),
    };
  } finally {
    e.free(scratch);
  }
  return {
    vocab,
    token: f.token,
    p: f.p,
    u: f.u,
    nKept: f.n_kept,
    keptMass: f.kept_mass,
    entropyBits: f.entropy_bits,
    entropyRawBits: f.entropy_raw_bits,
    argmaxRaw: f.argmax_raw,
    probs: e.floats(f.probs, vocab).slice(),
    probsRaw: f.probs_raw ? e.floats(f.probs_raw, vocab).slice() : null,
    probsTempered: f.probs_tempered ? e.floats(f.probs_tempered, vocab).slice() : null,
    top,
    logits: e.floats(f.logits, vocab).slice(),
    cut: e.bytes(f.cut, vocab).slice(),
    cutNames: e.cutNames,
    cuts: params ? stepCuts(e, st, params) : [],
    kept: e.ints(f.kept, f.n_kept).slice(),
    penalized: e.ints(f.penalized, f.n_penalized).slice(),
    mirostatMu: f.mirostat_mu,
    adaptiveAverage: f.adaptive_average,
    adaptiveAim: f.adaptive_aim,
    watermarkGreen: f.watermark_green,
    greenMass: f.watermark_green_mass,
    spikeEntropy: f.watermark_spike_entropy,
    green: f.green_list ? e.bytes(f.green_list, vocab).slice() : null,
    probsUncond: f.probs_uncond ? e.floats(f.probs_uncond, vocab).slice() : null,
    probsCfg: f.probs_cfg ? e.floats(f.probs_cfg, vocab).slice() : null,
    inspect: readInspection(e, f),
    state: stateOf(f),
  };
}

/**
 * Who cut what in a warp, in the chain's order (the mask and the
 * constraint first, mirostat last): only what cut a token, with the
 * model's probability (probs_raw) of the tokens it cut (NaN when the
 * sampler does not compute it).
 * @param {import('./engine.js').Engine} e @param {number} st pointer to an sp_step @param {number} params its settings
 * @returns {Array<{stage: string, cut: number, mass: number}>}
 */
export function stepCuts(e, st, params) {
  const n = e.stages.length + 3;
  // doubles first: malloc aligns to 8
  const buf = e.malloc(16 * n);
  try {
    const k = e.x.api_step_cuts(st, params, buf + 8 * n, buf + 12 * n, buf);
    const c = e.ints(buf + 8 * n, k).slice();
    const counts = e.ints(buf + 12 * n, k).slice();
    const mass = new Float64Array(/** @type {WebAssembly.Memory} */ (e.memory).buffer, buf, k).slice();
    return Array.from(c, (code, i) => ({ stage: e.cutNames[code], cut: counts[i], mass: mass[i] }));
  } finally {
    e.free(buf);
  }
}

/**
 * Draws n tokens from a step's final distribution with a PRNG of its own.
 * @param {import('./engine.js').Engine} e @param {number} st pointer to an sp_step
 * @param {number} n
 * @param {number | bigint | string} seed
 * @returns {{counts: Int32Array, kl: number}} kl: KL(empirical || final), bits
 */
export function sampleCounts(e, st, n, seed) {
  if (!st) throw e.errorNamed('state', 'no step to draw from yet');
  if (!Number.isInteger(n) || n <= 0 || n > 10_000_000) throw new RangeError(`samples must be an integer in 1..10000000 (got ${n})`);
  const [lo, hi] = splitSeed(seed);
  const vocab = stepNumbers(e, st).vocab;
  const counts = e.malloc(4 * vocab);
  try {
    const kl = e.x.api_step_sample_counts(st, lo, hi, n, counts);
    return { counts: e.ints(counts, vocab).slice(), kl };
  } finally {
    e.free(counts);
  }
}
