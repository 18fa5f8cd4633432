// @ts-check
/**
 * lab.js — the decoding lab's settings beside the sampler sliders: the
 * strategy (sample, beam search, speculative decoding) and its options, the
 * compare mode's presets, and the compact text a compare panel has in the
 * URL hash.
 *
 * Panel format (one per compare panel, comma-separated in `panels=`):
 *   PRESET[_FIELD]...      e.g.  greedy   balanced_k40   custom_t0.5_p0.8
 *                                chaos_beam4_lp0.5   creative_spec3-bigram_ban0.27
 *   PRESET  greedy | factual | balanced | creative | chaos | custom (the
 *           neutral settings); the fields override it:
 *   tX temperature, kN top-k, pX top-p, mX min-p, rX repetition penalty,
 *   beamN beam search of width N, lpX its length penalty, bgG and dvX
 *   diverse beam search's groups and diversity penalty, specN[-MODEL]
 *   speculative decoding drafting N tokens with MODEL (bigram when left
 *   out; specN-lookup: prompt lookup, lngM its longest n-gram), banA.B.C
 *   banned token ids.  (panelLink.js reads and writes it.)
 * The shortest form is written: the preset that needs the fewest fields.
 */
import { PARAM_SPECS, STAGES, defaultParams } from './params.js';
import { english, msg } from '../i18n/index.js';
import { DEFAULT_MODEL, SHIPPED } from '../shared/manifest.js';

export { CONSTRAINT_BUDGET } from '../shared/limits.js';
// a compare panel's text in a link (the format above): panelLink.js
export { parsePanelSpec, serializePanelSpec } from './panelLink.js';

/** @typedef {'sample' | 'beam' | 'speculative'} Strategy */

/** the strategies, each with its name's catalogue key */
/** @type {Array<{id: Strategy, label: string}>} */
export const STRATEGIES = [
  { id: 'sample', label: 'strategy.sample' },
  { id: 'beam', label: 'strategy.beam' },
  { id: 'speculative', label: 'strategy.speculative' },
];

/** the option ranges of the UI (the engine allows wider ones) */
export const BEAM_WIDTH = { min: 1, max: 8, def: 4 };
/** length penalty 1: a beam's score is its mean log-probability per token
 * (Hugging Face's default); 0 ranks by the sum, which favours short texts */
export const LENGTH_PENALTY = { min: 0, max: 2, step: 0.1, def: 1 };
/** what a link that names a beam search but no length penalty meant when
 * the default was 0 (such links keep their texts) */
export const LEGACY_LENGTH_PENALTY = 0;
export const SPECULATE = { min: 1, max: 8, def: 4 };
/** diverse beam search: the beams' groups (1: plain beam search; a group
 * count must divide the width) and the diversity penalty */
export const BEAM_GROUPS = { min: 1, max: 8, def: 1 };
export const DIVERSITY = { min: 0, max: 5, step: 0.1, def: 0 };
/** prompt lookup: the draft "model" that is the text itself, and the
 * longest n-gram it matches (its draft length is SPECULATE's) */
export const LOOKUP = 'lookup';
export const LOOKUP_NGRAM = { min: 1, max: 4, def: 2 };
/** the models a link can name as the draft */
export const DRAFT_MODELS = SHIPPED.map((m) => m.name);

/** The draft a model gets unless the learner (or a link) picks one: its
 * "draft" in models/manifest.json (the tiny transformer's matched draft,
 * which speaks its vocabulary); else the default model, the bigram.  (A
 * link without draft= means the bigram, as it always did.) */
export function defaultDraft(/** @type {string} */ modelId) {
  return SHIPPED.find((m) => m.name === modelId)?.draft ?? DEFAULT_MODEL;
}
export const MAX_BANS = 64;
/** finite logit biases a panel can hold, and the range of their slider
 * (the engine takes any finite value; -inf is a ban) */
export const MAX_BIASES = 64;
export const BIAS_RANGE = { min: -10, max: 10, step: 0.5 };
export const MAX_REGEX = 200;

