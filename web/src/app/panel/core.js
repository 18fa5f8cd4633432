// @ts-check
/**
 * core.js — a panel's state: its signals (one per fact the page shows or
 * a link carries), the counters that drop late answers, Play's loop, and
 * the helpers every action uses (errors, the queue of Worker requests,
 * folding an answer in).  The actions (the other modules of this folder)
 * and the computed views (view.js) work on it; panel.js puts them together.
 */
import { signal } from '@preact/signals';

import { SPEED } from '../hash.js';
import { BEAM_WIDTH, LENGTH_PENALTY, SPECULATE } from '../lab.js';
import { defaultParams } from '../params.js';
import { createPlayer } from '../loop.js';
import { msg } from '../../i18n/index.js';

/** samples drawn by "Draw 1000 samples" */
export const SAMPLE_COUNT = 1000;

/** @typedef {import('../../worker/summary.js').StepSummary} StepSummary */
/** @typedef {import('../../worker/protocol.js').Status} Status */
/** @typedef {import('../../worker/protocol.js').ModelInfo} ModelInfo */
/** @typedef {import('../../worker/protocol.js').Lab} Lab */
/** @typedef {import('../panel.js').Samples} Samples */
/** @typedef {import('../panel.js').Settings} Settings */
/** @typedef {import('../panel.js').LabState} LabState */
/** @typedef {import('../panel.js').BeamState} BeamState */
/** @typedef {import('../panel.js').SpecState} SpecState */
/** @typedef {import('../hash.js').ConstraintState} ConstraintState */
/** @typedef {import('../models.js').ModelEntry} ModelEntry */
/** @typedef {import('../../i18n/index.js').Text} Text */

/**
 * A panel's state.
 * @param {import('../panel.js').EngineClient} client
 * @param {string} session  its session's id in the Worker
 * @param {import('@preact/signals').Signal<ModelEntry[]>} models  the models it can show (shared in compare mode)
 */
