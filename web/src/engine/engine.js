// @ts-check
/**
 * engine.js — the one wrapper around the WASM engine.  The playground's
 * Worker, the Node tools and the tests all use it.
 *
 * The engine is a standalone .wasm (build/engine-{simd,scalar}.wasm, built
 * from c/engine and c/wasm; no Emscripten JS glue): this file instantiates
 * it and turns its plain-number exports into objects: Model, Tokenizer,
 * Sampler, Session and StepRecord.  Errors: a bad parameter throws TypeError
 * (wrong type) or RangeError (out of range, with the engine's own message);
 * a bad file throws Error with the engine's one-line message.  The command
 * line over WASM is a .wasm of its own (cli.js); the page never loads it.
 */

/** A minimal module using a v128 instruction: valid only where SIMD is. */
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, // magic, version
  1, 5, 1, 96, 0, 1, 123, // type section: () -> v128
  3, 2, 1, 0, // function section
  10, 22, 1, 20, 0, 253, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 11, // v128.const 0
]);

/** @returns {boolean} whether this JS engine runs WebAssembly SIMD */
export function simdSupported() {
  try {
    return WebAssembly.validate(SIMD_PROBE);
  } catch {
    return false;
  }
}

const SP_OK = 0;
/** how many ranked tokens a step record carries */
export const TOP_N = 64;
const SP_ERR_ARG = 2;

/** The sampler settings, by name; all optional. */
/**
 * Sampler settings: any parameter of the engine's registry by its name
 * (Engine.params lists them all), plus three that are not numbers:
 * logit_bias (token id -> value
 * added to its logit; -Infinity bans it), samplers (the chain's order:
 * stage names joined by commas, or "default", "hf", "llama.cpp") and
 * dry_breakers (DRY's sequence breakers, each a token id or a list of ids)
 * and dry_sequence_breakers (the same as texts, tokenized by the model's
 * tokenizer as the CLI's --dry-sequence-breaker: 1 to 8 tokens each).
 * @typedef {Record<string, any>} SamplerParams
 */

/**
 * One parameter of the engine's registry (c/engine/sampler/params.c).
 * @typedef {Object} ParamInfo
 * @property {string} name   the API's and a link's key ("top_p")
 * @property {string} flag   the CLI's ("top-p")
 * @property {string} code   its short code in compact links ("p")
 * @property {string} label  for people ("Top-p")
 * @property {string} doc    one line: what it does, and its off value
 * @property {string} stage  the stage it belongs to ("top_p"; "mirostat")
 * @property {'float' | 'int'} type
 * @property {number} min @property {number} max   its range
 * @property {boolean} minOpen @property {boolean} maxOpen  the range excludes that end
 * @property {boolean} inLink  a playground link always states it
 * @property {boolean} switch  away from neutral it turns its stage on
 * @property {number} uiOn     its value when a learner turns its stage on
 * @property {number} neutral  its default: the stage does nothing
 * @property {number} uiMin @property {number} uiMax @property {number} uiStep  a lesson slider's range
 */

/**
 * What the generated text must match (Session.constrain).
 * @typedef {{regex?: string, grammar?: 'json' | 'json_object'}} Constraint
 */

/**
 * Everything the engine reports about one step (copies, safe to keep).
 * @typedef {Object} StepRecord
 * @property {number} vocab
 * @property {number} token       the chosen token, -1 for a preview
 * @property {number} p           its final probability
 * @property {number} u           the uniform that chose it (NaN for a preview)
 * @property {number} nKept       nucleus size
 * @property {number} keptMass    raw-distribution mass of the kept tokens
 * @property {number} entropyBits     of the final distribution
 * @property {number} entropyRawBits  of the model's distribution
 * @property {number} argmaxRaw
 * @property {Float32Array} probs     final distribution (0 where cut)
 * @property {Float32Array | null} probsRaw  softmax of the model's logits
 * @property {Float32Array | null} probsTempered  softmax after bias,
 *   penalties and temperature: what the truncating stages see
 * @property {{ids: Int32Array, cum: Float64Array}} top  the TOP_N tokens the
 *   truncating stages rank first (descending, ties by id) and the cumulative
 *   tempered mass after each: the nucleus view's bars and curve
 * @property {Float32Array} logits    the model's logits
 * @property {Uint8Array} cut         per token: index into cutNames
 * @property {string[]} cutNames      the engine's names of what cuts (Engine.cutNames)
 * @property {Array<{stage: string, cut: number}>} cuts  who cut how many tokens, in the chain's order
 * @property {Int32Array} kept        kept token ids, ascending
 * @property {Int32Array} penalized   the tokens a penalty or DRY changed
 * @property {Uint8Array} [pieceBytes] the chosen token's bytes (sessions)
 * @property {string} [piece]         the same, decoded (sessions)
 * @property {boolean} [end]          the token ended the text (sessions)
 */

/**
 * Instantiates wasm bytes or a fetch Response; when a host serves .wasm with
 * the wrong MIME type, streaming compilation fails and the bytes are used.
 * @param {BufferSource | Response | Promise<Response>} source
 * @param {WebAssembly.Imports} imports
 */
