// The charts' scaling and the metrics' formatting.
import { describe, expect, it } from 'vitest';

import { createI18n, english, loadLanguage } from '../i18n/index.js';
import { costChart, niceTicks, stepChart } from './chart.js';
import { METRICS, compact, rate, repeatedText, times } from './metrics.js';

describe('niceTicks', () => {
  it('steps by 1, 2 or 5 times a power of ten up to at least the maximum', () => {
    expect(niceTicks(5.75, 3)).toEqual([0, 2, 4, 6]);
    expect(niceTicks(100, 4)).toEqual([0, 50, 100]);
    expect(niceTicks(1234567, 4)).toEqual([0, 500000, 1000000, 1500000]);
    expect(niceTicks(0.3, 3)).toEqual([0, 0.1, 0.2, 0.3]);
    expect(niceTicks(0)).toEqual([0, 1]);
    expect(niceTicks(NaN)).toEqual([0, 1]);
  });
});

describe('stepChart', () => {
  const stats = [
    { entropyBits: 0, nKept: 1 },
    { entropyBits: 1, nKept: 2 },
    { entropyBits: 2.5, nKept: 8 },
    { entropyBits: 5, nKept: 64 },
  ];

  it('puts entropy and log2(nucleus size) on one axis of bits, up to log2(vocab)', () => {
    const c = stepChart(stats, 64, { width: 400, height: 100 });
    expect(c.yMax).toBe(6);
    expect(c.count).toBe(4);
    expect(c.from).toBe(0);
    // entropy: 0 bits at the bottom, 6 at the top; x at the bars' centres
    expect(c.line).toBe('50,100 150,83.333 250,58.333 350,16.667');
    // a nucleus of one token has no bar; 2 tokens: 1 bit; 64 tokens: the top
    expect(c.bars).toBe('M110 100V83.333h80V100ZM210 100V50h80V100ZM310 100V0h80V100Z');
    expect(c.bitTicks).toEqual([{ y: 100, bits: 0 }, { y: 66.667, bits: 2 }, { y: 33.333, bits: 4 }, { y: 0, bits: 6 }]);
    expect(c.sizeTicks.map((t) => t.size)).toEqual([1, 4, 16, 64]);
    expect(c.sizeTicks[3].y).toBe(0);
  });

  it('never draws outside the plot, and shows the last steps of a long text', () => {
    const many = Array.from({ length: 250 }, (_, i) => ({ entropyBits: i % 7, nKept: 1 + (i % 54) }));
    const c = stepChart(many, 54, { width: 300, height: 80, window: 200 });
    expect(c.from).toBe(50);
    expect(c.count).toBe(200);
    const ys = c.line.split(' ').map((p) => Number(p.split(',')[1]));
    expect(Math.min(...ys)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...ys)).toBeLessThanOrEqual(80);
    const xs = c.line.split(' ').map((p) => Number(p.split(',')[0]));
    expect(Math.max(...xs)).toBeLessThan(300);
    expect(stepChart([], 54).line).toBe('');
  });
});

describe('costChart', () => {
  it('scales both lines to the larger, on a round maximum', () => {
    const costs = [1, 2, 3, 4].map((n) => ({ n, flops: 100 * n, flopsNoCache: 50 * n * (n + 1) }));
    const c = costChart(costs, { width: 200, height: 100 });
    expect(c.yMax).toBe(1000);
    expect(c.xMax).toBe(4);
    expect(c.cached).toBe('50,90 100,80 150,70 200,60');
    expect(c.uncached).toBe('50,90 100,70 150,40 200,0');
    expect(c.ticks).toEqual([0, 500, 1000]);
  });

  it('thins long histories but keeps the last point', () => {
    const costs = Array.from({ length: 1001 }, (_, n) => ({ n, flops: n, flopsNoCache: n * n }));
    const c = costChart(costs, { points: 100 });
    const pts = c.cached.split(' ');
    expect(pts.length).toBeLessThanOrEqual(102);
    expect(pts.at(-1)).toBe('300,99.9');
  });
});

describe('metric formatting', () => {
  const m = { tokens: 12, bytes: 12, distinct1: 0.5, distinct2: 0.8181818, distinct3: 0.9, typeTokenRatio: 1, longestRepeat: 3, longestRepeatAt: 2, meanEntropyBits: 2.345, meanEntropyRawBits: 3, meanNucleus: 12.34, perplexity: 7.891 };
  const shown = Object.fromEntries(METRICS.map((d) => [d.key, d.format(m[d.key], m)]));

  it('writes each metric, with a dash when the text is too short for it', () => {
    expect(shown).toEqual({
      distinct1: '0.50', distinct2: '0.82', distinct3: '0.90', typeTokenRatio: '1.00', longestRepeat: '3 bytes',
      meanEntropyBits: '2.35 bits', perplexity: '7.89', meanNucleus: '12.3',
    });
    const empty = { ...m, tokens: 0, meanEntropyBits: NaN, perplexity: NaN, meanNucleus: NaN };
    expect(METRICS.map((d) => d.format(empty[d.key], empty))).toEqual(Array(8).fill('–'));
    const two = { ...m, tokens: 2 };
    expect(METRICS.find((d) => d.key === 'distinct3').format(0, two)).toBe('–');
    expect(METRICS.every((d) => english().t(d.explain).length > 20)).toBe(true);
    // in German: the decimal comma, and the words of its catalogue
    return loadLanguage('de').then(() => {
      const de = createI18n('de');
      expect(METRICS.map((d) => d.format(m[d.key], m, de))).toEqual(['0,50', '0,82', '0,90', '1,00', '3 Bytes', '2,35 Bit', '7,89', '12,3']);
    });
  });

  it('finds the repeated text from the engine\'s byte offset, in UTF-8', () => {
    expect(repeatedText('abcabcx', { longestRepeat: 3, longestRepeatAt: 0 })).toBe('abc');
    expect(repeatedText('éabéab', { longestRepeat: 4, longestRepeatAt: 0 })).toBe('éab');
    expect(repeatedText('abc', { longestRepeat: 0, longestRepeatAt: 0 })).toBe('');
  });

  it('writes counts, ratios and rates compactly', () => {
    expect([compact(950), compact(1234), compact(45_600_000), compact(999_999), compact(NaN)]).toEqual(['950', '1.23 k', '45.6 M', '1.00 M', '–']);
    expect([times(630656, 128000), times(5, 0), times(2000, 10)]).toEqual(['×4.93', '–', '×200']);
    expect([rate(3, 4), rate(0, 0)]).toEqual(['75.0%', '–']);
  });
});
