// @ts-check
/**
 * host.js — what the Worker does with each request.  It owns the engine
 * (through engine.js), the loaded models and the sessions, and answers with
 * plain, structured-clonable objects.  It is separate from the Worker's
 * message loop so Node tests can drive it with the real engine.
 *
 * Protocol (see worker/client.js for the page's side): a request is
 * {id, op, args}; the answer {id, ok: true, result} or {id, ok: false,
 * error: {name, message}}.  Models and sessions have string ids chosen by
 * the page, so several panels (sessions) can share one model.
 *
 *   hello                                  -> {backend}
 *   loadModel {model, builtin? | bytes, tokenizerBytes?, name?}
 *                                          -> ModelInfo (a failure leaves
 *                                             every loaded model as it was)
 *   freeModel {model}
 *   openSession {session, model}           -> {session, model}
 *   closeSession {session}
 *   start {session, prompt, seed, params, steps?, forced?, samples?}
 *       a new generation (replaces the old one only if the prompt is good);
 *       `steps` tokens are generated at once (forced: [[index, token]...])
 *   step {session, params, force?, count?, samples?}
 *   preview {session, params, samples?}    re-warp the pending logits; no draw
 *   branch {session, index, token, params, samples?}
 *       rewind to `index` generated tokens, then append `token`
 *   Results of start/step/preview/branch: {steps: StepSummary[], next:
 *       StepSummary | null, status: Status, samples: Samples | null}
 *   samples {n, seed}: also draw n samples from `next` (own PRNG).
 */
import { EngineError } from '../engine/engine.js';
import { sampleSummary, summarize } from './summary.js';

/** a generation stops here even when the model could go on */
export const MAX_TOKENS = 2000;

/**
 * @typedef {Object} ModelInfo
 * @property {string} model   its id
 * @property {string} name
 * @property {'bigram' | 'transformer'} kind
 * @property {number} vocab
 * @property {number} seqLen  context length; 0 = unbounded
 */

/**
 * @typedef {Object} Status
 * @property {number} nGenerated
 * @property {boolean} ready   another token can be generated
 * @property {boolean} finished  the model emitted its end-of-text token
 * @property {string} message  why not ready ('' when ready)
 */

/**
 * @typedef {Object} Builtin
 * @property {string} name
 * @property {URL | string | null} url  null: not in this build
 * @property {URL | string | null} [tokenizerUrl]
 * @property {string} missing  the message when the files are not there
 */

/**
 * Fetches a shipped file's bytes.  A 404, or an HTML page where a binary
 * file should be (a single-page-app fallback), means "not in this build".
 * @param {URL | string | null} url
 */
export async function fetchBytes(url) {
  if (!url) return null; // the file was not there when the page was built
  const res = await fetch(url);
  const type = res.headers.get('content-type') || '';
  if (!res.ok || type.includes('text/html')) return null;
  return new Uint8Array(await res.arrayBuffer());
}

export class EngineHost {
  /**
   * @param {Promise<import('../engine/engine.js').Engine>} engine
   * @param {{builtins?: Record<string, Builtin>, fetchBytes?: (url: URL | string) => Promise<Uint8Array | null>, maxTokens?: number}} [options]
   */
  constructor(engine, { builtins = {}, fetchBytes: fetcher = fetchBytes, maxTokens = MAX_TOKENS } = {}) {
    this.enginePromise = engine;
    this.builtins = builtins;
    this.fetchBytes = fetcher;
    this.maxTokens = maxTokens;
    /** @type {Map<string, {model: import('../engine/engine.js').Model, tokenizer: import('../engine/engine.js').Tokenizer | null, info: ModelInfo}>} */
    this.models = new Map();
    /** @type {Map<string, {session: import('../engine/engine.js').Session, model: string, forced: Set<number>}>} */
    this.sessions = new Map();
  }

  /**
   * @param {string} op @param {any} args
   * @returns {Promise<any>}
   */
  async handle(op, args = {}) {
    switch (op) {
      case 'hello': return { backend: (await this.enginePromise).backend };
      case 'loadModel': return this.loadModel(args);
      case 'freeModel': return this.freeModel(args.model);
      case 'openSession': return this.openSession(args.session, args.model);
      case 'closeSession': return this.closeSession(args.session);
      case 'start': return this.start(args);
      case 'step': return this.step(args);
      case 'preview': return this.preview(args);
      case 'branch': return this.branch(args);
      default: throw new TypeError(`unknown request "${op}"`);
    }
  }

