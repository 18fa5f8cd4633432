// @vitest-environment happy-dom
// The probability bars, fed with summaries of real engine step records.
import { cleanup, fireEvent, render, screen } from '@testing-library/preact';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

import { loadEngineNode } from '../engine/node.js';
import { summarize } from '../worker/summary.js';
import { ProbBars } from './ProbBars.jsx';

let engine;
beforeAll(async () => {
  engine = await loadEngineNode('simd');
});
afterEach(cleanup);

/** A summary of one warp of the given logits. */
function summaryOf(logits, params = {}, { history = [], kind = 'preview', draw } = {}) {
  const s = engine.createSampler(logits.length);
  let rec = s.warp(logits, history, params);
  if (draw !== undefined) rec = s.draw(draw);
  const out = summarize(rec, { kind, index: 0, history, params, pieceOf: (id) => (id === 0 ? '\n' : id === 1 ? ' ' : String.fromCharCode(96 + id)) });
  s.free();
  return out;
}

const bars = () => screen.getAllByTestId('prob-bar');
const zipf = (n) => Array.from({ length: n }, (_, i) => -1.1 * Math.log(1 + i));

describe('ProbBars', () => {
  it('draws a bar per token of a small vocabulary, with the testids and data the lesson uses', () => {
    const sum = summaryOf([2, 1, 0.5, 0, -1, -3]);
    render(<ProbBars summary={sum} />);
    expect(screen.getByTestId('prob-bars').dataset.full).toBe('true');
    const all = bars();
    expect(all).toHaveLength(6);
    expect(all.map((b) => b.dataset.token)).toEqual(['0', '1', '2', '3', '4', '5']);
    expect(all.every((b) => b.dataset.kept === 'true')).toBe(true);
    const probs = all.map((b) => Number(b.dataset.prob));
    expect(probs.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 5);
    expect(probs[0]).toBeCloseTo(Math.exp(2) / [2, 1, 0.5, 0, -1, -3].reduce((a, b) => a + Math.exp(b), 0), 6);
    // visible pieces: newline and space made visible
    expect(all[0].textContent).toContain('↵');
    expect(all[1].textContent).toContain('␣');
    expect(all.some((b) => b.dataset.token === 'other')).toBe(false);
  });

  it('marks each cut token with the stage that cut it', () => {
    const logits = [0.5, 0.2, 0.15, 0.08, 0.05, 0.02].map(Math.log);
    render(<ProbBars summary={summaryOf(logits, { top_p: 0.9 })} />);
    const byToken = Object.fromEntries(bars().map((b) => [b.dataset.token, b]));
    expect(['0', '1', '2', '3'].map((t) => byToken[t].dataset.kept)).toEqual(['true', 'true', 'true', 'true']);
    expect(byToken['4'].dataset.kept).toBe('false');
    expect(byToken['4'].dataset.cut).toBe('top_p');
    expect(byToken['4'].textContent).toContain('top-p');
    expect(Number(byToken['4'].dataset.prob)).toBe(0);
    expect(byToken['4'].className).toContain('is-cut');

    cleanup();
    render(<ProbBars summary={summaryOf(logits, { top_k: 2, min_p: 0.5 })} />);
    const cuts = Object.fromEntries(bars().map((b) => [b.dataset.token, b.dataset.cut]));
    expect(cuts).toEqual({ 0: 'kept', 1: 'min_p', 2: 'top_k', 3: 'top_k', 4: 'top_k', 5: 'top_k' });
    expect(bars().find((b) => b.dataset.token === '1').textContent).toContain('min-p');
  });

  it('marks a penalized token and the sampled token', () => {
    const sum = summaryOf([1, 1, 1, 1], { repetition_penalty: 1.5 }, { history: [2], kind: 'step', draw: 0.99 });
    render(<ProbBars summary={sum} />);
    const b2 = bars().find((b) => b.dataset.token === '2');
    expect(b2.className).toContain('is-penalized');
    expect(b2.textContent).toContain('penalty');
    const sampled = bars().filter((b) => b.dataset.sampled === 'true');
    expect(sampled).toHaveLength(1);
    expect(sampled[0].dataset.token).toBe(String(sum.token));
    expect(sampled[0].className).toContain('is-sampled');
  });

  it('shows the top 30 and an "other" bar for a large vocabulary', () => {
    const sum = summaryOf(zipf(5000), { top_k: 100 });
    render(<ProbBars summary={sum} />);
    expect(screen.getByTestId('prob-bars').dataset.full).toBe('false');
    const all = bars();
    expect(all).toHaveLength(31);
    const other = all[30];
    expect(other.dataset.token).toBe('other');
    expect(other.dataset.count).toBe('4970');
    expect(other.dataset.keptCount).toBe('70');
    expect(other.dataset.kept).toBe('true');
    expect(other.textContent).toContain('4,970 tokens');
    const total = all.reduce((a, b) => a + Number(b.dataset.prob), 0);
    expect(total).toBeCloseTo(1, 5);
    const raw = all.reduce((a, b) => a + Number(b.dataset.raw), 0);
    expect(raw).toBeCloseTo(1, 5);
  });

  it('says when nothing past the top bars survives', () => {
    render(<ProbBars summary={summaryOf(zipf(1000), { top_k: 1 })} />);
    const all = bars();
    expect(all.filter((b) => b.dataset.kept === 'true')).toHaveLength(1);
    expect(all[30].dataset.kept).toBe('false');
    expect(Number(all[30].dataset.prob)).toBe(0);
  });

  it('draws sample ticks where the samples fell', () => {
    const sum = summaryOf([2, 1, 0, -5]);
    const freq = new Float64Array([0.6, 0.3, 0.1, 0]);
    render(<ProbBars summary={sum} samples={{ freq, otherFreq: 0 }} />);
    const ticks = screen.getAllByTestId('sample-tick');
    expect(ticks.map((t) => Number(t.dataset.freq))).toEqual([0.6, 0.3, 0.1]);
    expect(ticks[0].style.getPropertyValue('--at')).toBe('60%');
  });

  it('reports a click on a bar as that token, and moves between bars with the arrow keys', () => {
    const onPick = vi.fn();
    render(<ProbBars summary={summaryOf([3, 2, 1])} onPick={onPick} />);
    const buttons = screen.getAllByRole('button');
    expect(buttons.map((b) => b.tabIndex)).toEqual([0, -1, -1]);
    fireEvent.click(buttons[1]);
    expect(onPick).toHaveBeenCalledWith(1, expect.objectContaining({ shiftKey: false }));
    fireEvent.click(buttons[2], { shiftKey: true });
    expect(onPick).toHaveBeenLastCalledWith(2, expect.objectContaining({ shiftKey: true }));
    buttons[0].focus();
    fireEvent.keyDown(buttons[0], { key: 'ArrowDown' });
    expect(document.activeElement).toBe(buttons[1]);
    expect(buttons.map((b) => b.tabIndex)).toEqual([-1, 0, -1]);
    // a bar's name is its text: the piece's name, not its symbol
    expect(screen.getByRole('button', { name: 'newline 66.5%' })).toBe(buttons[0]);
    expect(screen.getByRole('button', { name: 'space 24.5%' })).toBe(buttons[1]);
  });

  it('marks the tokens a constraint masks with that stage', () => {
    const sum = summaryOf([3, 2, 1]);
    // a summary as the Worker sends it under a constraint (cut stage 8)
    const masked = { ...sum, cut: ['kept', 'constraint', 'constraint'], final: Float32Array.from([1, 0, 0]) };
    render(<ProbBars summary={masked} />);
    const all = bars();
    expect(all.map((b) => b.dataset.cut)).toEqual(['kept', 'constraint', 'constraint']);
    expect(all[1].dataset.kept).toBe('false');
    expect(all[1].querySelector('.spg-bar-cut').textContent).toBe('constraint');
    expect(screen.getByRole('button', { name: 'space 0% cut by constraint' })).toBe(all[1].querySelector('button'));
  });

  it('renders an empty state without a summary', () => {
    render(<ProbBars summary={null} />);
    expect(screen.getByTestId('prob-bars').textContent).toBe('No distribution yet.');
  });
});
