// @ts-check
/**
 * panel.js — the state and actions of one playground panel: one session
 * of the engine Worker (a compare mode can create several panels on one
 * client).  State lives in signals; components read them and call actions.
 *
 * Nothing here computes a probability: every number shown comes from the
 * Worker's step summaries.  Determinism: a slider move only re-warps
 * (preview, no random draw); steps are the only draws.
 */
import { batch, computed, signal } from '@preact/signals';

import { defaultState, normalizeSeed, seedError } from './hash.js';
import { SPEC, clampParam, defaultParams } from './params.js';

/** @typedef {import('../worker/summary.js').StepSummary} StepSummary */
/** @typedef {import('../worker/host.js').Status} Status */
/** @typedef {import('../worker/host.js').ModelInfo} ModelInfo */
/** @typedef {{n: number, seed: number, index: number, freq: Float64Array, otherFreq: number, kl: number}} Samples */
/** @typedef {{id: string, name: string, builtin: boolean}} ModelEntry */

export const SAMPLE_COUNT = 1000;

/** @type {ModelEntry[]} */
export const BUILTIN_MODELS = [
  { id: 'bigram', name: 'Bigram names', builtin: true },
  { id: 'transformer', name: 'Tiny transformer', builtin: true },
];

const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));

/**
 * @param {{request: (op: string, args?: any, transfer?: Transferable[]) => Promise<any>}} client
 * @param {{session?: string}} [options]
 */
