// @ts-check
/**
 * panel.js — the state and actions of one playground panel: one session
 * of the engine Worker (compare mode creates several panels on one
 * client).  State lives in signals; components read them and call actions.
 *
 * A panel decodes with one strategy: sampling (steps, previews, branches,
 * time travel with peek), beam search (one expansion per step) or
 * speculative decoding (one round per step).  It can constrain the text
 * (regex or JSON), ban tokens (logit bias -inf) and force tokens.
 *
 * The panel is put together here from the modules of panel/, one job
 * each: core.js (the signals), view.js (what they add up to), stages.js
 * (the stages on, as the engine says), and the actions — generation.js,
 * fastForward.js, settings.js, timeTravel.js,
 * strategy.js, model.js, setup.js.  Its members are theirs, flat, so a
 * component names the few it uses (Pick<Panel, ...>).
 *
 * Nothing here computes a probability: every number shown comes from the
 * Worker's step summaries and the engine's metrics, stats and counters.
 * Determinism: a slider move only re-warps (preview or peek, no random
 * draw); steps are the only draws.
 */
import { signal } from '@preact/signals';

import { BUILTIN_MODELS } from './models.js';
import { createCore } from './panel/core.js';
import { createView } from './panel/view.js';
import { createGeneration } from './panel/generation.js';
import { createFastForward } from './panel/fastForward.js';
import { createSettingsActions } from './panel/settings.js';
import { createStages } from './panel/stages.js';
import { createTimeTravel } from './panel/timeTravel.js';
import { createStrategyActions } from './panel/strategy.js';
import { createModelActions } from './panel/model.js';
import { createSetup } from './panel/setup.js';

export { SAMPLE_COUNT } from './panel/core.js';
export { constraintArg, engineParamsOf } from './panel/engineArgs.js';
export { GREEDY_STEPS } from './panel/strategy.js';

/** @typedef {import('../worker/summary.js').StepSummary} StepSummary */
/** @typedef {import('../worker/protocol.js').Status} Status */
/** @typedef {import('../worker/protocol.js').ModelInfo} ModelInfo */
/** @typedef {{n: number, seed: number, index: number, freq: Float64Array, otherFreq: number, kl: number}} Samples */
/** @typedef {import('./models.js').ModelEntry} ModelEntry */
/** @typedef {import('../worker/protocol.js').Lab} Lab */
/** @typedef {import('../worker/protocol.js').SpecRound} SpecRound */
/** @typedef {import('../worker/protocol.js').SpecToken} SpecToken */
/** @typedef {import('./hash.js').ConstraintState} ConstraintState */
/**
 * @typedef {Object} LabState  what the engine measured, gathered step by step
 * @property {Lab['metrics']} metrics
 * @property {Lab['stats']} stats  one per generated token
 * @property {Array<Lab['counters'] & {n: number}>} costs  the counters after
 *   each answer, by generated tokens n (the KV view's history)
 * @property {boolean} counted  the counters are the model's (not beam search)
 */
/**
 * @typedef {Object} BeamState
 * @property {import('../worker/protocol.js').Hypothesis[]} hypotheses
 * @property {number} live @property {number} expansions
 * @property {number} width @property {number} lengthPenalty
 * @property {number} [groups] @property {number} [diversity]  diverse beam search
 */
/**
 * @typedef {Object} SpecState
 * @property {SpecRound[]} rounds
 * @property {SpecToken[]} tokens  the text, token by token
 * @property {{drafted: number, accepted: number, rounds: number, targetPositions: number}} totals
 * @property {string} draft  model id ('' for prompt lookup) @property {number} n
 * @property {number} [ngram]  prompt lookup's longest n-gram
 * @property {{targetPasses: number, targetFed: number, matched: boolean, ms: number, plainMs: number}} work
 *   the model's batched passes and the positions they fed; the rounds' time
 *   and plain decoding's for the same tokens (measured in the Worker)
 */

/** @typedef {{params: import('./params.js').Params, bans: number[], biases?: Array<[number, number]>, dryBreakers?: string[], badWords?: string[], seqBias?: Array<[string, number]>, samplers?: string, negativePrompt?: string}} Settings  the sliders, the bans, the finite logit biases, DRY's sequence breakers, the words, the chain's order and classifier-free guidance's negative prompt */
/**
 * What a panel needs of the Worker's client (worker/client.js; the tests'
 * in-process client has the same shape).
 * @typedef {{request: (op: string, args?: any, transfer?: Transferable[], options?: {onProgress?: (p: {loaded: number, total: number}) => void}) => Promise<any>}} EngineClient
 */

/**
 * @param {EngineClient} client
 * @param {{session?: string, models?: import('@preact/signals').Signal<ModelEntry[]>}} [options]
 *   models: a list shared by several panels (compare mode)
 */
export function createPanel(client, { session = 'main', models = signal(BUILTIN_MODELS.map((m) => ({ ...m }))) } = {}) {
  const core = createCore(client, session, models);
  const withView = { ...core, ...createView(core) };
  const generation = createGeneration(withView);
  // (a stage turned on that the engine still calls off: settings.js sets its other settings)
  const stages = createStages(withView, (stage) => settings.setStageTypical(stage));
  const settings = createSettingsActions({ ...withView, ...stages });
  const fastForward = createFastForward({ ...withView, ...settings });
  const timeTravel = createTimeTravel({ ...withView, ...generation, ...settings, ...fastForward });
  const strategy = createStrategyActions({ ...withView, ...generation });
  const model = createModelActions({ ...withView, ...generation });
  const setup = createSetup({ ...withView, ...generation, ...model });
  core.late.step = generation.step;
  core.late.stopGenerate = fastForward.stopGenerate;
  core.late.ensureModel = generation.ensureModel;
  const { runtime, late, decoderState, pausePlay, enqueue, applyNext, applyLab, sampleArg, ...state } = withView;
  const { doStep, ...steps } = generation;
  const { lazyStep, ...forward } = fastForward;
  return {
    ...state, ...steps, ...forward, ...stages, ...settings, ...timeTravel, ...strategy, ...model, ...setup,
    reset: () => generation.restart(),
  };
}

/** @typedef {ReturnType<typeof createPanel>} Panel */
