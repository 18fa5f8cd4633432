// @ts-check
/**
 * errors.js — an error the engine reported: its one line of English for
 * people, and for programs which error it is, as the engine lists them
 * (c/engine/sampler.h SP_ERRORS, read once from the engine): its code, its
 * name (the `reason`: "regex", "prompt_long", "context_full", ...) and its
 * class (the `kind`: "format", "arg", "nomem", "state" or
 * "unsatisfiable").  Callers decide by reason or kind, never by the words.
 * An error of the class "arg" is a RangeError, the others EngineErrors.
 */

/**
 * One of the engine's errors.
 * @typedef {{code: number, name: string, kind: string}} ErrorInfo
 */

/** @typedef {{code: number, reason: string, kind: string}} EngineFields  what every engine error carries */

/** An error the engine reported (a bad file, a finished text, ...). */
export class EngineError extends Error {
  /**
   * @param {string} message
   * @param {number} [code] @param {string} [reason] @param {string} [kind]  (engine.error() fills them from the engine's list)
   */
  constructor(message, code = 0, reason = '', kind = reason) {
    super(message);
    this.name = 'EngineError';
    /** @type {number} */ this.code;
    /** @type {string} */ this.reason;
    /** @type {string} */ this.kind;
    describe(this, { code, reason, kind });
  }
}

/**
 * Sets which error err is, as properties that are not enumerable (as a
 * DOMException's name and code: an error equals another of its message).
 * @template {Error} E @param {E} err @param {EngineFields} fields @returns {E & EngineFields}
 */
function describe(err, fields) {
  for (const [key, value] of Object.entries(fields)) Object.defineProperty(err, key, { value, writable: true, configurable: true, enumerable: false });
  return /** @type {E & EngineFields} */ (err);
}

/**
 * The error for a message and one of the engine's errors.
 * @param {string} message @param {ErrorInfo} info
 * @returns {(EngineError | RangeError) & EngineFields}
 */
export function engineError(message, info) {
  if (info.kind === 'arg') return describe(new RangeError(message), { code: info.code, reason: info.name, kind: info.kind });
  return /** @type {EngineError & EngineFields} */ (new EngineError(message, info.code, info.name, info.kind));
}

/**
 * The engine's list of errors, by code (api_error_name, api_error_class).
 * @param {import('./wasm.js').WasmModule} m
 * @returns {ErrorInfo[]}
 */
export function readErrors(m) {
  /** @type {string[]} */
  const names = [];
  for (let code = 0; ; code++) {
    const name = m.cstring(m.x.api_error_name(code));
    if (!name) break;
    names.push(name);
  }
  return names.map((name, code) => ({ code, name, kind: names[m.x.api_error_class(code)] }));
}

/**
 * Whether err is the engine's error of that name or class (e.g.
 * isEngineError(err, 'state'): any state error; 'context_full': that one).
 * @param {unknown} err @param {string} which
 * @returns {err is Error & EngineFields}
 */
export function isEngineError(err, which) {
  const e = /** @type {Partial<EngineFields> | null} */ (err);
  return typeof e?.code === 'number' && (e.reason === which || e.kind === which);
}
