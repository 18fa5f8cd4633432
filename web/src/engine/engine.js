// @ts-check
/**
 * engine.js — the one wrapper around the WASM engine.  The playground's
 * Worker, the Node tools and the tests all use it.
 *
 * The engine is a standalone .wasm (build/engine-{simd,scalar}.wasm, built
 * from c/engine and c/wasm; no Emscripten JS glue): this file instantiates
 * it and turns its plain-number exports into objects: Model, Tokenizer,
 * Sampler, Session, BeamSearch, Speculator and StepRecord, one module
 * each beside this one.  Errors: a bad parameter throws TypeError (wrong
 * type) or RangeError (out of range, with the engine's own message); a bad
 * file throws EngineError with the engine's one-line message.  Every error
 * the engine reports carries which one it is (errors.js: code, reason,
 * kind).  The command line
 * over WASM is a .wasm of its own (cli.js); the page never loads it.
 */
import { BeamSearch } from './beam.js';
import { EngineError, engineError, readErrors } from './errors.js';
import { Model } from './model.js';
import { activeStages, paramRefusals } from './params.js';
import { readRegistry } from './registry.js';
import { Sampler } from './sampler.js';
import { Session } from './session.js';
import { Speculator } from './speculator.js';
import { Tokenizer } from './tokenizer.js';
import { instantiate, WasmModule } from './wasm.js';

export { isEngineError } from './errors.js';
export { BeamSearch, EngineError, Model, Sampler, Session, Speculator, Tokenizer, WasmModule, instantiate };
export { simdSupported } from './wasm.js';
export { splitSeed } from './seed.js';
export { RANK_ALL_MAX, TOP_N } from './step.js';

/** @typedef {import('./params.js').SamplerParams} SamplerParams */
/** @typedef {import('./registry.js').ParamInfo} ParamInfo */
/** @typedef {import('./constraint.js').Constraint} Constraint */
/** @typedef {import('./step.js').StepRecord} StepRecord */
/** @typedef {import('./errors.js').ErrorInfo} ErrorInfo */

/**
 * Loads the engine.
 * @param {BufferSource | Response | Promise<Response>} wasm  the bytes of
 *   build/engine-simd.wasm or engine-scalar.wasm, or a fetch of either
 * @returns {Promise<Engine>}
 */
export async function loadEngine(wasm) {
  const engine = new Engine();
  const instance = await instantiate(wasm, engine.imports());
  engine.attach(instance);
  return engine;
}

export class Engine extends WasmModule {
  constructor() {
    super();
    /** the sampler's parameters, as the engine declares them @type {ParamInfo[]} */
    this.params = [];
    /** name -> index in params @type {Map<string, number>} */
    this.paramIndex = new Map();
    /** the chain's stages in their default order @type {string[]} */
    this.stages = [];
    /** the terminal stages, after the chain when on: mirostat, adaptive_p @type {string[]} */
    this.terminal = [];
    /** the names of what can cut a token (StepRecord.cut indexes them) @type {string[]} */
    this.cutNames = [];
    /** the engine's errors, by code (sampler.h SP_ERRORS) @type {ErrorInfo[]} */
    this.errors = [];
  }

  /** @param {WebAssembly.Instance} instance */
  attach(instance) {
    super.attach(instance);
    /** which kernels this build runs: "wasm-simd128" or "scalar" */
    this.backend = this.cstring(this.x.api_vec4_backend());
    const { params, stages, terminal, cutNames } = readRegistry(this);
    this.params = params;
    this.paramIndex = new Map(params.map((p, i) => [p.name, i]));
    this.stages = stages;
    this.terminal = terminal;
    this.cutNames = cutNames;
    this.errors = readErrors(this);
  }

  lastError() {
    return this.cstring(this.x.api_last_error());
  }

  /**
   * The error the engine reported: after a call that returned the class rc,
   * or (rc -1) one that returned NULL, whose class is `otherwise` when the
   * engine left no message.
   * @param {number} rc @param {string} [otherwise]  an error's name
   */
  error(rc, otherwise = 'format') {
    let code = this.x.api_error_code(rc);
    if (code <= 0) code = this.errors.find((i) => i.name === otherwise)?.code ?? 0;
    return engineError(this.lastError(), this.errors[code]);
  }

  /** The name's error, with a message of the caller's. @param {string} name @param {string} message */
  errorNamed(name, message) {
    const info = this.errors.find((i) => i.name === name);
    if (!info) throw new Error(`the engine has no error "${name}"`);
    return engineError(message, info);
  }

  /** Throws for an engine error code. @param {number} rc */
  check(rc) {
    if (rc !== 0) throw this.error(rc);
  }

