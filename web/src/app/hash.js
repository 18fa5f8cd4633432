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
 * ignored with a notice.  A sampler setting is read here as a number; the
 * engine then says whether it takes it (linkCheck.js, before the link is
 * used: its ranges are the engine's, never restated here).  hashKeys.js
 * reads each key.
 */
import { LEGACY_LENGTH_PENALTY, defaultPanelSpec } from './lab.js';
import { SPEED } from './link.js';
import { parseChanges } from './changes.js';
import { defaultParams } from './params.js';
import { DEFAULT_PANELS, KEY_READERS } from './hashKeys.js';
import { msg } from '../i18n/index.js';

export { changesOf, parseChanges, settingsAt } from './changes.js';
export { serializeEdits, serializeHash, SPEED } from './link.js';
export {
  BAR_SCALES, DEFAULT_PANELS, HASH_MODELS, MAX_PANELS, MAX_SEED, MAX_STEPS, MIN_PANELS, THEMES, normalizeSeed, parseEdits, randomSeed, seedError,
} from './hashKeys.js';

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
 * @property {string} [negativePrompt]  classifier-free guidance's negative prompt (negative_prompt=…; none: the prompt's last token)
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
 * @property {'element'} [source]  the settings are an element's attributes
 *   (its notices name them top-k, not top_k); a link's otherwise
 */

/** @typedef {import('./changes.js').Change} Change */

/** @typedef {'linear' | 'max' | 'log'} BarScale */

/** @typedef {'auto' | 'light' | 'dark'} Theme */

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

/**
 * What a key's reader is given: the state being built, the notices, and
 * how to say a bad value (`bad`) or read a number checked by `check`
 * (`option`).
 * @typedef {Object} KeyContext
 * @property {HashState} state
 * @property {import('../i18n/index.js').Msg[]} notices
 * @property {'link' | 'element'} source
 * @property {(key: string) => string} name  how the notices spell a key
 * @property {(key: string, value: string, why: import('../i18n/index.js').Text, def: import('../i18n/index.js').Text) => void} bad
 * @property {(key: string, value: string, check: (v: number) => import('../i18n/index.js').Text, def: string, set: (v: number) => void) => void} option
 * @property {string} changes  the `changes` text, read once the link's own settings are known
 */

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
  /** @type {KeyContext} */
  const ctx = {
    state, notices, source, name, changes: '',
    bad: (key, value, why, def) => notices.push(msg(source === 'link' ? 'notice.ignoredLink' : 'notice.ignored', {
      name: name(key), value: JSON.stringify(value), why, def,
    })),
    option(key, value, check, def, set) {
      const v = value.trim() === '' ? NaN : Number(value);
      const why = check(v);
      if (why) ctx.bad(key, value, why, def);
      else set(v);
    },
  };
  for (const [key, value] of search) {
    present.add(key);
    const read = Object.hasOwn(KEY_READERS, key) ? KEY_READERS[key] : null;
    if (read) read(value, ctx, key);
    else notices.push(msg('notice.unknown', { key }));
  }
  settle(ctx, present);
  if (source === 'element') state.source = 'element';
  return { state, notices, present };
}

/**
 * What the keys mean together, once all are read: groups that do not
 * divide the beams, a trained bigram without its text, an older link's
 * length penalty, the changes against the link's own settings.
 * @param {KeyContext} ctx @param {Set<string>} present
 */
function settle(ctx, present) {
  const { state, notices } = ctx;
  // the groups split the beams evenly (else plain beam search)
  if (state.beam.groups && state.beam.width % state.beam.groups !== 0) {
    ctx.bad('num_beam_groups', String(state.beam.groups), msg('why.range', { name: 'num_beam_groups', range: `divisors of beams=${state.beam.width}` }), '1');
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
  if (ctx.changes) {
    const { list, why } = parseChanges(ctx.changes, state);
    if (why) ctx.bad('changes', ctx.changes, why, msg('def.changes'));
    else state.changes = list;
  }
}
