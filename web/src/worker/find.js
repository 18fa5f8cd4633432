// @ts-check
/**
 * find.js — "find a token by its text": the tokens the model's tokenizer
 * makes of a text, and each one's probability in the next-token
 * distribution (the model's and the final one, and the stage that cut it),
 * every number the engine's.  A vocabulary of 150 000 tokens shows 30 bars:
 * this is how a learner asks about " Paris" when it is not among them.
 */

/** at most this many of the text's tokens are looked up */
export const FIND_MAX = 8;

/**
 * @typedef {Object} FoundToken
 * @property {number} token
 * @property {string} piece  its text (no context rules)
 * @property {number} raw    its probability in the model's distribution
 * @property {number} final  its final probability (0: cut)
 * @property {string} cut    what cut it ('kept' when nothing did; the engine's cut names)
 */

/**
 * @param {import('./host.js').EngineHost} host
 * @param {{session: string, text: string, params: Record<string, unknown>}} args
 * @returns {{count: number, found: FoundToken[]}}  count: how many tokens the text is
 */
export function findToken(host, { session: sid, text, params }) {
  if (typeof text !== 'string') throw new TypeError('findToken: text must be a string');
  const { session } = host.get(sid);
  const ids = session.tokenizer.encode(text);
  if (!ids.length) return { count: 0, found: [] };
  // the next token's distribution under these settings, without drawing
  const rec = session.preview(/** @type {any} */ (params));
  const found = Array.from(ids.subarray(0, FIND_MAX), (t) => ({
    token: t,
    piece: session.tokenizer.piece(t),
    raw: rec.probsRaw ? rec.probsRaw[t] : NaN,
    final: rec.probs[t],
    cut: rec.cutNames[rec.cut[t]] ?? 'kept',
  }));
  return { count: ids.length, found };
}
