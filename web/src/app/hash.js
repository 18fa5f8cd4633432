// @ts-check
/**
 * hash.js — the playground's setup in the URL hash, so a lesson can link an
 * exact setup:  #model=transformer&temperature=0.7&top_k=40&top_p=0.9&seed=42&prompt=Once
 *
 * Keys: model, the sampler settings (params.js), seed, prompt, chat (1: the
 * Chat switch on, the prompt wrapped in the model's chat template), steps (how
 * many times Step is pressed on load: tokens when sampling, expansions of
 * a beam search, rounds of speculative decoding) and forced (the learner's
 * picks: "index.token" pairs), changes (the settings each Step ran with
 * where a slider moved during the text: parseChanges), scale (the bars'
 * scale).  The decoding lab adds strategy (sample, beam, speculative) with
 * beams and length_penalty, or draft and speculate; regex or grammar=json
 * or json_object (the constraint); ban (token ids); logit_bias (ID=VALUE
 * pairs, as the CLI's --logit-bias; -inf bans); and view=compare with
 * panels (lab.js has the panel format):
 *   #view=compare&model=bigram&seed=42&panels=greedy,balanced,chaos
 * Loading the same hash generates the same text.  A bad value falls back
 * to its default with a notice that says what was wrong; an unknown key is
 * ignored with a notice.
 */
import {
  BEAM_WIDTH, DRAFT_MODELS, LENGTH_PENALTY, LOOKUP, LOOKUP_NGRAM, diversityError, groupsError, LEGACY_LENGTH_PENALTY, MAX_REGEX, ngramError,
  SPECULATE, defaultPanelSpec, orderFromField, paramError, parseBadWords, parseBans, parseBiases, parseBreakers, parseSeqBias, parsePanelSpec, penaltyError,
  speculateError, widthError,
} from './lab.js';
import { SPEED } from './link.js';
import { parseChanges } from './changes.js';
import { PARAM_SPECS, STAGES, defaultParams } from './params.js';
import { MAX_TOKENS } from '../shared/limits.js';
import { SHIPPED } from '../shared/manifest.js';
import { LANGUAGES, PSEUDO, msg, normalizeLang } from '../i18n/index.js';

export { changesOf, parseChanges, settingsAt } from './changes.js';
export { serializeEdits, serializeHash, SPEED } from './link.js';

/** the models a hash can name: the shipped ones that are not drafts only (models/manifest.json) */
export const HASH_MODELS = SHIPPED.filter((m) => !m.draft_of).map((m) => m.name);
export const MAX_SEED = 18446744073709551615n;
/** the most steps a link replays (the Worker's limit) */
export const MAX_STEPS = MAX_TOKENS;
export const MIN_PANELS = 2;
export const MAX_PANELS = 4;
/** the panels compare mode opens with */
export const DEFAULT_PANELS = ['greedy', 'balanced', 'chaos'];

/**
 * @typedef {{kind: 'none' | 'regex' | 'json' | 'json_object', regex: string}} ConstraintState
 *   json: any JSON value; json_object: a JSON object (the usual "JSON mode")
 */

/**
 * @typedef {Object} HashState
 * @property {'single' | 'compare'} view
 * @property {string} model
 * @property {string} [trainText]  the text a trained bigram (model=text) is counted from (train=; a short text only: TRAIN_LINK_BYTES)
 * @property {string} [modelUrl]  model_url: a model file's URL, resolved against the page (the page's origin only)
 * @property {string[]} [modelOrigins]  other origins a model_url may load from (an element's model-origins; never in a link)
 * @property {boolean} [modelCache]  keep the model_url file on the device (an element's model-cache="keep"; never in a link)
 * @property {import('./params.js').Params} params
 * @property {string} seed     decimal digits (up to 2^64 - 1)
 * @property {string} prompt
 * @property {boolean} [chat]  the Chat switch: the prompt wrapped in the model's chat template (chat=1)
 * @property {number} steps
 * @property {Array<[number, number]>} forced  [generated index, token id]
 * @property {import('./lab.js').Strategy} strategy
 * @property {{width: number, lengthPenalty: number, groups?: number, diversity?: number}} beam  groups, diversity: diverse beam search
 * @property {{draft: string, n: number, ngram?: number}} spec  draft 'lookup': prompt lookup (ngram: its longest n-gram)
 * @property {number[]} bans
 * @property {Array<[number, number]>} [biases]  finite logit biases [token id, value]
 * @property {string[]} [dryBreakers]  DRY's sequence breakers (texts)
 * @property {string[]} [badWords]  bad words (texts; bad_words=["the"])
 * @property {Array<[string, number]>} [seqBias]  sequence biases [text, value] (sequence_bias=[["them",3]])
 * @property {ConstraintState} constraint
 * @property {import('./lab.js').PanelSpec[]} panels  compare mode's panels
 * @property {number} speed    Play's steps per second
 * @property {'ban' | 'force' | 'none'} barAction  what a click on a bar does (none: nothing; an element's default)
 * @property {Theme} [theme]  the page's colours: the system's (auto), light or dark
 * @property {Change[]} [changes]  the settings each Step ran with, where
 *   they were not the link's (a slider moved while the text was written)
 * @property {BarScale} [barScale]  how a bar's length shows its probability
 * @property {string} [samplers]  the chain's order: '' (the default), 'hf',
 *   'llama.cpp', or stage names joined by commas
 * @property {string} [lang]  the language chosen (en, es, de, zh, or the
 *   pseudo-locale en-XA); '' follows the browser (an element: its page)
 * @property {Array<[number, number, number]>} [edits]  the learner's edits of
 *   the model, in order: [row, token, p] (edits=ROW_TOKEN_P,...)
 */