  /**
   * The stages these settings turn on, as the engine decides: the chain's
   * stage names (default order), then the terminal ones ('mirostat',
   * 'adaptive_p').  XTC at probability 0.5
   * and threshold 0.55 is not on: no token can be at or above a threshold
   * over 0.5 with another one.
   * @param {SamplerParams} params
   * @param {{vocab?: number, tokenizer?: import('./tokenizer.js').Tokenizer | null}} [options]
   *   vocab: logit_bias's tokens are checked against it; tokenizer: makes
   *   dry_sequence_breakers tokens
   * @returns {string[]}
   */
  activeStages(params, { vocab = 0, tokenizer = null } = {}) {
    return activeStages(this, params, vocab, tokenizer);
  }

  /**
   * The values of a setup the engine refuses, and why (params.js
   * paramRefusals): each value alone as the engine stores and checks it
   * (1e308 is infinity in its float), then together in the registry's
   * order.  What a link's or an element's settings are asked.
   * @param {Record<string, number>} values  parameters by name
   * @param {string} [samplers]  the chain's order
   * @returns {import('./params.js').Refusal[]}
   */
  paramRefusals(values, samplers = '') {
    return paramRefusals(this, values, samplers);
  }

  // ---- objects ------------------------------------------------------

  /**
   * Loads a model file: the bigram format or a llama2.c checkpoint.
   * @param {Uint8Array} data
   * @returns {Model}
   */
  loadModel(data) {
    if (!(data instanceof Uint8Array)) throw new TypeError('loadModel: expected a Uint8Array');
    const ptr = this.allocBytes(data); // the engine takes ownership
    const handle = this.x.api_model_load(ptr, data.length);
    if (!handle) throw this.error(-1, 'format');
    return new Model(this, handle);
  }

  /**
   * Whether a model file of `size` bytes fits this engine's memory beside
   * what a model needs; a file too large throws (an EngineError "nomem") with
   * its size in the engine's message, before any byte is read.
   * @param {number} size
   */
  checkModelSize(size) {
    if (typeof size !== 'number' || !(size >= 0)) throw new TypeError('checkModelSize: size must be a number >= 0');
    if (!this.x.api_model_check_size(size)) throw this.error(-1, 'nomem');
  }

  /**
   * A hand-made model from its spec: "logits:2,1,0", "logits:a=2,b=1,c=0"
   * or "probs:0.5,0.3,0.2" (the engine parses it; its message names a bad
   * entry).
   * @param {string} spec
   * @returns {Model}
   */
  handmadeModel(spec) {
    const handle = this.withString(spec, 'the hand-made model', (ptr) => this.x.api_model_handmade(ptr));
    if (!handle) throw this.error(-1, 'arg');
    return new Model(this, handle);
  }

  /**
   * Trains a character bigram on UTF-8 text (models/train_bigram.py's
   * estimate, byte for byte), fed in chunks; onProgress(bytesDone, total)
   * after each.  Returns the bigram file's bytes.
   * @param {Uint8Array} text
   * @param {{alpha?: number, chunk?: number, onProgress?: (done: number, total: number) => void}} [options]
   * @returns {Uint8Array}
   */
  trainBigram(text, { alpha = 0.1, chunk = 1 << 20, onProgress } = {}) {
    if (!(text instanceof Uint8Array)) throw new TypeError('trainBigram: expected a Uint8Array');
    const t = this.x.api_trainer_new();
    if (!t) throw this.error(-1, 'nomem');
    const buf = this.malloc(Math.max(1, Math.min(chunk, text.length)));
    try {
      for (let at = 0; at < text.length; at += chunk) {
        const part = text.subarray(at, Math.min(text.length, at + chunk));
        this.bytes(buf, part.length).set(part);
        this.check(this.x.api_trainer_feed(t, buf, part.length));
        onProgress?.(at + part.length, text.length);
      }
      const out = this.x.api_trainer_finish(t, alpha);
      if (!out) throw this.error(-1, 'arg');
      const bytes = this.bytes(out, this.x.api_last_len()).slice();
      this.free(out);
      return bytes;
    } finally {
      this.free(buf);
      this.x.api_trainer_free(t);
    }
  }

  /**
   * Loads a llama2.c tokenizer.bin.
   * @param {Uint8Array} data
   * @param {number} [vocab] pieces to read (default: the whole file)
   * @returns {Tokenizer}
   */
  loadTokenizer(data, vocab = 0) {
    if (!(data instanceof Uint8Array)) throw new TypeError('loadTokenizer: expected a Uint8Array');
    if (!Number.isInteger(vocab) || vocab < 0 || vocab > 1_000_000) throw new RangeError(`vocab must be an integer in 0..1000000 (got ${vocab})`);
    const ptr = this.allocBytes(data);
    const handle = this.x.api_tokenizer_load(ptr, data.length, vocab);
    this.free(ptr);
    if (!handle) throw this.error(-1, 'format');
    return new Tokenizer(this, handle, true);
  }

