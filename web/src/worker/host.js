// @ts-check
/**
 * host.js — what the Worker does with each request.  It owns the engine
 * (through engine.js), the loaded models and the sessions, and answers with
 * plain, structured-clonable objects.  It is separate from the Worker's
 * message loop so Node tests can drive it with the real engine.
 *
 * Protocol (see worker/client.js for the page's side): a request is
 * {id, op, args}; the answer {id, ok: true, result} or {id, ok: false,
 * error: {name, message, code?, reason?, vars?, part?}} (WorkerError: the
 * engine's error code, or the Worker's own reason with its values, and
 * which file of a model failed — so the page can say it in the learner's
 * language).  Models and sessions have string ids chosen by the page, so
 * several panels (sessions) can share one model.
 *
 *   hello                                  -> {backend}
 *   loadModel {model, builtin? | bytes, tokenizerBytes? | url, tokenizerUrl? | handmade | text,
 *              name?, edits?}              -> ModelInfo (a failure leaves
 *                                             every loaded model as it was);
 *                                             a fetched file's progress (or a
 *                                             large text's training) goes to
 *                                             ctx.progress(loaded, total)
 *   modelRow {model, row}                  -> {row, logits, pieces} | null
 *   contextToken {session}                 -> the text's last token id (-1: none)
 *   modelCost {model, n}                   -> the counters n tokens cost
 *   freeModel {model}
 *   openSession {session, model}           -> {session, model}
 *   closeSession {session}
 *   start {session, prompt, seed, params, steps?, forced?, samples?, schedule?}
 *       a new generation (replaces the old one only if the prompt is good);
 *       `steps` tokens are generated at once (forced: [[index, token]...];
 *       schedule: [{from, params}...], ascending: step i runs with the
 *       params of the last entry with from <= i, or `params` before the
 *       first — a link's settings as they were when each token was drawn)
 *   step {session, params, force?, count?, samples?}
 *   preview {session, params, samples?}    re-warp the pending logits; no draw
 *   branch {session, index, token, params, samples?}
 *       rewind to `index` generated tokens, then append `token`
 *   Results of start/step/preview/branch/constrain: {steps: StepSummary[],
 *       next: StepSummary | null, status: Status, samples: Samples | null,
 *       lab: Lab} (a preview changes no text: no lab)
 *   samples {n, seed}: also draw n samples from `next` (own PRNG).
 *
 * The decoding lab (docs/playground.md has the tables):
 *   start {..., constraint?, budget?}   constraint {regex} | {grammar: 'json' | 'json_object'}
 *       applied after the prompt; a bad one refuses the start (error name
 *       "ConstraintError", the engine's message) and the old text stays
 *   constrain {session, constraint | null, budget?, params, samples?}
 *   peek {session, index, params, samples?} -> {step: StepSummary (kind
 *       'peek'), samples}: generated step `index` re-warped under params
 *   lab {session, from?}                   -> Lab of the text so far (stats from `from`)
 *   metrics {session} / counters {session} -> session.metrics() / counters()
 *   beamStart {session, prompt, width, lengthPenalty?, params, steps?, schedule?}
 *   beamStep {session, params, count?}     -> BeamAnswer
 *   specStart {session, draft, n, prompt, seed, params, rounds?, samples?, schedule?}
 *   specRound {session, params, count?, samples?} -> SpecAnswer
 *
 * Fast-forward (sample.js generate):
 *   generate {session, params, n, samples?}  n tokens without a summary
 *       each; progress (done, n) as a model file's; the answer is start's
 *       and step's, plus generated: {tokens: [{index, token, piece}],
 *       stopped, ms}
 *   stopGenerate {session}                 answered at once: the running
 *       generate stops after its chunk (~30 ms)
 */
import { EngineError } from '../engine/engine.js';
import { CONSTRAINT_BUDGET, MAX_TOKENS } from '../shared/limits.js';
import { beamStart, beamStep } from './beam.js';
import { branch, constrain, generate, peek, preview, start, step } from './sample.js';
import { specRound, specStart } from './speculative.js';
import { sampleSummary, summarize } from './summary.js';

export { paramsAt } from './schedule.js';
/** @typedef {import('./schedule.js').Schedule} Schedule */