/**
 * @typedef {Object} PanelSpec  one panel's own settings
 * @property {import('./params.js').Params} params
 * @property {Strategy} strategy
 * @property {{width: number, lengthPenalty: number, groups?: number, diversity?: number}} beam
 * @property {{draft: string, n: number, ngram?: number}} spec  draft LOOKUP: prompt lookup
 * @property {number[]} bans   banned token ids (logit bias -inf), ascending
 * @property {Array<[number, number]>} [biases]  finite logit biases [token id, value], by id
 * @property {string[]} [dryBreakers]  DRY's sequence breakers (texts)
 * @property {string[]} [badWords]  bad words (texts)
 * @property {Array<[string, number]>} [seqBias]  sequence biases [text, value]
 * @property {string} [samplers]  the chain's order ('' or absent: the default)
 */

/**
 * @typedef {Object} Preset
 * @property {string} id
 * @property {string} label
 * @property {Partial<import('./params.js').Params>} params  over the neutral settings
 */

/** (label: the preset's name, a catalogue key) */
/** @type {Preset[]} */
export const PRESETS = [
  { id: 'greedy', label: 'preset.greedy', params: { temperature: 0 } },
  { id: 'factual', label: 'preset.factual', params: { temperature: 0.3, top_p: 0.7 } },
  { id: 'balanced', label: 'preset.balanced', params: { temperature: 0.7, top_p: 0.9 } },
  { id: 'creative', label: 'preset.creative', params: { temperature: 1, top_p: 0.95 } },
  { id: 'chaos', label: 'preset.chaos', params: { temperature: 2 } },
];
const CUSTOM = { id: 'custom', label: 'preset.custom', params: {} };

/**
 * "The order matters": settings whose result depends on the order — a hot
 * temperature flattens the distribution, so top-p after it keeps many
 * tokens, and before it keeps few (then the temperature spreads the mass
 * over those few).  Compare mode shows them in the default order (top-p
 * after temperature) and in llama.cpp's (temperature last).
 */
export const ORDER_LESSON = { params: { temperature: 2.5, top_p: 0.5 }, orders: ['', 'llama.cpp'] };

/** A preset's full settings. @param {string} id */
export function presetParams(id) {
  const p = PRESETS.find((x) => x.id === id) ?? CUSTOM;
  return { ...defaultParams(), ...p.params };
}

/** The preset these settings are exactly, or 'custom'. @param {import('./params.js').Params} params */
export function matchPreset(params) {
  const found = PRESETS.find((p) => PARAM_SPECS.every((s) => /** @type {any} */ (presetParams(p.id))[s.key] === /** @type {any} */ (params)[s.key]));
  return found ? found.id : 'custom';
}

/** compare mode's panels' names, in order */
export const PANEL_NAMES = ['A', 'B', 'C', 'D'];

/**
 * A panel's settings in a few words: its preset's name, then the
 * temperature and every setting that is not neutral, and the strategy
 * ("Balanced: T 0.7 · top-p 0.9", "Custom: T 1 · top-k 5 · beam 4").
 * @param {{params: import('./params.js').Params, strategy: Strategy, beam: {width: number}, samplers?: string}} spec
 * @param {import('../i18n/index.js').I18n} [i18n]
 */
export function describeSettings(spec, i18n = english()) {
  const { t } = i18n;
  const preset = PRESETS.find((p) => p.id === matchPreset(spec.params)) ?? CUSTOM;
  const neutral = defaultParams();
  const bits = PARAM_SPECS
    .filter((s) => s.key === 'temperature' || /** @type {any} */ (spec.params)[s.key] !== /** @type {any} */ (neutral)[s.key])
    .map((s) => {
      const value = /** @type {any} */ (spec.params)[s.key];
      return s.key === 'temperature' ? t('settings.t', { value }) : t('settings.param', { name: i18n.inSentence(t(`param.${s.key}.label`)), value });
    });
  if (spec.strategy === 'beam') bits.push(t('settings.beam', { width: spec.beam.width }));
  if (spec.strategy === 'speculative') bits.push(t('settings.speculative'));
  if (spec.samplers) bits.push(t('settings.order', { order: spec.samplers.replaceAll(',', ' → ') }));
  return t('settings.summary', { preset: t(preset.label), settings: bits.join(' · ') });
}

