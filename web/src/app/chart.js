// @ts-check
/**
 * chart.js — the geometry of the lab's two small charts (drawn as SVG by
 * the components): entropy and nucleus size per step, and the cumulative
 * work with and without a KV cache.  Pure functions of engine numbers.
 */

/**
 * Round tick values from 0 to at least max: steps of 1, 2 or 5 × 10^k.
 * @param {number} max @param {number} [count] about how many intervals
 * @returns {number[]}
 */
export function niceTicks(max, count = 4) {
  if (!(max > 0) || !Number.isFinite(max)) return [0, 1];
  const raw = max / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((f) => f * mag).find((s) => s >= raw - 1e-12 * mag) ?? 10 * mag;
  const ticks = [];
  for (let i = 0; ; i++) {
    const t = +(i * step).toPrecision(12);
    ticks.push(t);
    if (t >= max - 1e-9 * step) break;
  }
  return ticks;
}

/** steps the entropy chart shows (the last ones) */
export const STEP_WINDOW = 200;

/**
 * @typedef {Object} StepChart
 * @property {number} from       generated index of the first step shown
 * @property {number} count      steps shown
 * @property {number} yMax       bits at the top: log2(vocab), the most any distribution can have
 * @property {string} bars       SVG path: one bar per step, log2(nucleus size) bits high
 * @property {string} line       SVG polyline points: the entropy of each step
 * @property {Array<{y: number, bits: number}>} bitTicks
 * @property {Array<{y: number, size: number}>} sizeTicks  nucleus sizes at their log2 height
 */

/**
 * Entropy and nucleus size per step on one axis, in bits: a step's nucleus
 * of n tokens is drawn log2(n) high (the entropy n equally likely tokens
 * would have, the most those n can have), and its entropy as a line, which
 * stays at or below the bar.
 * @param {Array<{entropyBits: number, nKept: number}>} stats
 * @param {number} vocab
 * @param {{width?: number, height?: number, window?: number}} [o]
 * @returns {StepChart}
 */
export function stepChart(stats, vocab, { width = 300, height = 100, window = STEP_WINDOW } = {}) {
  const from = Math.max(0, stats.length - window);
  const shown = stats.slice(from);
  const yMax = Math.max(1, Math.log2(Math.max(2, vocab)));
  const y = (/** @type {number} */ bits) => +(height - (Math.max(0, Math.min(yMax, bits)) / yMax) * height).toFixed(3);
  const w = width / Math.max(shown.length, 1);
  let bars = '';
  /** @type {string[]} */
  const pts = [];
  shown.forEach((s, i) => {
    const x = i * w;
    const top = y(Math.log2(Math.max(1, s.nKept)));
    if (top < height) bars += `M${+(x + w * 0.1).toFixed(3)} ${height}V${top}h${+(w * 0.8).toFixed(3)}V${height}Z`;
    pts.push(`${+(x + w / 2).toFixed(3)},${y(s.entropyBits)}`);
  });
  const bitTicks = niceTicks(yMax, 3).filter((b) => b <= yMax + 1e-9).map((bits) => ({ y: y(bits), bits }));
  const sizeTicks = [];
  for (let k = 0; 2 ** k <= vocab; k += Math.max(1, Math.round(yMax / 4))) sizeTicks.push({ y: y(k), size: 2 ** k });
  return { from, count: shown.length, yMax, bars, line: pts.join(' '), bitTicks, sizeTicks };
}

/**
 * @typedef {Object} CostChart
 * @property {number} yMax     flops at the top (a nice round number)
 * @property {number} xMax     generated tokens at the right end
 * @property {string} cached   polyline points: cumulative flops with the cache
 * @property {string} uncached polyline points: without it
 * @property {number[]} ticks  flops values of the horizontal grid lines
 */

/** points the cost chart draws per line at most */
export const COST_POINTS = 300;

/**
 * Cumulative work by generated tokens: with a KV cache each token costs
 * about the same (a straight line, O(T)); without one, every token redoes
 * the whole prefix (a parabola, O(T^2)).
 * @param {Array<{n: number, flops: number, flopsNoCache: number}>} costs
 * @param {{width?: number, height?: number, points?: number}} [o]
 * @returns {CostChart}
 */
export function costChart(costs, { width = 300, height = 100, points = COST_POINTS } = {}) {
  const last = costs[costs.length - 1];
  const xMax = Math.max(1, last ? last.n : 1);
  const top = Math.max(...costs.map((c) => Math.max(c.flops, c.flopsNoCache)), 1);
  const ticks = niceTicks(top, 4);
  const yMax = ticks[ticks.length - 1];
  const every = Math.max(1, Math.ceil(costs.length / points));
  const picked = costs.filter((_, i) => i % every === 0 || i === costs.length - 1);
  const px = (/** @type {number} */ n) => +((n / xMax) * width).toFixed(3);
  const py = (/** @type {number} */ v) => +(height - (v / yMax) * height).toFixed(3);
  return {
    yMax,
    xMax,
    cached: picked.map((c) => `${px(c.n)},${py(c.flops)}`).join(' '),
    uncached: picked.map((c) => `${px(c.n)},${py(c.flopsNoCache)}`).join(' '),
    ticks: ticks.map((t) => t),
  };
}
