// @ts-check
/**
 * compare.js — compare mode: two to four panels (each its own engine
 * session) generating from one prompt, seed and model with their own
 * settings, driven in lockstep by one Step / Play / Reset.
 *
 * Every sampling panel starts its session with the same seed, so at step i
 * each draws the i-th uniform of that seed's stream: the texts differ only
 * where the settings do.  A panel whose settings change regenerates its
 * text to the same number of steps, so the panels stay comparable.
 *
 * The controller offers the members the shared controls read (model,
 * prompt, seed, transport), so ModelPicker, PromptBox, SeedField and the
 * transport work on it as on a panel.
 */
import { batch, computed, signal } from '@preact/signals';

import { SPEED, defaultState, MAX_PANELS, MIN_PANELS, randomSeed } from './hash.js';
import { ORDER_LESSON, defaultPanelSpec } from './lab.js';
import { TEXT_ID } from './models.js';
import { createPanel } from './panel.js';
import { createPlayer } from './loop.js';
import { panelChecked } from './linkCheck.js';
import { msg } from '../i18n/index.js';

/** ms a panel waits after a settings change before it regenerates */
export const RETUNE_DELAY = 200;


/**
 * @param {{request: (op: string, args?: any, transfer?: Transferable[]) => Promise<any>}} client
 * @param {{models: import('@preact/signals').Signal<import('./panel.js').ModelEntry[]>, prefix?: string, retuneDelay?: number}} options
 */