/** @returns {PanelSpec} */
export function defaultPanelSpec(preset = 'custom') {
  return {
    params: presetParams(preset),
    strategy: 'sample',
    beam: { width: BEAM_WIDTH.def, lengthPenalty: LENGTH_PENALTY.def },
    spec: { draft: 'bigram', n: SPECULATE.def },
    bans: [],
    biases: [],
    dryBreakers: [],
    samplers: '',
  };
}

/** the sampler settings' short codes in compact links (the engine's registry declares them) */
const SHORT = /** @type {Record<string, string>} */ (Object.fromEntries(PARAM_SPECS.map((s) => [s.code, s.key])));
export const SHORT_OF = /** @type {Record<string, string>} */ (Object.fromEntries(PARAM_SPECS.map((s) => [s.key, s.code])));

/**
 * A sampler setting from a link, a panel's field or an attribute, read:
 * '' when it is a number, else why not.  Whether the engine takes the
 * number is the engine's to say (linkCheck.js asks it before the setting
 * is used): its ranges are not restated here.
 * @param {string} key @param {number} v
 */
export function numberError(key, v) {
  return typeof v === 'number' && !Number.isNaN(v) ? '' : msg('why.number', { name: msg(`param.${key}.label`) });
}

/** Why a width is not acceptable, or ''. @param {number} v */
export const widthError = (v) => (Number.isInteger(v) && v >= BEAM_WIDTH.min && v <= BEAM_WIDTH.max ? '' : msg('why.beams', { min: BEAM_WIDTH.min, max: BEAM_WIDTH.max }));
/** @param {number} v */
export const penaltyError = (v) => (Number.isFinite(v) && v >= LENGTH_PENALTY.min && v <= LENGTH_PENALTY.max ? '' : msg('why.lengthPenalty', { min: LENGTH_PENALTY.min, max: LENGTH_PENALTY.max }));
/** The range message of a link's key (the engine's words for it). @param {string} name @param {{min: number, max: number}} r */
const rangeWhy = (name, r) => msg('why.range', { name, range: `${r.min}..${r.max}` });
/** @param {number} v */
export const groupsError = (v) => (Number.isInteger(v) && v >= BEAM_GROUPS.min && v <= BEAM_GROUPS.max ? '' : rangeWhy('num_beam_groups', BEAM_GROUPS));
/** @param {number} v */
export const diversityError = (v) => (Number.isFinite(v) && v >= DIVERSITY.min && v <= DIVERSITY.max ? '' : rangeWhy('diversity_penalty', DIVERSITY));
/** @param {number} v */
export const ngramError = (v) => (Number.isInteger(v) && v >= LOOKUP_NGRAM.min && v <= LOOKUP_NGRAM.max ? '' : rangeWhy('prompt_lookup_ngram', LOOKUP_NGRAM));
/** @param {number} v */
export const speculateError = (v) => (Number.isInteger(v) && v >= SPECULATE.min && v <= SPECULATE.max ? '' : msg('why.speculate', { min: SPECULATE.min, max: SPECULATE.max }));

/**
 * Parses a list of token ids ("12,40" or "12.40").
 * @param {string} text @param {string} sep
 * @returns {number[] | null} null: not such a list
 */
export function parseBans(text, sep) {
  if (text === '') return [];
  const parts = text.split(sep);
  if (parts.length > MAX_BANS || !parts.every((x) => /^[0-9]{1,7}$/.test(x))) return null;
  return [...new Set(parts.map(Number))].sort((a, b) => a - b);
}

/**
 * Parses finite logit biases, "ID=VALUE" joined by `sep` ("5=2.5,12=-1");
 * an entry whose value is -inf is a ban.  The last entry for an id wins.
 * @param {string} text @param {string} sep
 * @returns {{biases: Array<[number, number]>, bans: number[]} | null} null: not such a list
 */
export function parseBiases(text, sep) {
  /** @type {Map<number, number>} */
  const biases = new Map();
  const bans = new Set();
  for (const part of text === '' ? [] : text.split(sep)) {
    const m = /^([0-9]{1,7})=(-?inf|-?[0-9]+(?:\.[0-9]+)?(?:e-?[0-9]+)?)$/i.exec(part.trim());
    if (!m) return null;
    const id = Number(m[1]);
    const v = /inf/i.test(m[2]) ? (m[2].startsWith('-') ? -Infinity : NaN) : Number(m[2]);
    if (Number.isNaN(v)) return null;
    biases.delete(id);
    bans.delete(id);
    if (v === -Infinity) bans.add(id);
    else biases.set(id, v);
  }
  if (biases.size > MAX_BIASES || bans.size > MAX_BANS) return null;
  return { biases: [...biases].sort((a, b) => a[0] - b[0]), bans: [...bans].sort((a, b) => a - b) };
}

