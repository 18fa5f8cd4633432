// @ts-check
/**
 * model.js — a loaded model: its kind, vocabulary and context, its edits
 * (a bigram's or hand-made model's probabilities), its rows of logits and
 * the work a text of n tokens costs it.
 */
import { Tokenizer } from './tokenizer.js';

export class Model {
  /** @param {import('./engine.js').Engine} engine @param {number} handle */
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
    if (!handle) throw this.engine.error(-1, 'arg');
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
