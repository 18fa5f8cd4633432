// @ts-check
/**
 * ask.js — numbers the engine computes for the course: a chapter's facts
 * (the numbers its text states) and its questions' answers.  Both are
 * questions in the sense of <sampler-question>: a model, settings and what
 * to ask, answered by the engine in the page's engine Worker (shared with
 * the playgrounds showing that model) — never a number typed into a text.
 */
import { SLIDERS } from '../embed/attrs.js';
import { computeAnswer, parseAsk, questionConstraint, questionModel } from '../embed/answer.js';
import { acquireClient } from '../embed/registry.js';

/** @typedef {Record<string, string>} Attributes  a question's attributes, words put in */

let asked = 0;

/**
 * A question as <sampler-question>'s computeAnswer takes it, from its
 * attributes (the chain's order too: `samplers`; a constraint: `regex`, `grammar`).
 * @param {Attributes} attrs
 */
export function questionOf(attrs) {
  const get = (/** @type {string} */ n) => (Object.hasOwn(attrs, n) ? attrs[n] : null);
  /** @type {Record<string, number | string>} */
  const params = {};
  for (const [flag, key] of Object.entries(SLIDERS)) {
    const v = get(flag);
    if (v !== null) params[key] = Number(v);
  }
  const samplers = get('samplers');
  if (samplers) params.samplers = samplers;
  const ask = parseAsk(get('ask') ?? '');
  if (!ask) throw new RangeError(`not a question: ask="${get('ask')}"`);
  return {
    model: questionModel(get), ask, params,
    length: Math.max(1, Math.round(Number(get('length') ?? 256)) || 256),
    prompt: get('prompt') ?? '',
    constraint: questionConstraint(get),
    id: `learn-q${++asked}`,
  };
}

/** the Worker a model's questions go to: the one its playgrounds use */
export const clientKey = (/** @type {string} */ model) => (/^(logits|probs):/.test(model) ? 'handmade' : model);

/**
 * The engine's value for a question's attributes (a token question's: the token).
 * @param {Attributes} attrs
 * @returns {Promise<number | string>}
 */
export function engineAnswer(attrs) {
  const q = questionOf(attrs);
  // the page keeps its Workers while it is open: the client is not released
  const client = acquireClient(clientKey(q.model));
  return computeAnswer(client, /** @type {any} */ (q));
}
