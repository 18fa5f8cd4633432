// @ts-check
/**
 * beamParams.js — the settings beam search ranks with, apart from beam.js
 * (fetched when a beam search starts) because a sampling session that
 * follows a beam (sample.js) needs them too.
 */
import registry from '../shared/registry.gen.js';

/** @typedef {import('./protocol.js').Params} Params */

/** beam.c's chain: the stages beam search ranks with */
const BEAM_STAGES = new Set(['bias', 'penalties', 'dry', 'no_repeat_ngram']);
/** the registry's parameters of those stages */
const BEAM_PARAMS = registry.params.filter((p) => BEAM_STAGES.has(p.stage)).map((p) => p.name);

/** The settings beam search ranks with: the logit bias and the parameters
 * of beam.c's stages in params (the registry's), temperature 1, nothing
 * cut. @param {Params} params */
export function beamParams(params) {
  /** @type {Params} */
  const out = { temperature: 1 };
  for (const k of [...BEAM_PARAMS, 'logit_bias', 'dry_breakers']) if (k in params) out[k] = params[k];
  return out;
}
