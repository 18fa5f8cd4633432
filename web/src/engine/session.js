// @ts-check
/**
 * session.js — a generation: a model, its tokenizer, a PRNG and the text
 * so far.  Steps (a draw each), previews and peeks (re-warps, no draw),
 * fast-forward, constraints, rewinds, and what the engine measures about
 * the text (metrics, per-token stats, the KV cache's work counters).
 */
import { constraintHandle } from './constraint.js';
import { writeParams } from './params.js';
import { splitSeed } from './seed.js';
import { readStep, sampleCounts, stateOf, stepNumbers } from './step.js';
import { decoder } from './wasm.js';

export class Session {
  /**
   * @param {import('./engine.js').Engine} engine @param {number} handle @param {import('./model.js').Model} model
   * @param {import('./tokenizer.js').Tokenizer | null} tokenizer
   */
  constructor(engine, handle, model, tokenizer) {
    this.engine = engine;
    this.handle = handle;
    this.model = model;
    this.tokenizer = /** @type {import('./tokenizer.js').Tokenizer} */ (tokenizer);
    this.vocab = model.vocab;
    this.params = engine.x.api_params_new();
    /** classifier-free guidance's negative prompt as the engine has it */
    this.negative = '';
  }

  /**
   * Classifier-free guidance's negative prompt from the settings
   * (negative_prompt; none: the prompt's last token alone), given to the
   * engine when it changes: its second run starts anew.
   * @param {import('./params.js').SamplerParams} params
   */
  negativePrompt(params) {
    const text = params.negative_prompt ?? '';
    if (typeof text !== 'string') throw new TypeError('negative_prompt must be a text');
    if (text === this.negative) return;
    const e = this.engine;
    e.withString(text, 'negative_prompt', (ptr) => e.check(e.x.api_session_set_negative_prompt(this.handle, ptr)));
    this.negative = text;
  }

  /**
   * Starts a generation: seeds the PRNG, encodes and feeds the prompt.
   * @param {string} prompt
   * @param {number | bigint | string} seed
   */
  start(prompt, seed) {
    const [lo, hi] = splitSeed(seed);
    const e = this.engine;
    e.withString(prompt, 'prompt', (ptr) => e.check(e.x.api_session_start(this.handle, ptr, lo, hi)));
  }

  /** Whether the raw distribution is computed (default true). */
  /** @param {boolean} on */
  setRaw(on) {
    this.engine.x.api_session_set_raw(this.handle, on ? 1 : 0);
  }

  /**
   * A look inside the model with each preview and peek (off by default):
   * the attention weights of every layer and head over the cached
   * positions (attention), and the logit lens's `top` most probable
   * tokens after each layer (lens: one pass of the classifier per layer,
   * the lens's cost on a large vocabulary).  The records' `inspect`.  A
   * model without attention (a bigram, a hand-made model) is refused with
   * the engine's message, which says why.
   * @param {{attention?: boolean, lens?: boolean, top?: number}} what
   */
  setInspect({ attention = false, lens = false, top = 5 } = {}) {
    const mask = (attention || lens ? 1 : 0) | (lens ? 2 : 0);
    if (!Number.isInteger(top)) throw new TypeError('inspect: top must be a whole number');
    this.engine.check(this.engine.x.api_session_set_inspect(this.handle, mask, lens ? top : 0));
  }

  /**
   * Appends token `force` as a step does (the warp, the draw, one forward
   * pass), without reading the step record: plain decoding's cost.
   * @param {import('./params.js').SamplerParams} params @param {number} force
   */
  advance(params, force) {
    const e = this.engine;
    writeParams(e, this.params, params, this.vocab);
    this.negativePrompt(params);
    e.check(e.x.api_session_step(this.handle, this.params, force));
  }

