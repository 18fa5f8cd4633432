// @ts-check
/**
 * trainer.js — training a transformer on a text, in the engine
 * (c/engine/train, sampler_train.h): the settings and presets as the
 * engine declares them, the plan (vocabulary, weights, memory) before
 * anything is allocated, a Trainer that runs in slices (a Worker runs a
 * few steps, or windows, at a time and stays cancellable), its losses, the
 * held-out loss beside a bigram's, the model it has made so far (a Model
 * and a Tokenizer like any loaded one) and its files (.bin, tokenizer.bin,
 * .gguf).
 *
 * Needs the training engine: build/engine-train-{simd,scalar}.wasm
 * (loadTrainEngineBrowser in train-browser.js, loadTrainEngineNode in
 * node.js); the page's first engine has no trainer, and these functions
 * say so.  Same text, settings and seed: the same weights, bit for bit, in
 * every build and however the steps are sliced.
 */
import { Model } from './model.js';
import { splitSeed } from './seed.js';
import { Tokenizer } from './tokenizer.js';
import { encoder } from './wasm.js';

/**
 * A training setting as the engine's table declares it (sampler_train.h
 * SP_TRAIN_SETTINGS): its name (the CLI's --name, and the key of a
 * settings object here), what it is, whether it is a whole number, its
 * default and its range (inclusive).
 * @typedef {{name: string, doc: string, isInt: boolean, default: number, min: number, max: number}} TrainSetting
 */

/**
 * Settings by name ('dim', 'kv-heads', 'lr', 'weight-decay', ...: the
 * table's names); the ones left out keep their defaults (or the preset's).
 * @typedef {Record<string, number>} TrainSettings
 */

/**
 * What a text and settings make, known before training (sp_train_plan).
 * @typedef {Object} TrainPlan
 * @property {number} vocab  tokens of the vocabulary
 * @property {number} documents  the text's lines that are documents
 * @property {number} heldoutDocuments  those held out
 * @property {number} trainTokens @property {number} heldoutTokens  the two streams
 * @property {number} params  weights
 * @property {number} bytes  the memory the trainer will hold
 * @property {number} tokensPerStep  batch x context
 * @property {number} flopsPerStep  2 x the multiply-adds of a step (forward and backward)
 */

/**
 * @typedef {Object} TrainOptions
 * @property {string} [preset]  'tiny', 'small' or 'shipped' (Trainer.presets): set first
 * @property {TrainSettings} [settings]  then these
 * @property {number | bigint | string} [seed]  the weights' and the windows' (default 42)
 * @property {Uint8Array | null} [tokenizer]  a llama2.c tokenizer.bin instead of the character vocabulary
 */

/** @param {import('./engine.js').Engine} engine */
function needTrainer(engine) {
  if (typeof engine.x.api_train_new !== 'function') {
    throw new Error('this engine has no trainer: load build/engine-train-*.wasm (loadTrainEngineBrowser, loadTrainEngineNode)');
  }
}

/** @param {string | Uint8Array} text */
function textBytes(text) {
  if (typeof text === 'string') return encoder.encode(text);
  if (text instanceof Uint8Array) return text;
  throw new TypeError('the text must be a string or a Uint8Array of UTF-8');
}

/**
 * The settings' table, in its order.
 * @param {import('./engine.js').Engine} engine
 * @returns {TrainSetting[]}
 */
export function trainSettings(engine) {
  needTrainer(engine);
  const x = engine.x;
  /** @type {TrainSetting[]} */
  const out = [];
  for (let i = 0; i < x.api_train_setting_count(); i++) {
    const { values } = engine.readDoubles((ptr) => x.api_train_setting_info(i, ptr), 4);
    out.push({
      name: engine.cstring(x.api_train_setting_name(i)),
      doc: engine.cstring(x.api_train_setting_doc(i)),
      isInt: values[0] === 1,
      default: values[1],
      min: values[2],
      max: values[3],
    });
  }
  return out;
}

/**
 * The presets: each one's name, what it is and every setting it gives
 * (the defaults, then the preset's).
 * @param {import('./engine.js').Engine} engine
 * @returns {{name: string, doc: string, settings: TrainSettings}[]}
 */
export function trainPresets(engine) {
  needTrainer(engine);
  const x = engine.x;
  const names = trainSettings(engine).map((s) => s.name);
  const out = [];
  for (let i = 0; ; i++) {
    const name = engine.cstring(x.api_train_preset_name(i));
    if (!name) break;
    const config = makeConfig(engine, { preset: name });
    try {
      /** @type {TrainSettings} */
      const settings = {};
      names.forEach((n, k) => { settings[n] = x.api_train_config_get(config, k); });
      out.push({ name, doc: engine.cstring(x.api_train_preset_doc(i)), settings });
    } finally {
      x.api_train_config_free(config);
    }
  }
  return out;
}

