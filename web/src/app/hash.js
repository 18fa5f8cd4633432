// @ts-check
/**
 * hash.js — the playground's setup in the URL hash, so a lesson can link an
 * exact setup:  #model=transformer&temperature=0.7&top_k=40&top_p=0.9&seed=42&prompt=Once
 *
 * Keys: model, the sampler settings (params.js), seed, prompt, steps (tokens
 * to generate on load) and forced (the learner's branches: "index.token"
 * pairs).  Loading the same hash generates the same text.  A bad value falls
 * back to its default with a notice that says what was wrong; an unknown key
 * is ignored with a notice.
 */
import { PARAM_SPECS, defaultParams } from './params.js';

/** the models a hash can name */
export const HASH_MODELS = ['bigram', 'transformer'];
export const MAX_SEED = 18446744073709551615n;
export const MAX_STEPS = 2000;

/**
 * @typedef {Object} HashState
 * @property {string} model
 * @property {import('./params.js').Params} params
 * @property {string} seed     decimal digits (up to 2^64 - 1)
 * @property {string} prompt
 * @property {number} steps
 * @property {Array<[number, number]>} forced  [generated index, token id]
 */

/** @returns {HashState} */
export function defaultState() {
  return { model: 'bigram', params: defaultParams(), seed: '42', prompt: '', steps: 0, forced: [] };
}

/**
 * Why a seed is not acceptable, or '' if it is.
 * @param {string} text
 */
export function seedError(text) {
  if (!/^[0-9]+$/.test(text)) return 'must be a whole number (0 to 18446744073709551615)';
  if (BigInt(text) > MAX_SEED) return 'must be at most 18446744073709551615';
  return '';
}

/** Canonical decimal form of a valid seed ("007" -> "7"). */
export function normalizeSeed(/** @type {string} */ text) {
  return BigInt(text).toString();
}

/**
 * Parses a location hash (with or without '#').
 * @param {string} hash
 * @returns {{state: HashState, notices: string[], present: Set<string>}}
 *   present: the keys the hash gave (valid or not)
 */
export function parseHash(hash) {
  const state = defaultState();
  const notices = [];
  const present = new Set();
  const text = hash.startsWith('#') ? hash.slice(1) : hash;
  if (!text) return { state, notices, present };
  let search;
  try {
    search = new URLSearchParams(text);
  } catch {
    return { state, notices: ['The link\'s settings could not be read; using the defaults.'], present };
  }
  /** @param {string} key @param {string} value @param {string} why @param {string} def */
  const bad = (key, value, why, def) => notices.push(`Ignored ${key}=${JSON.stringify(value)} from the link: ${why}; using ${def}.`);
  for (const [key, value] of search) {
    present.add(key);
    const spec = PARAM_SPECS.find((s) => s.key === key);
    if (spec) {
      const v = value.trim() === '' ? NaN : Number(value);
      if (!Number.isFinite(v)) bad(key, value, `${spec.label} must be a number`, String(spec.def));
      else if (spec.key === 'top_k' && !Number.isInteger(v)) bad(key, value, 'Top-k must be a whole number', String(spec.def));
      else if (v < spec.min || v > spec.max) bad(key, value, `${spec.label} must be between ${spec.min} and ${spec.max}`, String(spec.def));
      else /** @type {any} */ (state.params)[key] = v;
      continue;
    }
    switch (key) {
      case 'model':
        if (HASH_MODELS.includes(value)) state.model = value;
        else if (value === 'file') notices.push('This link was made with a model loaded from a file, which a link cannot carry: load it with "Load a llama2.c model…". Using bigram.');
        else bad(key, value, `the model must be one of ${HASH_MODELS.join(', ')}`, 'bigram');
        break;
      case 'seed': {
        const why = seedError(value);
        if (why) bad(key, value, `the seed ${why}`, state.seed);
        else state.seed = normalizeSeed(value);
        break;
      }
      case 'prompt':
        state.prompt = value;
        break;
      case 'steps': {
        const v = Number(value);
        if (!/^[0-9]+$/.test(value) || v > MAX_STEPS) bad(key, value, `steps must be a whole number from 0 to ${MAX_STEPS}`, '0');
        else state.steps = v;
        break;
      }
      case 'forced': {
        const pairs = [];
        let ok = true;
        for (const part of value.split(',').filter(Boolean)) {
          const m = /^([0-9]+)\.([0-9]+)$/.exec(part);
          if (!m) { ok = false; break; }
          pairs.push(/** @type {[number, number]} */ ([Number(m[1]), Number(m[2])]));
        }
        if (ok) state.forced = pairs.sort((a, b) => a[0] - b[0]);
        else bad(key, value, 'forced must be a list of index.token pairs like 3.12,7.5', 'none');
        break;
      }
      default:
        notices.push(`Ignored the unknown setting "${key}" in the link.`);
    }
  }
  return { state, notices, present };
}

/**
 * The hash for a state (with '#').  Sampler settings and the model are always
 * written (a lesson's link states them); the prompt, steps and forced tokens
 * only when there are any.
 * @param {HashState} state
 */
export function serializeHash(state) {
  const search = new URLSearchParams();
  search.set('model', state.model);
  for (const spec of PARAM_SPECS) {
    const v = /** @type {any} */ (state.params)[spec.key];
    if (spec.key === 'min_p' || spec.key === 'repetition_penalty') {
      if (v === spec.def) continue; // the less-used settings: only when on
    }
    search.set(spec.key, String(v));
  }
  search.set('seed', state.seed);
  if (state.prompt) search.set('prompt', state.prompt);
  if (state.steps > 0) search.set('steps', String(state.steps));
  const forced = state.forced.filter(([i]) => i < state.steps);
  if (forced.length) search.set('forced', forced.map(([i, t]) => `${i}.${t}`).join(','));
  return `#${search.toString().replaceAll('%2C', ',')}`;
}