/** @typedef {import('./changes.js').Change} Change */

/** @typedef {'linear' | 'max' | 'log'} BarScale */
export const BAR_SCALES = /** @type {const} */ (['linear', 'max', 'log']);

/** @typedef {'auto' | 'light' | 'dark'} Theme */
export const THEMES = /** @type {const} */ (['auto', 'light', 'dark']);

/** @returns {HashState} */
export function defaultState() {
  const lab = defaultPanelSpec();
  return {
    view: 'single', model: 'bigram', params: defaultParams(), seed: '42', prompt: '', steps: 0, forced: [],
    strategy: lab.strategy, beam: lab.beam, spec: lab.spec, bans: lab.bans, biases: [], dryBreakers: [],
    constraint: { kind: 'none', regex: '' },
    panels: DEFAULT_PANELS.map((id) => defaultPanelSpec(id)),
    speed: SPEED.def,
    barAction: 'ban',
    theme: 'auto',
    changes: [],
    barScale: 'linear',
    samplers: '',
    lang: '',
    edits: [],
  };
}

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

/**
 * Parses a location hash (with or without '#').
 * @param {string} hash
 * @param {{source?: 'link' | 'element', name?: (key: string) => string}} [options]
 *   what the notices name as the source ("from the link"; an element's
 *   attributes need not say) and how they spell a key (an element's
 *   attributes are spelled top-k, not top_k)
 * @returns {{state: HashState, notices: import('../i18n/index.js').Msg[], present: Set<string>}}
 *   present: the keys the hash gave (valid or not)
 */
