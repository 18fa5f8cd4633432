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
 * Nothing here computes a probability: every number shown comes from the
 * Worker's step summaries and the engine's metrics, stats and counters.
 * Determinism: a slider move only re-warps (preview or peek, no random
 * draw); steps are the only draws.
 */
import { batch, computed, signal } from '@preact/signals';

import { MAX_SEED, SPEED, changesOf, defaultState, normalizeSeed, randomSeed, seedError, settingsAt } from './hash.js';
import { BEAM_WIDTH, LENGTH_PENALTY, MAX_BANS, MAX_BIASES, SPECULATE, defaultDraft, matchPreset, presetParams } from './lab.js';
import { PARAM_SPECS, SPEC, clampParam, defaultParams, orderName, orderOf } from './params.js';
import { DECODERS } from './decoders/index.js';
import { errorMsg } from './errors.js';
import { msg } from '../i18n/index.js';
import { sample } from './decoders/sample.js';
import { MAX_TOKENS } from '../shared/limits.js';
import { createPlayer } from './loop.js';

/** @typedef {import('../worker/summary.js').StepSummary} StepSummary */
/** @typedef {import('../worker/protocol.js').Status} Status */
/** @typedef {import('../worker/protocol.js').ModelInfo} ModelInfo */
/** @typedef {{n: number, seed: number, index: number, freq: Float64Array, otherFreq: number, kl: number}} Samples */
/**
 * @typedef {{id: string, name: string, builtin: boolean, url?: string, tokenizerUrl?: string | null, info?: ModelInfo,
 *   handmade?: string, text?: Uint8Array, draftOnly?: boolean}} ModelEntry
 *   url: a model file the Worker fetches (a lesson's checkpoint); info: a model loaded from files;
 *   handmade: a hand-made model's spec ("logits:2,1,0"); text: the learner's text a bigram is trained on;
 *   draftOnly: a draft for speculative decoding, not in the model picker
 */
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
 */
/**
 * @typedef {Object} SpecState
 * @property {SpecRound[]} rounds
 * @property {SpecToken[]} tokens  the text, token by token
 * @property {{drafted: number, accepted: number, rounds: number, targetPositions: number}} totals
 * @property {string} draft  model id @property {number} n
 * @property {{targetPasses: number, targetFed: number, matched: boolean, ms: number, plainMs: number}} work
 *   the model's batched passes and the positions they fed; the rounds' time
 *   and plain decoding's for the same tokens (measured in the Worker)
 */

export const SAMPLE_COUNT = 1000;
/** a model file larger than this shows a progress bar while it loads */
export const PROGRESS_MIN_BYTES = 200 * 1000;
/** tokens "greedy via T = 0 / top-k = 1" generates on an empty text */
export const GREEDY_STEPS = 30;

/** @type {ModelEntry[]} */
export const BUILTIN_MODELS = [
  { id: 'bigram', name: 'Bigram names', builtin: true },
  { id: 'transformer', name: 'Tiny transformer', builtin: true },
  // drafts for the tiny transformer (its vocabulary): offered as drafts only
  { id: 'bible-tiny', name: 'Bible draft (1-layer transformer)', builtin: true, draftOnly: true },
  { id: 'bible-bigram', name: 'Bible bigram', builtin: true, draftOnly: true },
];


/** the hand-made model's id in a panel's list, and the trained one's */
export const HANDMADE_ID = 'handmade';
export const TEXT_ID = 'text';

/** the shipped models' names, and the made ones' (catalogue keys), by their ids */
export const MODEL_NAMES = /** @type {Record<string, string>} */ ({
  bigram: 'model.bigram', transformer: 'model.transformer', 'bible-tiny': 'model.bibleTiny', 'bible-bigram': 'model.bibleBigram',
  [HANDMADE_ID]: 'model.handmade', [TEXT_ID]: 'model.yourText',
});

/**
 * A model's name in a message: a shipped or made model's in the page's
 * language, a file's as it is.
 * @param {{id: string, name: string, builtin?: boolean}} entry
 * @returns {import('../i18n/index.js').Text}
 */
export function modelLabel(entry) {
  return MODEL_NAMES[entry.id] ? msg(MODEL_NAMES[entry.id]) : entry.name;
}

/** Whether a model name is a hand-made model's spec. @param {string} name */
export const isHandmadeSpec = (name) => /^(logits|probs):/.test(name);
/** a text larger than this trains with a progress bar */
export const TRAIN_PROGRESS_BYTES = 1 << 20;

/** A constraint as the engine takes it, or null for none. @param {ConstraintState} c */
export function constraintArg(c) {
  if (c.kind === 'json' || c.kind === 'json_object') return { grammar: c.kind };
  if (c.kind === 'regex' && c.regex) return { regex: c.regex };
  return null;
}

/** @typedef {{params: import('./params.js').Params, bans: number[], biases?: Array<[number, number]>, dryBreakers?: string[], samplers?: string}} Settings  the sliders, the bans, the finite logit biases, DRY's sequence breakers and the chain's order */
/**
 * What a panel needs of the Worker's client (worker/client.js; the tests'
 * in-process client has the same shape).
 * @typedef {{request: (op: string, args?: any, transfer?: Transferable[], options?: {onProgress?: (p: {loaded: number, total: number}) => void}) => Promise<any>}} EngineClient
 */

/**
 * Settings as the engine takes them: the sliders, and the bans (logit
 * biases of -inf) and finite biases as one logit_bias list, by token id.
 * @param {Settings} s
 */
export function engineParamsOf(s) {
  /** @type {Record<string, any>} */
  const out = { ...s.params };
  const bias = [...s.bans.map((t) => [t, -Infinity]), ...(s.biases ?? [])].sort((a, b) => a[0] - b[0]);
  if (bias.length) out.logit_bias = bias;
  if (s.dryBreakers?.length) out.dry_sequence_breakers = s.dryBreakers;
  if (s.samplers) out.samplers = s.samplers;
  return out;
}

/**
 * @param {EngineClient} client
 * @param {{session?: string, models?: import('@preact/signals').Signal<ModelEntry[]>}} [options]
 *   models: a list shared by several panels (compare mode)
 */
