// @ts-check
/**
 * speculator.js — speculative sampling: a draft model proposes n tokens a
 * round, the target session's model verifies them in one batched pass;
 * the round's tokens, the totals, the verification's work and the last
 * rejection (the residual the correction was drawn from).
 */
import { writeParams } from './params.js';
import { splitSeed } from './seed.js';
import { decoder } from './wasm.js';

const SPEC_STATUS = ['', 'accepted', 'corrected', 'bonus'];

export class Speculator {
  /** @param {import('./engine.js').Engine} engine @param {number} handle @param {import('./session.js').Session} target */
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
   * One round: the draft proposes, the target verifies.  match (prompt
   * lookup): where the draft was copied from, the index in the text of its
   * first token (-1: no match, no draft) and the n-gram matched.
   * @param {import('./params.js').SamplerParams} [params]
   * @returns {{drafted: Int32Array, tokens: Array<{token: number, end: boolean, piece: string, status: 'accepted' | 'corrected' | 'bonus'}>, match: {at: number, ngram: number}}}
   */
  round(params = {}) {
    const e = this.engine, x = e.x;
    writeParams(e, this.params, params, this.target.vocab, this.target.tokenizer);
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
    const { values: m } = e.readDoubles((ptr) => x.api_spec_round_match(this.handle, ptr), 2);
    return { drafted, tokens, match: { at: m[0], ngram: m[1] } };
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
    if (!buf) throw e.errorNamed('nomem', 'out of memory');
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
