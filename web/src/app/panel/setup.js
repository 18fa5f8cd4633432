// @ts-check
/**
 * setup.js — the whole setup at once (a link's), the seed and the prompt,
 * the engine's hello, and the notices a link left.
 */
import { batch } from '@preact/signals';
import { MAX_SEED, defaultState, normalizeSeed, randomSeed, seedError } from '../hash.js';
import { BUILTIN_MODELS, HANDMADE_ID, TEXT_ID, isHandmadeSpec, modelLabel } from '../models.js';
import { engineChecked } from '../linkCheck.js';
import { msg } from '../../i18n/index.js';

/**
 * What this module calls of the panel's other modules.
 * @typedef {{restart: import('./generation.js').Generation['restart'], selectModel: import('./model.js').ModelActions['selectModel'],
 *   loadUrl: import('./model.js').ModelActions['loadUrl']}} Needs
 */

/**
 * @param {import('./core.js').Core & import('./view.js').View & Needs} p
 */
export function createSetup(p) {
  const { client, models, runtime, modelId, model, params, samplers, strategy, beamOpts, specOpts, constraint, bans, biases,
    dryBreakers, badWords, seqBias, edits, barAction, barScale, seed, speed, errors, notices, busy, ready, pause, setError, decoder } = p;

  /** @param {string} text @returns {Promise<boolean>} */
  async function setSeed(text) {
    const t = text.trim();
    const why = seedError(t);
    if (why) {
      setError('seed', msg(why === 'max' ? 'seed.errorMax' : 'seed.errorWhole', { max: String(MAX_SEED) }));
      return false;
    }
    setError('seed');
    seed.value = normalizeSeed(t);
    return p.restart();
  }

  function rollSeed() {
    return setSeed(randomSeed());
  }

  /** @param {string} text */
  function setPrompt(text) {
    return p.restart({ prompt: text });
  }

  /**
   * The Chat switch: on, the prompt is wrapped as one user message in the
   * model's chat template (a model with none uses the prompt as it is).
   * @param {boolean} on
   */
  function setChat(on) {
    p.chat.value = !!on;
    return p.restart();
  }

  // ---- the whole setup (from a link) -----------------------------------

  /**
   * Applies a parsed hash: model, settings (those the engine refuses at
   * their defaults, with a notice), seed, prompt, then generates its
   * steps (with its forced tokens).
   * @param {import('../hash.js').HashState} state @param {import('../../i18n/index.js').Text[]} [newNotices]
   */
  async function load(state, newNotices = []) {
    pause();
    const fallback = defaultState();
    // the link's sampler settings as the engine takes them: a value it
    // refuses is said and replaced by its default, the rest of the link kept
    const checked = await engineChecked(state, (values, order) => client.request('checkParams', { values, samplers: order }))
      .catch(() => ({ state, notices: [] })); // (an engine that did not start says so itself)
    state = checked.state;
    const notes = [...newNotices, ...checked.notices];
    batch(() => {
      params.value = { ...state.params };
      seed.value = state.seed;
      strategy.value = state.strategy ?? 'sample';
      beamOpts.value = { ...(state.beam ?? beamOpts.value) };
      specOpts.value = { ...(state.spec ?? specOpts.value) };
      // a link that speculates names its draft (none: the bigram, as ever)
      runtime.draftChosen = state.strategy === 'speculative' || (state.spec?.draft ?? 'bigram') !== 'bigram';
      bans.value = [...(state.bans ?? [])];
      biases.value = (state.biases ?? []).map(([t, v]) => /** @type {[number, number]} */ ([t, v]));
      dryBreakers.value = [...(state.dryBreakers ?? [])];
      badWords.value = [...(state.badWords ?? [])];
      seqBias.value = (state.seqBias ?? []).map(([t, v]) => /** @type {[string, number]} */ ([t, v]));
      p.negativePrompt.value = state.negativePrompt ?? '';
      if (state.speed !== undefined) speed.value = state.speed;
      if (state.barAction !== undefined) barAction.value = state.barAction;
      barScale.value = state.barScale ?? 'linear';
      samplers.value = state.samplers ?? '';
      p.chat.value = !!state.chat;
      setError('seed');
      setError('constraint');
      setError('spec');
    });
    // a hand-made spec, and the link's edits of the model
    let modelWanted = state.model;
    let sameSpec = true;
    if (isHandmadeSpec(modelWanted)) {
      const entry = { id: HANDMADE_ID, name: 'Hand-made', builtin: false, handmade: modelWanted };
      sameSpec = models.value.find((m) => m.id === HANDMADE_ID)?.handmade === modelWanted;
      if (!sameSpec) models.value = [...models.value.filter((m) => m.id !== HANDMADE_ID), entry];
      modelWanted = HANDMADE_ID;
    }
    // a bigram trained on the link's text (train=): trained again, the same bytes
    if (modelWanted === TEXT_ID && state.trainText !== undefined) {
      const text = new TextEncoder().encode(state.trainText);
      const had = models.value.find((m) => m.id === TEXT_ID)?.text;
      sameSpec = !!had && had.length === text.length && had.every((b, i) => b === text[i]);
      if (!sameSpec) models.value = [...models.value.filter((m) => m.id !== TEXT_ID), { id: TEXT_ID, name: 'Your text', builtin: false, text }];
    }
    const linkEdits = state.edits ?? [];
    let ok = state.modelUrl
      ? await p.loadUrl(state.modelUrl, { restart: false, origins: state.modelOrigins ?? [], keep: !!state.modelCache })
      : (modelId.value === modelWanted && sameSpec && JSON.stringify(edits.value) === JSON.stringify(linkEdits))
        || (await p.selectModel(modelWanted, { restart: false, edits: linkEdits }));
    if (!ok && (state.model !== fallback.model || state.modelUrl)) {
      notes.push(msg('notice.modelFallback', { error: errors.value.model || msg('error.model', { file: '' }), model: modelLabel(BUILTIN_MODELS[0]) }));
      setError('model');
      ok = await p.selectModel(fallback.model, { restart: false });
    }
    notices.value = notes;
    if (!ok) {
      busy.value = '';
      return false;
    }
    const wanted = state.constraint ?? { kind: 'none', regex: '' };
    const run = { prompt: state.prompt, steps: state.steps, forced: state.forced, constraint: wanted, changes: state.changes ?? [] };
    let started = await p.restart(run);
    if (!started && errors.value.constraint) {
      // a constraint the engine refuses: said in a notice, and left out
      notices.value = [...notices.value, msg('notice.constraint', { error: errors.value.constraint })];
      constraint.value = { kind: 'none', regex: wanted.regex };
      started = await p.restart({ ...run, constraint: constraint.value });
    }
    if (!started && errors.value.spec) {
      notices.value = [...notices.value, msg('notice.draftFallback', { error: errors.value.spec, model: modelLabel(BUILTIN_MODELS[0]) })];
      specOpts.value = { ...specOpts.value, draft: 'bigram' };
      started = await p.restart(run);
    }
    if (!started) {
      const why = errors.value.prompt;
      started = await p.restart({ ...run, prompt: '' });
      setError('prompt', why);
    }
    if (!decoder.value.constrains) constraint.value = wanted; // kept for when it applies
    ready.value = true;
    if (typeof performance !== 'undefined' && performance.mark) performance.mark('spg-ready');
    return started;
  }

  async function init() {
    try {
      await client.request('hello');
    } catch (err) {
      busy.value = '';
      setError('engine', msg('error.engineStart', {}, `The engine could not start: ${/** @type {Error} */ (err).message}`));
    }
  }

  function dismissNotices() {
    notices.value = [];
  }


  return { setSeed, rollSeed, setPrompt, setChat, load, init, dismissNotices };
}

/** @typedef {ReturnType<typeof createSetup>} Setup */
