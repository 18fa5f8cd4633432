// @ts-check
/**
 * hashKeys.js — each key of a playground link and how it is read
 * (KEY_READERS: a key's reader sets the state or says, in a notice, why
 * its value is ignored), with the values the keys take.  hash.js's
 * parseHash reads a link key by key with these, then what the keys mean
 * together; hash.js says what each key means.
 *
 * A sampler setting (a registry parameter) is read as a number only: the
 * engine says whether it takes the value, before the link is used
 * (linkCheck.js) — a range is the engine's, never restated here.
 */
import {
  DRAFT_MODELS, LOOKUP, LOOKUP_NGRAM, MAX_REGEX, SPECULATE, BEAM_WIDTH, LENGTH_PENALTY, defaultPanelSpec, diversityError, groupsError, ngramError,
  orderFromField, parseBadWords, parseBans, parseBiases, parseBreakers, parsePanelSpec, parseSeqBias, penaltyError, speculateError, widthError,
} from './lab.js';
import { SPEED } from './link.js';
import { PARAM_SPECS, STAGES } from './params.js';
import { MAX_TOKENS } from '../shared/limits.js';
import { SHIPPED } from '../shared/manifest.js';
import { LANGUAGES, PSEUDO, msg, normalizeLang } from '../i18n/index.js';

/** @typedef {import('./hash.js').KeyContext} KeyContext */
/** @typedef {(value: string, ctx: KeyContext, key: string) => void} KeyReader */

/** the models a hash can name: the shipped ones that are not drafts only (models/manifest.json) */
export const HASH_MODELS = SHIPPED.filter((m) => !m.draft_of).map((m) => m.name);
export const MAX_SEED = 18446744073709551615n;
/** the most steps a link replays (the Worker's limit) */
export const MAX_STEPS = MAX_TOKENS;
export const MIN_PANELS = 2;
export const MAX_PANELS = 4;
/** the panels compare mode opens with */
export const DEFAULT_PANELS = ['greedy', 'balanced', 'chaos'];

export const BAR_SCALES = /** @type {const} */ (['linear', 'max', 'log']);

export const THEMES = /** @type {const} */ (['auto', 'light', 'dark']);

/** edits of a model in a link: ROW_TOKEN_P entries joined by commas */
const EDIT_RE = /^(\d{1,4})_(\d{1,4})_(0\.\d{1,3})$/;

/** @param {string} value @returns {{edits: Array<[number, number, number]>, bad: string[]}} */
export function parseEdits(value) {
  /** @type {Array<[number, number, number]>} */
  const edits = [];
  const bad = [];
  for (const part of value.split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = EDIT_RE.exec(part);
    const p = m ? Number(m[3]) : NaN;
    if (m && p > 0 && p < 1) edits.push([Number(m[1]), Number(m[2]), p]);
    else bad.push(part);
  }
  return { edits, bad };
}

/**
 * Why a seed is not acceptable ('whole': not a whole number from 0 to
 * MAX_SEED; 'max': above MAX_SEED), or '' if it is.
 * @param {string} text
 * @returns {'whole' | 'max' | ''}
 */
export function seedError(text) {
  if (!/^[0-9]+$/.test(text)) return 'whole';
  if (BigInt(text) > MAX_SEED) return 'max';
  return '';
}

/** A new seed for the dice. */
export function randomSeed() {
  return String(Math.floor(Math.random() * 1e9));
}

/** Canonical decimal form of a valid seed ("007" -> "7"). */
export function normalizeSeed(/** @type {string} */ text) {
  return BigInt(text).toString();
}


// ---- the readers, by job ---------------------------------------------------

/**
 * A sampler setting: a number; whether the engine takes it is the
 * engine's to say (linkCheck.js).
 * @param {import('./params.js').ParamSpec} spec @returns {KeyReader}
 */
const setting = (spec) => (value, { state, bad }, key) => {
  const v = value.trim() === '' ? NaN : Number(value);
  if (Number.isNaN(v)) {
    bad(key, value, msg('why.number', { name: msg(`param.${key}.label`) }), String(spec.def));
    return;
  }
  /** @type {any} */ (state.params)[key] = v;
};