/**
 * The engine's settings struct for the options (the caller frees it with
 * api_train_config_free); a bad name or value throws the engine's
 * RangeError.
 * @param {import('./engine.js').Engine} engine @param {TrainOptions} options
 */
function makeConfig(engine, { preset, settings = {} }) {
  const x = engine.x;
  const config = x.api_train_config_new();
  if (!config) throw new Error('engine: out of memory');
  try {
    if (preset !== undefined) engine.check(engine.withString(preset, 'preset', (p) => x.api_train_config_preset(config, p)));
    for (const [name, value] of Object.entries(settings)) {
      if (typeof value !== 'number') throw new TypeError(`train setting ${name} must be a number`);
      engine.check(engine.withString(name, 'setting', (p) => x.api_train_config_set(config, p, value)));
    }
    return config;
  } catch (err) {
    x.api_train_config_free(config);
    throw err;
  }
}

/** @param {Float64Array} v @returns {TrainPlan} */
const planOf = (v) => ({
  vocab: v[0], documents: v[1], heldoutDocuments: v[2], trainTokens: v[3], heldoutTokens: v[4],
  params: v[5], bytes: v[6], tokensPerStep: v[7], flopsPerStep: v[8],
});

/**
 * Calls fn with the text, the tokenizer and the settings in the engine's
 * memory, then frees them.
 * @template R
 * @param {import('./engine.js').Engine} engine @param {string | Uint8Array} text @param {TrainOptions} options
 * @param {(text: number, len: number, tok: number, tokLen: number, config: number) => R} fn
 */
function withInputs(engine, text, options, fn) {
  needTrainer(engine);
  const bytes = textBytes(text);
  const tok = options.tokenizer ?? null;
  if (tok !== null && !(tok instanceof Uint8Array)) throw new TypeError('tokenizer must be a Uint8Array (a tokenizer.bin)');
  const config = makeConfig(engine, options);
  const textPtr = engine.allocBytes(bytes);
  const tokPtr = tok ? engine.allocBytes(tok) : 0;
  try {
    return fn(textPtr, bytes.length, tokPtr, tok ? tok.length : 0, config);
  } finally {
    engine.free(textPtr);
    engine.free(tokPtr);
    engine.x.api_train_config_free(config);
  }
}

/**
 * What training on this text with these settings would make and take,
 * without allocating it: the page says the memory before Train.  Throws
 * what creating the trainer would (an empty or binary text, a text too
 * short for a window, a vocabulary too large for the shape, more memory
 * than the trainer's limit: EngineError 'nomem').
 * @param {import('./engine.js').Engine} engine @param {string | Uint8Array} text @param {TrainOptions} [options]
 * @returns {TrainPlan}
 */
export function planTraining(engine, text, options = {}) {
  return withInputs(engine, text, options, (t, len, tok, tokLen, config) => {
    const { r, values } = engine.readDoubles((ptr) => engine.x.api_train_plan(t, len, tok, tokLen, config, ptr), 9);
    engine.check(r);
    return planOf(values);
  });
}

/**
 * A trainer for the text: its vocabulary made, its weights drawn from the
 * seed, nothing trained yet.
 * @param {import('./engine.js').Engine} engine @param {string | Uint8Array} text @param {TrainOptions} [options]
 * @returns {Trainer}
 */
export function createTrainer(engine, text, options = {}) {
  const [lo, hi] = splitSeed(options.seed ?? 42);
  const handle = withInputs(engine, text, options, (t, len, tok, tokLen, config) => engine.x.api_train_new(t, len, tok, tokLen, config, lo, hi));
  if (!handle) throw engine.error(-1, 'arg');
  return new Trainer(engine, handle);
}

export class Trainer {
  /** @param {import('./engine.js').Engine} engine @param {number} handle */
  constructor(engine, handle) {
    this.engine = engine;
    this.handle = handle;
    const x = engine.x;
    /** @type {TrainPlan} */
    this.plan = planOf(engine.readDoubles((ptr) => x.api_train_get_plan(handle, ptr), 9).values);
    /** every setting the trainer runs with, by name @type {TrainSettings} */
    this.settings = {};
    trainSettings(engine).forEach((s, i) => { this.settings[s.name] = x.api_train_get_setting(handle, i); });
    /** the schedule's steps: run() stops there */
    this.totalSteps = this.settings.steps;
  }

