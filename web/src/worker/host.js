// @ts-check
/**
 * host.js — what the Worker does with each request.  It owns the engine
 * (through engine.js), the loaded models and the sessions, and dispatches
 * each request (protocol.js has them all) to the module of its job:
 * models.js, the decoding strategies (sample.js, beam.js, speculative.js)
 * and answer.js for the answers' shape.  It is separate from the Worker's
 * message loop so Node tests can drive it with the real engine.
 */
import { CONSTRAINT_BUDGET, MAX_TOKENS } from '../shared/limits.js';
import { findToken } from './find.js';
import { fetchBytes, fetchUrl } from './fetch.js';
import { lab } from './answer.js';
import { loadModel, modelRow } from './models.js';
import { branch, constrain, generate, peek, preview, start, states, step } from './sample.js';
import { stagesOn } from './stages.js';
import { constraintError } from './protocol.js';

export { paramsAt } from './schedule.js';
export { errorOf, reasoned } from './protocol.js';
export { fetchBytes, fetchUrl, get } from './fetch.js';
export { CONSTRAINT_BUDGET, MAX_TOKENS };
/** @typedef {import('./schedule.js').Schedule} Schedule */
/** @typedef {import('./protocol.js').Params} Params */
/** @typedef {import('./protocol.js').ModelInfo} ModelInfo */
/** @typedef {import('./protocol.js').Lab} Lab */
/** @typedef {import('./protocol.js').StopReason} StopReason */
/** @typedef {import('./fetch.js').Builtin} Builtin */
/** @typedef {import('./fetch.js').OnProgress} OnProgress */

/**
 * A strategy's request whose module is fetched on first use: beam search
 * and speculative decoding are each a chunk of their own, so the Worker
 * a page starts with is smaller (each page's weight is budgeted).
 * (vite.config.js WORKER_CHUNKS keeps what they share with the Worker's
 * entry out of the entry: importing the entry again, under a URL without
 * its ?engine=lite, would start the whole engine a second time.)
 * @param {() => Promise<Record<string, any>>} load @param {string} name
 * @returns {(host: EngineHost, args: any, ctx: {progress?: OnProgress}) => Promise<any>}
 */
const later = (load, name) => async (host, args, ctx) => (await load())[name](host, args, ctx);
const beamCode = () => import('./beam.js');
const specCode = () => import('./speculative.js');
const watermarkCode = () => import('./watermark.js');

/**
 * The requests of each decoding strategy, by name: sampling (sample.js),
 * beam search (beam.js), speculative decoding (speculative.js).
 * @type {Record<string, (host: EngineHost, args: any, ctx: {progress?: OnProgress}) => any>}
 */
const STRATEGY_OPS = {
  start, step, preview, branch, constrain, peek, states, generate,
  beamStart: later(beamCode, 'beamStart'), beamStep: later(beamCode, 'beamStep'),
  specStart: later(specCode, 'specStart'), specRound: later(specCode, 'specRound'),
};

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
      case 'loadModel': return loadModel(this, args, progress);
      case 'freeModel': return this.freeModel(args.model);
      case 'openSession': return this.openSession(args.session, args.model);
      case 'closeSession': return this.closeSession(args.session);
      case 'lab': return lab(this.get(args.session), args.from ?? 0);
      case 'metrics': return this.get(args.session).session.metrics();
      case 'counters': return this.get(args.session).session.counters();
      case 'stopGenerate': return this.stopGenerate(args.session);
      case 'modelRow': return modelRow(this, args.model, args.row ?? 0);
      case 'contextToken': {
        // the token the next distribution follows (a bigram's row), -1 for none
        const t = this.get(args.session).session.tokens;
        return t.length ? t[t.length - 1] : -1;
      }
      case 'modelCost': return this.modelEntry(args.model).model.cost(args.n);
      case 'findToken': return findToken(this, args);
      case 'checkSize': return (await this.enginePromise).checkModelSize(args.size);
      case 'chatWrap': {
        // the prompt as one user message in the model's chat template (the
        // engine's wrap; a RangeError says why for a model without one)
        if (typeof args.prompt !== 'string') throw new TypeError('chatWrap: prompt must be a string');
        return this.get(args.session).session.tokenizer.chatWrap(args.prompt);
      }
      case 'stages': return stagesOn(this, args);
      case 'checkParams': {
        // a link's or an element's settings, asked of the engine before they are used
        const values = args.values ?? {};
        if (typeof values !== 'object') throw new TypeError('checkParams: values must be parameters by name');
        return { refused: (await this.enginePromise).paramRefusals(values, typeof args.samplers === 'string' ? args.samplers : '') };
      }
      case 'watermark': return later(watermarkCode, 'watermark')(this, args, {});
      default: {
        // a decoding strategy's request (sample.js, beam.js, speculative.js)
        const run = Object.hasOwn(STRATEGY_OPS, op) ? STRATEGY_OPS[op] : null;
        if (!run) throw new TypeError(`unknown request "${op}"`);
        return run(this, args, { progress });
      }
    }
  }
  /** @param {string} id */
  modelEntry(id) {
    const m = this.models.get(id);
    if (!m) throw new RangeError(`no model "${id}" is loaded`);
    return m;
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
      throw constraintError(err);
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

}

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
 *   groups: number, diversity: number, constrained: boolean, steps: import('./summary.js').StepSummary[], stepsKey: string} | null} beam  replay: a session that follows the text's hypothesis (its metrics, its steps)
 * @property {{speculator: import('../engine/engine.js').Speculator, plain: import('../engine/engine.js').Session, draft: string, n: number, rounds: number,
 *   ngram: number, ms: number, plainMs: number} | null} spec  draft '' and ngram > 0: prompt lookup;  plain: the same text decoded one token at a time, for the measured speed-up
 * @property {boolean} [stop]  a stop was asked of a running generate
 */