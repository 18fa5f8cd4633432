// @ts-check
/**
 * session.js — the engine for a lesson's own script: a text generated in
 * the same Worker the <sampler-playground> elements use (one Worker per
 * model for the whole page, registry.js), through the same requests
 * (worker/host.js).  Every number in a step record is the engine's.
 *
 *   const s = await createSession({ model: 'bigram', prompt: 'Ma', seed: 7 });
 *   await s.setParams({ temperature: 0.7 });   // re-warps the next token
 *   const record = await s.step();             // draws it
 *   record.piece, record.p, s.text, s.next     // what was drawn, the text, what comes next
 *   s.close();
 *
 * Settings use the engine's names (temperature, top_k, top_p, …, and
 * logit_bias, samplers; docs/samplers.md lists them all); the same model,
 * prompt, seed and settings give the text the `sampler` command line and
 * the elements give.
 */
import { modelChoice } from './attrs.js';
import { acquireClient, releaseClient } from './registry.js';

/** @typedef {import('../worker/summary.js').StepSummary} StepRecord */
/** @typedef {import('../worker/protocol.js').ModelInfo} ModelInfo */
/** @typedef {import('../worker/protocol.js').Status} Status */
/** @typedef {import('../engine/engine.js').SamplerParams} SamplerParams */

/**
 * @typedef {Object} SessionOptions
 * @property {string} [model]      bigram (default), transformer, or the URL of a llama2.c
 *   checkpoint (relative to the page)
 * @property {string} [tokenizer]  with a checkpoint's URL: its tokenizer.bin's URL
 * @property {string} [prompt]     the text the model continues ('' by default)
 * @property {number | bigint | string} [seed]  0 to 2^64 - 1 (42 by default)
 * @property {SamplerParams} [params]  the sampler's settings ({} = all off, temperature 1)
 * @property {(loaded: number, total: number) => void} [onProgress]  a model file's bytes as
 *   they arrive (total 0: unknown)
 */

let count = 0;

/**
 * Loads a model (shared with the page's elements) and starts a text.
 * Rejects with the engine's message for a bad model, prompt, seed or setting.
 * @param {SessionOptions} [options]
 * @returns {Promise<Session>}
 */
export async function createSession({ model = 'bigram', tokenizer, prompt = '', seed = 42, params = {}, onProgress } = {}) {
  if (typeof model !== 'string') throw new TypeError('createSession: model must be a string (bigram, transformer or a URL)');
  /** @type {import('../i18n/index.js').Msg[]} */
  const problems = [];
  const base = typeof document !== 'undefined' ? document.baseURI : String(globalThis.location ?? '');
  const choice = modelChoice(model, tokenizer ?? null, base, problems);
  if (problems.some((p) => p.key === 'notice.model')) {
    throw new RangeError(`createSession: model ${JSON.stringify(model)} is not bigram, transformer or the URL of a llama2.c .bin file`);
  }
  if (problems.length) throw new RangeError('createSession: a tokenizer goes with a model given by its URL');
  const client = acquireClient(choice.key);
  /** @type {Session | null} */
  let session = null;
  try {
    const args = choice.entry
      ? { model: choice.id, url: choice.entry.url, tokenizerUrl: choice.entry.tokenizerUrl ?? null, name: choice.entry.name }
      : { model: choice.id, builtin: choice.id };
    /** @type {ModelInfo} */
    const info = await client.request('loadModel', args, [], { onProgress: onProgress && ((/** @type {{loaded: number, total: number}} */ p) => onProgress(p.loaded, p.total)) });
    const id = `script${++count}`;
    await client.request('openSession', { session: id, model: choice.id });
    session = new Session(client, choice.key, id, info);
    await session.start({ prompt, seed, params });
    return session;
  } catch (err) {
    if (session) session.close();
    else releaseClient(choice.key);
    throw err;
  }
}