export function createPanel(client, { session = 'main' } = {}) {
  // ---- state ----------------------------------------------------------
  const modelId = signal('');
  /** @type {import('@preact/signals').Signal<ModelInfo | null>} */
  const model = signal(null);
  const models = signal(BUILTIN_MODELS.map((m) => ({ ...m })));
  const params = signal(defaultParams());
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
  const playing = signal(false);
  const speed = signal(8);
  /** @type {import('@preact/signals').Signal<Samples | null>} */
  const samples = signal(null);
  const sampling = signal(false);
  /** @type {import('@preact/signals').Signal<Record<string, string>>} */
  const errors = signal({});
  /** @type {import('@preact/signals').Signal<string[]>} */
  const notices = signal([]);
  /** what the panel is waiting for ('' = nothing) */
  const busy = signal('Starting the engine…');
  const ready = signal(false);

  /** the step being looked at (time travel), or null: the live next token */
  const viewIndex = computed(() => {
    const i = hover.value ?? focus.value;
    return i !== null && i < steps.value.length ? i : null;
  });
  /** the distribution on screen */
  const shown = computed(() => {
    const i = viewIndex.value;
    return i !== null ? steps.value[i] : next.value;
  });
  /** the live Top-p alone (the nucleus view re-renders only for it) */
  const topP = computed(() => params.value.top_p);
  /** attribute values for the panel's root (bound without re-rendering it) */
  const readyAttr = computed(() => (ready.value ? 'true' : 'false'));
  const playingAttr = computed(() => (playing.value ? 'true' : 'false'));
  /** what the URL hash describes */
  const hashState = computed(() => ({
    model: modelId.value.startsWith('file') ? 'file' : modelId.value || 'bigram',
    params: params.value,
    seed: seed.value,
    prompt: prompt.value,
    steps: steps.value.length,
    forced: forced.value,
  }));

  let epoch = 0; // bumped by every new generation: late answers are dropped
  let drawCount = 0;
  let fileCount = 0;
  let loopId = 0;
  /** @type {Promise<unknown>} */
  let chain = Promise.resolve();

  /** @param {string} key @param {string} [message] */
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

  /** @param {{steps: StepSummary[], next: StepSummary | null, status: Status, samples: Samples | null}} res */
  function applyNext(res) {
    next.value = res.next;
    status.value = res.status;
    samples.value = res.samples;
  }

  // ---- generation -----------------------------------------------------

  /**
   * Starts a new generation with the current model, seed and settings.
   * @param {{prompt?: string, steps?: number, forced?: Array<[number, number]>}} [opts]
   * @returns {Promise<boolean>} false: the prompt was refused (the old text stays)
   */
  async function restart(opts = {}) {
    pause();
    const text = opts.prompt ?? prompt.value;
    const e = ++epoch;
    busy.value = 'Starting…';
    try {
      const res = await client.request('start', {
        session, prompt: text, seed: seed.value, params: params.value,
        steps: opts.steps ?? 0, forced: opts.forced ?? [], samples: sampleArg(),
      });
      if (e !== epoch) return false;
      batch(() => {
        prompt.value = text;
        steps.value = res.steps;
        forced.value = (opts.forced ?? []).filter(([i]) => i < res.steps.length);
        focus.value = null;
        hover.value = null;
        applyNext(res);
        setError('prompt');
        setError('engine');
      });
      return true;
    } catch (err) {
      if (e === epoch) setError('prompt', /** @type {Error} */ (err).message);
      return false;
    } finally {
      if (e === epoch) busy.value = '';
    }
  }

  /** @param {number} force */
  async function doStep(force) {
    if (!status.value?.ready) return false;
    const e = epoch;
    const index = steps.value.length;
    try {
      const res = await client.request('step', { session, params: params.value, force, samples: sampleArg() });
      if (e !== epoch) return false;
      batch(() => {
        steps.value = steps.value.concat(res.steps);
        if (force >= 0) forced.value = [...forced.value, [index, force]];
        applyNext(res);
      });
      return res.status.ready;
    } catch (err) {
      if (e === epoch) setError('engine', /** @type {Error} */ (err).message);
      return false;
    }
  }

  /** One token (force: the learner's choice instead of a draw). */
  function step(force = -1) {
    return enqueue(() => doStep(force));
  }

  function play() {
    if (playing.value || !status.value?.ready) return;
    const id = ++loopId;
    batch(() => {
      playing.value = true;
      focus.value = null;
    });
    (async () => {
      while (playing.value && id === loopId) {
        const t0 = performance.now();
        const more = await step();
        if (!more || id !== loopId) break;
        // a timer between steps: the page renders, the Worker computes
        await sleep(Math.max(0, 1000 / speed.value - (performance.now() - t0)));
      }
      if (id === loopId) playing.value = false;
    })();
  }

  function pause() {
    loopId++;
    playing.value = false;
  }

  function togglePlay() {
    if (playing.value) pause();
    else play();
  }

  let previewBusy = false;
  let previewAgain = false;
  /** Re-warps the pending logits with the current settings (no draw); coalesces bursts. */
  async function refreshPreview() {
    if (!status.value?.ready) return;
    if (previewBusy) {
      previewAgain = true;
      return;
    }
    previewBusy = true;
    try {
      do {
        previewAgain = false;
        const e = epoch;
        const res = await client.request('preview', { session, params: params.value, samples: sampleArg() });
        if (e === epoch && (!res.next || res.next.index === steps.value.length)) applyNext(res);
      } while (previewAgain);
    } catch (err) {
      setError('engine', /** @type {Error} */ (err).message);
    } finally {
      previewBusy = false;
    }
  }

  /**
   * Sets a sampler setting (clamped onto the slider's range and grid); the
   * bars re-warp at once, the following steps use it.
   * @param {string} key @param {number} value
   */
  function setParam(key, value) {
    const spec = SPEC[key];
    if (!spec) throw new RangeError(`unknown setting ${key}`);
    const max = key === 'top_k' && model.value ? model.value.vocab : spec.max;
    const v = clampParam(spec, value, max);
    if (params.value[/** @type {keyof import('./params.js').Params} */ (key)] === v) return;
    batch(() => {
      params.value = { ...params.value, [key]: v };
      // the bars show what the setting changes: the live next token
      focus.value = null;
      hover.value = null;
    });
    refreshPreview();
  }

  /** Branch: rewind to `index` generated tokens and append `token` instead. */
  async function branch(/** @type {number} */ index, /** @type {number} */ token) {
    pause();
    const e = ++epoch;
    try {
      const res = await client.request('branch', { session, index, token, params: params.value, samples: sampleArg() });
      if (e !== epoch) return;
      batch(() => {
        steps.value = steps.value.slice(0, index).concat(res.steps);
        forced.value = [...forced.value.filter(([i]) => i < index), [index, token]];
        focus.value = null;
        hover.value = null;
        applyNext(res);
      });
    } catch (err) {
      if (e === epoch) setError('engine', /** @type {Error} */ (err).message);
    }
  }

  /** A click on a bar: at a past step, branch there; live, force the next token. */
  function pick(/** @type {number} */ token) {
    const i = viewIndex.value;
    if (i !== null) {
      if (steps.value[i].token !== token) branch(i, token);
      return;
    }
    step(token);
  }

  // ---- samples --------------------------------------------------------

  function drawSamples() {
    drawCount++;
    sampling.value = true;
    focus.value = null;
    return refreshPreview();
  }

  function clearSamples() {
    batch(() => {
      sampling.value = false;
      samples.value = null;
    });
  }

  // ---- seed, prompt, model ----------------------------------------------

  /** @param {string} text @returns {Promise<boolean>} */
  async function setSeed(text) {
    const t = text.trim();
    const why = seedError(t);
    if (why) {
      setError('seed', `The seed ${why}.`);
      return false;
    }
    setError('seed');
    seed.value = normalizeSeed(t);
    return restart();
  }

  function rollSeed() {
    return setSeed(String(Math.floor(Math.random() * 1e9)));
  }

  /** @param {string} text */
  function setPrompt(text) {
    return restart({ prompt: text });
  }

  /**
   * Makes a loaded (or shipped) model the panel's model.  Nothing changes
   * when it fails: the error is shown and the current model stays.
   * @param {string} id @param {{restart?: boolean}} [opts]
   */
  async function selectModel(id, opts = {}) {
    const entry = models.value.find((m) => m.id === id);
    if (!entry) return false;
    pause();
    busy.value = `Loading ${entry.name}…`;
    try {
      /** @type {ModelInfo} */
      const info = entry.builtin
        ? await client.request('loadModel', { model: id, builtin: id })
        : /** @type {any} */ (entry).info;
      await client.request('openSession', { session, model: id });
      ++epoch; // the old session's answers no longer apply
      batch(() => {
        modelId.value = id;
        model.value = info;
        steps.value = [];
        next.value = null;
        status.value = null;
        samples.value = null;
        if (params.value.top_k > info.vocab) params.value = { ...params.value, top_k: info.vocab };
        setError('model');
      });
    } catch (err) {
      setError('model', /** @type {Error} */ (err).message);
      busy.value = '';
      return false;
    }
    busy.value = '';
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
   * Loads a model the learner chose (a llama2.c checkpoint and its
   * tokenizer, or a bigram file) and switches to it.
   * @param {File | Blob & {name?: string}} modelFile
   * @param {(File | Blob) | null} [tokenizerFile]
   */
  async function loadFiles(modelFile, tokenizerFile = null) {
    const id = `file-${++fileCount}`;
    const name = /** @type {any} */ (modelFile).name || 'model.bin';
    busy.value = `Loading ${name}…`;
    try {
      const bytes = await modelFile.arrayBuffer();
      const tok = tokenizerFile ? await tokenizerFile.arrayBuffer() : null;
      const info = await client.request('loadModel', { model: id, bytes, tokenizerBytes: tok, name },
        tok ? [bytes, tok] : [bytes]);
      models.value = [...models.value, /** @type {any} */ ({ id, name, builtin: false, info })];
    } catch (err) {
      setError('model', `${name}: ${/** @type {Error} */ (err).message}`);
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
   * @param {import('./hash.js').HashState} state @param {string[]} [newNotices]
   */
  async function load(state, newNotices = []) {
    pause();
    const fallback = defaultState();
    const notes = [...newNotices];
    batch(() => {
      params.value = { ...state.params };
      seed.value = state.seed;
      setError('seed');
    });
    let ok = modelId.value === state.model || (await selectModel(state.model, { restart: false }));
    if (!ok && state.model !== fallback.model) {
      notes.push(`${errors.value.model || 'That model could not be loaded.'} Using ${BUILTIN_MODELS[0].name} instead.`);
      setError('model');
      ok = await selectModel(fallback.model, { restart: false });
    }
    notices.value = notes;
    if (!ok) {
      busy.value = '';
      return false;
    }
    if (model.value && params.value.top_k > model.value.vocab) params.value = { ...params.value, top_k: model.value.vocab };
    let started = await restart({ prompt: state.prompt, steps: state.steps, forced: state.forced });
    if (!started) {
      const why = errors.value.prompt;
      started = await restart({ prompt: '' });
      setError('prompt', why);
    }
    ready.value = true;
    if (typeof performance !== 'undefined' && performance.mark) performance.mark('spg-ready');
    return started;
  }

  async function init() {
    try {
      await client.request('hello');
    } catch (err) {
      busy.value = '';
      setError('engine', `The engine could not start: ${/** @type {Error} */ (err).message}`);
    }
  }

  function dismissNotices() {
    notices.value = [];
  }

  return {
    session,
    // state
    modelId, model, models, params, seed, prompt, steps, forced, next, status,
    focus, hover, playing, speed, samples, sampling, errors, notices, busy, ready,
    viewIndex, shown, hashState, topP, readyAttr, playingAttr,
    // actions
    init, load, restart, step, play, pause, togglePlay, setParam, refreshPreview,
    branch, pick, drawSamples, clearSamples, setSeed, rollSeed, setPrompt,
    selectModel, loadFiles, dismissNotices,
    reset: () => restart(),
  };
}

/** @typedef {ReturnType<typeof createPanel>} Panel */
