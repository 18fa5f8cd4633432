// @ts-check
/**
 * tokenizer.js — a tokenizer: text to token ids, a token's bytes after
 * the one before it, and its piece for labels.
 */
import { decoder, encoder } from './wasm.js';

export class Tokenizer {
  /** @param {import('./engine.js').Engine} engine @param {number} handle @param {boolean} owned */
  constructor(engine, handle, owned) {
    this.engine = engine;
    this.handle = handle;
    this.owned = owned;
    const x = engine.x;
    this.vocab = x.api_tokenizer_vocab(handle);
    /** @type {'chars' | 'bpe'} */
    this.kind = x.api_tokenizer_kind(handle) === 2 ? 'bpe' : 'chars';
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
    const max = encoder.encode(text).length + 3;
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