/** One text: its prompt, seed, settings and the tokens generated so far. */
export class Session {
  /**
   * @param {{request: (op: string, args?: any, transfer?: Transferable[], options?: any) => Promise<any>}} client
   * @param {string} key  the Worker's (registry.js)
   * @param {string} id  the session's in the Worker
   * @param {ModelInfo} model
   */
  constructor(client, key, id, model) {
    this.client = client;
    this.key = key;
    this.id = id;
    /** the model: its name, kind (bigram or transformer), vocabulary and context size */
    this.model = model;
    /** @type {SamplerParams} */
    this.settings = {};
    this.prompt = '';
    this.seed = '42';
    /** @type {StepRecord[]} the tokens generated, in order */
    this.records = [];
    /** @type {StepRecord | null} the next token's distribution (nothing drawn); null when the text cannot go on */
    this.next = null;
    /** @type {Status | null} */
    this.status = null;
    this.closed = false;
    /** @type {Promise<unknown>} one request at a time, in the order they were made */
    this.queue = Promise.resolve();
  }

  /** the settings in force (a copy) */
  get params() {
    return { ...this.settings };
  }

  /** the generated text (after the prompt) */
  get text() {
    return this.records.map((r) => r.piece).join('');
  }

  /** the model ended the text, or its context is full: nothing more can be drawn */
  get done() {
    return !!this.status && !this.status.ready;
  }

  /**
   * Runs a request after the ones before it.
   * @param {string} op @param {any} args
   */
  ask(op, args) {
    if (this.closed) return Promise.reject(new Error('this session is closed'));
    const run = this.queue.then(() => this.client.request(op, { session: this.id, ...args }));
    this.queue = run.catch(() => {});
    return run;
  }

  /**
   * @param {{steps: StepRecord[], next: StepRecord | null, status: Status}} res
   * @param {boolean} fresh  a new text: the old records go
   */
  apply(res, fresh) {
    this.records = fresh ? res.steps : this.records.concat(res.steps);
    this.next = res.next;
    this.status = res.status;
  }

  /**
   * A new text (the prompt, seed and settings not given stay as they are).
   * A refused prompt, seed or setting rejects and leaves the old text.
   * @param {{prompt?: string, seed?: number | bigint | string, params?: SamplerParams}} [options]
   * @returns {Promise<StepRecord | null>} the first token's distribution
   */
  async start({ prompt = this.prompt, seed = this.seed, params = this.settings } = {}) {
    const s = typeof seed === 'bigint' ? seed.toString() : seed;
    const res = await this.ask('start', { prompt, seed: s, params: { ...params } });
    this.prompt = prompt;
    this.seed = String(s);
    this.settings = { ...params };
    this.apply(res, true);
    return this.next;
  }

  /**
   * Changes some settings (the others stay): the next token is re-warped
   * under them, nothing is drawn.  A setting the engine refuses rejects
   * with its message, and the old settings stay.
   * @param {SamplerParams} params
   * @returns {Promise<StepRecord | null>} the next token's distribution under them
   */
  async setParams(params) {
    if (params === null || typeof params !== 'object') throw new TypeError('setParams: params must be an object');
    const merged = { ...this.settings, ...params };
    const res = await this.ask('preview', { params: merged });
    this.settings = merged;
    this.apply(res, false);
    return this.next;
  }

  /**
   * Draws the next token.
   * @returns {Promise<StepRecord>} its step record
   */
  async step() {
    const [record] = await this.generate(1);
    if (!record) throw new RangeError(`nothing more can be generated: ${this.status?.message || 'the text has ended'}`);
    return record;
  }

  /**
   * Draws up to n tokens (fewer if the text ends).
   * @param {number} n
   * @returns {Promise<StepRecord[]>}
   */
  async generate(n) {
    if (!Number.isInteger(n) || n < 1 || n > 2000) throw new RangeError(`generate: n must be an integer in 1..2000 (got ${n})`);
    const res = await this.ask('step', { params: this.settings, count: n });
    this.apply(res, false);
    return res.steps;
  }

  /** Ends the session (the model's Worker stops with the last user). */
  close() {
    if (this.closed) return;
    this.closed = true;
    this.queue.then(() => this.client.request('closeSession', { session: this.id })).catch(() => {}).finally(() => releaseClient(this.key));
  }
}