/** the most DRY sequence breakers (the engine's SP_MAX_DRY_BREAKERS) */
export const MAX_DRY_BREAKERS = 32;

/**
 * DRY's sequence breakers from a link: a JSON array of texts; null when
 * it is not one.
 * @param {string} text
 * @returns {string[] | null}
 */
export function parseBreakers(text) {
  let list;
  try {
    list = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(list) || list.length > MAX_DRY_BREAKERS || !list.every((x) => typeof x === 'string' && x !== '' && x.length <= 32)) return null;
  return list;
}

/** the most bad words, and sequence biases (the engine's SP_MAX_WORDS; a
 * bad word may take two of its places, its text with and without a space
 * before it) */
export const MAX_WORDS = 32;

/** @param {string} text @returns {any} */
function jsonOrNull(text) {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/**
 * Bad words from a link: a JSON array of texts; null when it is not one.
 * @param {string} text
 * @returns {string[] | null}
 */
export function parseBadWords(text) {
  const list = jsonOrNull(text);
  if (!Array.isArray(list) || list.length > MAX_WORDS || !list.every((x) => typeof x === 'string' && x !== '' && x.length <= 64)) return null;
  return list;
}

/**
 * Sequence biases from a link: a JSON array of [text, value] pairs (value
 * a finite number); null when it is not one.
 * @param {string} text
 * @returns {Array<[string, number]> | null}
 */
export function parseSeqBias(text) {
  const list = jsonOrNull(text);
  if (!Array.isArray(list) || list.length > MAX_WORDS) return null;
  const ok = list.every((x) => Array.isArray(x) && x.length === 2 && typeof x[0] === 'string' && x[0] !== '' && x[0].length <= 64 &&
    typeof x[1] === 'number' && Number.isFinite(x[1]));
  return ok ? list : null;
}

/** DRY's sequence breakers (or the bad words, the sequence biases) in a compact field: their JSON, percent-encoded with _ , ~ . escaped. @param {any[]} list */
export function breakersField(list) {
  return encodeURIComponent(JSON.stringify(list)).replace(/[_~.!'()*-]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Finite logit biases as a link writes them ("5=2.5" joined by sep). @param {Array<[number, number]>} biases @param {string} sep */
export function biasesText(biases, sep) {
  return biases.map(([id, v]) => `${id}=${v}`).join(sep);
}

/**
 * Applies one sampler-settings field of a link (a parameter's code and its
 * value: t0.7, k40, p0.9, m0.05, r1.2, y0.9, ns1.5, ...; or banA.B.C, a
 * bare "ban" lifting every ban; lbID=V~ID=V the finite logit biases, a bare
 * "lb" none; sbJSON DRY's sequence breakers, percent-encoded) to `into`.
 * @param {string} f @param {{params: import('./params.js').Params, bans: number[], biases?: Array<[number, number]>, dryBreakers?: string[], badWords?: string[], seqBias?: Array<[string, number]>, samplers?: string}} into
 * @returns {import('../i18n/index.js').Msg | '' | null} null: not such a field; '' applied; else why not
 */
export function applySettingField(f, into) {
  let m;
  if ((m = /^([a-z]+)(-?[0-9]+(?:\.[0-9]+)?)$/.exec(f)) && Object.hasOwn(SHORT, m[1])) {
    const key = SHORT[m[1]];
    const v = Number(m[2]);
    const why = numberError(key, v);
    if (!why) /** @type {any} */ (into.params)[key] = v;
    return why;
  }
  if ((m = /^ban([0-9.]*)$/.exec(f))) {
    const bans = parseBans(m[1], '.');
    if (!bans) return msg('why.bans');
    into.bans = bans;
    return '';
  }
  if ((m = /^lb(.*)$/.exec(f))) {
    const read = parseBiases(m[1], '~');
    if (!read || read.bans.length) return msg('why.lb', { max: MAX_BIASES });
    into.biases = read.biases;
    return '';
  }
  if ((m = /^sb(.*)$/.exec(f))) {
    let list = null;
    try {
      list = parseBreakers(decodeURIComponent(m[1]));
    } catch {
      list = null;
    }
    if (!list) return msg('why.breakersShort');
    into.dryBreakers = list;
    return '';
  }
  if ((m = /^(bw|sq)(.*)$/.exec(f))) {
    let text = null;
    try {
      text = decodeURIComponent(m[2]);
    } catch {
      text = null;
    }
    if (m[1] === 'bw') {
      const list = text === null ? null : parseBadWords(text);
      if (!list) return msg('why.badWords', { max: MAX_WORDS });
      into.badWords = list;
    } else {
      const list = text === null ? null : parseSeqBias(text);
      if (!list) return msg('why.seqBias', { max: MAX_WORDS });
      into.seqBias = list;
    }
    return '';
  }
  if ((m = /^o(.*)$/.exec(f))) {
    const order = orderFromField(m[1]);
    if (order === null) return msg('why.order', { list: STAGES.map((s) => s.name.replaceAll('_', '-')).join('.') });
    into.samplers = order;
    return '';
  }
  return null;
}

/**
 * The chain's order as a link field writes it after "o": a preset, or the
 * stages' names (- for _) joined by dots; '' for the default order.
 * @param {string} samplers  the engine's form: '' | 'hf' | 'llama.cpp' | 'top_p,temperature'
 */
export function orderField(samplers) {
  if (!samplers || samplers === 'default' || samplers === 'hf' || samplers === 'llama.cpp') return samplers === 'default' ? '' : samplers;
  return samplers.split(',').map((s) => s.trim().replaceAll('_', '-')).join('.');
}

/**
 * The engine's form of an order field; null when it names no stage.
 * @param {string} field
 */
export function orderFromField(field) {
  if (field === '' || field === 'default') return '';
  if (field === 'hf' || field === 'llama.cpp') return field;
  const names = field.split('.').map((s) => s.replaceAll('-', '_'));
  const known = new Set(STAGES.map((s) => s.name));
  if (!names.every((n) => known.has(n)) || new Set(names).size !== names.length) return null;
  return names.join(',');
}

/**
 * The settings fields that turn `base` into `to` (the sliders that differ,
 * and the bans when they do: "ban" alone for none).
 * @param {{params: import('./params.js').Params, bans: number[], biases?: Array<[number, number]>, dryBreakers?: string[], badWords?: string[], seqBias?: Array<[string, number]>, samplers?: string}} to
 * @param {{params: import('./params.js').Params, bans: number[], biases?: Array<[number, number]>, dryBreakers?: string[], badWords?: string[], seqBias?: Array<[string, number]>, samplers?: string}} base
 */
export function settingFields(to, base) {
  const fields = PARAM_SPECS
    .filter((s) => /** @type {any} */ (to.params)[s.key] !== /** @type {any} */ (base.params)[s.key])
    .map((s) => `${SHORT_OF[s.key]}${/** @type {any} */ (to.params)[s.key]}`);
  if (to.bans.join('.') !== base.bans.join('.')) fields.push(`ban${to.bans.join('.')}`);
  if (biasesText(to.biases ?? [], '~') !== biasesText(base.biases ?? [], '~')) fields.push(`lb${biasesText(to.biases ?? [], '~')}`);
  if (JSON.stringify(to.dryBreakers ?? []) !== JSON.stringify(base.dryBreakers ?? [])) fields.push(`sb${breakersField(to.dryBreakers ?? [])}`);
  if (JSON.stringify(to.badWords ?? []) !== JSON.stringify(base.badWords ?? [])) fields.push(`bw${breakersField(to.badWords ?? [])}`);
  if (JSON.stringify(to.seqBias ?? []) !== JSON.stringify(base.seqBias ?? [])) fields.push(`sq${breakersField(to.seqBias ?? [])}`);
  if ((to.samplers ?? '') !== (base.samplers ?? '')) fields.push(`o${orderField(to.samplers ?? '') || 'default'}`);
  return fields;
}
