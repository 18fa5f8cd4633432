// The sampler chain against llama.cpp's own, differentially: random logits,
// random histories, random subsets of the stages llama.cpp has in random
// orders, each run once by llama.cpp (llama-server's completion through
// @wllama/wllama in Chromium, on the logits model: llama.cpp's chain runs
// on exactly the logits chosen) and once by the engine (the WASM SIMD build
// in Node, a bare sampler's warp): the same kept tokens, and every
// post-chain probability within 1e-6.
//
// How one case reaches llama.cpp: one model (20 tokens: <unk>, <s>, </s>
// and the letters a..q, every logit 0) and, per request, a logit bias per
// token — llama.cpp adds it first (0 + b = b, exactly), so the chain sees
// the case's logits; the prompt, random letters, is the history (llama-server
// feeds the prompt's tokens, BOS first, to its samplers); `samplers` is the
// order; post_sampling_probs with n_probs 20 lists the whole vocabulary
// after the chain.  Mirostat: llama.cpp runs temperature then mirostat
// whatever the order says, one step (its μ starts at 2τ, as ours).
// Adaptive-p: one step (its sums start from the target, as ours), last in
// llama.cpp's chain wherever `samplers` names it.  XTC:
// probability 0 or 1 only (its draw and ours come from different streams).
//
// CHAIN_CASES (300), CHAIN_SEED (2026): how many cases, from which stream;
// CHAIN_DUMP=FILE writes every case that differs, whole, into FILE.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { loadEngineNode } from '../../web/src/engine/node.js';
import { IN_CI } from '../e2e/fixtures.js';
import { registerGguf } from '../helpers/gguf-files.js';
import { logitsModel, prng } from '../helpers/gguf-models.js';
import { writeGguf } from '../helpers/gguf.js';
import { oracleMissing, startOracle } from './llamacpp.js';

const absent = oracleMissing();
if (absent && IN_CI) throw new Error(`the chain against llama.cpp: ${absent} (required under CI=true)`);

const LETTERS = 'abcdefghijklmnopq'.split('');
const TOKENS = ['<unk>', '<s>', '</s>', ...LETTERS];
const V = TOKENS.length; // 20: llama-server's n_probs limit shows every token
const BOS = 1;
const VOCAB = {
  model: /** @type {const} */ ('llama'),
  tokens: TOKENS,
  scores: TOKENS.map((_, i) => -i),
  types: TOKENS.map((_, i) => (i === 0 ? 2 : i < 3 ? 3 : 1)),
  bos: BOS,
  eos: 2,
  unk: 0,
  addBos: true,
  addEos: false,
  addSpacePrefix: false,
};
/** how many random cases, and the seed of their stream */
const CASES = Number(process.env.CHAIN_CASES ?? 300);
const SEED = Number(process.env.CHAIN_SEED ?? 2026);
const TOL = 1e-6;

/** the stages both chains have: ours by name, llama-server's `samplers` name */
const STAGES = /** @type {const} */ ({
  penalties: 'penalties',
  dry: 'dry',
  top_k: 'top_k',
  top_p: 'top_p',
  min_p: 'min_p',
  typical_p: 'typ_p',
  temperature: 'temperature',
  top_n_sigma: 'top_n_sigma',
  xtc: 'xtc',
});

/**
 * One random case: the logits, the prompt (history), our settings and
 * llama-server's request.
 * @param {() => number} rnd
 */
