// @ts-check
/**
 * generation.js — a panel's text: a new one (restart: the model, seed,
 * settings and strategy in force; a refused prompt, constraint or draft
 * keeps the old text), one Step at a time (a token, a beam expansion or a
 * round), and the draft model a strategy needs besides the panel's own.
 */
import { batch } from '@preact/signals';
import { settingsAt } from '../hash.js';
import { DECODERS } from '../decoders/index.js';
import { errorMsg } from '../errors.js';
import { constraintArg, engineParamsOf } from './engineArgs.js';
import { msg } from '../../i18n/index.js';

/** @typedef {import('../hash.js').ConstraintState} ConstraintState */
/**
 * @param {import('./core.js').Core & import('./view.js').View} p
 */
export function createGeneration(p) {
  const { client, session, models, model, runtime, decoderState, strategy, constraint, stepSettings, lab, peeked, prompt, chat, chatText, status, focus, hover,
    busy, generated, pause, setError, enqueue, settings, engineParams, decoder, stepCount } = p;

  /**
   * Starts a new generation with the current model, seed, settings and
   * strategy.
   * @param {{prompt?: string, steps?: number, forced?: Array<[number, number]>, constraint?: ConstraintState,
   *   changes?: import('../hash.js').Change[]}} [opts]
   *   constraint: try this one (it is kept only if the engine takes it);
   *   changes: the settings of the steps that ran with others than the
   *   current ones (a link's, or the text's own when it is regenerated)
   * @returns {Promise<boolean>} false: the prompt, the constraint or the
   *   draft model was refused (the old text stays)
   */
  async function restart(opts = {}) {
    pause();
    const text = opts.prompt ?? prompt.value;
    const wanted = opts.constraint ?? constraint.value;
    const e = ++runtime.epoch;
    busy.value = msg('busy.starting');
    const live = settings.value;
    const count = opts.steps ?? 0;
    const changes = opts.changes ?? [];
    // what each step will run with, for the Worker (only where it is not the live settings)
    const schedule = changes.map((c) => ({ from: c.from, params: engineParamsOf(c) }));
    const decoder = DECODERS[strategy.value];
    // the Chat switch: the engine wraps the prompt in the model's template
    // (a model with another template, or none, starts from the prompt as it is)
    let started = text;
    const wrap = chat.value && (model.value?.chat === 'chatml' || model.value?.chat === 'llama3');
    if (wrap) {
      try {
        started = await client.request('chatWrap', { session, prompt: text });
      } catch (err) {
        if (e === runtime.epoch) {
          setError('prompt', errorMsg('start', err));
          busy.value = '';
        }
        return false;
      }
    }
    /** @type {import('../decoders/index.js').Run} */
    const run = {
      prompt: started, count, params: engineParams.value, schedule, forced: opts.forced ?? [],
      constraint: wanted, engineConstraint: constraintArg(wanted),
    };
    try {
      const res = await decoder.start(decoderState, run);
      if (e !== runtime.epoch) return false;
      const ran = decoder.ran(res);
      batch(() => {
        stepSettings.value = Array.from({ length: ran }, (_, i) => settingsAt(changes, i, live));
        prompt.value = text;
        chatText.value = wrap ? started : null;
        lab.value = null;
        generated.value = null;
        peeked.value = null;
        focus.value = null;
        hover.value = null;
        decoder.began(decoderState, res, run);
        setError('prompt');
        setError('engine');
        setError('spec');
      });
      return true;
    } catch (err) {
      if (e === runtime.epoch) {
        const name = /** @type {Error} */ (err).name;
        if (name === 'ConstraintError') setError('constraint', errorMsg('constraint', err));
        else if (name === 'DraftError') setError('spec', errorMsg('draft', err));
        else setError('prompt', errorMsg('start', err));
      }
      return false;
    } finally {
      if (e === runtime.epoch) busy.value = '';
    }
  }

  /**
   * Loads a built-in model the panel needs besides its own (a draft);
   * a failure throws an Error named after `why` ("DraftError").
   * @param {string} id @param {'spec'} why
   */
  async function ensureModel(id, why) {
    const entry = models.value.find((m) => m.id === id);
    try {
      if (!entry) throw new Error(`no model "${id}" to draft with`);
      if (entry.builtin) await client.request('loadModel', { model: id, builtin: id });
    } catch (err) {
      // the Worker's reason and code go along (errors.js says it in the page's language)
      const { message, code, reason, vars, part } = /** @type {any} */ (err);
      const e = Object.assign(new Error(message), { code, reason, vars, part });
      e.name = why === 'spec' ? 'DraftError' : 'Error';
      throw e;
    }
  }

  /** @param {number} force */
  async function doStep(force) {
    if (!status.value?.ready) return false;
    const e = runtime.epoch;
    const decoder = DECODERS[strategy.value];
    const used = settings.value;
    const before = stepCount.peek();
    try {
      const res = await decoder.step(decoderState, engineParamsOf(used), force);
      if (e !== runtime.epoch) return false;
      batch(() => {
        decoder.stepped(decoderState, res, force);
        // the settings this Step ran with (a link replays them)
        if (decoder.ran(res) > 0) stepSettings.value = [...stepSettings.value.slice(0, before), used];
      });
      return res.status.ready;
    } catch (err) {
      if (e === runtime.epoch) setError('engine', errorMsg('engine', err));
      return false;
    }
  }

  /**
   * One step: a token (force: the learner's choice instead of a draw), a
   * beam expansion, or a round of speculative decoding.
   */
  function step(force = -1) {
    return enqueue(() => doStep(decoder.value.forcing ? force : -1));
  }

  return { restart, ensureModel, doStep, step };
}

/** @typedef {ReturnType<typeof createGeneration>} Generation */