/**
 * The requests of each decoding strategy, by name: sampling (sample.js),
 * beam search (beam.js), speculative decoding (speculative.js).
 * @type {Record<string, (host: EngineHost, args: any, ctx: {progress?: OnProgress}) => any>}
 */
const STRATEGY_OPS = { start, step, preview, branch, constrain, peek, generate, beamStart, beamStep, specStart, specRound };


export { CONSTRAINT_BUDGET, MAX_TOKENS };

/**
 * @typedef {Object} Lab  what the engine measures about the text so far
 * @property {ReturnType<import('../engine/engine.js').Session['metrics']>} metrics
 * @property {ReturnType<import('../engine/engine.js').Session['counters']> | null} counters
 *   the model state's work (null for beam search: its states are its own)
 * @property {Array<ReturnType<import('../engine/engine.js').Session['counters']> & {n: number}>} costs
 *   the counters after the prompt (start), after each step or round of the
 *   request, and now, by generated tokens n: the KV view's history
 * @property {number} statsFrom  `stats` starts at this generated token
 * @property {ReturnType<import('../engine/engine.js').Session['stats']>} stats
 */

/**
 * @typedef {Object} Hypothesis  one beam, best first
 * @property {string} text     generated text (after the prompt)
 * @property {number} length   generated tokens
 * @property {number} logprob  summed ln p of its tokens
 * @property {number} score    what the beams are ranked by
 * @property {boolean} finished it ended the text
 */

/**
 * @typedef {Object} SpecToken
 * @property {number} index    generated token index
 * @property {number} token
 * @property {string} piece    '' for an end-of-text token
 * @property {'accepted' | 'corrected' | 'bonus'} status
 * @property {boolean} end
 */

/**
 * @typedef {Object} SpecRound
 * @property {number} round     1-based
 * @property {number} index     generated index of its first token
 * @property {Array<{token: number, piece: string}>} drafted  the draft's
 *   proposals in target ids (-1: none)
 * @property {SpecToken[]} tokens  what the target appended
 * @property {{token: number, piece: string} | null} rejected  the draft
 *   token the target turned down (its replacement is the corrected token)
 * @property {number} fed  positions of the round's one batched pass of the
 *   model (the token the last round ended with, and the drafts)
 * @property {SpecResidual | null} residual  at the rejected position: the
 *   tokens of the residual max(0, p - q) it was resampled from
 * @property {number} ms  the round's time in the engine (drafting and the
 *   batched verification)
 * @property {number} plainMs  the time plain decoding took for the same
 *   tokens (one forward pass and one draw each, in a session of its own)
 */

/**
 * @typedef {Object} SpecResidual
 * @property {number} mass  the residual's total, sum of max(0, p - q)
 * @property {Array<{token: number, piece: string, p: number, q: number, r: number}>} bars
 *   the tokens the residual gives most to (r: its normalized probability),
 *   and the rejected draft (r = 0) when it is not among them
 */

/**
 * @typedef {Object} ModelInfo
 * @property {string} model   its id
 * @property {string} name
 * @property {'bigram' | 'transformer' | 'handmade'} kind
 * @property {number} vocab
 * @property {number} seqLen  context length; 0 = unbounded
 * @property {Array<[number, number, number]>} [edits]  the edits applied,
 *   in order: [row, token, p] (sp_model_set_prob)
 * @property {{bytes: number, chars: number}} [trained]  a bigram trained on
 *   a text here: the text's bytes and its different characters
 */

/** @typedef {[number, number, number]} ModelEdit  [row, token, p]: P(token | row) = p */

/**
 * @typedef {Object} Status
 * @property {number} nGenerated
 * @property {boolean} ready   another token can be generated
 * @property {boolean} finished  the model emitted its end-of-text token
 * @property {string} message  why not ready ('' when ready), in English
 * @property {StopReason} [reason]  why not ready, for the page to say in its language
 * @property {number} [n]  the number the reason names (the context's size, the most tokens)
 * @property {boolean} [fault]  the message is the engine's: the model's output is not finite
 */

/**
 * Why no token can follow: the text matches its constraint and nothing
 * more could follow (complete), the model emitted its end-of-text token
 * (end), the context is full (context, n tokens), the most tokens a text
 * may have (limit, n), every beam ended (beams), the engine's own stop
 * (engine: its message says why) or a model whose output is not finite
 * (fault: the engine's message).
 * @typedef {'complete' | 'end' | 'context' | 'limit' | 'beams' | 'engine' | 'fault'} StopReason
 */