export function randomCase(rnd) {
  const f = Math.fround;
  const between = (/** @type {number} */ lo, /** @type {number} */ hi) => f(lo + (hi - lo) * rnd());
  const int = (/** @type {number} */ lo, /** @type {number} */ hi) => lo + Math.floor(rnd() * (hi - lo + 1));
  const spread = between(1, 8);
  const logits = Float32Array.from({ length: V }, () => f((rnd() - 0.5) * spread));
  const prompt = Array.from({ length: int(0, 24) }, () => LETTERS[int(0, LETTERS.length - 1)]).join('');
  const history = [BOS, ...Array.from(prompt, (c) => 3 + LETTERS.indexOf(c))];
  /** @type {Record<string, any>} */
  const ours = {};
  /** @type {Record<string, any>} */
  const theirs = {};
  /** a window: 0 is the whole text for us; for llama.cpp the text's length
   * (its 0 turns the stage off, and a DRY window of -1 makes wllama's
   * request fail) */
  const window = () => (rnd() < 0.3 ? 0 : int(1, history.length + 2));
  const theirWindow = (/** @type {number} */ n) => n || history.length;
  let order = [];
  if (rnd() < 0.08) {
    // mirostat, one step: llama.cpp's chain is then temperature -> mirostat
    const version = int(1, 2);
    const tau = between(0.5, 6);
    const eta = between(0.05, 0.5);
    const t = between(0.5, 1.5);
    Object.assign(ours, { mirostat: version, mirostat_tau: tau, mirostat_eta: eta, temperature: t, samplers: 'temperature' });
    Object.assign(theirs, { mirostat: version, mirostat_tau: tau, mirostat_eta: eta, temperature: t });
    order = ['mirostat'];
  } else {
    const names = /** @type {(keyof typeof STAGES)[]} */ (Object.keys(STAGES));
    for (let i = names.length - 1; i > 0; i--) {
      const j = int(0, i);
      [names[i], names[j]] = [names[j], names[i]];
    }
    order = names.slice(0, int(1, 6));
    // llama.cpp's top-nσ masks with -inf and leaves the tokens in its
    // array at p = 0, and two of its stages then count them: typical-p's
    // entropy sums -p ln p unguarded (0 * -inf = NaN: every token's score
    // is NaN, and it keeps tokens in array order), and dynamic
    // temperature's largest entropy is ln(array size).  Ours cuts them
    // (docs/samplers.md, "Where the engine and llama.cpp differ"); here
    // top-nσ goes last when it would come before either.
    const sigma = order.indexOf('top_n_sigma');
    if (sigma >= 0 && order.slice(sigma + 1).some((s) => s === 'typical_p' || s === 'temperature')) {
      order.splice(sigma, 1);
      order.push('top_n_sigma');
    }
    for (const s of order) {
      if (s === 'penalties') {
        const r = rnd() < 0.7 ? between(0.5, 2.5) : 1;
        const fr = rnd() < 0.6 ? between(-1, 1.5) : 0;
        const pr = rnd() < 0.6 ? between(-1, 1.5) : 0;
        const n = window();
        Object.assign(ours, { repetition_penalty: r, frequency_penalty: fr, presence_penalty: pr, penalty_last_n: n });
        Object.assign(theirs, { repeat_penalty: r, frequency_penalty: fr, presence_penalty: pr, repeat_last_n: theirWindow(n) });
      } else if (s === 'dry') {
        const m = between(0.2, 2);
        const base = between(1, 3);
        const allowed = int(1, 4);
        const n = window();
        Object.assign(ours, { dry_multiplier: m, dry_base: base, dry_allowed_length: allowed, dry_penalty_last_n: n });
        // a breaker: one of the letters, or none (llama-server wants one: a newline, no token's text here)
        const breaker = rnd() < 0.5 ? int(0, LETTERS.length - 1) : -1;
        if (breaker >= 0) ours.dry_breakers = [3 + breaker];
        Object.assign(theirs, { dry_multiplier: m, dry_base: base, dry_allowed_length: allowed, dry_penalty_last_n: theirWindow(n), dry_sequence_breakers: [breaker >= 0 ? LETTERS[breaker] : '\n'] });
      } else if (s === 'top_k') {
        const k = int(1, V);
        ours.top_k = k;
        theirs.top_k = k;
      } else if (s === 'top_p') {
        const p = between(0.05, 1);
        ours.top_p = p;
        theirs.top_p = p;
      } else if (s === 'min_p') {
        const p = between(0.01, 0.6);
        ours.min_p = p;
        theirs.min_p = p;
      } else if (s === 'typical_p') {
        const p = between(0.05, 1);
        ours.typical_p = p;
        theirs.typical_p = p;
      } else if (s === 'temperature') {
        const t = between(0.3, 2);
        const range = rnd() < 0.35 ? between(0.05, t) : 0;
        const exp = range > 0 ? between(0.5, 2) : 1;
        Object.assign(ours, { temperature: t, dynatemp_range: range, dynatemp_exp: exp });
        Object.assign(theirs, { temperature: t, dynatemp_range: range, dynatemp_exponent: exp });
      } else if (s === 'top_n_sigma') {
        const n = between(0.3, 3);
        ours.top_n_sigma = n;
        theirs.top_n_sigma = n;
      } else if (s === 'xtc') {
        const p = rnd() < 0.8 ? 1 : 0;
        const t = between(0.02, 0.5);
        Object.assign(ours, { xtc_probability: p, xtc_threshold: t });
        Object.assign(theirs, { xtc_probability: p, xtc_threshold: t });
      }
    }
    ours.samplers = order.join(',');
    theirs.samplers = order.map((s) => STAGES[s]);
    if (rnd() < 0.12) {
      // adaptive-p, one step (its sums start as if the text had met the
      // target): llama.cpp puts it last wherever `samplers` names it
      const target = between(0, 1);
      const decay = between(0, 0.99);
      Object.assign(ours, { adaptive_target: target, adaptive_decay: decay });
      Object.assign(theirs, { adaptive_target: target, adaptive_decay: decay });
      theirs.samplers.splice(int(0, theirs.samplers.length), 0, 'adaptive_p');
      order = [...order, 'adaptive_p'];
    }
  }
  return { logits, prompt, history, ours, theirs, order };
}