/** the model, its text or file, its edits @type {Record<string, KeyReader>} */
const MODEL_KEYS = {
  model(value, { state, notices, bad }, key) {
    if (HASH_MODELS.includes(value)) state.model = value;
    else if (/^(logits|probs):/.test(value)) state.model = value; // a hand-made model: the engine checks it
    else if (value === 'text') state.model = value; // its text comes with train= (hash.js settle)
    else if (value === 'file') notices.push(msg('notice.fileModel'));
    else if (value === 'url') return; // model_url says which
    else bad(key, value, msg('why.model', { list: HASH_MODELS.join(', ') }), 'bigram');
  },
  train(value, { state }) {
    state.trainText = value;
  },
  model_url(value, { state }) {
    if (value.trim()) state.modelUrl = value.trim();
  },
  edits(value, { state, notices, source, name }, key) {
    const { edits, bad: wrong } = parseEdits(value);
    state.edits = edits;
    if (wrong.length) {
      notices.push(msg(source === 'link' ? 'notice.editsLink' : 'notice.edits', { name: name(key), list: wrong.map((w) => JSON.stringify(w)).join(', ') }));
    }
  },
};

/** the text: seed, prompt, the steps replayed and the learner's picks @type {Record<string, KeyReader>} */
const TEXT_KEYS = {
  seed(value, { state, bad }, key) {
    const why = seedError(value);
    if (why) bad(key, value, msg(why === 'max' ? 'why.seedMax' : 'why.seedWhole', { max: String(MAX_SEED) }), state.seed);
    else state.seed = normalizeSeed(value);
  },
  prompt(value, { state }) {
    state.prompt = value;
  },
  negative_prompt(value, { state }) {
    state.negativePrompt = value;
  },
  chat(value, { state, bad }, key) {
    if (value === '1' || value === '0') state.chat = value === '1';
    else bad(key, value, msg('why.range', { name: key, range: '0, 1' }), '0');
  },
  steps(value, { state, bad }, key) {
    const v = Number(value);
    if (!/^[0-9]+$/.test(value) || v > MAX_STEPS) bad(key, value, msg('why.steps', { max: MAX_STEPS }), '0');
    else state.steps = v;
  },
  forced(value, { state, bad }, key) {
    const pairs = [];
    for (const part of value.split(',').filter(Boolean)) {
      const m = /^([0-9]+)\.([0-9]+)$/.exec(part);
      if (!m) {
        bad(key, value, msg('why.forced'), msg('def.none'));
        return;
      }
      pairs.push(/** @type {[number, number]} */ ([Number(m[1]), Number(m[2])]));
    }
    state.forced = pairs.sort((a, b) => a[0] - b[0]);
  },
  changes(value, ctx) {
    ctx.changes = value; // read once the link's own settings are known (hash.js settle)
  },
};

/** how the page looks and behaves @type {Record<string, KeyReader>} */
const PAGE_KEYS = {
  speed(value, { state, option }, key) {
    option(key, value, (v) => (Number.isInteger(v) && v >= SPEED.min && v <= SPEED.max ? '' : msg('why.speed', { min: SPEED.min, max: SPEED.max })),
      String(SPEED.def), (v) => { state.speed = v; });
  },
  lang(value, { state, bad }, key) {
    const code = normalizeLang(value);
    if (code) state.lang = code;
    else bad(key, value, msg('why.lang', { list: [...LANGUAGES.map((l) => l.code), PSEUDO].join(', ') }), msg('def.browser'));
  },
  theme(value, { state, bad }, key) {
    if (THEMES.includes(/** @type {any} */ (value))) state.theme = /** @type {import('./hash.js').Theme} */ (value);
    else bad(key, value, msg('why.theme'), 'auto');
  },
  scale(value, { state, bad }, key) {
    if (BAR_SCALES.includes(/** @type {any} */ (value))) state.barScale = /** @type {import('./hash.js').BarScale} */ (value);
    else bad(key, value, msg('why.scale'), 'linear');
  },
  click(value, { state, bad, source }, key) {
    if (value === 'ban' || value === 'force' || value === 'none') state.barAction = value;
    else bad(key, value, msg('why.click'), source === 'element' ? 'none' : 'ban');
  },
  view(value, { state, bad }, key) {
    if (value === 'compare' || value === 'single') state.view = value;
    else bad(key, value, msg('why.view'), 'single');
  },
};

