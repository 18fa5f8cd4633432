// @ts-check
/**
 * summary.js — turns an engine StepRecord into the compact, serializable
 * StepSummary the Worker posts to the page.
 *
 * Every probability, mass and entropy in a summary is an engine number
 * (StepRecord fields, top.cum).  The only arithmetic done here is summing
 * engine probabilities for the "other" bar of a large vocabulary, which is
 * said where it happens.  No Preact, no DOM: it runs in the Worker and in
 * Node tests.
 */
import { RANK_ALL_MAX, TOKEN_STATE } from '../engine/step.js';

/** vocabularies up to this size get a bar for every token (the engine ranks them all) */
export const ALL_BARS_MAX = RANK_ALL_MAX;
/** larger vocabularies: bars for this many ranked tokens, then "other" */
export const TOP_BARS = 30;


/**
 * @typedef {Object} OtherMass  the tokens a large-vocabulary summary leaves out
 * @property {number} count     how many tokens
 * @property {number} raw       their raw (model) mass
 * @property {number} tempered  their mass after penalties and temperature
 * @property {number} final     their final mass
 * @property {number} kept      how many of them survive the truncating stages
 */

/**
 * @typedef {Object} StepSummary
 * @property {'step' | 'preview' | 'peek'} kind  a peek: a past step
 *   re-warped under other settings (time travel; `token` is the one the
 *   text has there, `p` its final probability now)
 * @property {number} index     0-based number of the generated token this
 *   distribution is for (a preview: the next one)
 * @property {number} vocab
 * @property {number} token     the chosen token (-1: a preview)
 * @property {string} piece     its text in context ('' for a preview)
 * @property {number} p         its final probability (NaN for a preview)
 * @property {number} u         the uniform that chose it (NaN for a preview)
 * @property {boolean} forced   the token was picked by the learner (a branch)
 * @property {number} nKept
 * @property {number} keptMass
 * @property {number} entropyBits
 * @property {number} entropyRawBits
 * @property {number} argmaxRaw
 * @property {number} pArgmax      final probability of the top-ranked token
 * @property {number} pArgmaxRaw   raw probability of the model's argmax
 * @property {boolean} full     rows cover the whole vocabulary
 * @property {number} bars      how many rows get a probability bar (all of
 *   them for a small vocabulary, else TOP_BARS; the rest are the nucleus
 *   view's and part of `other`)
 * @property {Int32Array} ids   the rows' token ids, in the engine's rank
 *   order (sp_step_top): the whole vocabulary, or the engine's TOP_N
 *   ranked tokens
 * @property {string[]} pieces  the rows' pieces (no context rules)
 * @property {Float32Array} raw
 * @property {Float32Array} tempered
 * @property {Float32Array} final
 * @property {string[]} cut    the stage that cut each row (the engine's cutNames:
 *   'kept', 'bias', 'top_k', 'top_p', 'min_p', 'temperature', 'constraint', ...)
 * @property {Float64Array} cum cumulative tempered mass after each row, from
 *   top.cum
 * @property {Uint8Array} penalized  1: a penalty applied to this token
 * @property {Array<{stage: string, cut: number, mass: number}>} cuts  who cut how many
 *   tokens, in the chain's order (the engine's count, the whole vocabulary),
 *   and the model's probability they held (the engine's sum; NaN when not computed)
 * @property {OtherMass | null} other  the tokens past the first `bars` rows
 * @property {Record<string, number>} params  the settings that produced it
 * @property {Record<string, number>} state  the stateful stages' numbers
 *   (StepRecord.state); a peek has no drawn token: its numbers about the
 *   drawn token (TOKEN_STATE) are NaN
 * @property {boolean} [lazy]  a fast-forwarded token (the page's Generate N)
 *   whose record has not been fetched: only kind, index, token, piece, p and
 *   the stats (nKept, entropies) are set; the rows are empty
 * @property {boolean} [stateFetched]  a lazy token whose state (the strip's
 *   numbers) is here: fetched for the fast-forward's tokens in one request
 *   (states), the text's token as the one drawn
 * @property {boolean} [fastForwarded]  a fast-forwarded token's record,
 *   fetched afterwards (peek with the settings it ran with): `u` is unknown
 * @property {WatermarkStep | null} [watermark]  the watermark's step, when
 *   it ran (absent or null: off, or no token before this step)
 */

/**
 * @typedef {Object} WatermarkStep  what the watermark did at a step (engine numbers)
 * @property {number} green   the drawn token green (1) or red (0); -1 for a preview
 * @property {number} mass    the green list's mass in the distribution the stage saw, before its bias
 * @property {number} spike   that distribution's spike entropy (Kirchenbauer et al.)
 * @property {Uint8Array} rows  per row: 1 where the token is on the green list
 */

/**
 * @param {import('../engine/engine.js').StepRecord} rec
 * @param {{
 *   kind: 'step' | 'preview' | 'peek', index: number, forced?: boolean,
 *   pieceOf: (id: number) => string,
 *   params: Record<string, number>,
 * }} ctx
 * @returns {StepSummary}
 */