  /**
   * Generates one token.
   * @param {import('./params.js').SamplerParams} [params]
   * @param {{force?: number}} [options] force: append this token instead
   * @returns {import('./step.js').StepRecord}
   */
  step(params = {}, { force = -1 } = {}) {
    const e = this.engine;
    if (typeof force !== 'number' || !Number.isInteger(force)) throw new TypeError('force must be a token id');
    writeParams(e, this.params, params, this.vocab, this.tokenizer);
    this.negativePrompt(params);
    const n = this.nTokens;
    const prev = n > 0 ? this.tokens[n - 1] : -1;
    e.check(e.x.api_session_step(this.handle, this.params, force));
    const rec = readStep(e, e.x.api_session_step_record(this.handle), this.params);
    // an end-of-text token (EOS; the bigram's boundary under a constraint)
    // ends the text: its piece is not text
    rec.end = e.x.api_session_is_end(this.handle, rec.token) !== 0;
    rec.pieceBytes = rec.end ? new Uint8Array(0) : this.tokenizer.decodeBytes(prev, rec.token);
    rec.piece = decoder.decode(rec.pieceBytes);
    return rec;
  }

  /**
   * Fast-forward: up to n tokens, each exactly as step(params) would
   * append it (the same tokens, the same per-token stats), without reading
   * a step record per token.  Stops early at the end of the text or of the
   * model's context (a step the engine refuses with a state error: its
   * message is in `stopped`); any other error is thrown.
   * @param {import('./params.js').SamplerParams} params @param {number} n
   * @returns {{count: number, stopped: string}}
   */
  generate(params, n) {
    const e = this.engine;
    if (!Number.isInteger(n) || n < 0) throw new RangeError(`generate: n must be an integer >= 0 (got ${n})`);
    writeParams(e, this.params, params, this.vocab);
    this.negativePrompt(params);
    let count = 0;
    for (; count < n; count++) {
      if (this.finished) return { count, stopped: 'finished' };
      const rc = e.x.api_session_step(this.handle, this.params, -1);
      if (rc === 0) continue;
      const err = e.error(rc);
      if (err.kind === 'state') return { count, stopped: err.message }; // the context is full, say
      throw err;
    }
    return { count, stopped: '' };
  }

  /**
   * The distribution of the next token under params, without drawing.
   * @param {import('./params.js').SamplerParams} [params]
   * @returns {import('./step.js').StepRecord}
   */
  preview(params = {}) {
    const e = this.engine;
    writeParams(e, this.params, params, this.vocab, this.tokenizer);
    this.negativePrompt(params);
    e.check(e.x.api_session_preview(this.handle, this.params));
    return readStep(e, e.x.api_session_step_record(this.handle), this.params);
  }

  /**
   * The distribution of generated step n (0 = the first generated token)
   * under params: time travel.  Text and PRNG stay as they are; a
   * constraint's mask is not applied.
   * @param {number} n
   * @param {import('./params.js').SamplerParams} [params]
   * @returns {import('./step.js').StepRecord}
   */
  peek(n, params = {}) {
    const e = this.engine;
    if (!Number.isInteger(n)) throw new TypeError('peek: n must be an integer');
    writeParams(e, this.params, params, this.vocab, this.tokenizer);
    this.negativePrompt(params);
    e.check(e.x.api_session_peek(this.handle, n, this.params));
    return readStep(e, e.x.api_session_step_record(this.handle), this.params);
  }

  /**
   * The stateful stages' numbers of generated steps from .. to - 1 (the
   * StepRecord.state of each), re-warped under params as peek does, each
   * read as if the token the text has there had been drawn: what the
   * page's strip shows of a fast-forwarded text, without a whole record
   * per step.
   * @param {number} from @param {number} to @param {Record<string, any>} [params]
   * @returns {Array<Record<string, number>>}
   */
  peekStates(from, to, params = {}) {
    const e = this.engine;
    writeParams(e, this.params, params, this.vocab, this.tokenizer);
    const tokens = this.tokens;
    const out = [];
    for (let n = from; n < to; n++) {
      e.check(e.x.api_session_peek(this.handle, n, this.params));
      out.push(stateOf(stepNumbers(e, e.x.api_session_step_record(this.handle), tokens[this.nPrompt + n])));
    }
    return out;
  }

  /**
   * n draws from the last step's or preview's final distribution, with a
   * PRNG of its own (the generation's stream is untouched).
   * @param {number} n @param {number | bigint | string} seed
   */
  sampleCounts(n, seed) {
    return sampleCounts(this.engine, this.engine.x.api_session_step_record(this.handle), n, seed);
  }