  // ---- models ---------------------------------------------------------

  /**
   * @param {{model: string, builtin?: string, bytes?: ArrayBuffer | Uint8Array, tokenizerBytes?: ArrayBuffer | Uint8Array | null, name?: string}} args
   * @returns {Promise<ModelInfo>}
   */
  async loadModel({ model: id, builtin, bytes, tokenizerBytes, name }) {
    const have = this.models.get(id);
    if (have && builtin) return have.info;
    const engine = await this.enginePromise;
    /** @type {Uint8Array | null} */
    let modelData;
    /** @type {Uint8Array | null} */
    let tokData = null;
    if (builtin) {
      const b = this.builtins[builtin];
      if (!b) throw new RangeError(`no built-in model "${builtin}"`);
      name = b.name;
      modelData = await this.fetchBytes(b.url);
      if (b.tokenizerUrl && modelData) tokData = await this.fetchBytes(b.tokenizerUrl);
      if (!modelData || (b.tokenizerUrl && !tokData)) throw new Error(b.missing);
    } else {
      if (!bytes) throw new TypeError('loadModel: no model bytes');
      modelData = new Uint8Array(bytes);
      tokData = tokenizerBytes ? new Uint8Array(tokenizerBytes) : null;
    }
    const model = engine.loadModel(modelData);
    /** @type {import('../engine/engine.js').Tokenizer | null} */
    let tokenizer = null;
    try {
      if (tokData) tokenizer = engine.loadTokenizer(tokData);
      if (!tokenizer && !model.tokenizer) {
        throw new EngineError(`this ${model.kind} model (vocabulary ${model.vocab}) needs its tokenizer.bin: choose both files`, 1);
      }
      // a trial session: a tokenizer that does not fit the model is refused
      // here, with the engine's message, before anything is replaced
      engine.createSession(model, tokenizer).free();
    } catch (err) {
      tokenizer?.free();
      model.free();
      throw err;
    }
    if (have) this.freeModel(id);
    /** @type {ModelInfo} */
    const info = { model: id, name: name || id, kind: model.kind, vocab: model.vocab, seqLen: model.seqLen };
    this.models.set(id, { model, tokenizer, info });
    return info;
  }

  /** @param {string} id */
  freeModel(id) {
    const m = this.models.get(id);
    if (!m) return false;
    for (const [sid, s] of this.sessions) if (s.model === id) this.closeSession(sid);
    m.tokenizer?.free();
    m.model.free();
    this.models.delete(id);
    return true;
  }

  // ---- sessions -------------------------------------------------------

  /** @param {string} sid @param {string} modelId */
  async openSession(sid, modelId) {
    const m = this.models.get(modelId);
    if (!m) throw new RangeError(`no model "${modelId}" is loaded`);
    const engine = await this.enginePromise;
    const session = engine.createSession(m.model, m.tokenizer);
    this.closeSession(sid);
    this.sessions.set(sid, { session, model: modelId, forced: new Set() });
    return { session: sid, model: modelId };
  }

  /** @param {string} sid */
  closeSession(sid) {
    const s = this.sessions.get(sid);
    if (!s) return false;
    s.session.free();
    this.sessions.delete(sid);
    return true;
  }

  /** @param {string} sid */
  get(sid) {
    const s = this.sessions.get(sid);
    if (!s) throw new RangeError(`no session "${sid}"`);
    return s;
  }

  /**
   * @param {{session: string, prompt: string, seed: number | string, params: Record<string, number>, steps?: number, forced?: Array<[number, number]>, samples?: {n: number, seed: number}}} args
   */
  async start({ session: sid, prompt, seed, params, steps = 0, forced = [], samples }) {
    const s = this.get(sid);
    const m = /** @type {NonNullable<ReturnType<EngineHost['models']['get']>>} */ (this.models.get(s.model));
    const engine = await this.enginePromise;
    // a fresh session object: if the prompt is refused, the old generation
    // is still there, untouched
    const fresh = engine.createSession(m.model, m.tokenizer);
    try {
      fresh.start(prompt, seed);
    } catch (err) {
      fresh.free();
      throw err;
    }
    s.session.free();
    s.session = fresh;
    s.forced = new Set();
    const byIndex = new Map(forced);
    const out = [];
    for (let i = 0; i < steps; i++) {
      if (!this.status(s).ready) break;
      const force = byIndex.get(i);
      out.push(this.stepOnce(s, params, force ?? -1));
    }
    return this.answer(s, out, params, samples);
  }

