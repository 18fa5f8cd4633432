// @ts-check
/**
 * params.js — the sliders' settings: ranges, defaults and clamping.  The
 * engine validates every value again; these bounds keep the UI inside the
 * ranges the lesson uses.
 */

/**
 * @typedef {Object} ParamSpec
 * @property {string} key     the engine's parameter name (and the hash key)
 * @property {string} label   visible label; the slider's accessible name
 * @property {string} hint
 * @property {number} min
 * @property {number} max     top-k: replaced by the vocabulary size
 * @property {number} step
 * @property {number} def     default (the neutral value: "off")
 * @property {(v: number, vocab?: number) => string} format
 */

const fixed = (/** @type {number} */ digits) => (/** @type {number} */ v) => v.toFixed(digits);

/** @type {ParamSpec[]} */
export const PARAM_SPECS = [
  {
    key: 'temperature', label: 'Temperature', hint: '0 = greedy (always the most likely token)',
    min: 0, max: 3, step: 0.05, def: 1,
    format: (v) => (v === 0 ? '0 (greedy)' : v.toFixed(2)),
  },
  {
    key: 'top_k', label: 'Top-k', hint: 'keep the k most likely tokens (ties with the k-th too); 0 = off',
    min: 0, max: 100000, step: 1, def: 0,
    format: (v, vocab) => (v === 0 || (vocab !== undefined && v >= vocab) ? 'off' : String(v)),
  },
  {
    key: 'top_p', label: 'Top-p', hint: 'keep the smallest set with this much probability; 1 = off',
    min: 0.01, max: 1, step: 0.01, def: 1,
    format: (v) => (v === 1 ? '1 (off)' : v.toFixed(2)),
  },
  {
    key: 'min_p', label: 'Min-p', hint: 'drop tokens below this fraction of the top token; 0 = off',
    min: 0, max: 1, step: 0.01, def: 0,
    format: (v) => (v === 0 ? '0 (off)' : v.toFixed(2)),
  },
  {
    key: 'repetition_penalty', label: 'Repetition penalty', hint: 'discourage tokens already in the text; 1 = off',
    min: 1, max: 2, step: 0.05, def: 1,
    format: fixed(2),
  },
];

/** @type {Record<string, ParamSpec>} */
export const SPEC = Object.fromEntries(PARAM_SPECS.map((s) => [s.key, s]));

/** @typedef {{temperature: number, top_k: number, top_p: number, min_p: number, repetition_penalty: number}} Params */

/** @returns {Params} */
export function defaultParams() {
  return /** @type {Params} */ (Object.fromEntries(PARAM_SPECS.map((s) => [s.key, s.def])));
}

/** decimals of a step: 0.05 -> 2 */
function decimals(/** @type {number} */ step) {
  const s = String(step);
  return s.includes('.') ? s.length - s.indexOf('.') - 1 : 0;
}

/**
 * Brings a value into a slider's range and onto its grid (so 0.7000000001
 * becomes 0.7).  Non-numbers give the default.
 * @param {ParamSpec} spec @param {number} value
 * @param {number} [max] overrides spec.max (top-k: the vocabulary size)
 */
export function clampParam(spec, value, max = spec.max) {
  if (typeof value !== 'number' || Number.isNaN(value)) return spec.def;
  const v = Math.min(max, Math.max(spec.min, value));
  const snapped = spec.min + Math.round((v - spec.min) / spec.step) * spec.step;
  return Number(Math.min(max, Math.max(spec.min, snapped)).toFixed(decimals(spec.step)));
}

/** The upper end of a slider for a vocabulary. */
export function sliderMax(/** @type {ParamSpec} */ spec, /** @type {number} */ vocab) {
  return spec.key === 'top_k' ? vocab : spec.max;
}