  /**
   * A tokenizer of ids for a model without one (a llama2.c checkpoint
   * chosen alone): token i's piece is "<i>", a prompt is read as such pieces
   * ("<1><17>"), BOS 1 and EOS 2 as in llama2.c.
   * @param {number} vocab
   * @returns {Tokenizer}
   */
  idsTokenizer(vocab) {
    if (!Number.isInteger(vocab)) throw new TypeError('idsTokenizer: vocab must be an integer');
    const handle = this.x.api_tokenizer_ids(vocab);
    if (!handle) throw this.error(-1, 'arg');
    const t = new Tokenizer(this, handle, true);
    t.ids = true;
    return t;
  }

  /** @param {number} vocab */
  createSampler(vocab) {
    if (!Number.isInteger(vocab) || vocab <= 0) throw new RangeError(`vocab must be a positive integer (got ${vocab})`);
    const handle = this.x.api_sampler_new(vocab);
    if (!handle) throw new Error('engine: out of memory');
    return new Sampler(this, handle, vocab);
  }

  /**
   * @param {import('./model.js').Model} model
   * @param {import('./tokenizer.js').Tokenizer | null} [tokenizer] required for a llama2.c model
   */
  createSession(model, tokenizer = null) {
    const handle = this.x.api_session_new(model.handle, tokenizer ? tokenizer.handle : 0);
    if (!handle) throw this.error(-1, 'format');
    return new Session(this, handle, model, tokenizer || model.tokenizer);
  }

  /**
   * A deterministic beam search (no randomness: bias and penalties apply,
   * temperature and truncation do not).
   * @param {import('./model.js').Model} model
   * @param {import('./tokenizer.js').Tokenizer | null} tokenizer required for a llama2.c model
   * Diverse beam search: `groups` groups of width / groups beams, a
   * group's candidates losing `diversity` for each beam of an earlier
   * group that chose the same token this step (HF's num_beam_groups,
   * diversity_penalty); 1 group is plain beam search.
   * @param {{width: number, lengthPenalty?: number, maxTokens?: number, groups?: number, diversity?: number}} options
   */
  createBeamSearch(model, tokenizer, { width, lengthPenalty = 0, maxTokens = 1024, groups = 1, diversity = 0 }) {
    if (!Number.isInteger(width)) throw new TypeError('beams: width must be an integer');
    if (typeof lengthPenalty !== 'number') throw new TypeError('length-penalty must be a number');
    if (!Number.isInteger(groups)) throw new TypeError('num-beam-groups must be an integer');
    if (typeof diversity !== 'number') throw new TypeError('diversity-penalty must be a number');
    const handle = this.x.api_beam_new(model.handle, tokenizer ? tokenizer.handle : 0, width, lengthPenalty, maxTokens);
    if (!handle) throw this.error(-1, 'arg');
    if (groups !== 1 || diversity !== 0) {
      const rc = this.x.api_beam_set_groups(handle, groups, diversity);
      if (rc !== 0) {
        const err = this.error(rc);
        this.x.api_beam_free(handle);
        throw err;
      }
    }
    return new BeamSearch(this, handle, model, tokenizer || model.tokenizer);
  }

  /**
   * Speculative sampling: draftModel proposes n tokens a round for the
   * target session's model to verify.
   * @param {import('./session.js').Session} target
   * @param {import('./model.js').Model} draftModel
   * @param {import('./tokenizer.js').Tokenizer | null} draftTokenizer required for a llama2.c draft
   * @param {number} n
   */
  createSpeculator(target, draftModel, draftTokenizer, n) {
    if (!Number.isInteger(n)) throw new TypeError('speculate must be an integer');
    const handle = this.x.api_spec_new(target.handle, draftModel.handle, draftTokenizer ? draftTokenizer.handle : 0, n);
    if (!handle) throw this.error(-1, 'arg');
    return new Speculator(this, handle, target);
  }

  /**
   * Prompt-lookup decoding: the same rounds as createSpeculator's, the n
   * drafted tokens copied from the text (what followed the first earlier
   * occurrence of its last ngram .. 1 tokens; HF's prompt_lookup_num_tokens
   * and max_matching_ngram_size) instead of drawn from a draft model.
   * @param {import('./session.js').Session} target @param {number} n @param {number} [ngram]
   */
  createPromptLookup(target, n, ngram = 2) {
    if (!Number.isInteger(n)) throw new TypeError('prompt-lookup must be an integer');
    if (!Number.isInteger(ngram)) throw new TypeError('prompt-lookup-ngram must be an integer');
    const handle = this.x.api_spec_new_lookup(target.handle, n, ngram);
    if (!handle) throw this.error(-1, 'arg');
    return new Speculator(this, handle, target);
  }
}