describe.skipIf(absent)('the sampler chain against llama.cpp (wllama in Chromium), differentially', () => {
  /** @type {Awaited<ReturnType<typeof startOracle>>} */
  let oracle;
  /** @type {import('../../web/src/engine/sampler.js').Sampler} */
  let sampler;
  beforeAll(async () => {
    registerGguf('logits-chain', 'the logits model on 20 tokens (<unk>, <s>, </s>, a..q), every logit 0', () => writeGguf(logitsModel(new Float32Array(V), { vocab: VOCAB, name: 'logits-chain' })));
    oracle = await startOracle();
    await oracle.load('logits-chain');
    const engine = await loadEngineNode('simd');
    sampler = engine.createSampler(V);
  });
  afterAll(async () => {
    sampler?.free();
    await oracle?.close();
  });

  /**
   * llama.cpp's post-chain distribution for a case: probability by token id
   * (0 for a token its chain removed).
   * @param {ReturnType<typeof randomCase>} c
   */
  async function theirs(c) {
    const body = {
      prompt: c.prompt, max_tokens: 1, n_probs: V, post_sampling_probs: true,
      logit_bias: Array.from(c.logits, (b, i) => [i, b]),
      ...c.theirs,
    };
    // the draw does not change the distribution; a draw of </s> ends the
    // text before a token is reported: draw again with another seed
    for (let seed = 1; seed <= 8; seed++) {
      const g = await oracle.generate({ ...body, seed });
      if (g.steps.length) {
        const p = new Float64Array(V);
        for (const t of g.steps[0].top) p[t.id] = /** @type {number} */ (t.prob);
        return p;
      }
    }
    throw new Error(`llama.cpp reported no token for ${JSON.stringify(body)}`);
  }

  test(`${CASES} random chains (logits, histories, stages, orders): the same kept tokens, probabilities within ${TOL}`, async () => {
    const rnd = prng(SEED);
    const t0 = performance.now();
    let worst = 0;
    /** @type {string[]} */
    const failures = [];
    /** @type {Record<string, number>} */
    const seen = {};
    for (let i = 0; i < CASES; i++) {
      const c = randomCase(rnd);
      for (const s of c.order) seen[s] = (seen[s] ?? 0) + 1;
      const want = await theirs(c);
      const step = sampler.warp(c.logits, c.history, c.ours);
      let diff = 0;
      let sameSet = true;
      for (let t = 0; t < V; t++) {
        diff = Math.max(diff, Math.abs(step.probs[t] - want[t]));
        if ((step.probs[t] > 0) !== (want[t] > 0)) sameSet = false;
      }
      worst = Math.max(worst, diff);
      if (!sameSet || diff > TOL) {
        const kept = (/** @type {ArrayLike<number>} */ p) => Array.from(p, (x, t) => (x > 0 ? t : -1)).filter((t) => t >= 0).join(',');
        failures.push(`case ${i} [${c.order.join(' ')}]: kept ${kept(step.probs)} (ours) ${kept(want)} (llama.cpp), max |Δp| ${diff.toExponential(2)}\n  ${JSON.stringify({ logits: Array.from(c.logits), prompt: c.prompt, ours: c.ours })}\n  ours   ${Array.from(step.probs, (p) => p.toFixed(7)).join(' ')}\n  theirs ${Array.from(want, (p) => p.toFixed(7)).join(' ')}`);
      }
    }
    const secs = (performance.now() - t0) / 1000;
    console.log(`measured: ${CASES} random chains against llama.cpp in ${secs.toFixed(1)} s, max |Δp| = ${worst.toExponential(2)}, ${failures.length} differ; stages ${JSON.stringify(seen)}`);
    if (failures.length) console.log(failures.slice(0, 12).join('\n'));
    if (process.env.CHAIN_DUMP) (await import('node:fs')).writeFileSync(process.env.CHAIN_DUMP, failures.join('\n'));
    expect(failures).toEqual([]);
    expect(worst).toBeLessThanOrEqual(TOL);
    // every stage was tried, mirostat among them
    for (const s of [...Object.keys(STAGES), 'mirostat', 'adaptive_p']) expect(seen[s] ?? 0).toBeGreaterThan(0);
  });
});