/**
 * An error as the page receives it: the engine's code (SP_ERR_*: 1 format,
 * 2 argument, 3 memory, 4 state, 5 unsatisfiable) or the Worker's own
 * reason with its values; `part`: which of a model's files the engine
 * refused (model, tokenizer, or the pair that does not fit).
 * @typedef {{name: string, message: string, code?: number, reason?: string, vars?: Record<string, string | number>, part?: string}} WorkerError
 */

/**
 * An Error with the Worker's reason and values (the page says it in its
 * language; `message` stays the English one).
 * @param {string} message @param {string} reason @param {Record<string, string | number>} [vars]
 */
export function reasoned(message, reason, vars = {}) {
  const e = /** @type {Error & {reason: string, vars: Record<string, string | number>}} */ (new Error(message));
  e.reason = reason;
  e.vars = vars;
  return e;
}

/**
 * The clonable form of a thrown error (what the Worker posts).
 * @param {unknown} err @returns {WorkerError}
 */
export function errorOf(err) {
  const e = /** @type {Error & {code?: unknown, reason?: unknown, vars?: unknown, part?: unknown}} */ (err);
  /** @type {WorkerError} */
  const out = { name: e?.name || 'Error', message: e?.message || String(err) };
  if (typeof e?.code === 'number') out.code = e.code;
  if (typeof e?.reason === 'string') out.reason = e.reason;
  if (e?.vars && typeof e.vars === 'object') out.vars = /** @type {Record<string, string | number>} */ (e.vars);
  if (typeof e?.part === 'string') out.part = e.part;
  return out;
}

/**
 * @typedef {Object} Builtin
 * @property {string} name
 * @property {URL | string | null} url  null: not in this build
 * @property {URL | string | null} [tokenizerUrl]
 * @property {string} missing  the message when the files are not there
 */

/** @typedef {(loaded: number, total: number) => void} OnProgress  total 0: unknown */

/**
 * @typedef {Object} Fetched
 * @property {number} status @property {string} type  the Content-Type
 * @property {() => Promise<Uint8Array>} bytes
 */

/**
 * GETs a URL.  With onProgress (in a Worker or page), an XMLHttpRequest
 * reports the bytes as they arrive (total: Content-Length when the body is
 * not compressed, else 0); a stream reader would do too, but Chromium may
 * log a finished request read that way as aborted.
 * @param {URL | string} url @param {OnProgress} [onProgress]
 * @returns {Promise<Fetched>}
 */
export function get(url, onProgress) {
  if (!onProgress || typeof XMLHttpRequest === 'undefined') {
    return fetch(url).then((res) => ({
      status: res.status,
      type: res.headers.get('content-type') || '',
      bytes: async () => new Uint8Array(await res.arrayBuffer()),
    }));
  }
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('GET', String(url));
    xhr.responseType = 'arraybuffer';
    xhr.onprogress = (e) => onProgress(e.loaded, e.lengthComputable ? e.total : 0);
    xhr.onload = () => {
      const data = new Uint8Array(/** @type {ArrayBuffer} */ (xhr.response ?? new ArrayBuffer(0)));
      onProgress(data.length, data.length);
      resolve({ status: xhr.status, type: xhr.getResponseHeader('content-type') || '', bytes: async () => data });
    };
    xhr.onerror = () => reject(new TypeError('network error'));
    xhr.onabort = xhr.onerror;
    onProgress(0, 0);
    xhr.send();
  });
}

/**
 * Fetches a shipped file's bytes.  A 404, or an HTML page where a binary
 * file should be (a single-page-app fallback), means "not in this build".
 * @param {URL | string | null} url @param {OnProgress} [onProgress]
 */
export async function fetchBytes(url, onProgress) {
  if (!url) return null; // the file was not there when the page was built
  const res = await get(url, onProgress);
  if (res.status < 200 || res.status >= 300 || res.type.includes('text/html')) return null;
  return res.bytes();
}

/**
 * Fetches a model file a page named by URL (a lesson's llama2.c
 * checkpoint); a failure says which file and why.
 * @param {string} url @param {OnProgress} [onProgress]
 */
