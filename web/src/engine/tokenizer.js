// @ts-check
/**
 * tokenizer.js — a tokenizer: text to token ids, a token's bytes after
 * the one before it, and its piece for labels.
 */
import { decoder, encoder } from './wasm.js';

/** the engine's sp_tok_kind and sp_chat_kind values, by name */
/** @type {Record<number, 'chars' | 'bpe' | 'spm' | 'bytebpe'>} */
const TOKENIZER_KINDS = { 1: 'chars', 2: 'bpe', 3: 'chars', 4: 'spm', 5: 'bytebpe' };
/** @type {Record<number, 'chatml' | 'llama3' | 'other'>} */
const CHAT_KINDS = { 1: 'chatml', 2: 'llama3', 3: 'other' };

export class Tokenizer {
  /** @param {import('./engine.js').Engine} engine @param {number} handle @param {boolean} owned */
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
    /** a tokenizer of ids (engine.idsTokenizer): pieces "<17>" */
    this.ids = false;
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
      if (n < 0) throw e.error(-1, 'arg');
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
      if (!out) throw e.error(-1, 'arg');
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