  /**
   * Constrains the generated text: {regex: PATTERN}, {grammar: 'json'} (one
   * JSON document) or {grammar: 'json_object'} (one whose top value is an
   * object), or null to lift it; budget = at most that many generated
   * tokens in all (0 = no limit).  Call after start().
   * @param {import('./constraint.js').Constraint | null} constraint
   * @param {number} [budget]
   */
  constrain(constraint, budget = 0) {
    const e = this.engine;
    if (!Number.isInteger(budget) || budget < 0) throw new RangeError(`budget must be an integer >= 0 (got ${budget})`);
    const handle = constraint ? constraintHandle(e, constraint) : 0;
    const rc = e.x.api_session_constrain(this.handle, handle, budget);
    if (rc !== 0) {
      if (handle) e.x.api_constraint_free(handle);
      e.check(rc);
    }
    if (this.constraintHandle) e.x.api_constraint_free(this.constraintHandle);
    this.constraintHandle = handle;
  }

  /**
   * The generated text's metrics, computed by the engine.
   * @returns {{tokens: number, bytes: number, distinct1: number, distinct2: number, distinct3: number,
   *   typeTokenRatio: number, longestRepeat: number, longestRepeatAt: number, meanEntropyBits: number,
   *   meanEntropyRawBits: number, meanNucleus: number, perplexity: number}}
   */
  metrics() {
    const e = this.engine;
    const { r, values: v } = e.readDoubles((ptr) => e.x.api_session_metrics(this.handle, ptr), 12);
    e.check(r);
    return {
      tokens: v[0], bytes: v[1], distinct1: v[2], distinct2: v[3], distinct3: v[4], typeTokenRatio: v[5],
      longestRepeat: v[6], longestRepeatAt: v[7], meanEntropyBits: v[8], meanEntropyRawBits: v[9],
      meanNucleus: v[10], perplexity: v[11],
    };
  }

  /**
   * One entry per generated token: its final probability p, ln of its raw
   * model probability, the entropies and the nucleus size at that step.
   * @returns {Array<{p: number, logpRaw: number, entropyBits: number, entropyRawBits: number, nKept: number}>}
   */
  stats() {
    const e = this.engine;
    const n = this.nGenerated;
    const { values: v } = e.readDoubles((ptr) => e.x.api_session_stats(this.handle, ptr, n), Math.max(1, 5 * n));
    return Array.from({ length: n }, (_, i) => ({
      p: v[5 * i], logpRaw: v[5 * i + 1], entropyBits: v[5 * i + 2], entropyRawBits: v[5 * i + 3], nKept: v[5 * i + 4],
    }));
  }

  /**
   * The model state's work counters since start (the KV-cache lesson):
   * flops done, flops a cache-less model would have done, forward calls,
   * key/value rows reused and written.
   */
  counters() {
    const e = this.engine;
    const { values: v } = e.readDoubles((ptr) => e.x.api_session_counters(this.handle, ptr), 6);
    return { flops: v[0], flopsNoCache: v[1], tokens: v[2], kvReused: v[3], kvWritten: v[4], passes: v[5] };
  }

  /** Back to when n tokens had been generated (the prompt stays). */
  /** @param {number} n */
  rewind(n) {
    if (!Number.isInteger(n)) throw new TypeError('rewind: n must be an integer');
    this.engine.check(this.engine.x.api_session_rewind(this.handle, n));
  }

  /** prompt + generated token ids */
  get tokens() {
    const e = this.engine;
    return e.ints(e.x.api_session_tokens(this.handle), this.nTokens).slice();
  }

  get nTokens() {
    return this.engine.x.api_session_n_tokens(this.handle);
  }

  get nPrompt() {
    return this.engine.x.api_session_n_prompt(this.handle);
  }

  get nGenerated() {
    return this.nTokens - this.nPrompt;
  }

  /** Whether token ends the text (its piece is not text). @param {number} token */
  isEnd(token) {
    return this.engine.x.api_session_is_end(this.handle, token) !== 0;
  }

  /** the model emitted its end-of-text token */
  get finished() {
    return this.engine.x.api_session_finished(this.handle) !== 0;
  }

  free() {
    if (!this.handle) return;
    this.engine.x.api_session_free(this.handle);
    this.engine.x.api_params_free(this.params);
    if (this.constraintHandle) this.engine.x.api_constraint_free(this.constraintHandle);
    this.constraintHandle = 0;
    this.handle = 0;
  }
}