  /**
   * @param {{session: string, params: Record<string, number>, force?: number, count?: number, samples?: {n: number, seed: number}}} args
   */
  step({ session: sid, params, force = -1, count = 1, samples }) {
    const s = this.get(sid);
    const out = [];
    for (let i = 0; i < count; i++) {
      if (!this.status(s).ready) break;
      out.push(this.stepOnce(s, params, i === 0 ? force : -1));
    }
    return this.answer(s, out, params, samples);
  }

  /** @param {{session: string, params: Record<string, number>, samples?: {n: number, seed: number}}} args */
  preview({ session: sid, params, samples }) {
    return this.answer(this.get(sid), [], params, samples);
  }

  /**
   * @param {{session: string, index: number, token: number, params: Record<string, number>, samples?: {n: number, seed: number}}} args
   */
  branch({ session: sid, index, token, params, samples }) {
    const s = this.get(sid);
    if (!Number.isInteger(token) || token < 0 || token >= s.session.vocab) {
      throw new RangeError(`branch: token ${token} is outside the vocabulary (0..${s.session.vocab - 1})`);
    }
    s.session.rewind(index);
    for (const i of [...s.forced]) if (i >= index) s.forced.delete(i);
    const out = [this.stepOnce(s, params, token)];
    return this.answer(s, out, params, samples);
  }

  // ---- helpers --------------------------------------------------------

  /**
   * @param {{session: import('../engine/engine.js').Session, forced: Set<number>}} s
   * @param {Record<string, number>} params @param {number} force
   */
  stepOnce(s, params, force) {
    const index = s.session.nGenerated;
    const history = s.session.tokens;
    const rec = s.session.step(params, { force });
    if (force >= 0) s.forced.add(index);
    return summarize(rec, {
      kind: 'step', index, forced: force >= 0, history, params,
      pieceOf: (id) => s.session.tokenizer.piece(id),
    });
  }

  /**
   * Whether another token can come, and if not, why (calmly).
   * @param {{session: import('../engine/engine.js').Session}} s
   * @returns {Status}
   */
  status(s) {
    const session = s.session;
    const nGenerated = session.nGenerated;
    const seqLen = session.model.seqLen;
    let message = '';
    if (session.finished) message = 'The model ended the text here (it emitted its end-of-text token).';
    else if (seqLen > 0 && session.nTokens >= seqLen) message = `The model's context is full (${seqLen} tokens). Reset to start again.`;
    else if (nGenerated >= this.maxTokens) message = `Stopped after ${this.maxTokens} tokens. Reset to start again.`;
    return { nGenerated, ready: message === '', finished: session.finished, message };
  }

  /**
   * The answer to start/step/preview/branch: the steps taken, the next
   * token's distribution under params (a preview: no random draw), and
   * optionally samples of it.
   * @param {{session: import('../engine/engine.js').Session}} s
   * @param {import('./summary.js').StepSummary[]} steps
   * @param {Record<string, number>} params
   * @param {{n: number, seed: number} | undefined} samples
   */
  answer(s, steps, params, samples) {
    const status = this.status(s);
    let next = null;
    let drawn = null;
    if (status.ready) {
      try {
        const rec = s.session.preview(params);
        next = summarize(rec, {
          kind: 'preview', index: status.nGenerated, history: s.session.tokens, params,
          pieceOf: (id) => s.session.tokenizer.piece(id),
        });
      } catch (err) {
        // the engine's own "context full" (SP_ERR_STATE): a calm stop
        if (!(err instanceof EngineError && err.code === 4)) throw err;
        status.ready = false;
        status.message = `${err.message}. Reset to start again.`;
      }
    }
    if (next && samples) {
      drawn = sampleSummary(next, s.session.sampleCounts(samples.n, samples.seed), samples.n, samples.seed);
    }
    return { steps, next, status, samples: drawn };
  }
}
