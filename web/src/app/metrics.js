// @ts-check
/**
 * metrics.js — how the engine's text metrics (session.metrics(), defined
 * in c/engine/decode/metrics.c) and work counters are named, explained and written on
 * screen.  Formatting only: every number comes from the engine.
 */

import { english } from '../i18n/index.js';

/** @typedef {import('../worker/protocol.js').Lab['metrics']} Metrics */

/**
 * @typedef {Object} MetricDef
 * @property {keyof Metrics} key
 * @property {string} label    its name (a catalogue key)
 * @property {string} explain  one or two sentences for the tooltip and the legend (a catalogue key)
 * @property {(v: number, m: Metrics, i18n?: import('../i18n/index.js').I18n) => string} format
 */

/** @typedef {import('../i18n/index.js').I18n} I18n */

/** a ratio in [0, 1] with two decimals */
const ratio = (/** @type {number} */ v, /** @type {I18n} */ i18n) => (Number.isFinite(v) ? i18n.fixed(v, 2) : '–');

/** Each metric: its name and explanation (catalogue keys) and how its value is written. */
/** @type {MetricDef[]} */
export const METRICS = [
  { key: 'distinct1', label: 'metric.distinct1', explain: 'metric.distinct1Explain', format: (v, m, i18n = english()) => (m.tokens >= 1 ? ratio(v, i18n) : '–') },
  { key: 'distinct2', label: 'metric.distinct2', explain: 'metric.distinct2Explain', format: (v, m, i18n = english()) => (m.tokens >= 2 ? ratio(v, i18n) : '–') },
  { key: 'distinct3', label: 'metric.distinct3', explain: 'metric.distinct3Explain', format: (v, m, i18n = english()) => (m.tokens >= 3 ? ratio(v, i18n) : '–') },
  { key: 'typeTokenRatio', label: 'metric.ttr', explain: 'metric.ttrExplain', format: (v, m, i18n = english()) => (m.tokens >= 1 ? ratio(v, i18n) : '–') },
  {
    key: 'longestRepeat', label: 'metric.repeat', explain: 'metric.repeatExplain',
    format: (v, m, i18n = english()) => (m.tokens >= 1 ? i18n.t('metric.bytes', { count: v }) : '–'),
  },
  {
    key: 'meanEntropyBits', label: 'metric.entropy', explain: 'metric.entropyExplain',
    format: (v, m, i18n = english()) => (Number.isFinite(v) ? i18n.t('unit.bits', { n: i18n.fixed(v, 2) }) : '–'),
  },
  {
    key: 'perplexity', label: 'metric.perplexity', explain: 'metric.perplexityExplain',
    format: (v, m, i18n = english()) => (Number.isFinite(v) ? i18n.fixed(v, v >= 100 ? 0 : 2) : '–'),
  },
  {
    key: 'meanNucleus', label: 'metric.nucleus', explain: 'metric.nucleusExplain',
    format: (v, m, i18n = english()) => (Number.isFinite(v) ? i18n.fixed(v, v >= 100 ? 0 : 1) : '–'),
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
export function compact(n, i18n = english()) {
  if (!Number.isFinite(n)) return '–';
  if (Math.abs(n) < 1000) return i18n.int(n);
  let u = 0;
  let v = n;
  while (Math.abs(v) >= 999.5 && u < UNITS.length - 1) {
    v /= 1000;
    u++;
  }
  return `${i18n.fixed(v, v >= 100 ? 0 : v >= 10 ? 1 : 2)} ${UNITS[u]}`;
}

/** "×3.4": how many times a is of b (a over b), or '–'. @param {number} a @param {number} b */
export function times(a, b, i18n = english()) {
  if (!(b > 0) || !Number.isFinite(a)) return '–';
  const r = a / b;
  return `×${i18n.fixed(r, r >= 100 ? 0 : r >= 10 ? 1 : 2)}`;
}

/** An acceptance rate: accepted of drafted as a percentage. @param {number} accepted @param {number} drafted */
export function rate(accepted, drafted, i18n = english()) {
  if (!(drafted > 0)) return '–';
  // one decimal of the percentage, as it always was: 100.0%, 62.5%
  return i18n.t('unit.percent1', { n: i18n.fixed((100 * accepted) / drafted, 1) });
}
