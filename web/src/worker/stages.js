// @ts-check
/**
 * stages.js — which of the chain's stages a panel's settings turn on, as
 * the engine decides (Engine.activeStages: the chain's own test).  The
 * chain editor's switches show this answer; the page keeps no rule of
 * its own.
 */

/**
 * @param {import('./host.js').EngineHost} host
 * @param {{session?: string, params: import('../engine/params.js').SamplerParams}} args
 *   session: its model's vocabulary checks logit_bias, its tokenizer makes
 *   dry_sequence_breakers tokens (before a session is open: any token id,
 *   and the breakers, which turn no stage on, are left out)
 * @returns {Promise<{on: string[]}>}
 */
export async function stagesOn(host, { session, params }) {
  const engine = await host.enginePromise;
  const s = session !== undefined ? host.sessions.get(session) : undefined;
  if (s) return { on: engine.activeStages(params, { vocab: s.session.vocab, tokenizer: s.session.tokenizer }) };
  const { dry_sequence_breakers: _, bad_words: bw, sequence_bias: sb, ...rest } = params ?? {};
  const on = new Set(engine.activeStages(rest));
  // (words typed as text need a tokenizer: before a session, any word
  // turns its stage on)
  if (bw?.length) on.add('bad_words');
  if (sb?.length) on.add('sequence_bias');
  return { on: [...engine.stages, ...engine.terminal].filter((n) => on.has(n)) };
}
