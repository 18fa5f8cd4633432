// @ts-check
/**
 * engineArgs.js — a panel's settings and constraint as the engine takes
 * them (the Worker passes them on as they are).
 */

/** A constraint as the engine takes it, or null for none. @param {import('../hash.js').ConstraintState} c */
export function constraintArg(c) {
  if (c.kind === 'json' || c.kind === 'json_object') return { grammar: c.kind };
  if (c.kind === 'regex' && c.regex) return { regex: c.regex };
  return null;
}


/**
 * Settings as the engine takes them: the sliders, and the bans (logit
 * biases of -inf) and finite biases as one logit_bias list, by token id.
 * @param {import('../panel.js').Settings} s
 */
export function engineParamsOf(s) {
  /** @type {Record<string, any>} */
  const out = { ...s.params };
  const bias = [...s.bans.map((t) => [t, -Infinity]), ...(s.biases ?? [])].sort((a, b) => a[0] - b[0]);
  if (bias.length) out.logit_bias = bias;
  if (s.dryBreakers?.length) out.dry_sequence_breakers = s.dryBreakers;
  if (s.badWords?.length) out.bad_words = s.badWords;
  if (s.seqBias?.length) out.sequence_bias = s.seqBias;
  if (s.negativePrompt) out.negative_prompt = s.negativePrompt; // classifier-free guidance's second run
  if (s.samplers) out.samplers = s.samplers;
  return out;
}
