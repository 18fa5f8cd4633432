// @ts-check
/**
 * watermark.js — the Worker's `watermark` request: a text's tokens judged
 * green or red by the engine's detector (engine/watermark.js), with the
 * running z-score after each token.  A chunk of its own, fetched the first
 * time a page asks (host.js).
 */
import { DEFAULT_KEY, watermarkDetect, watermarkDetectText } from '../engine/watermark.js';

const decoder = new TextDecoder();

/**
 * @typedef {Object} WatermarkAnswer
 * @property {number} tokens   the tokens scored
 * @property {number} green    how many are green
 * @property {number} z        the engine's z-score (NaN: no token)
 * @property {number} pValue
 * @property {string[]} pieces  the scored tokens' text
 * @property {number[]} marks   per scored token: 1 green, 0 red, -1 not scored
 * @property {number[]} running the z after each scored token (NaN: not scored)
 */

/**
 * Scores the session's text (prompt as context), or `text` as typed after
 * `prompt` (tokenized together, as `sampler detect` does).
 * @param {import('./host.js').EngineHost} host
 * @param {{session: string, gamma?: number, key?: number, text?: string, prompt?: string}} args
 * @returns {Promise<WatermarkAnswer>}
 */
export async function watermark(host, { session: sid, gamma = 0.25, key = DEFAULT_KEY, text, prompt = '' }) {
  const s = host.get(sid).session;
  const engine = await host.enginePromise;
  const tok = s.tokenizer;
  const options = { vocab: s.vocab, gamma, key };
  const r = typeof text === 'string'
    ? watermarkDetectText(engine, tok, text, { ...options, prompt })
    : { ...watermarkDetect(engine, s.tokens, { ...options, first: s.nPrompt }), ids: s.tokens, first: s.nPrompt };
  const from = Math.max(r.first, 0);
  /** @type {string[]} */
  const pieces = [];
  for (let i = from; i < r.ids.length; i++) pieces.push(tok.isEnd(r.ids[i]) ? '' : decoder.decode(tok.decodeBytes(i ? r.ids[i - 1] : -1, r.ids[i])));
  return {
    tokens: r.tokens, green: r.green, z: r.z, pValue: r.pValue, pieces,
    marks: Array.from(r.perToken.subarray(from)), running: Array.from(r.running.subarray(from)),
  };
}
