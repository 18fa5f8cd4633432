// @ts-check
/**
 * watermark.js — watermark detection (Kirchenbauer et al. 2023; the
 * engine's sp_watermark_detect): each token judged green or red by the
 * green list of the token before it, the count's z-score and p-value.
 */

/**
 * @typedef {Object} WatermarkScore
 * @property {number} tokens   the tokens scored (the context's are not)
 * @property {number} green    how many of them are green
 * @property {number} z        (green - gamma tokens) / sqrt(tokens gamma (1 - gamma)); NaN with no token
 * @property {number} pValue   P(N(0, 1) > z)
 * @property {Int8Array} perToken  per id: 1 green, 0 red, -1 context
 * @property {Float64Array} running  per id: the z of the tokens scored up to it (NaN: context)
 */

/** Hugging Face's default key (WatermarkingConfig.hashing_key) */
export const DEFAULT_KEY = 15485863;

/**
 * Scores token ids: ids[first ..] are judged (ids before first are
 * context, e.g. the prompt; first 0 judges from ids[1], which has a token
 * before it).
 * @param {import('./engine.js').Engine} e
 * @param {ArrayLike<number>} ids
 * @param {{vocab: number, gamma?: number, key?: number, first?: number}} options
 * @returns {WatermarkScore}
 */
export function watermarkDetect(e, ids, { vocab, gamma = 0.25, key = DEFAULT_KEY, first = 0 }) {
  const n = ids.length;
  for (const [name, v] of /** @type {[string, number][]} */ ([['vocab', vocab], ['key', key], ['first', first]]))
    if (!Number.isInteger(v)) throw new TypeError(`watermark: ${name} must be an integer (got ${v})`);
  if (typeof gamma !== 'number') throw new TypeError(`watermark: gamma must be a number (got ${gamma})`);
  // doubles first: malloc aligns to 8
  const buf = e.malloc(32 + 8 * n + 4 * n + n + 1);
  try {
    const run = buf + 32, idsPtr = run + 8 * n, per = idsPtr + 4 * n;
    e.ints(idsPtr, n).set(ids);
    const rc = e.x.api_watermark_detect(vocab, gamma, key, idsPtr, n, first, per, run, buf);
    if (rc !== 0) throw e.error(rc);
    const mem = /** @type {WebAssembly.Memory} */ (e.memory).buffer;
    const out = new Float64Array(mem, buf, 4);
    return {
      tokens: out[0], green: out[1], z: out[2], pValue: out[3],
      perToken: new Int8Array(mem, per, n).slice(),
      running: new Float64Array(mem, run, n).slice(),
    };
  } finally {
    e.free(buf);
  }
}

/**
 * Scores a text as `sampler detect` does: the prompt and the text
 * tokenized together as a generation's tokens (the prompt's are context).
 * @param {import('./engine.js').Engine} e
 * @param {import('./tokenizer.js').Tokenizer} tokenizer
 * @param {string} text
 * @param {{vocab: number, gamma?: number, key?: number, prompt?: string}} options
 * @returns {WatermarkScore & {ids: Int32Array, first: number}}
 */
export function watermarkDetectText(e, tokenizer, text, { prompt = '', ...options }) {
  if (typeof text !== 'string' || typeof prompt !== 'string') throw new TypeError('watermark: text and prompt must be strings');
  const first = tokenizer.encode(prompt, { bos: true }).length;
  const ids = tokenizer.encode(prompt + text, { bos: true });
  return { ...watermarkDetect(e, ids, { ...options, first }), ids, first };
}