/** the decoding strategy and its options @type {Record<string, KeyReader>} */
const STRATEGY_KEYS = {
  strategy(value, { state, bad }, key) {
    if (value === 'sample' || value === 'beam' || value === 'speculative') state.strategy = value;
    else bad(key, value, msg('why.strategy'), 'sample');
  },
  beams: (value, { state, option }, key) => option(key, value, widthError, String(BEAM_WIDTH.def), (v) => { state.beam.width = v; }),
  length_penalty: (value, { state, option }, key) => option(key, value, penaltyError, String(LENGTH_PENALTY.def), (v) => { state.beam.lengthPenalty = v; }),
  speculate: (value, { state, option }, key) => option(key, value, speculateError, String(SPECULATE.def), (v) => { state.spec.n = v; }),
  num_beam_groups: (value, { state, option }, key) => option(key, value, groupsError, '1', (v) => { state.beam.groups = v; }),
  diversity_penalty: (value, { state, option }, key) => option(key, value, diversityError, '0', (v) => { state.beam.diversity = v; }),
  // speculative decoding drafted by the text itself
  prompt_lookup: (value, { state, option }, key) => option(key, value, speculateError, String(SPECULATE.def), (v) => {
    state.spec = { ...state.spec, draft: LOOKUP, n: v };
  }),
  prompt_lookup_ngram: (value, { state, option }, key) => option(key, value, ngramError, String(LOOKUP_NGRAM.def), (v) => { state.spec.ngram = v; }),
  draft(value, { state, notices, bad }, key) {
    if (DRAFT_MODELS.includes(value)) state.spec.draft = value;
    else if (value === 'file') notices.push(msg('notice.fileDraft'));
    else bad(key, value, msg('why.draft', { list: DRAFT_MODELS.join(', ') }), 'bigram');
  },
};

/** what shapes the tokens besides the sliders: the order, a constraint, bans, biases, words @type {Record<string, KeyReader>} */
const SHAPE_KEYS = {
  samplers(value, { state, bad }, key) {
    const order = orderFromField(value.split(',').map((x) => x.trim().replaceAll('_', '-')).join('.'));
    if (order === null) bad(key, value, msg('why.samplers', { list: STAGES.map((s) => s.name).join(', ') }), msg('def.order'));
    else state.samplers = order;
  },
  regex(value, { state, bad }, key) {
    if (value.length > MAX_REGEX) bad(key, value.slice(0, 40), msg('why.regex', { count: MAX_REGEX }), msg('def.noConstraint'));
    else state.constraint = { kind: 'regex', regex: value };
  },
  grammar(value, { state, bad }, key) {
    if (value === 'json' || value === 'json_object') state.constraint = { kind: value, regex: state.constraint.regex };
    else bad(key, value, msg('why.grammar'), msg('def.noConstraint'));
  },
  ban(value, { state, bad }, key) {
    const bans = parseBans(value, ',');
    if (bans) state.bans = [...new Set([...state.bans, ...bans])].sort((a, b) => a - b); // (logit_bias may ban too)
    else bad(key, value, msg('why.ban'), msg('def.none'));
  },
  logit_bias(value, { state, bad }, key) {
    const read = parseBiases(value, ',');
    if (!read) {
      bad(key, value, msg('why.logitBias'), msg('def.none'));
      return;
    }
    state.biases = read.biases;
    state.bans = [...new Set([...state.bans, ...read.bans])].sort((a, b) => a - b);
  },
  dry_sequence_breakers(value, { state, bad }, key) {
    const list = parseBreakers(value);
    if (list) state.dryBreakers = list;
    else bad(key, value, msg('why.breakers'), msg('def.none'));
  },
  bad_words(value, { state, bad }, key) {
    const list = parseBadWords(value);
    if (list) state.badWords = list;
    else bad(key, value, msg('why.badWords', { max: 32 }), msg('def.none'));
  },
  sequence_bias(value, { state, bad }, key) {
    const list = parseSeqBias(value);
    if (list) state.seqBias = list;
    else bad(key, value, msg('why.seqBias', { max: 32 }), msg('def.none'));
  },
};

/** compare mode's panels @type {KeyReader} */
function panels(value, { state, notices }) {
  const parts = value.split(',');
  const list = [];
  parts.slice(0, MAX_PANELS).forEach((part, i) => {
    const { spec: panel, notices: why } = parsePanelSpec(part);
    why.forEach((w) => notices.push(msg('notice.panel', { n: i + 1, why: w })));
    list.push(panel);
  });
  if (parts.length > MAX_PANELS) notices.push(msg('notice.tooManyPanels', { count: parts.length, max: MAX_PANELS }));
  while (list.length < MIN_PANELS) {
    // (the preset as a link names it)
    notices.push(msg('notice.fewPanels', { min: MIN_PANELS, preset: DEFAULT_PANELS[list.length] }));
    list.push(defaultPanelSpec(DEFAULT_PANELS[list.length]));
  }
  state.panels = list;
}

/**
 * Every key a link can hold, and its reader.
 * @type {Record<string, KeyReader>}
 */
export const KEY_READERS = {
  ...Object.fromEntries(PARAM_SPECS.map((spec) => [spec.key, setting(spec)])),
  ...MODEL_KEYS, ...TEXT_KEYS, ...PAGE_KEYS, ...STRATEGY_KEYS, ...SHAPE_KEYS, panels,
};
