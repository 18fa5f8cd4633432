// @ts-check
/**
 * beam.js — a deterministic beam search (no randomness: bias and
 * penalties apply, temperature and truncation do not): its expansions and
 * its hypotheses, best first, with their texts.
 */
import { constraintHandle } from './constraint.js';
import { writeParams } from './params.js';
import { decoder } from './wasm.js';

/**
 * Decodes tokens[from..to) to text (where a hypothesis's text ends is the
 * engine's answer: api_beam_text_end).
 * @param {import('./tokenizer.js').Tokenizer} tokenizer @param {ArrayLike<number>} tokens @param {number} from @param {number} to
 */
function decodeTokens(tokenizer, tokens, from, to) {
  const parts = [];
  for (let i = from; i < to; i++) parts.push(tokenizer.decodeBytes(i > 0 ? tokens[i - 1] : -1, tokens[i]));
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) { all.set(p, at); at += p.length; }
  return decoder.decode(all);
}

export class BeamSearch {
  /**
   * @param {import('./engine.js').Engine} engine @param {number} handle @param {import('./model.js').Model} model
   * @param {import('./tokenizer.js').Tokenizer | null} tokenizer
   */
  constructor(engine, handle, model, tokenizer) {
    this.engine = engine;
    this.handle = handle;
    this.model = model;
    this.tokenizer = /** @type {import('./tokenizer.js').Tokenizer} */ (tokenizer);
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
   * @param {import('./constraint.js').Constraint | null} constraint @param {number} [budget]
   */
  constrain(constraint, budget = 0) {
    const e = this.engine;
    if (!Number.isInteger(budget) || budget < 0) throw new RangeError(`budget must be an integer >= 0 (got ${budget})`);
    const handle = constraint ? constraintHandle(e, constraint) : 0;
    const rc = e.x.api_beam_constrain(this.handle, handle, budget);
    if (rc !== 0) {
      if (handle) e.x.api_constraint_free(handle);
      e.check(rc);
    }
    if (this.constraintHandle) e.x.api_constraint_free(this.constraintHandle);
    this.constraintHandle = handle;
  }

  /** One expansion. @param {import('./params.js').SamplerParams} [params] */
  step(params = {}) {
    const e = this.engine;
    writeParams(e, this.params, params, this.model.vocab, this.tokenizer);
    e.check(e.x.api_beam_step(this.handle, this.params));
    return this.hypotheses();
  }

  /** beams still growing */
  get live() {
    return this.engine.x.api_beam_live(this.handle);
  }

  /**
   * Every hypothesis, best first.
   * group: its group (diverse beam search; 0 otherwise), penalty: the
   * diversity penalties it collected (score = (logprob - penalty) / length^alpha)
   * @returns {Array<{tokens: Int32Array, text: string, logprob: number, score: number, finished: boolean, group: number, penalty: number}>}
   */
  hypotheses() {
    const e = this.engine, x = e.x;
    const nPrompt = x.api_beam_n_prompt(this.handle);
    return Array.from({ length: x.api_beam_count(this.handle) }, (_, i) => {
      const ptr = x.api_beam_tokens(this.handle, i);
      const tokens = e.ints(ptr, x.api_last_len()).slice();
      return {
        tokens,
        text: decodeTokens(this.tokenizer, tokens, nPrompt, x.api_beam_text_end(this.handle, i)),
        logprob: x.api_beam_logprob(this.handle, i),
        score: x.api_beam_score(this.handle, i),
        finished: x.api_beam_finished(this.handle, i) !== 0,
        group: x.api_beam_group(this.handle, i),
        penalty: x.api_beam_penalty(this.handle, i),
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