export function createCompare(client, { models, prefix = 'cmp', retuneDelay = RETUNE_DELAY }) {
  /** @type {import('@preact/signals').Signal<import('./panel.js').Panel[]>} */
  const panels = signal([]);
  /** @type {import('@preact/signals').Signal<import('./hash.js').ConstraintState>} */
  const constraint = signal({ kind: 'none', regex: '' });
  /** @type {import('@preact/signals').Signal<Record<string, import('../i18n/index.js').Text>>} */
  const ownErrors = signal({});
  /** @type {import('@preact/signals').Signal<import('../i18n/index.js').Text[]>} */
  const notices = signal([]);
  const ready = signal(false);
  const speed = signal(SPEED.def);
  /** @type {import('@preact/signals').Signal<import('../i18n/index.js').Text>} */
  const ownBusy = signal('');
  let count = 0;

  const first = computed(() => panels.value[0] ?? null);
  const modelId = computed(() => first.value?.modelId.value ?? '');
  const loadingModel = computed(() => first.value?.loadingModel.value ?? '');
  const model = computed(() => first.value?.model.value ?? null);
  const seed = computed(() => first.value?.seed.value ?? '42');
  const prompt = computed(() => first.value?.prompt.value ?? '');
  const busy = computed(() => ownBusy.value || panels.value.map((p) => p.busy.value).find(Boolean) || '');
  /** a model file on its way (the panels share the model: the first download) */
  const progress = computed(() => panels.value.map((p) => p.progress.value).find(Boolean) ?? null);
  /** the shared fields' errors: the first panel's, and the controller's own */
  const errors = computed(() => ({ ...(first.value?.errors.value ?? {}), ...ownErrors.value }));
  /** Step is possible while any panel can go on */
  const status = computed(() => {
    const all = panels.value.map((p) => p.status.value);
    return { ready: all.some((s) => !!s?.ready), nGenerated: Math.max(0, ...all.map((s) => s?.nGenerated ?? 0)), finished: false, message: '' };
  });
  /** how many times Step was pressed: the most any panel went */
  const stepCount = computed(() => Math.max(0, ...panels.value.map((p) => p.stepCount.value)));
  const readyAttr = computed(() => (ready.value ? 'true' : 'false'));
  /** the Steps taken so far, as an attribute (a test waits for a queued Step to land) */
  const stepsAttr = computed(() => String(stepCount.value));
  const hashState = computed(() => ({
    ...defaultState(),
    view: /** @type {'compare'} */ ('compare'),
    // the first panel's model as a link names it (a hand-made model by its spec); a trained text cannot be linked
    model: hashModelOf(first.value),
    seed: seed.value,
    prompt: prompt.value,
    steps: stepCount.value,
    constraint: constraint.value,
    panels: panels.value.map((p) => p.panelSpec.value),
    speed: speed.value,
  }));

  /** @param {import('./panel.js').Panel | null} p */
  function hashModelOf(p) {
    const m = p ? p.hashModel() : 'bigram';
    return m === TEXT_ID ? 'file' : m;
  }

  /** @param {import('./panel.js').Panel} p @param {import('./lab.js').PanelSpec} spec */
  function configure(p, spec) {
    batch(() => {
      p.params.value = { ...spec.params };
      p.strategy.value = spec.strategy;
      p.beamOpts.value = { ...spec.beam };
      p.specOpts.value = { ...spec.spec };
      p.bans.value = [...spec.bans];
      p.biases.value = [...(spec.biases ?? [])];
      p.dryBreakers.value = [...(spec.dryBreakers ?? [])];
      p.badWords.value = [...(spec.badWords ?? [])];
      p.seqBias.value = [...(spec.seqBias ?? [])];
      p.samplers.value = spec.samplers ?? '';
    });
  }

  function makePanel() {
    return createPanel(client, { session: `${prefix}-${count++}`, models });
  }

  /**
   * The state a panel loads: the shared setup and its own settings.
   * @param {import('./lab.js').PanelSpec} spec @param {number} steps
   * @param {{model?: string, seed?: string, prompt?: string}} [shared]
   */
  function panelState(spec, steps, shared = {}) {
    return {
      ...defaultState(),
      model: shared.model ?? modelId.value ?? 'bigram',
      seed: shared.seed ?? seed.value,
      prompt: shared.prompt ?? prompt.value,
      steps,
      constraint: constraint.value,
      params: spec.params,
      strategy: spec.strategy,
      beam: spec.beam,
      spec: spec.spec,
      bans: spec.bans,
      biases: spec.biases ?? [],
      dryBreakers: spec.dryBreakers ?? [],
      badWords: spec.badWords ?? [],
      seqBias: spec.seqBias ?? [],
      samplers: spec.samplers ?? '',
    };
  }

  /** Gathers the panels' notices (a missing model, ...) into the page's, once each. */
  function collectNotices(/** @type {import('../i18n/index.js').Text[]} */ base) {
    const all = [...base];
    for (const p of panels.value) {
      for (const n of p.notices.value) if (!all.some((x) => String(x) === String(n))) all.push(n);
      p.notices.value = [];
    }
    notices.value = all;
  }

  /**
   * Applies a compare link (or the setup carried over from the single
   * view): the panels with their settings, the shared model, seed, prompt
   * and constraint, then `steps` lockstep steps.
   * @param {import('./hash.js').HashState} state @param {import('../i18n/index.js').Text[]} [newNotices]
   */
  async function load(state, newNotices = []) {
    pause();
    if (state.speed !== undefined) speed.value = state.speed;
    // each panel's settings as the engine takes them (a refused value: its default, and a notice)
    const ask = (/** @type {Record<string, number>} */ values, /** @type {string} */ order) => client.request('checkParams', { values, samplers: order });
    const notes = [...newNotices];
    const specs = await Promise.all(state.panels.slice(0, MAX_PANELS).map(async (spec, i) => {
      const checked = await panelChecked(spec, ask).catch(() => ({ spec, whys: [] }));
      for (const why of checked.whys) notes.push(msg('notice.panel', { n: i + 1, why }));
      return checked.spec;
    }));
    const old = panels.value;
    const list = specs.map((spec, i) => {
      const p = old[i] ?? makePanel();
      configure(p, spec);
      return p;
    });
    for (const p of old.slice(list.length)) client.request('closeSession', { session: p.session }).catch(() => {});
    batch(() => {
      panels.value = list;
      constraint.value = { ...state.constraint };
      ownErrors.value = {};
    });
    await Promise.all(list.map((p, i) => p.init().then(() => p.load(panelState(specs[i], state.steps, state)))));
    // a constraint one panel refused was left out by all (the same engine message)
    if (list.some((p) => p.constraint.value.kind !== constraint.value.kind)) constraint.value = { kind: 'none', regex: state.constraint.regex };
    collectNotices(notes);
    ready.value = true;
    if (typeof performance !== 'undefined' && performance.mark) performance.mark('spg-ready');
    return true;
  }

  // ---- lockstep ---------------------------------------------------------

  const { playing, play, pause, togglePlay } = createPlayer({
    step: () => step(),
    speed: () => speed.value,
    canStart: () => status.value.ready,
    onPause: () => { for (const p of panels.value) p.pause(); },
  });

  /** One step of every panel that can go on (a token, an expansion or a round). */
  async function step() {
    const all = panels.value;
    const more = await Promise.all(all.map((p) => (p.status.value?.ready ? p.step() : false)));
    return more.some(Boolean);
  }

  function reset() {
    pause();
    return Promise.all(panels.value.map((p) => p.restart({ steps: 0 })));
  }

  // ---- shared setup -------------------------------------------------------

  /** @param {string} text */
  async function setSeed(text) {
    pause();
    const ok = await Promise.all(panels.value.map((p) => p.setSeed(text)));
    return ok.every(Boolean);
  }

  function rollSeed() {
    return setSeed(randomSeed());
  }

  /** @param {string} text */
  async function setPrompt(text) {
    pause();
    const ok = await Promise.all(panels.value.map((p) => p.setPrompt(text)));
    return ok.every(Boolean);
  }

  /** @param {string} id */
  async function selectModel(id) {
    pause();
    for (const p of panels.value) {
      if (!(await p.selectModel(id))) return false;
    }
    return true;
  }

  /** @param {File | Blob} modelFile @param {(File | Blob) | null} [tokenizerFile] */
  async function loadFiles(modelFile, tokenizerFile = null) {
    pause();
    const [head, ...rest] = panels.value;
    if (!head || !(await head.loadFiles(modelFile, tokenizerFile))) return false;
    for (const p of rest) await p.selectModel(head.modelId.value);
    return true;
  }

  /**
   * The same constraint in every panel.  The panels share the model, so a
   * constraint the engine refuses is refused by every sampling panel, and
   * each keeps its text: the message is shown once, with the shared field.
   * @param {import('./hash.js').ConstraintState} c
   */
  async function setConstraint(c) {
    pause();
    const n = stepCount.value;
    const ok = await Promise.all(panels.value.map((p) => (p.strategy.value === 'sample' ? p.restart({ constraint: c, steps: n }) : p.setConstraint(c))));
    const why = panels.value.map((p) => p.errors.value.constraint).find(Boolean) ?? '';
    for (const p of panels.value) {
      const e = { ...p.errors.value };
      delete e.constraint;
      p.errors.value = e;
    }
    const own = { ...ownErrors.value };
    if (why) own.constraint = why;
    else delete own.constraint;
    ownErrors.value = own;
    if (!why) constraint.value = c;
    return !why && ok.every(Boolean);
  }

  // ---- panels -------------------------------------------------------------

  /** @type {Map<import('./panel.js').Panel, ReturnType<typeof setTimeout>>} */
  const timers = new Map();

  /**
   * A panel's settings changed: it regenerates its text to the panels'
   * number of steps (after a short pause, so a slider drag makes one run).
   * @param {import('./panel.js').Panel} p @param {{now?: boolean}} [opts]
   */
  function retune(p, { now = false } = {}) {
    clearTimeout(timers.get(p));
    const run = () => {
      timers.delete(p);
      return p.restart({ steps: stepCount.value });
    };
    if (now || retuneDelay <= 0) return run();
    pause();
    timers.set(p, setTimeout(run, retuneDelay));
    return Promise.resolve(true);
  }

  /** @param {import('./panel.js').Panel} p @param {string} id */
  function setPreset(p, id) {
    p.applyPreset(id);
    return retune(p, { now: true });
  }

  /** @param {import('./panel.js').Panel} p @param {import('./lab.js').Strategy} s */
  function setStrategy(p, s) {
    p.strategy.value = s;
    return retune(p, { now: true });
  }

  /** A new panel (a preset), caught up with the others' steps. @param {string} [preset] */
  async function addPanel(preset = 'creative') {
    if (panels.value.length >= MAX_PANELS) return false;
    pause();
    const p = makePanel();
    const spec = defaultPanelSpec(preset);
    configure(p, spec);
    const n = stepCount.value;
    panels.value = [...panels.value, p];
    await p.init();
    await p.load(panelState(spec, n, { model: modelId.value }));
    collectNotices(notices.value);
    return true;
  }

  /**
   * Two panels with the same settings in two orders (ORDER_LESSON): what
   * the order of the chain changes, side by side on the same random
   * numbers, regenerated to the panels' number of steps.
   */
  function showOrders() {
    const base = defaultPanelSpec();
    const specs = ORDER_LESSON.orders.map((samplers) => ({ ...base, params: { ...base.params, ...ORDER_LESSON.params }, samplers }));
    return load({ ...hashState.value, steps: stepCount.value, panels: specs });
  }

  /** @param {import('./panel.js').Panel} p */
  function removePanel(p) {
    if (panels.value.length <= MIN_PANELS) return false;
    pause();
    clearTimeout(timers.get(p));
    panels.value = panels.value.filter((x) => x !== p);
    client.request('closeSession', { session: p.session }).catch(() => {});
    return true;
  }

  function dismissNotices() {
    notices.value = [];
  }

  return {
    session: 'compare',
    // state (the shared controls read these as they read a panel's)
    panels, modelId, loadingModel, model, models, seed, prompt, constraint, errors, notices, busy, ready, readyAttr, stepsAttr,
    playing, speed, progress, status, stepCount, hashState,
    // actions
    init: async () => {}, load, step, play, pause, togglePlay, reset, setSeed, rollSeed, setPrompt, selectModel,
    loadFiles, setConstraint, retune, setPreset, setStrategy, addPanel, removePanel, showOrders, dismissNotices,
  };
}

/** @typedef {ReturnType<typeof createCompare>} Compare */