export function createPanel(client, { session = 'main', models = signal(BUILTIN_MODELS.map((m) => ({ ...m }))) } = {}) {
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
  /** @type {import('@preact/signals').Signal<import('./lab.js').Strategy>} */
  const strategy = signal('sample');
  const beamOpts = signal({ width: BEAM_WIDTH.def, lengthPenalty: LENGTH_PENALTY.def });
  const specOpts = signal({ draft: 'bigram', n: SPECULATE.def });
  /** whether the learner or a link chose the draft; else it follows the
   * model (defaultDraft: the tiny transformer's matched draft) */
  let draftChosen = false;
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
  /** the learner's edits of the model, in order: [row, token, p] (a dragged bar's top) */
  /** @type {import('@preact/signals').Signal<Array<[number, number, number]>>} */
  const edits = signal([]);
  /** a hand-made model's logits and labels, as the engine has them (after its edits) */
  /** @type {import('@preact/signals').Signal<{row: number, logits: number[], pieces: string[]} | null>} */
  const modelRow = signal(null);
  /** what a click on a live bar does */
  /** @type {import('@preact/signals').Signal<'ban' | 'force'>} */
  const barAction = signal('ban');
  /** how a bar's length shows its probability */
  /** @type {import('@preact/signals').Signal<import('./hash.js').BarScale>} */
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
  /** a model file on its way: bytes loaded of total (0: unknown) */
  /** @type {import('@preact/signals').Signal<{name: import('../i18n/index.js').Text, loaded: number, total: number} | null>} */
  const progress = signal(null);
  /** @type {import('@preact/signals').Signal<Samples | null>} */
  const samples = signal(null);
  const sampling = signal(false);
  /** what went wrong, by what it concerns (model, prompt, seed, constraint, spec, bans, engine) */
  /** @type {import('@preact/signals').Signal<Record<string, import('../i18n/index.js').Text>>} */
  const errors = signal({});
  /** @type {import('@preact/signals').Signal<import('../i18n/index.js').Text[]>} */
  const notices = signal([]);
  /** what the panel is waiting for ('' = nothing) */
  /** @type {import('@preact/signals').Signal<import('../i18n/index.js').Text>} */
  const busy = signal(msg('busy.engine'));
  const ready = signal(false);
  /** a fast-forward (Generate N) running: tokens done of total, null when none */
  /** @type {import('@preact/signals').Signal<{done: number, total: number} | null>} */
  const generating = signal(null);
  /** the last fast-forward of this text: tokens, the Worker's time (ms), whether Stop ended it */
  /** @type {import('@preact/signals').Signal<{count: number, ms: number, stopped: boolean, from: number} | null>} */
  const generated = signal(null);

  /** what the decoders (decoders/*.js) see of this panel */
  /** @type {import('./decoders/index.js').PanelState} */
  const state = {
    client, session, seed, steps, forced, next, samples, beam, spec, status, beamOpts, specOpts, constraint,
    applyNext, applyLab, sampleArg, ensureModel, setError,
  };

  /** the settings in force: the sliders and the bans */
  const settings = computed(() => ({ params: params.value, bans: bans.value, biases: biases.value, dryBreakers: dryBreakers.value, samplers: samplers.value }));
  /** the settings as the engine takes them */
  const engineParams = computed(() => engineParamsOf(settings.value));
  const paramsKey = computed(() => JSON.stringify(engineParams.value));
  /** the step being looked at (time travel), or null: the live next token */
  const viewIndex = computed(() => {
    if (!decoder.value.timeTravel) return null;
    const i = hover.value ?? focus.value;
    return i !== null && i < steps.value.length ? i : null;
  });
  /** the pinned step's re-warp, while it matches the settings */
  const peekShown = computed(() => {
    const pk = peeked.value;
    const i = viewIndex.value;
    return pk && i !== null && pk.index === i && focus.value === i && pk.key === paramsKey.value ? pk : null;
  });
  /** the distribution on screen */
  const shown = computed(() => {
    const i = viewIndex.value;
    if (i === null) return next.value;
    if (peekShown.value) return peekShown.value.summary;
    // a fast-forwarded token: its record is on its way (ensureRecord)
    return steps.value[i].lazy ? null : steps.value[i];
  });
  /** the samples that go with the distribution on screen */
  const shownSamples = computed(() => (viewIndex.value === null ? samples.value : peekShown.value?.samples ?? null));
  /** the decoding strategy's side of the panel (decoders/*.js) */
  const decoder = computed(() => DECODERS[strategy.value]);
  /** how many times Step has advanced this text (what a link's `steps` replays) */
  const stepCount = computed(() => decoder.value.count(state));
  /** the generated text (after the prompt) */
  const text = computed(() => decoder.value.text(state));
  /** the preset these settings are, or 'custom' */
  const preset = computed(() => matchPreset(params.value));
  /** a drag on a bar's top can edit the model: a bigram or hand-made one, sampling, the live step */
  const canEdit = computed(() => {
    const kind = model.value?.kind;
    return (kind === 'bigram' || kind === 'handmade') && strategy.value === 'sample' && viewIndex.value === null;
  });
  /** the live Top-p alone (the nucleus view re-renders only for it) */
  const topP = computed(() => params.value.top_p);
  /** attribute values for the panel's root (bound without re-rendering it) */
  const readyAttr = computed(() => (ready.value ? 'true' : 'false'));
  const playingAttr = computed(() => (playing.value ? 'true' : 'false'));
  /** the Steps taken so far, as an attribute (a test waits for a queued Step to land) */
  const stepsAttr = computed(() => String(stepCount.value));
  /** the panel root's class: dimmed bars while a fast-forward runs */
  const panelClass = computed(() => (generating.value ? 'spg-panel is-generating' : 'spg-panel'));
  /** what the URL hash describes */
  const hashState = computed(() => ({
    ...defaultState(),
    model: hashModel(),
    edits: edits.value,
    params: params.value,
    seed: seed.value,
    prompt: prompt.value,
    steps: stepCount.value,
    forced: forced.value,
    strategy: strategy.value,
    beam: beamOpts.value,
    spec: specOpts.value,
    bans: bans.value,
    biases: biases.value,
    dryBreakers: dryBreakers.value,
    constraint: constraint.value,
    speed: speed.value,
    barAction: barAction.value,
    barScale: barScale.value,
    samplers: samplers.value,
    changes: changesOf(stepSettings.value.slice(0, stepCount.value), settings.value),
  }));
  /** this panel's own settings, as a compare link has them */
  const panelSpec = computed(() => ({
    params: params.value, strategy: strategy.value, beam: beamOpts.value, spec: specOpts.value, bans: bans.value, biases: biases.value,
    dryBreakers: dryBreakers.value, samplers: samplers.value,
  }));

  /** the model as a link names it: a shipped one, a hand-made spec, text (trained) or file */
  function hashModel() {
    const id = modelId.value;
    if (!id) return 'bigram';
    if (BUILTIN_MODELS.some((m) => m.id === id)) return id;
    const entry = models.value.find((m) => m.id === id);
    if (entry?.handmade) return entry.handmade;
    return id === TEXT_ID ? TEXT_ID : 'file';
  }

  let epoch = 0; // bumped by every new generation: late answers are dropped
  let drawCount = 0;
  const { playing, play, pause: pausePlay, togglePlay } = createPlayer({
    step: () => step(),
    speed: () => speed.value,
    canStart: () => !!status.value?.ready && !generating.peek(),
    onPlay: () => { focus.value = null; },
  });
  /** @type {Promise<unknown>} */
  let chain = Promise.resolve();

  /** Stops Play, and a fast-forward in progress (after its chunk). */
  function pause() {
    pausePlay();
    if (generating.peek()) stopGenerate();
  }

  /** @param {string} key @param {import('../i18n/index.js').Text} [message] */
  function setError(key, message = '') {
    const e = { ...errors.value };
    if (message) e[key] = message;
    else delete e[key];
    errors.value = e;
  }

  function sampleArg() {
    if (!sampling.value) return undefined;
    return { n: SAMPLE_COUNT, seed: drawCount * 1000003 + steps.value.length };
  }

  /** Runs fn after the operations queued before it, unless a new generation began meanwhile. */
  function enqueue(/** @type {() => Promise<any>} */ fn) {
    const e = epoch;
    const run = chain.then(() => (e === epoch ? fn() : false));
    chain = run.catch(() => {});
    return run;
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


  // ---- generation -----------------------------------------------------

  /**
   * Starts a new generation with the current model, seed and settings.
   * @param {{prompt?: string, steps?: number, forced?: Array<[number, number]>}} [opts]
   * @returns {Promise<boolean>} false: the prompt was refused (the old text stays)
   */
  /**
   * Starts a new generation with the current model, seed, settings and
   * strategy.
   * @param {{prompt?: string, steps?: number, forced?: Array<[number, number]>, constraint?: ConstraintState,
   *   changes?: import('./hash.js').Change[]}} [opts]
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
    const e = ++epoch;
    busy.value = msg('busy.starting');
    const live = settings.value;
    const count = opts.steps ?? 0;
    const changes = opts.changes ?? [];
    // what each step will run with, for the Worker (only where it is not the live settings)
    const schedule = changes.map((c) => ({ from: c.from, params: engineParamsOf(c) }));
    const decoder = DECODERS[strategy.value];
    /** @type {import('./decoders/index.js').Run} */
    const run = {
      prompt: text, count, params: engineParams.value, schedule, forced: opts.forced ?? [],
      constraint: wanted, engineConstraint: constraintArg(wanted),
    };
    try {
      const res = await decoder.start(state, run);
      if (e !== epoch) return false;
      const ran = decoder.ran(res);
      batch(() => {
        stepSettings.value = Array.from({ length: ran }, (_, i) => settingsAt(changes, i, live));
        prompt.value = text;
        lab.value = null;
        generated.value = null;
        peeked.value = null;
        focus.value = null;
        hover.value = null;
        decoder.began(state, res, run);
        setError('prompt');
        setError('engine');
        setError('spec');
      });
      return true;
    } catch (err) {
      if (e === epoch) {
        const name = /** @type {Error} */ (err).name;
        if (name === 'ConstraintError') setError('constraint', errorMsg('constraint', err));
        else if (name === 'DraftError') setError('spec', errorMsg('draft', err));
        else setError('prompt', errorMsg('start', err));
      }
      return false;
    } finally {
      if (e === epoch) busy.value = '';
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
    const e = epoch;
    const decoder = DECODERS[strategy.value];
    const used = settings.value;
    const before = stepCount.peek();
    try {
      const res = await decoder.step(state, engineParamsOf(used), force);
      if (e !== epoch) return false;
      batch(() => {
        decoder.stepped(state, res, force);
        // the settings this Step ran with (a link replays them)
        if (decoder.ran(res) > 0) stepSettings.value = [...stepSettings.value.slice(0, before), used];
      });
      return res.status.ready;
    } catch (err) {
      if (e === epoch) setError('engine', errorMsg('engine', err));
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

  // ---- fast-forward (Generate N) ----------------------------------------

  /** a Stop was asked of the fast-forward in progress */
  let stopAsked = false;

  /**
   * Fast-forward: up to n tokens in the Worker with the current settings,
   * each the token a Step would append (the same text, byte for byte), with
   * progress and no rendering per token.  The text gets one entry per token
   * (its piece, and its probability from the engine's per-token stats); a
   * token's step record comes from the engine when it is looked at
   * (ensureRecord).  With a constraint the text is stepped in small batches
   * instead (a past step's record under a constraint needs the step's own
   * answer: peek does not apply the constraint's mask).
   * Sampling only.
   * @param {number} n
   * @returns {Promise<boolean>} false when nothing was generated
   */
  function generate(n) {
    if (strategy.value !== 'sample' || generating.value) return Promise.resolve(false);
    const want = Math.max(1, Math.min(MAX_TOKENS, Math.round(n) || 1));
    pausePlay();
    return enqueue(async () => {
      if (!status.value?.ready) return false;
      const e = epoch;
      const used = settings.value;
      const p = engineParamsOf(used);
      const from = steps.value.length;
      stopAsked = false;
      generating.value = { done: 0, total: want };
      const t0 = performance.now();
      let ms = 0;
      let stopped = false;
      try {
        if (constraint.value.kind !== 'none') {
          // stepped in batches: every step's record comes with it
          while (steps.value.length - from < want && status.value?.ready && !stopAsked) {
            const count = Math.min(16, want - (steps.value.length - from));
            const res = await client.request('step', { session, params: p, count, samples: sampleArg() });
            if (e !== epoch) return false;
            batch(() => {
              sample.stepped(state, res, -1);
              generating.value = { done: steps.value.length - from, total: want };
            });
          }
          stopped = stopAsked && !!status.value?.ready && steps.value.length - from < want;
          ms = performance.now() - t0;
        } else {
          const onProgress = (/** @type {{loaded: number, total: number}} */ pr) => {
            if (e === epoch && generating.peek()) generating.value = { done: pr.loaded, total: pr.total };
          };
          const res = await client.request('generate', { session, params: p, n: want, samples: sampleArg() }, [], { onProgress });
          if (e !== epoch) return false;
          const stats = res.lab?.stats ?? [];
          const base = res.lab ? res.lab.statsFrom : from;
          /** @type {StepSummary[]} */
          const added = res.generated.tokens.map((/** @type {{index: number, token: number, piece: string}} */ t) => lazyStep(t, stats[t.index - base]));
          batch(() => {
            steps.value = steps.value.concat(added);
            applyNext(res);
          });
          stopped = res.generated.stopped;
          ms = res.generated.ms;
        }
        const count = steps.value.length - from;
        batch(() => {
          // the settings these tokens ran with (a link replays them)
          stepSettings.value = [...stepSettings.value.slice(0, from), ...Array.from({ length: count }, () => used)];
          generated.value = { count, ms, stopped, from };
        });
        // a setting moved while it ran: the next token under the new one
        if (paramsKey.peek() !== JSON.stringify(p)) refreshPreview();
        return count > 0;
      } catch (err) {
        if (e === epoch) setError('engine', errorMsg('engine', err));
        return false;
      } finally {
        generating.value = null;
      }
    });
  }

  /** Asks the fast-forward in progress to stop (after the chunk the Worker is on). */
  function stopGenerate() {
    if (!generating.peek()) return;
    stopAsked = true;
    client.request('stopGenerate', { session }).catch(() => {});
  }

  /**
   * A fast-forwarded token's entry in the text: its piece and token, its
   * final probability and the step's entropies and nucleus from the
   * engine's per-token stats; the bars' rows come on demand (ensureRecord).
   * @param {{index: number, token: number, piece: string}} t
   * @param {{p: number, entropyBits: number, entropyRawBits: number, nKept: number} | undefined} stat
   * @returns {StepSummary}
   */
  function lazyStep(t, stat) {
    return {
      kind: 'step', index: t.index, vocab: model.peek()?.vocab ?? 0, token: t.token, piece: t.piece,
      p: stat ? stat.p : NaN, u: NaN, forced: false, nKept: stat ? stat.nKept : NaN, keptMass: NaN,
      entropyBits: stat ? stat.entropyBits : NaN, entropyRawBits: stat ? stat.entropyRawBits : NaN,
      argmaxRaw: -1, pArgmax: NaN, pArgmaxRaw: NaN, full: false, bars: 0,
      ids: new Int32Array(0), pieces: [], raw: new Float32Array(0), tempered: new Float32Array(0), final: new Float32Array(0),
      cut: [], cum: new Float64Array(0), penalized: new Uint8Array(0), cuts: [], other: null, params: {}, lazy: true,
    };
  }

  /** the fast-forwarded step being fetched, and the one wanted next */
  let recordRunning = false;
  /** @type {number | null} */
  let recordWanted = null;

  /**
   * A fast-forwarded step's record, from the engine: the step re-warped
   * with the settings it ran with (peek), so the same distribution,
   * cutoffs and probabilities the step had; it takes the entry's place in
   * the text.  Nothing to do for a step that has its record.
   * @param {number} i
   */
  async function ensureRecord(i) {
    if (!steps.peek()[i]?.lazy) return;
    recordWanted = i;
    if (recordRunning) return;
    recordRunning = true;
    try {
      while (recordWanted !== null) {
        const k = recordWanted;
        recordWanted = null;
        const stub = steps.peek()[k];
        if (!stub?.lazy) continue;
        const e = epoch;
        const ran = stepSettings.peek()[k] ?? settings.peek();
        const res = await client.request('peek', { session, index: k, params: engineParamsOf(ran) });
        if (e !== epoch || steps.peek()[k] !== stub) continue;
        const list = steps.peek().slice();
        list[k] = { ...res.step, kind: 'step', token: stub.token, piece: stub.piece, p: res.step.p, u: NaN, forced: false, fastForwarded: true };
        steps.value = list;
      }
    } catch (err) {
      setError('engine', errorMsg('engine', err));
    } finally {
      recordRunning = false;
    }
  }

  /** The pointer is over a token of the text (null: off it). @param {number | null} i */
  function hoverStep(i) {
    hover.value = i;
    if (i !== null) ensureRecord(i);
  }

  /**
   * Runs fn now, or once more after the run in progress (bursts of slider
   * moves make one request at a time, the last one with the last value).
   * @param {() => Promise<void>} fn
   */
  function coalesced(fn) {
    let running = false;
    let again = false;
    return async () => {
      if (running) {
        again = true;
        return;
      }
      running = true;
      try {
        do {
          again = false;
          await fn();
        } while (again);
      } catch (err) {
        setError('engine', errorMsg('engine', err));
      } finally {
        running = false;
      }
    };
  }

  /** Re-warps the pending logits with the current settings (no draw). */
  const refreshPreview = coalesced(async () => {
    if (!status.value?.ready || !decoder.value.previews) return;
    const e = epoch;
    const n = stepCountNow();
    const res = await client.request('preview', { session, params: engineParams.value, samples: sampleArg() });
    if (e === epoch && n === stepCountNow() && (!res.next || res.next.index === status.value?.nGenerated)) applyNext(res);
  });

  /** generated tokens so far (steps in sampling; the spec text) */
  const stepCountNow = () => decoder.peek().generated(state);

  /** Re-warps the pinned past step with the current settings (time travel, no draw). */
  const refreshPeek = coalesced(async () => {
    const i = focus.value;
    if (i === null || !decoder.value.timeTravel || i >= steps.value.length) return;
    const e = epoch;
    const key = paramsKey.value;
    const drawn = sampling.value ? { n: SAMPLE_COUNT, seed: drawCount * 1000003 + i } : undefined;
    const res = await client.request('peek', { session, index: i, params: engineParams.value, samples: drawn });
    if (e === epoch && focus.value === i && key === paramsKey.value) {
      peeked.value = { index: i, key, summary: res.step, samples: res.samples };
    }
  });

  /** The settings changed: re-warp what is on screen (the pinned past step too). */
  function settingsChanged() {
    if (focus.value !== null && viewIndex.value !== null) {
      hover.value = null;
      refreshPeek();
    } else {
      batch(() => {
        focus.value = null;
        hover.value = null;
      });
    }
    refreshPreview();
  }

  /**
   * Sets a sampler setting (clamped onto the slider's range and grid); the
   * bars re-warp at once (a pinned past step too: time travel), the
   * following steps use it.
   * @param {string} key @param {number} value
   */
  function setParam(key, value) {
    const spec = SPEC[key];
    if (!spec) throw new RangeError(`unknown setting ${key}`);
    const max = key === 'top_k' && model.value ? model.value.vocab : spec.max;
    const v = clampParam(spec, value, max);
    activeParam.value = key;
    if (params.value[/** @type {keyof import('./params.js').Params} */ (key)] === v) return;
    params.value = { ...params.value, [key]: v };
    settingsChanged();
  }

  /**
   * Sets all the sampler settings at once (a preset).
   * @param {import('./params.js').Params} p
   */
  function setParams(p) {
    const vocab = model.value?.vocab;
    const next = { ...p, top_k: vocab !== undefined ? Math.min(p.top_k, vocab) : p.top_k };
    if (JSON.stringify(next) === JSON.stringify(params.value)) return;
    params.value = next;
    settingsChanged();
  }

  /** Applies a compare preset's settings. @param {string} id */
  function applyPreset(id) {
    setParams(presetParams(id));
  }

  // ---- the chain -----------------------------------------------------------

  /** the values a stage had when the learner turned it off (to turn it on again) */
  /** @type {Map<string, Record<string, number>>} */
  const offValues = new Map();

  /**
   * Puts the chain's stages in this order (a preset's name when it is
   * one); the bars re-warp at once, the following steps use it.
   * @param {string[]} stages
   */
  function setOrder(stages) {
    const name = orderName(stages);
    if (name === samplers.value) return;
    samplers.value = name;
    settingsChanged();
  }

  /**
   * Turns a stage on (its switch to the value it had, or to a typical one;
   * into the chain if the order left it out) or off (every switch to
   * neutral).
   * @param {string} stage @param {boolean} on
   */
  function setStageOn(stage, on) {
    const switches = PARAM_SPECS.filter((s) => s.stage === stage && s.isSwitch);
    /** @type {Record<string, number>} */
    const next = { ...params.value };
    if (on) {
      const before = offValues.get(stage);
      if (before) Object.assign(next, before);
      else if (switches[0]) next[switches[0].key] = switches[0].on;
      const order = orderOf(samplers.value);
      if (stage !== 'mirostat' && !order.includes(stage)) samplers.value = orderName([...order, stage]);
    } else {
      offValues.set(stage, Object.fromEntries(switches.filter((s) => params.value[s.key] !== s.def).map((s) => [s.key, params.value[s.key]])));
      for (const s of switches) next[s.key] = s.def;
    }
    params.value = next;
    settingsChanged();
  }

  /** Pins a past step (time travel), or null: back to the next token. */
  function pin(/** @type {number | null} */ i) {
    batch(() => {
      focus.value = i;
      if (i === null) hover.value = null;
    });
    if (i !== null) ensureRecord(i);
  }

  /** Branch: rewind to `index` generated tokens and append `token` instead. */
  async function branch(/** @type {number} */ index, /** @type {number} */ token) {
    pause();
    const e = ++epoch;
    try {
      const res = await client.request('branch', { session, index, token, params: engineParams.value, samples: sampleArg() });
      if (e !== epoch) return;
      batch(() => {
        steps.value = steps.value.slice(0, index).concat(res.steps);
        stepSettings.value = [...stepSettings.value.slice(0, index), settings.value];
        forced.value = [...forced.value.filter(([i]) => i < index), [index, token]];
        focus.value = null;
        hover.value = null;
        peeked.value = null;
        applyNext(res);
      });
    } catch (err) {
      if (e === epoch) setError('engine', errorMsg('engine', err));
    }
  }

  /** At a past step, branch there with this token; live, force it as the next token. */
  function pick(/** @type {number} */ token) {
    const i = viewIndex.value;
    if (i !== null) {
      // a branch is sampling's (speculative text is looked at, not branched)
      if (steps.value[i].token !== token && decoder.value.forcing) branch(i, token);
      return;
    }
    if (decoder.value.forcing) step(token);
  }

  /**
   * A click on a bar: at a past step it branches there; live, it bans the
   * token (or lifts its ban), or forces it when `force` (Shift+click) or
   * the bar action says so.
   * @param {number} token @param {{force?: boolean}} [opts]
   */
  function clickBar(token, { force = false } = {}) {
    if (viewIndex.value !== null) return pick(token);
    if ((force || barAction.value === 'force') && decoder.value.forcing) return step(token);
    return toggleBan(token);
  }

  // ---- bans -----------------------------------------------------------

  /** @param {number[]} list */
  function setBans(list) {
    const vocab = model.value?.vocab ?? Infinity;
    const clean = [...new Set(list)].filter((t) => Number.isInteger(t) && t >= 0 && t < vocab).sort((a, b) => a - b).slice(0, MAX_BANS);
    if (JSON.stringify(clean) === JSON.stringify(bans.value)) return;
    bans.value = clean;
    settingsChanged();
  }

  /** Bans a token (logit bias -inf), or lifts its ban. @param {number} token */
  function toggleBan(token) {
    const has = bans.value.includes(token);
    if (!has && bans.value.length >= MAX_BANS) {
      setError('bans', msg('bans.max', { count: MAX_BANS }));
      return;
    }
    setError('bans');
    setBans(has ? bans.value.filter((t) => t !== token) : [...bans.value, token]);
  }

  /**
   * Sets a token's finite logit bias (0 removes it); a banned token keeps
   * its ban.
   * @param {number} token @param {number} value
   */
  function setBias(token, value) {
    const vocab = model.value?.vocab ?? Infinity;
    if (!Number.isInteger(token) || token < 0 || token >= vocab || !Number.isFinite(value)) return;
    const rest = biases.value.filter(([t]) => t !== token);
    if (value !== 0 && rest.length >= MAX_BIASES) {
      setError('bans', msg('biases.max', { count: MAX_BIASES }));
      return;
    }
    setError('bans');
    biases.value = (value === 0 ? rest : [...rest, /** @type {[number, number]} */ ([token, value])]).sort((a, b) => a[0] - b[0]);
    settingsChanged();
  }

  /**
   * DRY's sequence breakers (texts, each 1 to 8 of the model's tokens; a
   * text the engine cannot take is refused with its message).
   * @param {string[]} list
   */
  async function setDryBreakers(list) {
    const clean = [...new Set(list.filter((x) => x !== ''))];
    if (JSON.stringify(clean) === JSON.stringify(dryBreakers.value)) return true;
    // the engine tokenizes them: ask it first, so a text it refuses never
    // reaches the steps (and of several, keep those it takes)
    /** '' when the engine takes these breakers, else its message @param {string[]} l */
    const refusal = async (l) => {
      if (!status.value?.ready || !decoder.value.previews) return '';
      try {
        await client.request('preview', { session, params: engineParamsOf({ ...settings.value, dryBreakers: l }) });
        return '';
      } catch (err) {
        return /** @type {Error} */ (err).message || String(err);
      }
    };
    let keep = clean;
    const why = [];
    if (await refusal(clean)) {
      keep = [];
      for (const b of clean) {
        const no = await refusal([...keep, b]);
        if (no) why.push(no);
        else keep.push(b);
      }
    }
    setError('dry', why.length ? msg('error.dryBreakers', { count: why.length }, why.join(' ')) : '');
    if (JSON.stringify(keep) !== JSON.stringify(dryBreakers.value)) {
      dryBreakers.value = keep;
      settingsChanged();
    }
    return why.length === 0;
  }

  // ---- strategy, constraint, greedy ----------------------------------------

  /**
   * Switches the decoding strategy (a new text from the prompt).
   * @param {import('./lab.js').Strategy} s
   */
  function setStrategy(s) {
    if (strategy.value === s) return Promise.resolve(true);
    strategy.value = s;
    return restart();
  }

  /** @param {{width?: number, lengthPenalty?: number}} o */
  function setBeamOpts(o) {
    const width = clampInt(o.width ?? beamOpts.value.width, BEAM_WIDTH.min, BEAM_WIDTH.max);
    const lp = clampParam(/** @type {any} */ (LENGTH_PENALTY), o.lengthPenalty ?? beamOpts.value.lengthPenalty);
    if (width === beamOpts.value.width && lp === beamOpts.value.lengthPenalty) return Promise.resolve(true);
    beamOpts.value = { width, lengthPenalty: lp };
    // the same expansions again, each with the settings it had
    return strategy.value === 'beam' ? restart({ steps: stepCount.value, changes: changesOf(stepSettings.value, settings.value) }) : Promise.resolve(true);
  }

  /**
   * The draft model and how many tokens it drafts a round.  A draft model
   * that cannot be loaded is refused with its message.
   * @param {{draft?: string, n?: number}} o
   */
  async function setSpecOpts(o) {
    const old = specOpts.value;
    const want = { draft: o.draft ?? old.draft, n: clampInt(o.n ?? old.n, SPECULATE.min, SPECULATE.max) };
    if (o.draft !== undefined) draftChosen = true;
    if (want.draft === old.draft && want.n === old.n) return true;
    specOpts.value = want;
    if (strategy.value !== 'speculative') return true;
    const ok = await restart();
    if (!ok && errors.value.spec) specOpts.value = old;
    return ok;
  }

  /**
   * Constrains the text (a new text from the prompt): a regex, JSON, or
   * none.  A constraint the engine refuses is not kept; its message is
   * errors.constraint and the old text stays.
   * @param {ConstraintState} c
   */
  function setConstraint(c) {
    setError('constraint');
    if (!decoder.value.constrains) {
      constraint.value = c;
      return Promise.resolve(true);
    }
    return restart({ constraint: c });
  }

  /**
   * Greedy decoding two ways: temperature 0, or top-k 1 at temperature 1.
   * Regenerates the text (as long as it was, or GREEDY_STEPS tokens) from
   * the prompt with that setting; both give the same text.
   * @param {'temperature' | 'top_k'} road
   */
  function greedyVia(road) {
    params.value = { ...params.value, temperature: road === 'temperature' ? 0 : 1, top_k: road === 'temperature' ? 0 : 1 };
    strategy.value = 'sample'; // greedy decoding is sampling's
    return restart({ steps: steps.value.length || GREEDY_STEPS });
  }

  // ---- samples --------------------------------------------------------

  /** Draws 1000 samples of the distribution on screen (a pinned past step too). */
  function drawSamples() {
    drawCount++;
    sampling.value = true;
    if (focus.value !== null && viewIndex.value !== null && decoder.value.timeTravel) return refreshPeek();
    focus.value = null;
    return refreshPreview();
  }

  function clearSamples() {
    batch(() => {
      sampling.value = false;
      samples.value = null;
      if (peeked.value) peeked.value = { ...peeked.value, samples: null };
    });
  }

  // ---- seed, prompt, model ----------------------------------------------

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
    return restart();
  }

  function rollSeed() {
    return setSeed(randomSeed());
  }

  /** @param {string} text */
  function setPrompt(text) {
    return restart({ prompt: text });
  }

  /**
   * Makes a loaded (or shipped) model the panel's model.  Nothing changes
   * when it fails: the error is shown and the current model stays.
   * @param {string} id @param {{restart?: boolean, edits?: Array<[number, number, number]>, keepText?: boolean}} [opts]
   *   edits: the model's edits (default: none for another model, the
   *   current ones for this one); keepText: write the same number of
   *   steps again (an edit) instead of a new text
   */
  async function selectModel(id, opts = {}) {
    const entry = models.value.find((m) => m.id === id);
    if (!entry) return false;
    // a new model starts unedited (a link's edits come with opts.edits)
    const wantEdits = opts.edits ?? (id === modelId.value ? edits.value : []);
    // the Worker's id: a model made or edited here is this panel's own (the
    // elements of a page share a Worker); an edited shipped model is a copy
    // beside the original
    const own = entry.handmade || entry.text || (wantEdits.length && entry.builtin);
    const wid = own ? `${id}${entry.builtin ? '~edited' : ''}@${session}` : id;
    // an edit writes the same steps again: what they were before the reload
    const keep = opts.keepText ? { steps: stepCount.value, forced: forced.value } : null;
    pause();
    busy.value = msg('model.loading', { name: modelLabel(entry) });
    loadingModel.value = id;
    const onProgress = (/** @type {{loaded: number, total: number}} */ p) => {
      progress.value = { name: modelLabel(entry), loaded: p.loaded, total: p.total };
    };
    try {
      /** @type {ModelInfo} */
      let info;
      if (entry.handmade) info = await client.request('loadModel', { model: wid, handmade: entry.handmade, edits: wantEdits, name: entry.name });
      else if (entry.text) {
        info = await client.request('loadModel', { model: wid, text: entry.text, edits: wantEdits, name: entry.name }, [], { onProgress });
      } else if (entry.builtin) info = await client.request('loadModel', { model: wid, builtin: id, edits: wantEdits }, [], { onProgress });
      else if (entry.url) {
        info = await client.request('loadModel', { model: id, url: entry.url, tokenizerUrl: entry.tokenizerUrl ?? null, name: entry.name }, [], { onProgress });
      } else info = /** @type {ModelInfo} */ (entry.info);
      progress.value = null;
      const row = entry.handmade ? await client.request('modelRow', { model: wid, row: 0 }) : null;
      await client.request('openSession', { session, model: wid });
      ++epoch; // the old session's answers no longer apply
      batch(() => {
        modelId.value = id;
        edits.value = wantEdits;
        modelRow.value = row;
        model.value = info;
        steps.value = [];
        next.value = null;
        status.value = null;
        samples.value = null;
        lab.value = null;
        generated.value = null;
        beam.value = null;
        spec.value = null;
        peeked.value = null;
        if (params.value.top_k > info.vocab) params.value = { ...params.value, top_k: info.vocab };
        if (bans.value.some((t) => t >= info.vocab)) bans.value = bans.value.filter((t) => t < info.vocab);
        if (biases.value.some(([t]) => t >= info.vocab)) biases.value = biases.value.filter(([t]) => t < info.vocab);
        if (!draftChosen) specOpts.value = { ...specOpts.value, draft: defaultDraft(id) };
        setError('model');
      });
    } catch (err) {
      progress.value = null;
      setError('model', errorMsg('model', err));
      busy.value = '';
      loadingModel.value = '';
      return false;
    }
    busy.value = '';
    loadingModel.value = '';
    if (keep) return restart(keep); // an edit: the same text written again with the edited model
    if (opts.restart !== false) {
      // a prompt this model cannot encode: say so and start without it
      if (!(await restart()) && prompt.value) {
        const why = errors.value.prompt;
        await restart({ prompt: '' });
        setError('prompt', why);
      }
    }
    return true;
  }

  /**
   * Makes the hand-made model (spec: "logits:2,1,0", "probs:...") the
   * panel's model; its edits start afresh.  A spec the engine refuses
   * keeps the old model, and the engine's message is shown.
   * @param {string} spec
   */
  async function setHandmade(spec) {
    const old = models.value;
    const entry = { id: HANDMADE_ID, name: 'Hand-made', builtin: false, handmade: spec };
    models.value = [...old.filter((m) => m.id !== HANDMADE_ID), entry];
    const ok = await selectModel(HANDMADE_ID, { edits: [] });
    if (!ok) {
      const was = old.find((m) => m.id === HANDMADE_ID);
      models.value = was ? old : old.filter((m) => m.id !== HANDMADE_ID);
    }
    return ok;
  }

  /**
   * Trains a bigram on the learner's text (pasted, or a dropped .txt) in
   * the engine, and switches to it.  Bad text keeps the old model and
   * shows the engine's message.
   * @param {string | Blob} source
   */
  async function trainOn(source) {
    const bytes = typeof source === 'string' ? new TextEncoder().encode(source) : new Uint8Array(await source.arrayBuffer());
    const entry = { id: TEXT_ID, name: 'Your text', builtin: false, text: bytes };
    const old = models.value;
    models.value = [...old.filter((m) => m.id !== TEXT_ID), entry];
    const ok = await selectModel(TEXT_ID, { edits: [] });
    if (!ok) models.value = old;
    return ok;
  }

  /**
   * Sets the model's probability of token in the distribution shown (the
   * bigram's row of the text's last token; a hand-made model's only row) to
   * p, on a copy of the model, and writes the text again with it.
   * @param {number} token @param {number} p
   */
  async function editProb(token, p) {
    const entry = models.value.find((m) => m.id === modelId.value);
    if (!entry || !canEdit.value) return false;
    const q = Math.min(0.999, Math.max(0.001, Math.round(p * 1000) / 1000));
    const row = model.value?.kind === 'handmade' ? 0 : await client.request('contextToken', { session });
    if (!Number.isInteger(row) || row < 0) return false;
    return selectModel(entry.id, { edits: [...edits.value, [row, token, q]], keepText: true });
  }

  /** Drops the edits: the model as it was loaded, the text written again. */
  function resetModel() {
    if (!edits.value.length) return Promise.resolve(true);
    return selectModel(modelId.value, { edits: [], keepText: true });
  }

  /**
   * Loads a model the learner chose (a llama2.c checkpoint and its
   * tokenizer, or a bigram file) and switches to it.
   * @param {File | Blob & {name?: string}} modelFile
   * @param {(File | Blob) | null} [tokenizerFile]
   */
  async function loadFiles(modelFile, tokenizerFile = null) {
    const id = `file-${models.value.filter((m) => !m.builtin).length + 1}`;
    const name = /** @type {any} */ (modelFile).name || 'model.bin';
    busy.value = msg('model.loading', { name });
    try {
      const bytes = await modelFile.arrayBuffer();
      const tok = tokenizerFile ? await tokenizerFile.arrayBuffer() : null;
      const info = await client.request('loadModel', { model: id, bytes, tokenizerBytes: tok, name },
        tok ? [bytes, tok] : [bytes]);
      models.value = [...models.value, /** @type {any} */ ({ id, name, builtin: false, info })];
    } catch (err) {
      setError('model', errorMsg('model', err, { file: name }));
      busy.value = '';
      return false;
    }
    busy.value = '';
    return selectModel(id);
  }

  // ---- the whole setup (from a link) -----------------------------------

  /**
   * Applies a parsed hash: model, settings, seed, prompt, then generates
   * its steps (with its forced tokens).
   * @param {import('./hash.js').HashState} state @param {import('../i18n/index.js').Text[]} [newNotices]
   */
  async function load(state, newNotices = []) {
    pause();
    const fallback = defaultState();
    const notes = [...newNotices];
    batch(() => {
      params.value = { ...state.params };
      seed.value = state.seed;
      strategy.value = state.strategy ?? 'sample';
      beamOpts.value = { ...(state.beam ?? beamOpts.value) };
      specOpts.value = { ...(state.spec ?? specOpts.value) };
      // a link that speculates names its draft (none: the bigram, as ever)
      draftChosen = state.strategy === 'speculative' || (state.spec?.draft ?? 'bigram') !== 'bigram';
      bans.value = [...(state.bans ?? [])];
      biases.value = (state.biases ?? []).map(([t, v]) => /** @type {[number, number]} */ ([t, v]));
      dryBreakers.value = [...(state.dryBreakers ?? [])];
      if (state.speed !== undefined) speed.value = state.speed;
      if (state.barAction !== undefined) barAction.value = state.barAction;
      barScale.value = state.barScale ?? 'linear';
      samplers.value = state.samplers ?? '';
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
    const linkEdits = state.edits ?? [];
    let ok = (modelId.value === modelWanted && sameSpec && JSON.stringify(edits.value) === JSON.stringify(linkEdits))
      || (await selectModel(modelWanted, { restart: false, edits: linkEdits }));
    if (!ok && state.model !== fallback.model) {
      notes.push(msg('notice.modelFallback', { error: errors.value.model || msg('error.model', { file: '' }), model: modelLabel(BUILTIN_MODELS[0]) }));
      setError('model');
      ok = await selectModel(fallback.model, { restart: false });
    }
    notices.value = notes;
    if (!ok) {
      busy.value = '';
      return false;
    }
    if (model.value && params.value.top_k > model.value.vocab) params.value = { ...params.value, top_k: model.value.vocab };
    const wanted = state.constraint ?? { kind: 'none', regex: '' };
    const run = { prompt: state.prompt, steps: state.steps, forced: state.forced, constraint: wanted, changes: state.changes ?? [] };
    let started = await restart(run);
    if (!started && errors.value.constraint) {
      // a constraint the engine refuses: said in a notice, and left out
      notices.value = [...notices.value, msg('notice.constraint', { error: errors.value.constraint })];
      constraint.value = { kind: 'none', regex: wanted.regex };
      started = await restart({ ...run, constraint: constraint.value });
    }
    if (!started && errors.value.spec) {
      notices.value = [...notices.value, msg('notice.draftFallback', { error: errors.value.spec, model: modelLabel(BUILTIN_MODELS[0]) })];
      specOpts.value = { ...specOpts.value, draft: 'bigram' };
      started = await restart(run);
    }
    if (!started) {
      const why = errors.value.prompt;
      started = await restart({ ...run, prompt: '' });
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

  return {
    session,
    // state
    modelId, loadingModel, model, models, params, activeParam, samplers, seed, prompt, steps, forced, next, status,
    focus, hover, playing, speed, progress, samples, sampling, errors, notices, busy, ready, generating, generated,
    viewIndex, shown, shownSamples, hashState, topP, readyAttr, playingAttr, stepsAttr, panelClass,
    strategy, decoder, beamOpts, specOpts, constraint, bans, biases, dryBreakers, barAction, barScale, lab, beam, spec, peeked, peekShown, edits, canEdit,
    modelRow, settings, engineParams, stepSettings, stepCount, text, preset, panelSpec,
    // actions
    init, load, restart, step, generate, stopGenerate, hoverStep, ensureRecord, play, pause, togglePlay, setParam, setParams, applyPreset, refreshPreview, setOrder, setStageOn,
    branch, pick, pin, clickBar, toggleBan, setBans, setBias, setDryBreakers, drawSamples, clearSamples, setSeed, rollSeed, setPrompt,
    selectModel, loadFiles, setHandmade, trainOn, editProb, resetModel, dismissNotices, setStrategy, setBeamOpts, setSpecOpts, setConstraint, greedyVia,
    reset: () => restart(),
  };
}

/** @param {number} v @param {number} min @param {number} max */
function clampInt(v, min, max) {
  return Number.isFinite(v) ? Math.min(max, Math.max(min, Math.round(v))) : min;
}

/** @typedef {ReturnType<typeof createPanel>} Panel */