export function summarize(rec, ctx) {
  const V = rec.vocab;
  const full = V <= ALL_BARS_MAX;
  const tempered = rec.probsTempered || rec.probs;
  const rawProbs = rec.probsRaw || rec.probs;
  const ranked = rec.top.ids;
  // the rows in the engine's order: it ranks a small vocabulary whole
  if (full && ranked.length !== V) throw new RangeError(`the step ranks ${ranked.length} of its ${V} tokens (a summary shows them all)`);
  const ids = ranked.slice();
  const n = ids.length;
  const bars = full ? n : Math.min(TOP_BARS, n);
  const out = {
    raw: new Float32Array(n),
    tempered: new Float32Array(n),
    final: new Float32Array(n),
    cum: new Float64Array(n),
    penalized: new Uint8Array(n),
  };
  const penalizedSet = new Set(rec.penalized); // the engine's: what a penalty or DRY changed
  /** @type {string[]} */
  const pieces = [];
  /** @type {string[]} */
  const cut = [];
  for (let i = 0; i < n; i++) {
    const id = ids[i];
    out.raw[i] = rawProbs[id];
    out.tempered[i] = tempered[id];
    out.final[i] = rec.probs[id];
    cut.push(rec.cutNames[rec.cut[id]] ?? `stage ${rec.cut[id]}`);
    out.cum[i] = rec.top.cum[i];
    out.penalized[i] = penalizedSet.has(id) ? 1 : 0;
    pieces.push(ctx.pieceOf(id));
  }

  /** @type {OtherMass | null} */
  let other = null;
  if (!full) {
    // The "other" bar's masses: sums, in the Worker, of the engine's own
    // per-token probabilities over the tokens not shown (float64
    // accumulation over the complement, so no 1 - x cancellation).  The
    // kept count is the engine's nKept minus the kept rows shown.
    const shown = new Uint8Array(V);
    for (let i = 0; i < bars; i++) shown[ids[i]] = 1;
    let r = 0, t = 0, f = 0;
    for (let id = 0; id < V; id++) {
      if (shown[id]) continue;
      r += rawProbs[id];
      t += tempered[id];
      f += rec.probs[id];
    }
    let keptShown = 0;
    for (let i = 0; i < bars; i++) if (cut[i] === 'kept') keptShown++;
    other = { count: V - bars, raw: r, tempered: t, final: f, kept: rec.nKept - keptShown };
  }

  return {
    kind: ctx.kind,
    index: ctx.index,
    vocab: V,
    token: rec.token,
    piece: ctx.kind === 'step' ? (rec.piece ?? '') : '',
    p: ctx.kind === 'step' ? rec.p : NaN,
    u: ctx.kind === 'step' ? rec.u : NaN,
    forced: !!ctx.forced,
    nKept: rec.nKept,
    keptMass: rec.keptMass,
    entropyBits: rec.entropyBits,
    entropyRawBits: rec.entropyRawBits,
    argmaxRaw: rec.argmaxRaw,
    pArgmax: rec.probs[ranked[0]],
    pArgmaxRaw: rawProbs[rec.argmaxRaw],
    full,
    bars,
    ids,
    pieces,
    cut,
    ...out,
    other,
    cuts: rec.cuts,
    params: { ...ctx.params },
    ...(rec.green ? { watermark: watermarkStep(rec, ids) } : {}),
    state: Object.fromEntries(Object.entries(rec.state ?? {}).map(([k, v]) => [k, ctx.kind !== 'step' && TOKEN_STATE.test(k) ? NaN : v])),
  };
}

/**
 * The watermark's step: the engine's numbers and the green list at the rows.
 * @param {import('../engine/engine.js').StepRecord} rec @param {Int32Array} ids
 * @returns {WatermarkStep}
 */
function watermarkStep(rec, ids) {
  const list = /** @type {Uint8Array} */ (rec.green);
  return { green: rec.watermarkGreen, mass: rec.greenMass, spike: rec.spikeEntropy, rows: Uint8Array.from(ids, (id) => list[id]) };
}

/**
 * Maps a sampleCounts() result onto a summary's rows.  The frequencies are
 * counts / n; the "other" frequency sums the counts of the tokens not shown.
 * @param {StepSummary} summary
 * @param {{counts: Int32Array, kl: number}} drawn
 * @param {number} n @param {number} seed
 */
export function sampleSummary(summary, drawn, n, seed) {
  const freq = new Float64Array(summary.ids.length);
  let shownCount = 0;
  summary.ids.forEach((id, i) => {
    freq[i] = drawn.counts[id] / n;
    if (i < summary.bars) shownCount += drawn.counts[id];
  });
  return {
    n,
    seed,
    index: summary.index,
    freq,
    otherFreq: summary.other ? (n - shownCount) / n : 0,
    kl: drawn.kl,
  };
}