  /** steps completed */
  get stepsDone() {
    return this.engine.x.api_train_steps_done(this.handle);
  }

  /** windows of the step under way already done (0 between steps) */
  get windowsDone() {
    return this.engine.x.api_train_windows_done(this.handle);
  }

  /** whether the schedule's last step is done */
  get finished() {
    return this.stepsDone >= this.totalSteps;
  }

  /**
   * Trains: up to `steps` whole steps, or fewer after `windows` windows (0:
   * no limit; a step is `batch` windows, and one left half done goes on at
   * the next call).  A slice of the Worker's: the same weights however the
   * calls are cut.  Returns the steps completed.  A diverging run throws
   * the engine's EngineError (reason 'logits'), its message saying the step
   * and the learning rate, and every later call throws it again; the
   * losses so far stay readable.
   * @param {{steps?: number, windows?: number}} [slice]
   */
  run({ steps = 1, windows = 0 } = {}) {
    if (!Number.isInteger(steps) || steps < 0) throw new RangeError(`steps must be an integer >= 0 (got ${steps})`);
    if (!Number.isInteger(windows) || windows < 0) throw new RangeError(`windows must be an integer >= 0 (got ${windows})`);
    const e = this.engine;
    e.check(e.x.api_train_run(this.handle, steps, windows));
    return e.x.api_last_len();
  }

  /** each step's mean training loss (nats per token; step 1's is the untrained model's, about ln vocab) @returns {Float32Array} */
  losses() {
    return this.engine.floats(this.engine.x.api_train_losses(this.handle), this.stepsDone).slice();
  }

  /** each step's gradient norm before clipping @returns {Float32Array} */
  gradNorms() {
    return this.engine.floats(this.engine.x.api_train_grad_norms(this.handle), this.stepsDone).slice();
  }

  /** the learning rate of step (0-based) @param {number} step */
  lrAt(step) {
    return this.engine.x.api_train_lr_at(this.handle, step);
  }

  /**
   * The held-out loss of the current weights over at most `windows`
   * windows of context tokens evenly spread over the held-out lines (0:
   * all of them), and a bigram's on the very same predictions (counted on
   * the training lines; NaN past 2048 tokens).  Throws EngineError 'state'
   * when nothing is held out.
   * @param {{windows?: number}} [options]
   * @returns {{loss: number, bigram: number}}
   */
  evaluate({ windows = 16 } = {}) {
    if (!Number.isInteger(windows) || windows < 0) throw new RangeError(`windows must be an integer >= 0 (got ${windows})`);
    const e = this.engine;
    const { r, values } = e.readDoubles((ptr) => e.x.api_train_eval(this.handle, windows, ptr), 2);
    e.check(r);
    return { loss: values[0], bigram: values[1] };
  }

  /**
   * The model trained so far and its tokenizer, loaded as any checkpoint
   * is: sample from them (createSession), free them when done.  Training
   * goes on untouched.
   * @returns {{model: Model, tokenizer: Tokenizer}}
   */
  snapshot() {
    const e = this.engine;
    const m = e.x.api_train_model(this.handle);
    if (!m) throw e.error(-1, 'nomem');
    const t = e.x.api_train_tokenizer(this.handle);
    if (!t) {
      e.x.api_model_free(m);
      throw e.error(-1, 'nomem');
    }
    return { model: new Model(e, m), tokenizer: new Tokenizer(e, t, true) };
  }

  /**
   * The current weights as a file: 'bin' (llama2.c checkpoint), 'tokenizer'
   * (its tokenizer.bin) or 'gguf' (GGUF, llama architecture, F32).  The
   * page's main engine loads 'bin' + 'tokenizer' as any llama2.c model.
   * @param {'bin' | 'tokenizer' | 'gguf'} kind
   * @returns {Uint8Array}
   */
  export(kind) {
    const code = { bin: 0, tokenizer: 1, gguf: 2 }[kind];
    if (code === undefined) throw new RangeError(`export: kind must be bin, tokenizer or gguf (got ${kind})`);
    const e = this.engine;
    const ptr = e.x.api_train_export(this.handle, code);
    if (!ptr) throw e.error(-1, 'nomem');
    const bytes = e.bytes(ptr, e.x.api_last_len()).slice();
    e.free(ptr);
    return bytes;
  }

  free() {
    if (this.handle) this.engine.x.api_train_free(this.handle);
    this.handle = 0;
  }
}