export async function instantiate(source, imports) {
  const resolved = await source;
  if (typeof Response !== 'undefined' && resolved instanceof Response) {
    if (!resolved.ok) throw new Error(`engine: ${resolved.url}: HTTP ${resolved.status}`);
    if (WebAssembly.instantiateStreaming) {
      try {
        return (await WebAssembly.instantiateStreaming(resolved.clone(), imports)).instance;
      } catch {
        /* wrong MIME type: fall back to the bytes */
      }
    }
    return (await WebAssembly.instantiate(await resolved.arrayBuffer(), imports)).instance;
  }
  return (await WebAssembly.instantiate(/** @type {BufferSource} */ (resolved), imports)).instance;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8');
/** the engine's sp_tok_kind and sp_chat_kind values, by name */
/** @type {Record<number, 'chars' | 'bpe' | 'spm' | 'bytebpe'>} */
const TOKENIZER_KINDS = { 1: 'chars', 2: 'bpe', 3: 'chars', 4: 'spm', 5: 'bytebpe' };
/** @type {Record<number, 'chatml' | 'llama3' | 'other'>} */
const CHAT_KINDS = { 1: 'chatml', 2: 'llama3', 3: 'other' };

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

/** A standalone .wasm's exports and memory: the engine's (Engine), or the
 * command line's (cli.js). */
export class WasmModule {
  constructor() {
    /** @type {any} */
    this.x = null;
    /** @type {WebAssembly.Memory | null} */
    this.memory = null;
    /** @type {string[] | undefined} the step record's fields, in api_step_read's order */
    this.stepFields = undefined;
  }

  /** @returns {WebAssembly.Imports} */
  imports() {
    return { env: { emscripten_notify_memory_growth: () => {} } };
  }

  /** @param {WebAssembly.Instance} instance */
  attach(instance) {
    this.x = instance.exports;
    this.memory = /** @type {WebAssembly.Memory} */ (this.x.memory);
    if (this.x._initialize) this.x._initialize();
  }

  // ---- memory helpers ------------------------------------------------

  /** @param {number} ptr @param {number} len */
  bytes(ptr, len) {
    return new Uint8Array(/** @type {WebAssembly.Memory} */ (this.memory).buffer, ptr, len);
  }

  /** @param {number} ptr @param {number} n */
  floats(ptr, n) {
    return new Float32Array(/** @type {WebAssembly.Memory} */ (this.memory).buffer, ptr, n);
  }

  /** @param {number} ptr @param {number} n */
  ints(ptr, n) {
    return new Int32Array(/** @type {WebAssembly.Memory} */ (this.memory).buffer, ptr, n);
  }

  /** @param {number} ptr a NUL-terminated UTF-8 string in the engine */
  cstring(ptr) {
    const heap = new Uint8Array(/** @type {WebAssembly.Memory} */ (this.memory).buffer);
    let end = ptr;
    while (heap[end] !== 0) end++;
    return decoder.decode(heap.subarray(ptr, end));
  }

  /** @param {number} size */
  malloc(size) {
    const ptr = this.x.malloc(Math.max(1, size));
    if (!ptr) throw new Error(`engine: out of memory (${size} bytes)`);
    return ptr;
  }

  /** @param {number} ptr */
  free(ptr) {
    if (ptr) this.x.free(ptr);
  }

  /**
   * Copies a JS string into the engine as NUL-terminated UTF-8; a NUL
   * inside would cut it short, so it is refused.
   * @param {string} text
   * @param {string} [what] named in the error
   */
  allocString(text, what = 'text') {
    const nul = text.indexOf('\0');
    if (nul >= 0) throw new RangeError(`${what} contains a NUL character (at ${nul})`);
    const utf8 = encoder.encode(text);
    const ptr = this.malloc(utf8.length + 1);
    this.bytes(ptr, utf8.length + 1).set(utf8);
    this.bytes(ptr + utf8.length, 1)[0] = 0;
    return ptr;
  }

  /**
   * Calls fn with a string copied into the engine, frees it after.
   * @template R
   * @param {unknown} text
   * @param {string} what  named in the errors
   * @param {(ptr: number) => R} fn
   * @returns {R}
   */
  withString(text, what, fn) {
    if (typeof text !== 'string') throw new TypeError(`${what} must be a string`);
    const ptr = this.allocString(text, what);
    try {
      return fn(ptr);
    } finally {
      this.free(ptr);
    }
  }

  /** @param {Uint8Array} data */
  allocBytes(data) {
    const ptr = this.malloc(data.length);
    this.bytes(ptr, data.length).set(data);
    return ptr;
  }

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
    /** the names of what can cut a token (StepRecord.cut indexes them) @type {string[]} */
    this.cutNames = [];
  }

  /** @param {WebAssembly.Instance} instance */
  attach(instance) {
    super.attach(instance);
    /** which kernels this build runs: "wasm-simd128" or "scalar" */
    this.backend = this.cstring(this.x.api_vec4_backend());
    this.params = this.readRegistry();
    this.paramIndex = new Map(this.params.map((p, i) => [p.name, i]));
    for (let i = 0; this.cstring(this.x.api_stage_name(i)); i++) this.stages.push(this.cstring(this.x.api_stage_name(i)));
    for (let i = 0; ; i++) {
      const name = this.cstring(this.x.api_cut_name(i));
      if (name === 'unknown') break;
      this.cutNames.push(name);
    }
  }

  /** The parameter registry, read once from the engine. @returns {ParamInfo[]} */
  readRegistry() {
    const x = this.x;
    /** @type {ParamInfo[]} */
    const out = [];
    const n = x.api_param_count();
    for (let i = 0; i < n; i++) {
      const text = (/** @type {number} */ which) => this.cstring(x.api_param_text(i, which));
      const { values: v } = this.readDoubles((ptr) => x.api_param_numbers(i, ptr), 10);
      out.push({
        name: text(0), flag: text(1), code: text(2), label: text(3), doc: text(4), stage: text(5),
        type: v[0] === 1 ? 'int' : 'float',
        minOpen: (v[1] & 1) !== 0, maxOpen: (v[1] & 2) !== 0, inLink: (v[1] & 4) !== 0, switch: (v[1] & 8) !== 0,
        min: v[2], max: v[3], neutral: v[4], uiMin: v[5], uiMax: v[6], uiStep: v[7], uiOn: v[9],
      });
    }
    return out;
  }

  lastError() {
    return this.cstring(this.x.api_last_error());
  }

  /** Throws for an engine error code. */
  /** @param {number} rc */
  check(rc) {
    if (rc === SP_OK) return;
    const message = this.lastError();
    throw rc === SP_ERR_ARG ? new RangeError(message) : new EngineError(message, rc);
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
    if (!handle) throw new EngineError(this.lastError(), 1);
    return new Model(this, handle);
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
    if (!handle) throw new RangeError(this.lastError());
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
    if (!t) throw new EngineError(this.lastError(), 3);
    const buf = this.malloc(Math.max(1, Math.min(chunk, text.length)));
    try {
      for (let at = 0; at < text.length; at += chunk) {
        const part = text.subarray(at, Math.min(text.length, at + chunk));
        this.bytes(buf, part.length).set(part);
        this.check(this.x.api_trainer_feed(t, buf, part.length));
        onProgress?.(at + part.length, text.length);
      }
      const out = this.x.api_trainer_finish(t, alpha);
      if (!out) throw new RangeError(this.lastError());
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
    if (!handle) throw new EngineError(this.lastError(), 1);
    return new Tokenizer(this, handle, true);
  }

  /** @param {number} vocab */
  createSampler(vocab) {
    if (!Number.isInteger(vocab) || vocab <= 0) throw new RangeError(`vocab must be a positive integer (got ${vocab})`);
    const handle = this.x.api_sampler_new(vocab);
    if (!handle) throw new Error('engine: out of memory');
    return new Sampler(this, handle, vocab);
  }

  /**
   * @param {Model} model
   * @param {Tokenizer | null} [tokenizer] required for a llama2.c model
   */
  createSession(model, tokenizer = null) {
    const handle = this.x.api_session_new(model.handle, tokenizer ? tokenizer.handle : 0);
    if (!handle) throw new EngineError(this.lastError(), 1);
    return new Session(this, handle, model, tokenizer || model.tokenizer);
  }

  /**
   * A deterministic beam search (no randomness: bias and penalties apply,
   * temperature and truncation do not).
   * @param {Model} model
   * @param {Tokenizer | null} tokenizer required for a llama2.c model
   * @param {{width: number, lengthPenalty?: number, maxTokens?: number}} options
   */
  createBeamSearch(model, tokenizer, { width, lengthPenalty = 0, maxTokens = 1024 }) {
    if (!Number.isInteger(width)) throw new TypeError('beams: width must be an integer');
    if (typeof lengthPenalty !== 'number') throw new TypeError('length-penalty must be a number');
    const handle = this.x.api_beam_new(model.handle, tokenizer ? tokenizer.handle : 0, width, lengthPenalty, maxTokens);
    if (!handle) throw new RangeError(this.lastError());
    return new BeamSearch(this, handle, model, tokenizer || model.tokenizer);
  }

  /**
   * Speculative sampling: draftModel proposes n tokens a round for the
   * target session's model to verify.
   * @param {Session} target
   * @param {Model} draftModel
   * @param {Tokenizer | null} draftTokenizer required for a llama2.c draft
   * @param {number} n
   */
  createSpeculator(target, draftModel, draftTokenizer, n) {
    if (!Number.isInteger(n)) throw new TypeError('speculate must be an integer');
    const handle = this.x.api_spec_new(target.handle, draftModel.handle, draftTokenizer ? draftTokenizer.handle : 0, n);
    if (!handle) throw new RangeError(this.lastError());
    return new Speculator(this, handle, target);
  }

  /**
   * The engine's constraint for {regex}, {grammar: 'json' | 'json_object'}
   * (a handle the caller frees with api_constraint_free).
   * @param {Constraint} constraint
   */
  constraintHandle(constraint) {
    let handle = 0;
    if (typeof constraint.regex === 'string') {
      handle = this.withString(constraint.regex, 'regex', (ptr) => this.x.api_constraint_regex(ptr));
    } else if (constraint.grammar === 'json') {
      handle = this.x.api_constraint_json();
    } else if (constraint.grammar === 'json_object') {
      handle = this.x.api_constraint_json_object();
    } else {
      throw new TypeError('constraint must be {regex: string} or {grammar: "json" | "json_object"}');
    }
    if (!handle) throw new RangeError(this.lastError());
    return handle;
  }

  /**
   * Lets fill(ptr) write n doubles into engine memory, and copies them out.
   * @template R
   * @param {(ptr: number) => R} fill
   * @param {number} n
   * @returns {{r: R, values: Float64Array}}
   */
  readDoubles(fill, n) {
    const ptr = this.malloc(8 * n);
    try {
      const r = fill(ptr);
      return { r, values: new Float64Array(/** @type {WebAssembly.Memory} */ (this.memory).buffer, ptr, n).slice() };
    } finally {
      this.free(ptr);
    }
  }

  /**
   * Writes settings into an engine-side params struct (allocated once per
   * owner) and validates them against the vocabulary.
   * @param {number} ptr
   * @param {SamplerParams} params
   * @param {number} vocab
   * @param {Tokenizer | null} [tokenizer] what turns dry_sequence_breakers into tokens
   */
  writeParams(ptr, params, vocab, tokenizer = null) {
    if (params === null || typeof params !== 'object') throw new TypeError('params must be an object');
    this.x.api_params_reset(ptr);
    for (const [key, value] of Object.entries(params)) {
      if (value === undefined) continue;
      if (key === 'logit_bias' || key === 'samplers' || key === 'dry_breakers' || key === 'dry_sequence_breakers') continue;
      const field = this.paramIndex.get(key);
      if (field === undefined) throw new TypeError(`unknown sampler parameter "${key}"`);
      if (typeof value !== 'number') throw new TypeError(`${key.replaceAll('_', '-')} must be a number (got ${typeof value})`);
      this.check(this.x.api_params_set(ptr, field, value));
    }
    if (params.samplers !== undefined) {
      if (typeof params.samplers !== 'string') throw new TypeError('samplers must be a string of stage names (or default, hf, llama.cpp)');
      const text = this.allocString(params.samplers, 'samplers');
      try {
        this.check(this.x.api_params_set_order(ptr, text));
      } finally {
        this.free(text);
      }
    }
    /** @type {Array<number | number[]>} */
    const breakers = [...(params.dry_breakers ?? [])];
    for (const text of params.dry_sequence_breakers ?? []) {
      if (typeof text !== 'string') throw new TypeError('dry_sequence_breakers must be texts');
      if (!tokenizer) throw new TypeError('dry_sequence_breakers: no tokenizer to make them tokens (give dry_breakers as token ids)');
      let ids;
      try {
        ids = Array.from(tokenizer.encode(text));
      } catch (err) {
        // (the tokenizer speaks of a prompt: here it is a breaker)
        throw new RangeError(`dry-sequence-breaker: ${JSON.stringify(text)}: ${/** @type {Error} */ (err).message.replace(/^prompt: /, '')}`);
      }
      if (ids.length === 0) throw new RangeError(`dry-sequence-breaker: ${JSON.stringify(text)} is no token`);
      if (ids.length > 8) throw new RangeError(`dry-sequence-breaker: ${JSON.stringify(text)} is more than 8 tokens`);
      breakers.push(ids);
    }
    for (const breaker of breakers) {
      const ids = Array.isArray(breaker) ? breaker : [breaker];
      if (!ids.every((t) => Number.isInteger(t) && t >= 0 && t <= 2147483647)) {
        throw new RangeError(`dry_breakers: ${JSON.stringify(breaker)} is not a token id or a list of them`);
      }
      const arr = this.malloc(4 * Math.max(1, ids.length));
      try {
        this.ints(arr, ids.length).set(ids);
        this.check(this.x.api_params_add_dry_breaker(ptr, arr, ids.length));
      } finally {
        this.free(arr);
      }
    }
    const bias = params.logit_bias;
    if (bias !== undefined) {
      const entries = Array.isArray(bias) ? bias : Object.entries(bias);
      for (const entry of entries) {
        if (!Array.isArray(entry) || entry.length !== 2) throw new TypeError('logit_bias entries must be [token, value] pairs');
        const token = Number(entry[0]);
        const value = entry[1];
        if (typeof value !== 'number') throw new TypeError(`logit-bias value for token ${entry[0]} must be a number`);
        this.check(this.x.api_params_add_bias(ptr, token, value));
      }
    }
    this.check(this.x.api_params_check(ptr, vocab));
  }

  /**
   * A step record's numbers and array addresses, read in one call
   * (wasm_api.c STEP_FIELDS names them, in order).
   * @param {number} st pointer to an sp_step
   * @returns {Record<string, number>}
   */
  stepNumbers(st) {
    const fields = this.stepFields ??= this.cstring(this.x.api_step_fields()).split(',').filter(Boolean);
    const out = this.malloc(8 * fields.length);
    /** @type {Record<string, number>} */
    const f = {};
    try {
      this.x.api_step_read(st, out);
      const values = new Float64Array(/** @type {WebAssembly.Memory} */ (this.memory).buffer, out, fields.length);
      fields.forEach((name, i) => { f[name] = values[i]; });
    } finally {
      this.free(out);
    }
    return f;
  }

  /**
   * Copies a step record out of the engine.
   * @param {number} st pointer to an sp_step
   * @param {number} [params] the settings it was warped with: the record
   *   then says who cut what, in the chain's order (`cuts`)
   * @returns {StepRecord}
   */
  readStep(st, params = 0) {
    const x = this.x;
    const f = this.stepNumbers(st);
    const vocab = f.vocab;
    const n = Math.min(TOP_N, vocab);
    const scratch = this.malloc(12 * n);
    let top;
    try {
      // doubles first: malloc aligns to 8, and so stays the Float64Array
      const count = x.api_step_top(st, n, scratch + 8 * n, scratch);
      top = {
        ids: this.ints(scratch + 8 * n, count).slice(),
        cum: new Float64Array(/** @type {WebAssembly.Memory} */ (this.memory).buffer, scratch, count).slice(),
      };
    } finally {
      this.free(scratch);
    }
    return {
      vocab,
      token: f.token,
      p: f.p,
      u: f.u,
      nKept: f.n_kept,
      keptMass: f.kept_mass,
      entropyBits: f.entropy_bits,
      entropyRawBits: f.entropy_raw_bits,
      argmaxRaw: f.argmax_raw,
      probs: this.floats(f.probs, vocab).slice(),
      probsRaw: f.probs_raw ? this.floats(f.probs_raw, vocab).slice() : null,
      probsTempered: f.probs_tempered ? this.floats(f.probs_tempered, vocab).slice() : null,
      top,
      logits: this.floats(f.logits, vocab).slice(),
      cut: this.bytes(f.cut, vocab).slice(),
      cutNames: this.cutNames,
      cuts: params ? this.stepCuts(st, params) : [],
      kept: this.ints(f.kept, f.n_kept).slice(),
      penalized: this.ints(f.penalized, f.n_penalized).slice(),
    };
  }

  /**
   * Who cut what in a warp, in the chain's order (the mask and the
   * constraint first, mirostat last): only what cut a token.
   * @param {number} st pointer to an sp_step @param {number} params its settings
   * @returns {Array<{stage: string, cut: number}>}
   */
  stepCuts(st, params) {
    const n = this.stages.length + 3;
    const codes = this.malloc(8 * n);
    try {
      const k = this.x.api_step_cuts(st, params, codes, codes + 4 * n);
      const c = this.ints(codes, k).slice();
      const counts = this.ints(codes + 4 * n, k).slice();
      return Array.from(c, (code, i) => ({ stage: this.cutNames[code], cut: counts[i] }));
    } finally {
      this.free(codes);
    }
  }

  /**
   * Draws n tokens from a step's final distribution with a PRNG of its own.
   * @param {number} st pointer to an sp_step
   * @param {number} n
   * @param {number | bigint | string} seed
   * @returns {{counts: Int32Array, kl: number}} kl: KL(empirical || final), bits
   */
  sampleCounts(st, n, seed) {
    if (!st) throw new EngineError('no step to draw from yet', 4);
    if (!Number.isInteger(n) || n <= 0 || n > 10_000_000) throw new RangeError(`samples must be an integer in 1..10000000 (got ${n})`);
    const [lo, hi] = splitSeed(seed);
    const vocab = this.stepNumbers(st).vocab;
    const counts = this.malloc(4 * vocab);
    try {
      const kl = this.x.api_step_sample_counts(st, lo, hi, n, counts);
      return { counts: this.ints(counts, vocab).slice(), kl };
    } finally {
      this.free(counts);
    }
  }
}

/** An error the engine reported (a bad file, a finished text, ...). */
export class EngineError extends Error {
  /** @param {string} message @param {number} code */
  constructor(message, code) {
    super(message);
    this.name = 'EngineError';
    this.code = code;
  }
}

/**
 * Parses a seed: a non-negative safe integer, a bigint below 2^64, or a
 * decimal string.
 * @param {number | bigint | string} seed
 * @returns {[number, number]} low and high 32 bits
 */
export function splitSeed(seed) {
  let big;
  if (typeof seed === 'number') {
    if (!Number.isSafeInteger(seed) || seed < 0) throw new RangeError(`seed must be an integer in 0..2^64-1 (got ${seed})`);
    big = BigInt(seed);
  } else if (typeof seed === 'bigint') {
    big = seed;
  } else if (typeof seed === 'string' && /^[0-9]+$/.test(seed)) {
    big = BigInt(seed);
  } else {
    throw new TypeError(`seed must be an integer (got ${typeof seed === 'string' ? JSON.stringify(seed) : typeof seed})`);
  }
  if (big < 0n || big >= 1n << 64n) throw new RangeError(`seed must be an integer in 0..2^64-1 (got ${big})`);
  return [Number(big & 0xffffffffn), Number(big >> 32n)];
}

export class Model {
  /** @param {Engine} engine @param {number} handle */
  constructor(engine, handle) {
    this.engine = engine;
    this.handle = handle;
    const x = engine.x;
    /** @type {'bigram' | 'transformer' | 'handmade'} */
    this.kind = /** @type {const} */ (['bigram', 'transformer', 'handmade'])[x.api_model_kind(handle) - 1];
    this.vocab = x.api_model_vocab(handle);
    /** context length; 0 = unbounded */
    this.seqLen = x.api_model_seq_len(handle);
    const tok = x.api_model_tokenizer(handle);
    /** the tokenizer built into the file (bigram), else null */
    this.tokenizer = tok ? new Tokenizer(engine, tok, false) : null;
  }

  /** A copy that setProb may edit (a bigram or hand-made model). @returns {Model} */
  copy() {
    const handle = this.engine.x.api_model_copy(this.handle);
    if (!handle) throw new RangeError(this.engine.lastError());
    return new Model(this.engine, handle);
  }

  /**
   * Sets P(token | row) to p in (0, 1); the other tokens keep their
   * logits (so their ratios) and share 1 - p.  row: the bigram's context
   * token, 0 for a hand-made model.
   * @param {number} row @param {number} token @param {number} p
   */
  setProb(row, token, p) {
    this.engine.check(this.engine.x.api_model_set_prob(this.handle, row, token, p));
  }

  /**
   * The logits of a row (the bigram's after token row; a hand-made
   * model's row 0), or null for a transformer.
   * @param {number} row @returns {Float32Array | null}
   */
  row(row) {
    const ptr = this.engine.x.api_model_row(this.handle, row);
    return ptr ? this.engine.floats(ptr, this.vocab).slice() : null;
  }

  /**
   * The work counters a text of n tokens costs (what a session's
   * counters() read after n tokens), from the model's shape.
   * @param {number} n @returns {{flops: number, flopsNoCache: number, tokens: number, kvReused: number, kvWritten: number}}
   */
  cost(n) {
    const e = this.engine;
    const { r, values: v } = e.readDoubles((ptr) => e.x.api_model_cost(this.handle, n, ptr), 5);
    e.check(r);
    return { flops: v[0], flopsNoCache: v[1], tokens: v[2], kvReused: v[3], kvWritten: v[4] };
  }

  free() {
    if (this.handle) this.engine.x.api_model_free(this.handle);
    this.handle = 0;
  }
}

export class Tokenizer {
  /** @param {Engine} engine @param {number} handle @param {boolean} owned */
  constructor(engine, handle, owned) {
    this.engine = engine;
    this.handle = handle;
    this.owned = owned;
    const x = engine.x;
    this.vocab = x.api_tokenizer_vocab(handle);
    /** the engine's sp_tok_kind: llama2.c's merges by score ('bpe'), a GGUF
     * file's SentencePiece ('spm') or byte-level BPE ('bytebpe'), else one
     * piece per character or label ('chars')
     * @type {'chars' | 'bpe' | 'spm' | 'bytebpe'} */
    this.kind = TOKENIZER_KINDS[x.api_tokenizer_kind(handle)] ?? 'chars';
    /** a GGUF file's chat template: 'chatml', 'llama3', 'other' (not
     * supported) or null (none)
     * @type {'chatml' | 'llama3' | 'other' | null} */
    this.chat = CHAT_KINDS[x.api_tokenizer_chat(handle)] ?? null;
    this.bos = x.api_tokenizer_bos(handle);
    this.eos = x.api_tokenizer_eos(handle);
    /** @type {Map<number, string>} */
    this.pieceCache = new Map();
  }

  /**
   * @param {string} text
   * @param {{bos?: boolean, eos?: boolean}} [options]
   * @returns {Int32Array}
   */
  encode(text, { bos = false, eos = false } = {}) {
    if (typeof text !== 'string') throw new TypeError('encode: text must be a string');
    const e = this.engine;
    const textPtr = e.allocString(text, 'text');
    const max = e.x.api_encode_bound(this.handle, encoder.encode(text).length);
    const ids = e.malloc(4 * max);
    try {
      const n = e.x.api_encode(this.handle, textPtr, bos ? 1 : 0, eos ? 1 : 0, ids, max);
      if (n < 0) throw new RangeError(e.lastError());
      return e.ints(ids, n).slice();
    } finally {
      e.free(textPtr);
      e.free(ids);
    }
  }

  /**
   * The prompt as one user message in the model's chat template (the engine
   * wraps it; the text holds the template's special tokens, which encode
   * reads back as those tokens).  A RangeError says why when the tokenizer
   * has no template, or one of another family: then use the prompt as is.
   * @param {string} prompt
   * @returns {string}
   */
  chatWrap(prompt) {
    if (typeof prompt !== 'string') throw new TypeError('chatWrap: prompt must be a string');
    const e = this.engine;
    const ptr = e.allocString(prompt, 'prompt');
    try {
      const out = e.x.api_chat_wrap(this.handle, ptr);
      if (!out) throw new RangeError(e.lastError());
      return e.cstring(out);
    } finally {
      e.free(ptr);
    }
  }

  /** Whether token ends a generated text (EOS; a GGUF's <|im_end|>, <|eot_id|>, ...). @param {number} token */
  isEnd(token) {
    return this.engine.x.api_tokenizer_is_eog(this.handle, token) === 1;
  }

  /**
   * The bytes token contributes after prev.
   * @param {number} prev @param {number} token
   */
  decodeBytes(prev, token) {
    const e = this.engine;
    const ptr = e.x.api_decode(this.handle, prev, token);
    return e.bytes(ptr, e.x.api_last_len()).slice();
  }

  /** The piece of a token as text, for labels (no context rules). */
  /** @param {number} token */
  piece(token) {
    let s = this.pieceCache.get(token);
    if (s === undefined) {
      s = decoder.decode(this.decodeBytes(-1, token));
      this.pieceCache.set(token, s);
    }
    return s;
  }

  free() {
    if (this.owned && this.handle) this.engine.x.api_tokenizer_free(this.handle);
    this.handle = 0;
  }
}

export class Sampler {
  /** @param {Engine} engine @param {number} handle @param {number} vocab */
  constructor(engine, handle, vocab) {
    this.engine = engine;
    this.handle = handle;
    this.vocab = vocab;
    this.params = engine.x.api_params_new();
    this.logitsPtr = engine.malloc(4 * vocab);
  }

  /**
   * Runs the pipeline on one set of logits.
   * @param {ArrayLike<number>} logits  length vocab; -Infinity masks a token
   * @param {ArrayLike<number>} [history]  token ids the penalties look at
   * @param {SamplerParams} [params]
   * @returns {StepRecord}
   */
  warp(logits, history = [], params = {}) {
    const e = this.engine;
    if (!logits || logits.length !== this.vocab) throw new RangeError(`logits must have ${this.vocab} entries (got ${logits ? logits.length : 0})`);
    for (let i = 0; i < history.length; i++) {
      const t = history[i];
      if (typeof t !== 'number') throw new TypeError(`history[${i}] must be a token id`);
      if (!Number.isInteger(t)) throw new RangeError(`history[${i}] = ${t} is not a token id`);
      if (t < 0 || t >= this.vocab) throw new RangeError(`history token ${t} is outside the vocabulary (0..${this.vocab - 1})`);
    }
    e.writeParams(this.params, params, this.vocab);
    e.floats(this.logitsPtr, this.vocab).set(logits);
    const hist = e.malloc(4 * history.length);
    try {
      e.ints(hist, history.length).set(history);
      e.check(e.x.api_sampler_warp(this.handle, this.logitsPtr, hist, history.length, this.params));
    } finally {
      e.free(hist);
    }
    return e.readStep(e.x.api_sampler_step(this.handle), this.params);
  }

  /**
   * Draws a token from the last warp with uniform u in [0, 1).
   * @param {number} u
   * @returns {StepRecord}
   */
  draw(u) {
    const e = this.engine;
    if (typeof u !== 'number' || !(u >= 0 && u < 1)) throw new RangeError(`u must be in [0, 1) (got ${u})`);
    e.check(e.x.api_sampler_draw(this.handle, u));
    return e.readStep(e.x.api_sampler_step(this.handle), this.params);
  }

  /**
   * n draws from the last warp's final distribution (own PRNG).
   * @param {number} n @param {number | bigint | string} seed
   */
  sampleCounts(n, seed) {
    return this.engine.sampleCounts(this.engine.x.api_sampler_step(this.handle), n, seed);
  }

  free() {
    const e = this.engine;
    if (!this.handle) return;
    e.x.api_sampler_free(this.handle);
    e.x.api_params_free(this.params);
    e.free(this.logitsPtr);
    this.handle = 0;
  }
}

export class Session {
  /**
   * @param {Engine} engine @param {number} handle @param {Model} model
   * @param {Tokenizer | null} tokenizer
   */
  constructor(engine, handle, model, tokenizer) {
    this.engine = engine;
    this.handle = handle;
    this.model = model;
    this.tokenizer = /** @type {Tokenizer} */ (tokenizer);
    this.vocab = model.vocab;
    this.params = engine.x.api_params_new();
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
   * Appends token `force` as a step does (the warp, the draw, one forward
   * pass), without reading the step record: plain decoding's cost.
   * @param {SamplerParams} params @param {number} force
   */
  advance(params, force) {
    const e = this.engine;
    e.writeParams(this.params, params, this.vocab);
    e.check(e.x.api_session_step(this.handle, this.params, force));
  }

  /**
   * Generates one token.
   * @param {SamplerParams} [params]
   * @param {{force?: number}} [options] force: append this token instead
   * @returns {StepRecord}
   */
  step(params = {}, { force = -1 } = {}) {
    const e = this.engine;
    if (typeof force !== 'number' || !Number.isInteger(force)) throw new TypeError('force must be a token id');
    if (force < -1 || force >= this.vocab) throw new RangeError(`force: token ${force} is outside the vocabulary (0..${this.vocab - 1})`);
    e.writeParams(this.params, params, this.vocab, this.tokenizer);
    const n = this.nTokens;
    const prev = n > 0 ? this.tokens[n - 1] : -1;
    e.check(e.x.api_session_step(this.handle, this.params, force));
    const rec = e.readStep(e.x.api_session_step_record(this.handle), this.params);
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
   * model's context (a step the engine refuses with SP_ERR_STATE: its
   * message is in `stopped`); any other error is thrown.
   * @param {SamplerParams} params @param {number} n
   * @returns {{count: number, stopped: string}}
   */
  generate(params, n) {
    const e = this.engine;
    if (!Number.isInteger(n) || n < 0) throw new RangeError(`generate: n must be an integer >= 0 (got ${n})`);
    e.writeParams(this.params, params, this.vocab);
    let count = 0;
    for (; count < n; count++) {
      if (this.finished) return { count, stopped: 'finished' };
      const rc = e.x.api_session_step(this.handle, this.params, -1);
      if (rc === 4) return { count, stopped: e.lastError() }; // SP_ERR_STATE: the context is full
      e.check(rc);
    }
    return { count, stopped: '' };
  }

  /**
   * The distribution of the next token under params, without drawing.
   * @param {SamplerParams} [params]
   * @returns {StepRecord}
   */
  preview(params = {}) {
    const e = this.engine;
    e.writeParams(this.params, params, this.vocab, this.tokenizer);
    e.check(e.x.api_session_preview(this.handle, this.params));
    return e.readStep(e.x.api_session_step_record(this.handle), this.params);
  }

  /**
   * The distribution of generated step n (0 = the first generated token)
   * under params: time travel.  Text and PRNG stay as they are; a
   * constraint's mask is not applied.
   * @param {number} n
   * @param {SamplerParams} [params]
   * @returns {StepRecord}
   */
  peek(n, params = {}) {
    const e = this.engine;
    if (!Number.isInteger(n)) throw new TypeError('peek: n must be an integer');
    e.writeParams(this.params, params, this.vocab, this.tokenizer);
    e.check(e.x.api_session_peek(this.handle, n, this.params));
    return e.readStep(e.x.api_session_step_record(this.handle), this.params);
  }

  /**
   * n draws from the last step's or preview's final distribution, with a
   * PRNG of its own (the generation's stream is untouched).
   * @param {number} n @param {number | bigint | string} seed
   */
  sampleCounts(n, seed) {
    return this.engine.sampleCounts(this.engine.x.api_session_step_record(this.handle), n, seed);
  }

  /**
   * Constrains the generated text: {regex: PATTERN}, {grammar: 'json'} (one
   * JSON document) or {grammar: 'json_object'} (one whose top value is an
   * object), or null to lift it; budget = at most that many generated
   * tokens in all (0 = no limit).  Call after start().
   * @param {Constraint | null} constraint
   * @param {number} [budget]
   */
  constrain(constraint, budget = 0) {
    const e = this.engine;
    if (!Number.isInteger(budget) || budget < 0) throw new RangeError(`budget must be an integer >= 0 (got ${budget})`);
    const handle = constraint ? e.constraintHandle(constraint) : 0;
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

/**
 * Decodes generated tokens (after the prompt) to text.
 * @param {Tokenizer} tokenizer @param {ArrayLike<number>} tokens @param {number} from
 */
function decodeTokens(tokenizer, tokens, from) {
  const parts = [];
  for (let i = from; i < tokens.length; i++) {
    if (tokenizer.isEnd(tokens[i])) break;
    parts.push(tokenizer.decodeBytes(i > 0 ? tokens[i - 1] : -1, tokens[i]));
  }
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) { all.set(p, at); at += p.length; }
  return decoder.decode(all);
}

export class BeamSearch {
  /**
   * @param {Engine} engine @param {number} handle @param {Model} model
   * @param {Tokenizer | null} tokenizer
   */
  constructor(engine, handle, model, tokenizer) {
    this.engine = engine;
    this.handle = handle;
    this.model = model;
    this.tokenizer = /** @type {Tokenizer} */ (tokenizer);
    this.params = engine.x.api_params_new();
    /** the constraint the search borrows (freed with it) */
    this.constraintHandle = 0;
  }

  /** @param {string} prompt */
  start(prompt) {
    const e = this.engine;
    e.withString(prompt, 'prompt', (ptr) => e.check(e.x.api_beam_start(this.handle, ptr)));
  }

  /**
   * Constrains every hypothesis's text (see Session.constrain), before
   * start(); null lifts it.
   * @param {Constraint | null} constraint @param {number} [budget]
   */
  constrain(constraint, budget = 0) {
    const e = this.engine;
    if (!Number.isInteger(budget) || budget < 0) throw new RangeError(`budget must be an integer >= 0 (got ${budget})`);
    const handle = constraint ? e.constraintHandle(constraint) : 0;
    const rc = e.x.api_beam_constrain(this.handle, handle, budget);
    if (rc !== 0) {
      if (handle) e.x.api_constraint_free(handle);
      e.check(rc);
    }
    if (this.constraintHandle) e.x.api_constraint_free(this.constraintHandle);
    this.constraintHandle = handle;
  }

  /** One expansion. @param {SamplerParams} [params] */
  step(params = {}) {
    const e = this.engine;
    e.writeParams(this.params, params, this.model.vocab, this.tokenizer);
    e.check(e.x.api_beam_step(this.handle, this.params));
    return this.hypotheses();
  }

  /** beams still growing */
  get live() {
    return this.engine.x.api_beam_live(this.handle);
  }

  /**
   * Every hypothesis, best first.
   * @returns {Array<{tokens: Int32Array, text: string, logprob: number, score: number, finished: boolean}>}
   */
  hypotheses() {
    const e = this.engine, x = e.x;
    const nPrompt = x.api_beam_n_prompt(this.handle);
    return Array.from({ length: x.api_beam_count(this.handle) }, (_, i) => {
      const ptr = x.api_beam_tokens(this.handle, i);
      const tokens = e.ints(ptr, x.api_last_len()).slice();
      return {
        tokens,
        text: decodeTokens(this.tokenizer, tokens, nPrompt),
        logprob: x.api_beam_logprob(this.handle, i),
        score: x.api_beam_score(this.handle, i),
        finished: x.api_beam_finished(this.handle, i) !== 0,
      };
    });
  }

  free() {
    if (!this.handle) return;
    this.engine.x.api_beam_free(this.handle);
    this.engine.x.api_params_free(this.params);
    if (this.constraintHandle) this.engine.x.api_constraint_free(this.constraintHandle);
    this.constraintHandle = 0;
    this.handle = 0;
  }
}

const SPEC_STATUS = ['', 'accepted', 'corrected', 'bonus'];

export class Speculator {
  /** @param {Engine} engine @param {number} handle @param {Session} target */
  constructor(engine, handle, target) {
    this.engine = engine;
    this.handle = handle;
    this.target = target;
    this.params = engine.x.api_params_new();
  }

  /** @param {string} prompt @param {number | bigint | string} seed */
  start(prompt, seed) {
    const [lo, hi] = splitSeed(seed);
    const e = this.engine;
    e.withString(prompt, 'prompt', (ptr) => e.check(e.x.api_spec_start(this.handle, ptr, lo, hi)));
  }

  /**
   * One round: the draft proposes, the target verifies.
   * @param {SamplerParams} [params]
   * @returns {{drafted: Int32Array, tokens: Array<{token: number, end: boolean, piece: string, status: 'accepted' | 'corrected' | 'bonus'}>}}
   */
  round(params = {}) {
    const e = this.engine, x = e.x;
    e.writeParams(this.params, params, this.target.vocab, this.target.tokenizer);
    const before = this.target.nTokens;
    e.check(x.api_spec_round(this.handle, this.params));
    const dptr = x.api_spec_round_drafted(this.handle);
    const drafted = e.ints(dptr, x.api_last_len()).slice();
    const sptr = x.api_spec_round_status(this.handle);
    const status = e.ints(sptr, x.api_last_len()).slice();
    const tptr = x.api_spec_round_tokens(this.handle);
    const appended = e.ints(tptr, x.api_last_len()).slice();
    const all = this.target.tokens;
    const tokens = Array.from(appended, (token, i) => {
      // an end-of-text token ends the text: its piece is not text
      const end = x.api_session_is_end(this.target.handle, token) !== 0;
      return {
        token,
        end,
        piece: end ? '' : decoder.decode(this.target.tokenizer.decodeBytes(all[before + i - 1], token)),
        status: /** @type {'accepted' | 'corrected' | 'bonus'} */ (SPEC_STATUS[status[i]]),
      };
    });
    return { drafted, tokens };
  }

  /** drafted, accepted, rounds, target positions verified */
  totals() {
    const e = this.engine;
    const { values: v } = e.readDoubles((ptr) => e.x.api_spec_totals(this.handle, ptr), 4);
    return { drafted: v[0], accepted: v[1], rounds: v[2], targetPositions: v[3] };
  }

  /**
   * The verification's work: the target's batched passes (one a round) and
   * the positions they fed in all, the positions of the last round's pass,
   * and whether the draft speaks the target's tokenizer (else its tokens
   * are mapped by text).
   */
  work() {
    const e = this.engine;
    const { values: v } = e.readDoubles((ptr) => e.x.api_spec_work(this.handle, ptr), 4);
    return { targetPasses: v[0], targetFed: v[1], roundFed: v[2], matched: v[3] === 1 };
  }

  /**
   * The last round's rejection, or null: the index of the rejected draft in
   * the round, the drafted token, and at that position the model's final
   * distribution p, the draft's q and the residual max(0, p - q)
   * normalized: what the correction was drawn from.
   * @returns {{at: number, drafted: number, p: Float32Array, q: Float32Array, residual: Float32Array, residualMass: number} | null}
   */
  rejection() {
    const e = this.engine, x = e.x;
    const vocab = this.target.vocab;
    const bytes = 4 * vocab;
    const buf = x.malloc(16 + 3 * bytes);
    if (!buf) throw new EngineError('out of memory', 3);
    try {
      x.api_spec_rejection(this.handle, buf, buf + 16, buf + 16 + bytes, buf + 16 + 2 * bytes, vocab);
      const head = new Float64Array(x.memory.buffer, buf, 2);
      if (head[0] < 0) return null;
      const at = head[0], drafted = head[1];
      const p = e.floats(buf + 16, vocab).slice();
      const q = e.floats(buf + 16 + bytes, vocab).slice();
      const residual = e.floats(buf + 16 + 2 * bytes, vocab).slice();
      let mass = 0;
      for (const r of residual) mass += r;
      if (mass > 0) for (let i = 0; i < vocab; i++) residual[i] /= mass;
      return { at, drafted, p, q, residual, residualMass: mass };
    } finally {
      x.free(buf);
    }
  }

  free() {
    if (!this.handle) return;
    this.engine.x.api_spec_free(this.handle);
    this.engine.x.api_params_free(this.params);
    this.handle = 0;
  }
}
