// @ts-check
/**
 * link.js — writing the playground's setup as a URL hash: serializeHash,
 * the inverse of hash.js's parseHash (hash.js says what each key means), so
 * that loading the link gives the same text.  hash.js re-exports it.
 */
import {
  BEAM_WIDTH, DRAFT_MODELS, LENGTH_PENALTY, LOOKUP, LOOKUP_NGRAM, SPECULATE, biasesText, defaultDraft, serializePanelSpec, settingFields,
} from './lab.js';
import { PARAM_SPECS } from './params.js';

/** @typedef {import('./hash.js').HashState} HashState */

/** Play's steps per second */
export const SPEED = { min: 1, max: 60, def: 8 };

/** @param {Array<[number, number, number]>} edits */
export const serializeEdits = (edits) => edits.map(([r, t, p]) => `${r}_${t}_${p}`).join(',');

/**
 * A hash's text: URLSearchParams' encoding, with the characters a fragment
 * may hold as they are (the lists' , = and ~ stay readable).
 * @param {URLSearchParams} search
 */
function linkText(search) {
  return `#${search.toString().replaceAll('%2C', ',').replaceAll('%3D', '=').replaceAll('%7E', '~')}`;
}

/**
 * The hash for a state (with '#').  Sampler settings and the model are always
 * written (a lesson's link states them); the prompt, steps and forced tokens
 * only when there are any.
 * @param {HashState} state
 */
export function serializeHash(state) {
  const search = new URLSearchParams();
  const constraint = () => {
    if (state.constraint?.kind === 'regex' && state.constraint.regex) search.set('regex', state.constraint.regex);
    else if (state.constraint?.kind === 'json') search.set('grammar', 'json');
    else if (state.constraint?.kind === 'json_object') search.set('grammar', 'json_object');
  };
  if (state.view === 'compare') {
    search.set('view', 'compare');
    search.set('model', state.model);
    search.set('seed', state.seed);
    if (state.prompt) search.set('prompt', state.prompt);
    if (state.steps > 0) search.set('steps', String(state.steps));
    constraint();
    search.set('panels', state.panels.map(serializePanelSpec).join(','));
    if (state.speed !== undefined && state.speed !== SPEED.def) search.set('speed', String(state.speed));
    if (state.theme && state.theme !== 'auto') search.set('theme', state.theme);
    if (state.lang) search.set('lang', state.lang);
    return linkText(search);
  }
  search.set('model', state.modelUrl ? 'url' : state.model);
  if (state.modelUrl) search.set('model_url', state.modelUrl);
  if (state.model === 'text' && state.trainText) search.set('train', state.trainText);
  for (const spec of PARAM_SPECS) {
    const v = /** @type {any} */ (state.params)[spec.key];
    if (!spec.inLink && v === spec.def) continue; // the others: only when on
    search.set(spec.key, String(v));
  }
  search.set('seed', state.seed);
  if (state.prompt) search.set('prompt', state.prompt);
  if (state.chat) search.set('chat', '1'); // a link without it: as before
  if (state.steps > 0) search.set('steps', String(state.steps));
  const strategy = state.strategy ?? 'sample';
  const forced = strategy === 'sample' ? state.forced.filter(([i]) => i < state.steps) : [];
  if (forced.length) search.set('forced', forced.map(([i, t]) => `${i}.${t}`).join(','));
  const live = { params: state.params, bans: state.bans ?? [], biases: state.biases ?? [], dryBreakers: state.dryBreakers ?? [], badWords: state.badWords ?? [], seqBias: state.seqBias ?? [], samplers: state.samplers ?? '' };
  const changes = (state.changes ?? []).filter((c) => c.from < state.steps);
  if (changes.length) search.set('changes', changes.map((c) => [c.from, ...settingFields(c, live)].join('_')).join(','));
  // the strategy's options are always written; the other strategies'
  // options only when they are not the defaults (so they survive a link too)
  if (strategy !== 'sample') search.set('strategy', strategy);
  const beam = state.beam ?? { width: BEAM_WIDTH.def, lengthPenalty: LENGTH_PENALTY.def };
  const spec = state.spec ?? { draft: 'bigram', n: SPECULATE.def };
  if (strategy === 'beam' || beam.width !== BEAM_WIDTH.def) search.set('beams', String(beam.width));
  // written with the beams (a link without it means the old default, 0)
  if (search.has('beams') || beam.lengthPenalty !== LENGTH_PENALTY.def) search.set('length_penalty', String(beam.lengthPenalty));
  // the draft is written when it is not what the model gets by default
  // diverse beam search: written when on (never in older links)
  if ((beam.groups ?? 1) !== 1 || (beam.diversity ?? 0) !== 0) {
    search.set('num_beam_groups', String(beam.groups ?? 1));
    search.set('diversity_penalty', String(beam.diversity ?? 0));
  }
  if (spec.draft === LOOKUP) { // prompt lookup: the text drafts
    search.set('prompt_lookup', String(spec.n));
    search.set('prompt_lookup_ngram', String(spec.ngram ?? LOOKUP_NGRAM.def));
  } else {
    if (strategy === 'speculative' || spec.draft !== defaultDraft(state.model ?? 'bigram')) search.set('draft', DRAFT_MODELS.includes(spec.draft) ? spec.draft : 'file');
    if (strategy === 'speculative' || spec.n !== SPECULATE.def) search.set('speculate', String(spec.n));
  }
  constraint();
  if (state.bans?.length) search.set('ban', state.bans.join(','));
  if (state.biases?.length) search.set('logit_bias', biasesText(state.biases, ','));
  if (state.dryBreakers?.length) search.set('dry_sequence_breakers', JSON.stringify(state.dryBreakers));
  if (state.badWords?.length) search.set('bad_words', JSON.stringify(state.badWords));
  if (state.seqBias?.length) search.set('sequence_bias', JSON.stringify(state.seqBias));
  if (state.speed !== undefined && state.speed !== SPEED.def) search.set('speed', String(state.speed));
  // (none, an element's default, is not written: a link opens the page, whose clicks ban)
  if (state.barAction === 'force') search.set('click', 'force');
  if (state.samplers) search.set('samplers', state.samplers);
  if (state.edits?.length) search.set('edits', serializeEdits(state.edits));
  if (state.barScale && state.barScale !== 'linear') search.set('scale', state.barScale);
  if (state.theme && state.theme !== 'auto') search.set('theme', state.theme);
  if (state.lang) search.set('lang', state.lang);
  return linkText(search);
}
