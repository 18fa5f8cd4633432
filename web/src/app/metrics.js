// @ts-check
/**
 * metrics.js — how the engine's text metrics (session.metrics(), defined
 * in c/engine/decode/metrics.c) and work counters are named, explained and written on
 * screen.  Formatting only: every number comes from the engine.
 */

/** @typedef {import('../worker/host.js').Lab['metrics']} Metrics */

/**
 * @typedef {Object} MetricDef
 * @property {keyof Metrics} key
 * @property {string} label
 * @property {string} explain  one or two sentences for the tooltip and the legend
 * @property {(v: number, m: Metrics) => string} format
 */

/** a ratio in [0, 1] with two decimals */
const ratio = (/** @type {number} */ v) => (Number.isFinite(v) ? v.toFixed(2) : '–');

/** @type {MetricDef[]} */
export const METRICS = [
  {
    key: 'distinct1', label: 'Distinct-1',
    explain: 'Different tokens ÷ tokens. Near 1: every token is new; low: the same tokens again and again.',
    format: (v, m) => (m.tokens >= 1 ? ratio(v) : '–'),
  },
  {
    key: 'distinct2', label: 'Distinct-2',
    explain: 'Different pairs of consecutive tokens ÷ pairs. Repetitive text reuses the same pairs.',
    format: (v, m) => (m.tokens >= 2 ? ratio(v) : '–'),
  },
  {
    key: 'distinct3', label: 'Distinct-3',
    explain: 'Different runs of three tokens ÷ runs. The lowest of the three when the text loops.',
    format: (v, m) => (m.tokens >= 3 ? ratio(v) : '–'),
  },
  {
    key: 'typeTokenRatio', label: 'Type-token ratio',
    explain: 'Different words ÷ words (a word: characters between spaces). Rich vocabulary is high.',
    format: (v, m) => (m.tokens >= 1 ? ratio(v) : '–'),
  },
  {
    key: 'longestRepeat', label: 'Longest repeat',
    explain: 'The longest stretch of text that occurs at least twice (in bytes). A loop makes it grow with the text.',
    format: (v, m) => (m.tokens >= 1 ? `${v} ${v === 1 ? 'byte' : 'bytes'}` : '–'),
  },
  {
    key: 'meanEntropyBits', label: 'Mean entropy',
    explain: 'The average entropy of the distribution each token was drawn from, in bits: how much choice the sampler left. 0: no choice (greedy).',
    format: (v) => (Number.isFinite(v) ? `${v.toFixed(2)} bits` : '–'),
  },
  {
    key: 'perplexity', label: 'Perplexity',
    explain: 'How surprised the model is by the text: 2 to the power of the average −log₂ of each token\'s probability under the model (before the sampler). 1: always the model\'s favourite.',
    format: (v) => (Number.isFinite(v) ? (v >= 100 ? v.toFixed(0) : v.toFixed(2)) : '–'),
  },
  {
    key: 'meanNucleus', label: 'Mean nucleus',
    explain: 'The average number of tokens the sampler kept at each step.',
    format: (v) => (Number.isFinite(v) ? (v >= 100 ? v.toFixed(0) : v.toFixed(1)) : '–'),
  },
];

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The longest repeated substring itself: the engine gives its length and
 * byte offset in the generated text.
 * @param {string} text @param {Metrics} m
 */
export function repeatedText(text, m) {
  if (!(m.longestRepeat > 0)) return '';
  const bytes = encoder.encode(text);
  return decoder.decode(bytes.subarray(m.longestRepeatAt, m.longestRepeatAt + m.longestRepeat));
}

const UNITS = ['', 'k', 'M', 'G', 'T', 'P'];

/**
 * A count with three significant digits and an SI prefix: 950, 1.23 k, 45.6 M.
 * @param {number} n
 */
export function compact(n) {
  if (!Number.isFinite(n)) return '–';
  if (Math.abs(n) < 1000) return String(Math.round(n));
  let u = 0;
  let v = n;
  while (Math.abs(v) >= 999.5 && u < UNITS.length - 1) {
    v /= 1000;
    u++;
  }
  return `${v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)} ${UNITS[u]}`;
}

/** "×3.4": how many times a is of b (a over b), or '–'. @param {number} a @param {number} b */
export function times(a, b) {
  if (!(b > 0) || !Number.isFinite(a)) return '–';
  const r = a / b;
  return `×${r >= 100 ? r.toFixed(0) : r >= 10 ? r.toFixed(1) : r.toFixed(2)}`;
}

/** An acceptance rate: accepted of drafted as a percentage. @param {number} accepted @param {number} drafted */
export function rate(accepted, drafted) {
  return drafted > 0 ? `${((100 * accepted) / drafted).toFixed(1)}%` : '–';
}
