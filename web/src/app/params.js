// @ts-check
/**
 * params.js — the sampler's settings as the page shows them, all read
 * from the engine's registry (every stage and parameter is declared once,
 * in c/engine/sampler/params.c; build.sh writes it to
 * shared/registry.gen.js): each parameter's key, label, one line of doc,
 * its slider's range and grid, its neutral value and its stage; and the
 * chain's stages in their default order.  Whether a value is taken is the
 * engine's to say (a link's and an element's values are asked of it:
 * linkCheck.js); a slider's span is only what it can be dragged across.
 */
import registry from '../shared/registry.gen.js';
import { english, specialOf } from '../i18n/index.js';

/**
 * @typedef {Object} ParamSpec
 * @property {string} key     the engine's parameter name (and the hash key)
 * @property {string} label   visible label in English (the catalogue's param.KEY.label says it in the page's language)
 * @property {string} hint    one line in English: what it does, and its off value (param.KEY.doc)
 * @property {number} min     the slider's span (a value outside it and inside `range` is taken and shown)
 * @property {number} max     top-k: replaced by the vocabulary size
 * @property {number} step
 * @property {number} def     its neutral value: the stage does nothing
 * @property {string} stage   the chain's stage it belongs to ('mirostat': after the chain)
 * @property {string} code    its short code in compact links (compare panels, changes=)
 * @property {string} flag    the CLI's flag and the element's attribute, without "--"
 * @property {'int' | 'float'} type
 * @property {boolean} inLink a link always states it
 * @property {boolean} isSwitch away from its neutral value it turns its stage on
 * @property {number} on      its value when a learner turns its stage on
 * @property {string} range  the engine's range as the engine writes it ("(0, 1]", "[0, ∞)"):
 *   what a notice names when the engine refuses a value; the slider's span (min, max) may be narrower
 * @property {(v: number, vocab?: number, i18n?: import('../i18n/index.js').I18n) => string} format
 *   the value as the slider says it, in a language (English by default)
 */

/** decimals of a step: 0.05 -> 2 */
function decimals(/** @type {number} */ step) {
  const s = String(step);
  return s.includes('.') ? s.length - s.indexOf('.') - 1 : 0;
}

/**
 * A value as a learner reads it: the doc's "; X = word" says what its
 * special value means ("0 (greedy)", "1 (off)"; an integer that is off
 * reads "off"), the word in the page's language (param.KEY.special).
 * @param {{name: string, doc: string, type: string, uiStep: number}} p
 */
function formatter(p) {
  const m = specialOf(p);
  const special = m ? m.value : NaN;
  const word = m ? m.word : '';
  const digits = decimals(p.uiStep);
  const key = `param.${p.name}.special`;
  return (/** @type {number} */ v, /** @type {number | undefined} */ vocab, i18n = english()) => {
    // top-k at the vocabulary's size keeps everything
    if (p.name === 'top_k' && vocab !== undefined && v >= vocab) return i18n.t(key);
    if (v === special) return p.type === 'int' && word === 'off' ? i18n.t(key) : i18n.t('slider.special', { value: i18n.num(special), word: i18n.t(key) });
    return p.type === 'int' ? i18n.int(v) : i18n.fixed(v, digits);
  };
}

/** @type {ParamSpec[]} */
export const PARAM_SPECS = registry.params.map((p) => ({
  key: p.name,
  label: p.label,
  hint: p.doc,
  min: p.uiMin,
  max: p.uiMax,
  step: p.uiStep,
  def: p.neutral,
  stage: p.stage,
  code: p.code,
  flag: p.flag,
  type: /** @type {'int' | 'float'} */ (p.type),
  inLink: p.inLink,
  isSwitch: p.switch,
  on: p.uiOn,
  range: p.range,
  format: formatter(p),
}));

/** @type {Record<string, ParamSpec>} */
export const SPEC = Object.fromEntries(PARAM_SPECS.map((s) => [s.key, s]));

/**
 * The chain's stages in their default order (the engine's names, labels
 * and one line each, and the cut name of the tokens each removes: 'kept'
 * for a stage that only reshapes the scores).
 * @type {Array<{name: string, label: string, doc: string, cut: string}>}
 */
export const STAGES = registry.stages.map((s) => ({ name: s.name, label: s.label, doc: s.doc, cut: String(s.cut ?? '') }));
/**
 * The terminal stages, after the chain when on (no order moves them; at
 * most one is on): mirostat, adaptive-p.
 * @type {Array<{name: string, label: string, doc: string, cut: string}>}
 */
export const TERMINAL = registry.terminal.map((s) => ({ name: s.name, label: s.label, doc: s.doc, cut: String(/** @type {any} */ (s).cut ?? '') }));
/** @type {Record<string, {name: string, label: string, doc: string, cut: string}>} */
export const STAGE = Object.fromEntries([...STAGES, ...TERMINAL].map((s) => [s.name, s]));

/**
 * The order's presets, as the engine spells them out (stage names).
 * @type {Record<string, string[]>}
 */
export const ORDER_PRESETS = Object.fromEntries(Object.entries(registry.presets).map(([k, v]) => [k, String(v).split(',')]));

/** The stages beam search applies (it ranks and draws: the logits processors only). */
export const BEAM_STAGES = String(registry.beamStages).split(',');

/**
 * The chain's stages in an order ('' | 'default' | 'hf' | 'llama.cpp' |
 * names joined by commas).
 * @param {string} samplers
 */
export function orderOf(samplers) {
  if (!samplers) return ORDER_PRESETS.default;
  return ORDER_PRESETS[samplers] ?? samplers.split(',');
}

/**
 * An order's shortest name: a preset's name when it is one ('' for the
 * default), else the names joined by commas.
 * @param {string[]} stages
 */
export function orderName(stages) {
  const text = stages.join(',');
  for (const [name, list] of Object.entries(ORDER_PRESETS)) if (list.join(',') === text) return name === 'default' ? '' : name;
  return text;
}

/** @typedef {Record<string, number>} Params  every parameter by its key */

/** @returns {Params} */
export function defaultParams() {
  return Object.fromEntries(PARAM_SPECS.map((s) => [s.key, s.def]));
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