export function parseHash(hash, { source = 'link', name = (k) => k } = {}) {
  const state = defaultState();
  /** @type {import('../i18n/index.js').Msg[]} */
  const notices = [];
  /** @type {Set<string>} */
  const present = new Set();
  const text = hash.startsWith('#') ? hash.slice(1) : hash;
  if (!text) return { state, notices, present };
  let search;
  try {
    search = new URLSearchParams(text);
  } catch {
    return { state, notices: [msg('notice.unreadable')], present };
  }
  /** @param {string} key @param {string} value @param {import('../i18n/index.js').Text} why @param {import('../i18n/index.js').Text} def */
  const bad = (key, value, why, def) => notices.push(msg(source === 'link' ? 'notice.ignoredLink' : 'notice.ignored', {
    name: name(key), value: JSON.stringify(value), why, def,
  }));
  let changes = '';
  for (const [key, value] of search) {
    present.add(key);
    const spec = PARAM_SPECS.find((s) => s.key === key);
    if (spec) {
      const v = value.trim() === '' ? NaN : Number(value);
      const why = paramError(key, v);
      if (why) bad(key, value, why, String(spec.def));
      else /** @type {any} */ (state.params)[key] = v;
      continue;
    }
    /** a whole-number or decimal option checked by `check` */
    const option = (/** @type {(v: number) => import('../i18n/index.js').Text} */ check, /** @type {string} */ def, /** @type {(v: number) => void} */ set) => {
      const v = value.trim() === '' ? NaN : Number(value);
      const why = check(v);
      if (why) bad(key, value, why, def);
      else set(v);
    };
    switch (key) {
      case 'model':
        if (HASH_MODELS.includes(value)) state.model = value;
        else if (/^(logits|probs):/.test(value)) state.model = value; // a hand-made model: the engine checks it
        else if (value === 'text') state.model = value; // its text comes with train= (below)
        else if (value === 'file') notices.push(msg('notice.fileModel'));
        else if (value === 'url') break; // model_url says which
        else bad(key, value, msg('why.model', { list: HASH_MODELS.join(', ') }), 'bigram');
        break;
      case 'train':
        state.trainText = value;
        break;
      case 'model_url':
        if (value.trim()) state.modelUrl = value.trim();
        break;
      case 'edits': {
        const { edits, bad: wrong } = parseEdits(value);
        state.edits = edits;
        if (wrong.length) {
          notices.push(msg(source === 'link' ? 'notice.editsLink' : 'notice.edits', { name: name(key), list: wrong.map((w) => JSON.stringify(w)).join(', ') }));
        }
        break;
      }
      case 'seed': {
        const why = seedError(value);
        if (why) bad(key, value, msg(why === 'max' ? 'why.seedMax' : 'why.seedWhole', { max: String(MAX_SEED) }), state.seed);
        else state.seed = normalizeSeed(value);
        break;
      }
      case 'prompt':
        state.prompt = value;
        break;
      case 'chat':
        if (value === '1' || value === '0') state.chat = value === '1';
        else bad(key, value, msg('why.range', { name: key, range: '0, 1' }), '0');
        break;
      case 'steps': {
        const v = Number(value);
        if (!/^[0-9]+$/.test(value) || v > MAX_STEPS) bad(key, value, msg('why.steps', { max: MAX_STEPS }), '0');
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
        else bad(key, value, msg('why.forced'), msg('def.none'));
        break;
      }
      case 'speed':
        option((v) => (Number.isInteger(v) && v >= SPEED.min && v <= SPEED.max ? '' : msg('why.speed', { min: SPEED.min, max: SPEED.max })),
          String(SPEED.def), (v) => { state.speed = v; });
        break;
      case 'lang': {
        const code = normalizeLang(value);
        if (code) state.lang = code;
        else bad(key, value, msg('why.lang', { list: [...LANGUAGES.map((l) => l.code), PSEUDO].join(', ') }), msg('def.browser'));
        break;
      }
      case 'theme':
        if (THEMES.includes(/** @type {any} */ (value))) state.theme = /** @type {Theme} */ (value);
        else bad(key, value, msg('why.theme'), 'auto');
        break;
      case 'samplers': {
        const order = orderFromField(value.split(',').map((x) => x.trim().replaceAll('_', '-')).join('.'));
        if (order === null) bad(key, value, msg('why.samplers', { list: STAGES.map((s) => s.name).join(', ') }), msg('def.order'));
        else state.samplers = order;
        break;
      }
      case 'scale':
        if (BAR_SCALES.includes(/** @type {any} */ (value))) state.barScale = /** @type {BarScale} */ (value);
        else bad(key, value, msg('why.scale'), 'linear');
        break;
      case 'changes':
        changes = value; // read once the link's own settings are known
        break;
      case 'click':
        if (value === 'ban' || value === 'force' || value === 'none') state.barAction = value;
        else bad(key, value, msg('why.click'), source === 'element' ? 'none' : 'ban');
        break;
      case 'view':
        if (value === 'compare' || value === 'single') state.view = value;
        else bad(key, value, msg('why.view'), 'single');
        break;
      case 'strategy':
        if (value === 'sample' || value === 'beam' || value === 'speculative') state.strategy = value;
        else bad(key, value, msg('why.strategy'), 'sample');
        break;
      case 'beams':
        option(widthError, String(BEAM_WIDTH.def), (v) => { state.beam.width = v; });
        break;
      case 'length_penalty':
        option(penaltyError, String(LENGTH_PENALTY.def), (v) => { state.beam.lengthPenalty = v; });
        break;
      case 'speculate':
        option(speculateError, String(SPECULATE.def), (v) => { state.spec.n = v; });
        break;
      case 'num_beam_groups':
        option(groupsError, '1', (v) => { state.beam.groups = v; });
        break;
      case 'diversity_penalty':
        option(diversityError, '0', (v) => { state.beam.diversity = v; });
        break;
      case 'prompt_lookup': // speculative decoding drafted by the text itself
        option(speculateError, String(SPECULATE.def), (v) => { state.spec = { ...state.spec, draft: LOOKUP, n: v }; });
        break;
      case 'prompt_lookup_ngram':
        option(ngramError, String(LOOKUP_NGRAM.def), (v) => { state.spec.ngram = v; });
        break;
      case 'draft':
        if (DRAFT_MODELS.includes(value)) state.spec.draft = value;
        else if (value === 'file') notices.push(msg('notice.fileDraft'));
        else bad(key, value, msg('why.draft', { list: DRAFT_MODELS.join(', ') }), 'bigram');
        break;
      case 'regex':
        if (value.length > MAX_REGEX) bad(key, value.slice(0, 40), msg('why.regex', { count: MAX_REGEX }), msg('def.noConstraint'));
        else state.constraint = { kind: 'regex', regex: value };
        break;
      case 'grammar':
        if (value === 'json') state.constraint = { kind: 'json', regex: state.constraint.regex };
        else if (value === 'json_object') state.constraint = { kind: 'json_object', regex: state.constraint.regex };
        else bad(key, value, msg('why.grammar'), msg('def.noConstraint'));
        break;
      case 'ban': {
        const bans = parseBans(value, ',');
        if (bans) state.bans = [...new Set([...state.bans, ...bans])].sort((a, b) => a - b); // (logit_bias may ban too)
        else bad(key, value, msg('why.ban'), msg('def.none'));
        break;
      }
      case 'logit_bias': {
        const read = parseBiases(value, ',');
        if (!read) bad(key, value, msg('why.logitBias'), msg('def.none'));
        else {
          state.biases = read.biases;
          state.bans = [...new Set([...state.bans, ...read.bans])].sort((a, b) => a - b);
        }
        break;
      }
      case 'dry_sequence_breakers': {
        const list = parseBreakers(value);
        if (list) state.dryBreakers = list;
        else bad(key, value, msg('why.breakers'), msg('def.none'));
        break;
      }
      case 'bad_words': {
        const list = parseBadWords(value);
        if (list) state.badWords = list;
        else bad(key, value, msg('why.badWords', { max: 32 }), msg('def.none'));
        break;
      }
      case 'sequence_bias': {
        const list = parseSeqBias(value);
        if (list) state.seqBias = list;
        else bad(key, value, msg('why.seqBias', { max: 32 }), msg('def.none'));
        break;
      }
      case 'panels': {
        const parts = value.split(',');
        const panels = [];
        parts.slice(0, MAX_PANELS).forEach((part, i) => {
          const { spec: panel, notices: why } = parsePanelSpec(part);
          why.forEach((w) => notices.push(msg('notice.panel', { n: i + 1, why: w })));
          panels.push(panel);
        });
        if (parts.length > MAX_PANELS) notices.push(msg('notice.tooManyPanels', { count: parts.length, max: MAX_PANELS }));
        while (panels.length < MIN_PANELS) {
          // (the preset as a link names it)
          notices.push(msg('notice.fewPanels', { min: MIN_PANELS, preset: DEFAULT_PANELS[panels.length] }));
          panels.push(defaultPanelSpec(DEFAULT_PANELS[panels.length]));
        }
        state.panels = panels;
        break;
      }
      default:
        notices.push(msg('notice.unknown', { key }));
    }
  }
  // the groups split the beams evenly (else plain beam search)
  if (state.beam.groups && state.beam.width % state.beam.groups !== 0) {
    bad('num_beam_groups', String(state.beam.groups), msg('why.range', { name: 'num_beam_groups', range: `divisors of beams=${state.beam.width}` }), '1');
    delete state.beam.groups;
  }
  // a trained bigram: its text, or (a text too long for a link) the names bigram and a word why
  if (state.model === 'text' && !state.trainText) {
    notices.push(msg('notice.textModel'));
    state.model = 'bigram';
  }
  if (state.model !== 'text') delete state.trainText;
  // links made before the length penalty's default became 1 meant 0
  if ((state.strategy === 'beam' || present.has('beams')) && !present.has('length_penalty')) {
    state.beam.lengthPenalty = LEGACY_LENGTH_PENALTY;
  }
  if (changes) {
    const { list, why } = parseChanges(changes, state);
    if (why) bad('changes', changes, why, msg('def.changes'));
    else state.changes = list;
  }
  return { state, notices, present };
}
