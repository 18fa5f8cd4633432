// @ts-check
/**
 * sampler.js — the sampler chain alone, on logits the caller gives (no
 * model): one warp, a draw with a given uniform, samples of the result.
 */
import { writeParams } from './params.js';
import { readStep, sampleCounts } from './step.js';

export class Sampler {
  /** @param {import('./engine.js').Engine} engine @param {number} handle @param {number} vocab */
  constructor(engine, handle, vocab) {
    this.engine = engine;
    this.handle = handle;
    this.vocab = vocab;
    this.params = engine.x.api_params_new();
    this.logitsPtr = engine.malloc(4 * vocab);
    /** classifier-free guidance's unconditional logits, once given */
    this.uncondPtr = 0;
  }

  /**
   * Runs the pipeline on one set of logits.
   * @param {ArrayLike<number>} logits  length vocab; -Infinity masks a token
   * @param {ArrayLike<number>} [history]  token ids the penalties look at
   * @param {import('./params.js').SamplerParams} [params]
   * @param {{uncond?: ArrayLike<number>}} [more] uncond: classifier-free
   *   guidance's second run's logits (length vocab), which cfg_scale mixes in
   * @returns {import('./step.js').StepRecord}
   */
  warp(logits, history = [], params = {}, { uncond } = {}) {
    const e = this.engine;
    if (!logits || logits.length !== this.vocab) throw new RangeError(`logits must have ${this.vocab} entries (got ${logits ? logits.length : 0})`);
    for (let i = 0; i < history.length; i++) {
      const t = history[i];
      if (typeof t !== 'number') throw new TypeError(`history[${i}] must be a token id`);
      // (Int32Array would cut a fraction short silently; the range is the engine's to check)
      if (!Number.isInteger(t) || t < -2147483648 || t > 2147483647) throw new RangeError(`history[${i}] = ${t} is not a token id`);
    }
    if (uncond && uncond.length !== this.vocab) throw new RangeError(`uncond must have ${this.vocab} entries (got ${uncond.length})`);
    writeParams(e, this.params, params, this.vocab);
    e.floats(this.logitsPtr, this.vocab).set(logits);
    if (uncond) {
      this.uncondPtr ||= e.malloc(4 * this.vocab);
      e.floats(this.uncondPtr, this.vocab).set(uncond);
    }
    e.x.api_sampler_set_uncond(this.handle, uncond ? this.uncondPtr : 0);
    const hist = e.malloc(4 * history.length);
    try {
      e.ints(hist, history.length).set(history);
      e.check(e.x.api_sampler_warp(this.handle, this.logitsPtr, hist, history.length, this.params));
    } finally {
      e.free(hist);
    }
    return readStep(e, e.x.api_sampler_step(this.handle), this.params);
  }

  /**
   * Draws a token from the last warp with uniform u in [0, 1).
   * @param {number} u
   * @returns {import('./step.js').StepRecord}
   */
  draw(u) {
    const e = this.engine;
    if (typeof u !== 'number' || !(u >= 0 && u < 1)) throw new RangeError(`u must be in [0, 1) (got ${u})`);
    e.check(e.x.api_sampler_draw(this.handle, u));
    return readStep(e, e.x.api_sampler_step(this.handle), this.params);
  }

  /**
   * n draws from the last warp's final distribution (own PRNG).
   * @param {number} n @param {number | bigint | string} seed
   */
  sampleCounts(n, seed) {
    return sampleCounts(this.engine, this.engine.x.api_sampler_step(this.handle), n, seed);
  }

  free() {
    const e = this.engine;
    if (!this.handle) return;
    e.x.api_sampler_free(this.handle);
    e.x.api_params_free(this.params);
    e.free(this.logitsPtr);
    if (this.uncondPtr) e.free(this.uncondPtr);
    this.handle = 0;
  }
}