export function createCore(client, session, models) {
  // ---- state ----------------------------------------------------------
  const modelId = signal('');
  /** the model on its way in ('' when none): the picker shows it at once */
  const loadingModel = signal('');
  /** @type {import('@preact/signals').Signal<ModelInfo | null>} */
  const model = signal(null);
  const params = signal(defaultParams());
  /** the chain's order: '' (the default), 'hf', 'llama.cpp', or stage names joined by commas */
  const samplers = signal('');
  /** the setting the learner moved last (a phone's quick control shows it) */
  const activeParam = signal('temperature');
  /** @type {import('@preact/signals').Signal<import('../lab.js').Strategy>} */
  const strategy = signal('sample');
  const beamOpts = signal(/** @type {{width: number, lengthPenalty: number, groups?: number, diversity?: number}} */ ({ width: BEAM_WIDTH.def, lengthPenalty: LENGTH_PENALTY.def }));
  const specOpts = signal(/** @type {{draft: string, n: number, ngram?: number}} */ ({ draft: 'bigram', n: SPECULATE.def }));
  /** the constraint in force (a refused one is not kept) */
  /** @type {import('@preact/signals').Signal<ConstraintState>} */
  const constraint = signal({ kind: 'none', regex: '' });
  /** @type {import('@preact/signals').Signal<number[]>} */
  const bans = signal([]);
  /** finite logit biases [token id, value], by id */
  /** @type {import('@preact/signals').Signal<Array<[number, number]>>} */
  const biases = signal([]);
  /** DRY's sequence breakers (texts; the engine makes them the model's tokens) */
  /** @type {import('@preact/signals').Signal<string[]>} */
  const dryBreakers = signal([]);
  /** bad words and sequence biases (texts; the engine makes them the model's tokens) */
  /** @type {import('@preact/signals').Signal<string[]>} */
  const badWords = signal([]);
  /** @type {import('@preact/signals').Signal<Array<[string, number]>>} */
  const seqBias = signal([]);
  /** classifier-free guidance's negative prompt ('': the prompt's last token alone) */
  const negativePrompt = signal('');
  /** the learner's edits of the model, in order: [row, token, p] (a dragged bar's top) */
  /** @type {import('@preact/signals').Signal<Array<[number, number, number]>>} */
  const edits = signal([]);
  /** a hand-made model's logits and labels, as the engine has them (after its edits) */
  /** @type {import('@preact/signals').Signal<{row: number, logits: number[], pieces: string[]} | null>} */
  const modelRow = signal(null);
  /** what a click on a live bar does */
  /** @type {import('@preact/signals').Signal<'ban' | 'force' | 'none'>} */
  const barAction = signal('ban');
  /** how a bar's length shows its probability */
  /** @type {import('@preact/signals').Signal<import('../hash.js').BarScale>} */
  const barScale = signal('linear');
  /** the settings each Step of this text ran with (a token, a beam
   * expansion or a speculative round each): a link replays them */
  /** @type {import('@preact/signals').Signal<Settings[]>} */
  const stepSettings = signal([]);
  /** @type {import('@preact/signals').Signal<LabState | null>} */
  const lab = signal(null);
  /** @type {import('@preact/signals').Signal<BeamState | null>} */
  const beam = signal(null);
  /** @type {import('@preact/signals').Signal<SpecState | null>} */
  const spec = signal(null);
  /** a pinned past step re-warped under the current settings (peek) */
  /** @type {import('@preact/signals').Signal<{index: number, key: string, summary: StepSummary, samples: Samples | null} | null>} */
  const peeked = signal(null);
  const seed = signal('42');
  const prompt = signal('');
  /** the Chat switch: the prompt wrapped as one user message in the model's chat template */
  const chat = signal(false);
  /** the text the model was started with when the Chat switch wrapped the prompt (the engine's wrap), else null */
  /** @type {import('@preact/signals').Signal<string | null>} */
  const chatText = signal(null);
  /** @type {import('@preact/signals').Signal<StepSummary[]>} */
  const steps = signal([]);
  /** @type {import('@preact/signals').Signal<Array<[number, number]>>} */
  const forced = signal([]);
  /** @type {import('@preact/signals').Signal<StepSummary | null>} */
  const next = signal(null);
  /** @type {import('@preact/signals').Signal<Status | null>} */
  const status = signal(null);
  /** @type {import('@preact/signals').Signal<number | null>} */
  const focus = signal(null);
  /** @type {import('@preact/signals').Signal<number | null>} */
  const hover = signal(null);
  const speed = signal(SPEED.def);
  /** a model file on its way: bytes loaded of total (0: unknown); a download by URL also its rate (bytes/s) and Cancel */
  /** @type {import('@preact/signals').Signal<{name: import('../../i18n/index.js').Text, loaded: number, total: number, rate?: number,
   *   cancel?: () => void} | null>} */
  const progress = signal(null);
  /** a large download waiting for the learner's yes or no */
  /** @type {import('@preact/signals').Signal<{name: string, size: number, answer: (yes: boolean) => void} | null>} */
  const askDownload = signal(null);
  /** @type {import('@preact/signals').Signal<Samples | null>} */
  const samples = signal(null);
  const sampling = signal(false);
  /** what went wrong, by what it concerns (model, prompt, seed, constraint, spec, bans, engine) */
  /** @type {import('@preact/signals').Signal<Record<string, import('../../i18n/index.js').Text>>} */
  const errors = signal({});
  /** @type {import('@preact/signals').Signal<import('../../i18n/index.js').Text[]>} */
  const notices = signal([]);
  /** what the panel is waiting for ('' = nothing) */
  /** @type {import('@preact/signals').Signal<import('../../i18n/index.js').Text>} */
  const busy = signal(msg('busy.engine'));
  const ready = signal(false);
  /** a fast-forward (Generate N) running: tokens done of total, null when none */
  /** @type {import('@preact/signals').Signal<{done: number, total: number} | null>} */
  const generating = signal(null);
  /** the last fast-forward of this text: tokens, the Worker's time (ms), whether Stop ended it */
  /** @type {import('@preact/signals').Signal<{count: number, ms: number, stopped: boolean, from: number} | null>} */
  const generated = signal(null);

  /**
   * What changes as the panel runs, not shown: epoch is bumped by every new
   * generation (late answers are dropped), drawCount by every "Draw
   * samples", chain is the queue of Worker requests, draftChosen says
   * whether the learner or a link chose the draft (else it follows the
   * model: defaultDraft, the tiny transformer's matched one).
   */
  const runtime = { epoch: 0, drawCount: 0, chain: /** @type {Promise<unknown>} */ (Promise.resolve()), draftChosen: false };

  /** the actions core needs but other modules hold (panel.js sets them):
   * one Step, a stop of a fast-forward, loading a draft model */
  const late = {
    step: () => Promise.resolve(false),
    stopGenerate: () => {},
    ensureModel: /** @type {(id: string, why: 'spec') => Promise<void>} */ (async () => {}),
  };
  const { playing, play, pause: pausePlay, togglePlay } = createPlayer({
    step: () => late.step(),
    speed: () => speed.value,
    canStart: () => !!status.value?.ready && !generating.peek(),
    onPlay: () => { focus.value = null; },
  });

  /** Stops Play, and a fast-forward in progress (after its chunk). */
  function pause() {
    pausePlay();
    if (generating.peek()) late.stopGenerate();
  }

  /** @param {string} key @param {import('../../i18n/index.js').Text} [message] */
  function setError(key, message = '') {
    const e = { ...errors.value };
    if (message) e[key] = message;
    else delete e[key];
    errors.value = e;
  }

  function sampleArg() {
    if (!sampling.value) return undefined;
    return { n: SAMPLE_COUNT, seed: runtime.drawCount * 1000003 + steps.value.length };
  }

  /** Runs fn after the operations queued before it, unless a new generation began meanwhile. */
  function enqueue(/** @type {() => Promise<any>} */ fn) {
    const e = runtime.epoch;
    const queued = runtime.chain.then(() => (e === runtime.epoch ? fn() : false));
    runtime.chain = queued.catch(() => {});
    return queued;
  }

  /** @param {{steps: StepSummary[], next: StepSummary | null, status: Status, samples: Samples | null, lab?: Lab}} res */
  function applyNext(res) {
    next.value = res.next;
    status.value = res.status;
    samples.value = res.samples;
    if (res.lab) applyLab(res.lab, res.status.nGenerated);
  }

  /**
   * Folds an answer's lab numbers in: stats from `statsFrom` on replace
   * what was there, the counters join the history at n generated tokens.
   * @param {Lab} l @param {number} n
   */
  function applyLab(l, n) {
    const old = lab.value;
    const stats = (old && l.statsFrom > 0 ? old.stats.slice(0, l.statsFrom) : []).concat(l.stats);
    /** @type {LabState['costs']} */
    let costs = [];
    if (l.counters) {
      const incoming = l.costs?.length ? l.costs : [{ ...l.counters, n }];
      const first = incoming[0].n;
      // the history before this answer, then its entries (the last one for each n)
      costs = (old && first > 0 ? old.costs.filter((c) => c.n < first) : []);
      for (const c of incoming) {
        if (costs.length && costs[costs.length - 1].n === c.n) costs[costs.length - 1] = c;
        else costs.push(c);
      }
    }
    lab.value = { metrics: l.metrics, stats, costs, counted: !!l.counters };
  }



  /** what the decoders (decoders/*.js) see of this panel */
  /** @type {import('../decoders/index.js').PanelState} */
  const decoderState = {
    client, session, seed, steps, forced, next, samples, beam, spec, status, beamOpts, specOpts, constraint,
    applyNext, applyLab, sampleArg, ensureModel: (id, why) => late.ensureModel(id, why), setError,
  };

  return {
    client, session, models, runtime, late, decoderState,
    modelId, loadingModel, model, params, samplers, activeParam, strategy, beamOpts, specOpts, constraint, bans, biases, dryBreakers, badWords, seqBias,
    negativePrompt, edits, modelRow, barAction, barScale, stepSettings, lab, beam, spec, peeked, seed, prompt, chat, chatText, steps, forced, next, status, focus, hover,
    speed, progress, askDownload, samples, sampling, errors, notices, busy, ready, generating, generated,
    playing, play, pausePlay, togglePlay, pause, setError, sampleArg, enqueue, applyNext, applyLab,
  };
}

/** @typedef {ReturnType<typeof createCore>} Core */