export async function fetchUrl(url, onProgress) {
  const name = url.replace(/[?#].*$/, '').replace(/.*\//, '') || url;
  /** @type {Fetched} */
  let res;
  try {
    res = await get(url, onProgress);
  } catch {
    throw reasoned(`${name} could not be fetched (offline, or another site that does not allow it)`, 'fetch', { file: name });
  }
  if (res.status < 200 || res.status >= 300) throw reasoned(`${name} could not be fetched (HTTP ${res.status})`, 'http', { file: name, status: res.status });
  if (res.type.includes('text/html')) throw reasoned(`${name} is a web page, not a model file`, 'html', { file: name });
  return res.bytes();
}

export class EngineHost {
  /**
   * @param {Promise<import('../engine/engine.js').Engine>} engine
   * @param {{builtins?: Record<string, Builtin>, fetchBytes?: (url: URL | string | null, onProgress?: OnProgress) => Promise<Uint8Array | null>,
   *   fetchUrl?: (url: string, onProgress?: OnProgress) => Promise<Uint8Array>, maxTokens?: number}} [options]
   */
  constructor(engine, { builtins = {}, fetchBytes: fetcher = fetchBytes, fetchUrl: urlFetcher = fetchUrl, maxTokens = MAX_TOKENS } = {}) {
    this.enginePromise = engine;
    this.builtins = builtins;
    this.fetchBytes = fetcher;
    this.fetchUrl = urlFetcher;
    this.maxTokens = maxTokens;
    /** @type {Map<string, ModelEntry>} */
    this.models = new Map();
    /** @type {Map<string, SessionEntry>} */
    this.sessions = new Map();
  }

  /**
   * @param {string} op @param {any} args
   * @param {{progress?: OnProgress}} [ctx] progress: a model file's bytes as they arrive
   * @returns {Promise<any>}
   */
  async handle(op, args = {}, { progress } = {}) {
    switch (op) {
      case 'hello': return { backend: (await this.enginePromise).backend };
      case 'loadModel': return this.loadModel(args, progress);
      case 'freeModel': return this.freeModel(args.model);
      case 'openSession': return this.openSession(args.session, args.model);
      case 'closeSession': return this.closeSession(args.session);
      case 'lab': return this.lab(this.get(args.session), args.from ?? 0);
      case 'metrics': return this.get(args.session).session.metrics();
      case 'counters': return this.get(args.session).session.counters();
      case 'stopGenerate': return this.stopGenerate(args.session);
      case 'modelRow': return this.modelRow(args.model, args.row ?? 0);
      case 'contextToken': {
        // the token the next distribution follows (a bigram's row), -1 for none
        const t = this.get(args.session).session.tokens;
        return t.length ? t[t.length - 1] : -1;
      }
      case 'modelCost': return this.modelEntry(args.model).model.cost(args.n);
      default: {
        // a decoding strategy's request (sample.js, beam.js, speculative.js)
        const run = Object.hasOwn(STRATEGY_OPS, op) ? STRATEGY_OPS[op] : null;
        if (!run) throw new TypeError(`unknown request "${op}"`);
        return run(this, args, { progress });
      }
    }
  }

  // ---- models ---------------------------------------------------------

  /**
   * A model: built in, from bytes, or from URLs (fetched here, with
   * progress).
   * handmade: a hand-made model's spec ("logits:2,1,0"); text: UTF-8 text
   * to train a bigram on (progress per MiB past 1 MiB); edits: [row, token,
   * p] applied in order to the loaded model (a bigram or hand-made one).
   * @param {{model: string, builtin?: string, bytes?: ArrayBuffer | Uint8Array, tokenizerBytes?: ArrayBuffer | Uint8Array | null,
   *   url?: string, tokenizerUrl?: string | null, name?: string, handmade?: string, text?: ArrayBuffer | Uint8Array,
   *   edits?: ModelEdit[]}} args
   * @param {OnProgress} [progress]
   * @returns {Promise<ModelInfo>}
   */
  async loadModel({ model: id, builtin, bytes, tokenizerBytes, url, tokenizerUrl, name, handmade, text, edits = [] }, progress) {
    const have = this.models.get(id);
    // the same source and edits: already loaded
    const source = builtin ? `builtin:${builtin}` : url ? `url:${url}` : handmade ? `handmade:${handmade}` : '';
    const key = source && JSON.stringify([source, edits]);
    if (have && key && have.key === key) return have.info;
    const engine = await this.enginePromise;
    /** @type {Uint8Array | null} */
    let modelData = null;
    /** @type {Uint8Array | null} */
    let tokData = null;
    /** @type {ModelInfo['trained']} */
    let trained;
    /** @type {import('../engine/engine.js').Model | null} */
    let made = null;
    if (handmade) {
      made = engine.handmadeModel(String(handmade));
      name ??= 'Hand-made';
    } else if (text) {
      // a bigram trained on the learner's text, with progress for a large one
      const t = new Uint8Array(text);
      const onProgress = t.length > 1 << 20 ? (/** @type {number} */ done, /** @type {number} */ total) => progress?.(done, total) : undefined;
      const file = engine.trainBigram(t, { onProgress });
      made = engine.loadModel(file);
      trained = { bytes: t.length, chars: made.vocab - 1 };
      name ??= 'Your text';
    } else if (builtin) {
      const b = this.builtins[builtin];
      if (!b) throw new RangeError(`no built-in model "${builtin}"`);
      name = b.name;
      modelData = await this.fetchBytes(b.url, progress);
      if (b.tokenizerUrl && modelData) tokData = await this.fetchBytes(b.tokenizerUrl);
      if (!modelData || (b.tokenizerUrl && !tokData)) throw reasoned(b.missing, 'missing', { model: builtin });
    } else if (url) {
      modelData = await this.fetchUrl(url, progress);
      if (tokenizerUrl) tokData = await this.fetchUrl(tokenizerUrl);
    } else {
      if (!bytes) throw new TypeError('loadModel: no model bytes');
      modelData = new Uint8Array(bytes);
      tokData = tokenizerBytes ? new Uint8Array(tokenizerBytes) : null;
    }
    /** which file the engine refused: its error says so (part) */
    const as = (/** @type {string} */ part, /** @type {() => any} */ fn) => {
      try {
        return fn();
      } catch (err) {
        if (err && typeof err === 'object') /** @type {any} */ (err).part = part;
        throw err;
      }
    };
    const model = made ?? as('model', () => engine.loadModel(/** @type {Uint8Array} */ (modelData)));
    /** @type {import('../engine/engine.js').Tokenizer | null} */
    let tokenizer = null;
    try {
      if (tokData) tokenizer = as('tokenizer', () => engine.loadTokenizer(/** @type {Uint8Array} */ (tokData)));
      if (!tokenizer && !model.tokenizer) {
        const e = new EngineError(`this ${model.kind} model (vocabulary ${model.vocab}) needs its tokenizer.bin: choose both files`, 1);
        throw Object.assign(e, { reason: 'tokenizer-needed', vars: { vocab: model.vocab } });
      }
      // a trial session: a tokenizer that does not fit the model is refused
      // here, with the engine's message, before anything is replaced
      as('pair', () => engine.createSession(model, tokenizer).free());
      for (const [row, token, p] of edits) model.setProb(row, token, p);
    } catch (err) {
      tokenizer?.free();
      model.free();
      throw err;
    }
    if (have) this.freeModel(id);
    /** @type {ModelInfo} */
    const info = { model: id, name: name || id, kind: model.kind, vocab: model.vocab, seqLen: model.seqLen };
    if (edits.length) info.edits = edits.map((e) => [e[0], e[1], e[2]]);
    if (trained) info.trained = trained;
    this.models.set(id, { model, tokenizer, info, key });
    return info;
  }

  /** @param {string} id */
  modelEntry(id) {
    const m = this.models.get(id);
    if (!m) throw new RangeError(`no model "${id}" is loaded`);
    return m;
  }

  /**
   * A bigram's or hand-made model's row of logits with the tokens' pieces
   * (the hand-made table, an edited row), or null for a transformer.
   * @param {string} id @param {number} row
   */
  modelRow(id, row) {
    const { model, tokenizer } = this.modelEntry(id);
    const logits = model.row(row);
    if (!logits) return null;
    const tok = tokenizer ?? model.tokenizer;
    return { row, logits: Array.from(logits), pieces: Array.from(logits, (_, i) => tok?.piece(i) ?? String(i)) };
  }


  /** @param {string} id */
  freeModel(id) {
    const m = this.models.get(id);
    if (!m) return false;
    for (const [sid, s] of this.sessions) {
      if (s.model === id) this.closeSession(sid);
      else if (s.spec?.draft === id) this.dropLab(s);
    }
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
    this.sessions.set(sid, { session, model: modelId, forced: new Set(), constrained: false, beam: null, spec: null, costLog: [] });
    return { session: sid, model: modelId };
  }

  /** @param {string} sid */
  closeSession(sid) {
    const s = this.sessions.get(sid);
    if (!s) return false;
    this.dropLab(s);
    s.session.free();
    this.sessions.delete(sid);
    return true;
  }

  /**
   * Frees a session's beam search and speculator (the speculator borrows
   * the session, so it goes before the session does).
   * @param {SessionEntry} s
   */
  dropLab(s) {
    if (s.spec) {
      s.spec.speculator.free();
      s.spec.plain.free();
    }
    s.spec = null;
    if (s.beam) {
      s.beam.search.free();
      s.beam.replay.free();
    }
    s.beam = null;
  }

  /**
   * Replaces a session's generation by a fresh, started session object.
   * @param {SessionEntry} s @param {import('../engine/engine.js').Session} fresh
   */
  replaceSession(s, fresh) {
    this.dropLab(s);
    s.session.free();
    s.session = fresh;
    s.forced = new Set();
    s.constrained = false;
    s.costLog = [];
    this.logCost(s);
  }

  /** Notes the counters now (the KV view's history). @param {SessionEntry} s */
  logCost(s) {
    s.costLog.push({ ...s.session.counters(), n: s.session.nGenerated });
  }

  /** The model entry of a session. @param {SessionEntry} s */
  modelOf(s) {
    return /** @type {ModelEntry} */ (this.models.get(s.model));
  }

  /**
   * The budget a constraint gets when the page gives none: CONSTRAINT_BUDGET
   * generated tokens, or what the model's context has left.
   * @param {import('../engine/engine.js').Session} session
   */
  defaultBudget(session) {
    const seqLen = session.model.seqLen;
    const room = seqLen > 0 ? seqLen - session.nTokens : Infinity;
    return Math.max(1, Math.min(CONSTRAINT_BUDGET, room, this.maxTokens));
  }

  /**
   * Applies a constraint (or lifts it with null); a refused one throws an
   * Error named "ConstraintError" with the engine's message.
   * @param {Pick<SessionEntry, 'session' | 'constrained'>} s
   * @param {import('../engine/engine.js').Constraint | null | undefined} constraint
   * @param {number | undefined} budget
   */
  applyConstraint(s, constraint, budget) {
    try {
      s.session.constrain(constraint ?? null, constraint ? (budget ?? s.session.nGenerated + this.defaultBudget(s.session)) : 0);
    } catch (err) {
      const e = new Error(/** @type {Error} */ (err).message);
      e.name = 'ConstraintError';
      throw e;
    }
    s.constrained = !!constraint;
  }

  /**
   * Asks a running fast-forward (generate) of session sid to stop after
   * its current chunk.  The Worker answers this request at once, outside
   * the queue of requests the generate is part of.
   * @param {string} sid
   */
  stopGenerate(sid) {
    const s = this.sessions.get(sid);
    if (s) s.stop = true;
    return !!s;
  }

  /** @param {string} sid */
  get(sid) {
    const s = this.sessions.get(sid);
    if (!s) throw new RangeError(`no session "${sid}"`);
    return s;
  }

  // ---- helpers --------------------------------------------------------

  /**
   * @param {SessionEntry} s @param {Params} params @param {number} force
   */
  stepOnce(s, params, force) {
    const index = s.session.nGenerated;
    const rec = s.session.step(params, { force });
    this.logCost(s);
    if (force >= 0) s.forced.add(index);
    return summarize(rec, {
      kind: 'step', index, forced: force >= 0, params,
      pieceOf: (id) => s.session.tokenizer.piece(id),
    });
  }

  /**
   * Whether another token can come, and if not, why (calmly).
   * @param {{session: import('../engine/engine.js').Session, constrained?: boolean}} s
   * @returns {Status}
   */
  status(s) {
    const session = s.session;
    const nGenerated = session.nGenerated;
    const seqLen = session.model.seqLen;
    let message = '';
    /** @type {StopReason | undefined} */
    let reason;
    let n;
    if (session.finished && s.constrained) {
      message = 'The text is complete: it matches the constraint, and nothing more could follow.';
      reason = 'complete';
    } else if (session.finished) {
      message = 'The model ended the text here (it emitted its end-of-text token).';
      reason = 'end';
    } else if (seqLen > 0 && session.nTokens >= seqLen) {
      message = `The model's context is full (${seqLen} tokens). Reset to start again.`;
      reason = 'context';
      n = seqLen;
    } else if (nGenerated >= this.maxTokens) {
      message = `Stopped after ${this.maxTokens} tokens. Reset to start again.`;
      reason = 'limit';
      n = this.maxTokens;
    }
    /** @type {Status} */
    const status = { nGenerated, ready: message === '', finished: session.finished, message };
    if (reason) status.reason = reason;
    if (n !== undefined) status.n = n;
    return status;
  }

  /**
   * What the engine measures about the text: metrics, counters, and the
   * per-token stats from generated token `from` on.
   * @param {SessionEntry} s @param {number} from
   * @returns {Lab}
   */
  lab(s, from) {
    const session = s.session;
    const start = Math.max(0, Math.min(from, session.nGenerated));
    const counters = session.counters();
    const costs = s.costLog.splice(0);
    costs.push({ ...counters, n: session.nGenerated });
    return { metrics: session.metrics(), counters, costs, statsFrom: start, stats: session.stats().slice(start) };
  }

  /**
   * The answer to start/step/preview/branch/constrain: the steps taken,
   * the next token's distribution under params (a preview: no random
   * draw), optionally samples of it, and the lab's numbers (stats from
   * generated token `from` on).
   * @param {SessionEntry} s
   * @param {import('./summary.js').StepSummary[]} steps
   * @param {Params} params
   * @param {{n: number, seed: number} | undefined} samples
   * @param {number | null} from  null: the text did not change (no lab)
   */
  answer(s, steps, params, samples, from) {
    const status = this.status(s);
    let next = null;
    let drawn = null;
    if (status.ready) {
      try {
        const rec = s.session.preview(params);
        next = summarize(rec, {
          kind: 'preview', index: status.nGenerated, params,
          pieceOf: (id) => s.session.tokenizer.piece(id),
        });
      } catch (err) {
        // the engine's own "context full" (SP_ERR_STATE): a calm stop
        if (err instanceof EngineError && err.code === 4) {
          status.ready = false;
          status.message = `${err.message}. Reset to start again.`;
          status.reason = 'engine';
        } else if (err instanceof EngineError && /^logits: /.test(err.message)) {
          // the model's output is not finite here: the text so far stays,
          // nothing can follow, and the engine's message says why
          status.ready = false;
          status.fault = true;
          status.reason = 'fault';
          status.message = `${err.message}. Nothing can follow; Reset, or choose another model.`;
        } else throw err;
      }
    }
    if (next && samples) {
      drawn = sampleSummary(next, s.session.sampleCounts(samples.n, samples.seed), samples.n, samples.seed);
    }
    return { steps, next, status, samples: drawn, lab: from === null ? undefined : this.lab(s, from) };
  }
}

/** @typedef {Record<string, any>} Params  sampler settings (engine.js SamplerParams) */

/**
 * @typedef {Object} ModelEntry
 * @property {import('../engine/engine.js').Model} model
 * @property {import('../engine/engine.js').Tokenizer | null} tokenizer
 * @property {ModelInfo} info
 * @property {string} [key]  its source and edits (a reload of the same is a no-op)
 */

/**
 * @typedef {Object} SessionEntry
 * @property {import('../engine/engine.js').Session} session
 * @property {string} model
 * @property {Set<number>} forced
 * @property {boolean} constrained
 * @property {Array<Lab['costs'][number]>} costLog  counters noted since the last answer
 * @property {{search: import('../engine/engine.js').BeamSearch, replay: import('../engine/engine.js').Session, expansions: number, message: string, reason?: StopReason, width: number, lengthPenalty: number,
 *   constrained: boolean, steps: import('./summary.js').StepSummary[], stepsKey: string} | null} beam  replay: a session that follows the text's hypothesis (its metrics, its steps)
 * @property {{speculator: import('../engine/engine.js').Speculator, plain: import('../engine/engine.js').Session, draft: string, n: number, rounds: number,
 *   ms: number, plainMs: number} | null} spec  plain: the same text decoded one token at a time, for the measured speed-up
 * @property {boolean} [stop]  a stop was asked of a running generate
 */
