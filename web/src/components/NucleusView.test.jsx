// @vitest-environment happy-dom
// The nucleus view: bars and curve from the engine's ranking, the p-line
// moved by pointer and keyboard, the readouts.
import { cleanup, fireEvent, render, screen } from '@testing-library/preact';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

import { loadEngineNode } from '../engine/node.js';
import { summarize } from '../worker/summary.js';
import { NucleusView, Readouts } from './NucleusView.jsx';

let summary;
beforeAll(async () => {
  const engine = await loadEngineNode('simd');
  const s = engine.createSampler(6);
  const params = { top_p: 0.9 };
  const rec = s.warp([0.5, 0.2, 0.15, 0.08, 0.05, 0.02].map(Math.log), [], params);
  summary = summarize(rec, { kind: 'preview', index: 0, history: [], params, pieceOf: (id) => String(id) });
  s.free();
});
afterEach(cleanup);

describe('NucleusView', () => {
  it('draws a bar per ranked token and the cumulative curve from top.cum', () => {
    const { container } = render(<NucleusView summary={summary} topP={0.9} onTopP={() => {}} />);
    // one path per kind of bar, a rectangle (M x y h w v h h -w z) per ranked token
    const paths = Object.fromEntries([...container.querySelectorAll('path.spg-nb')].map((p) => [p.getAttribute('class'), p.getAttribute('d')]));
    const rects = (/** @type {string} */ d) => [...d.matchAll(/M([\d.]+) ([\d.]+)h([\d.]+)v([\d.]+)h-[\d.]+z/g)].map((m) => m.slice(1).map(Number));
    const kept = rects(paths['spg-nb spg-nb-kept']), topP = rects(paths['spg-nb spg-nb-top-p']);
    expect(kept).toHaveLength(4);
    expect(topP).toHaveLength(2);
    expect(paths['spg-nb spg-nb-cut']).toBe('M0 0');
    // ranks left to right, the tallest (0.5) at 70 % of the height, each bar's top + height = 100
    expect(kept.map((r) => r[0])).toEqual([2, 18.667, 35.333, 52]);
    expect(topP.map((r) => r[0])).toEqual([68.667, 85.333]);
    expect(kept[0][3]).toBeCloseTo(70, 2);
    expect(topP[1][3]).toBeCloseTo(70 * 0.02 / 0.5, 2);
    for (const r of [...kept, ...topP]) expect(r[1] + r[3]).toBeCloseTo(100, 2);
    const points = container.querySelector('polyline').getAttribute('points').split(' ').map((p) => p.split(',').map(Number));
    expect(points).toHaveLength(7);
    expect(points[3][1]).toBeCloseTo(100 - 85, 4); // cum after 3 tokens = 0.85
    expect(points[6][1]).toBeCloseTo(0, 4);
    const line = screen.getByRole('slider', { name: /^Nucleus p-line/ });
    expect(line.style.top).toBe('10%');
    expect(line.getAttribute('aria-valuenow')).toBe('0.9');
  });

  it('sets Top-p from where the pointer is, clamped and on the 0.01 grid', () => {
    const onTopP = vi.fn();
    render(<NucleusView summary={summary} topP={0.9} onTopP={onTopP} />);
    const plot = screen.getByTestId('nucleus-plot');
    plot.getBoundingClientRect = () => ({ top: 100, left: 0, width: 300, height: 200, bottom: 300, right: 300, x: 0, y: 100, toJSON() {} });
    fireEvent.pointerDown(plot, { clientY: 150, pointerId: 1, button: 0 });
    expect(onTopP).toHaveBeenLastCalledWith(0.75);
    fireEvent.pointerMove(plot, { clientY: 261.3, pointerId: 1 });
    expect(onTopP).toHaveBeenLastCalledWith(0.19);
    fireEvent.pointerMove(plot, { clientY: 400, pointerId: 1 });
    expect(onTopP).toHaveBeenLastCalledWith(0.01);
    fireEvent.pointerUp(plot, { pointerId: 1 });
    onTopP.mockClear();
    fireEvent.pointerMove(plot, { clientY: 120, pointerId: 1 });
    expect(onTopP).not.toHaveBeenCalled();
  });

  it('moves the p-line with the keyboard', () => {
    const onTopP = vi.fn();
    render(<NucleusView summary={summary} topP={0.5} onTopP={onTopP} />);
    const line = screen.getByTestId('p-line');
    fireEvent.keyDown(line, { key: 'ArrowUp' });
    expect(onTopP).toHaveBeenLastCalledWith(0.51);
    fireEvent.keyDown(line, { key: 'PageDown' });
    expect(onTopP).toHaveBeenLastCalledWith(0.4);
    fireEvent.keyDown(line, { key: 'End' });
    expect(onTopP).toHaveBeenLastCalledWith(1);
    fireEvent.keyDown(line, { key: 'Home' });
    expect(onTopP).toHaveBeenLastCalledWith(0.01);
  });
});

describe('Readouts', () => {
  it('shows the engine\'s nucleus size, kept mass, entropy and P(argmax)', () => {
    render(<Readouts summary={summary} />);
    expect(screen.getByTestId('nucleus-size').textContent).toBe('4');
    expect(screen.getByTestId('kept-mass').textContent).toBe('93.0%');
    expect(Number(screen.getByTestId('entropy').dataset.value)).toBe(summary.entropyBits);
    expect(screen.getByTestId('entropy').textContent).toBe(`${summary.entropyBits.toFixed(2)} bits`);
    expect(screen.getByTestId('p-argmax').textContent).toBe('53.8%'); // 0.5 / 0.93
  });
});
