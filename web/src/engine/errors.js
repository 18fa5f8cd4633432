// @ts-check
/**
 * errors.js — an error the engine reported: its one line of English and
 * its code (c/engine/sampler.h), so callers decide by the code.
 */

/** An error the engine reported (a bad file, a finished text, ...). */
export class EngineError extends Error {
  /** @param {string} message @param {number} code */
  constructor(message, code) {
    super(message);
    this.name = 'EngineError';
    this.code = code;
  }
}
