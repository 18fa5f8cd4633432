// @vitest-environment happy-dom
// The sliders: labels and accessible names, clamping, the value shown.
import { cleanup, fireEvent, render, screen } from '@testing-library/preact';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { PARAM_SPECS, SPEC } from '../app/params.js';
import { Slider } from './Slider.jsx';

afterEach(cleanup);

describe('Slider', () => {
  it('is a range input whose accessible name is its visible label', () => {
    render(
      <div>
        {PARAM_SPECS.map((spec) => (
          <Slider key={spec.key} id={`s-${spec.key}`} spec={spec} value={spec.def} max={spec.key === 'top_k' ? 54 : spec.max} vocab={54} onChange={() => {}} />
        ))}
      </div>,
    );
    for (const spec of PARAM_SPECS) {
      const input = screen.getByLabelText(spec.label);
      expect(input.getAttribute('type')).toBe('range');
      expect(input.labels[0].textContent).toBe(spec.label);
      expect(input.getAttribute('aria-describedby')).toBe(`s-${spec.key}-hint`);
      expect(document.getElementById(`s-${spec.key}-hint`).textContent).toBe(spec.hint);
    }
    const topK = screen.getByLabelText('Top-k');
    expect(topK.getAttribute('min')).toBe('0');
    expect(topK.getAttribute('max')).toBe('54');
    expect(screen.getByLabelText('Temperature').getAttribute('max')).toBe('3');
    expect(screen.getByLabelText('Top-p').getAttribute('min')).toBe('0.01');
    expect(screen.getByLabelText('Repetition penalty').getAttribute('max')).toBe('2');
  });

  it('shows its value in words where it helps', () => {
    const { rerender } = render(<Slider id="t" spec={SPEC.temperature} value={0} onChange={() => {}} />);
    expect(screen.getByTestId('value-temperature').textContent).toBe('0 (greedy)');
    expect(screen.getByLabelText('Temperature').getAttribute('aria-valuetext')).toBe('0 (greedy)');
    rerender(<Slider id="t" spec={SPEC.temperature} value={0.7} onChange={() => {}} />);
    expect(screen.getByTestId('value-temperature').textContent).toBe('0.70');
    cleanup();
    render(<Slider id="k" spec={SPEC.top_k} value={0} max={54} vocab={54} onChange={() => {}} />);
    expect(screen.getByTestId('value-top_k').textContent).toBe('off');
  });

  // The DOM sanitizes a range input's value itself; the handler must not
  // rely on that (a browser may round differently, a script may set it):
  // the input's value is read as given, and clampParam brings it back.
  /** An input event whose input reads exactly `text`, whatever the DOM would make of it. */
  const typed = (/** @type {HTMLInputElement} */ input, /** @type {string} */ text) => {
    Object.defineProperty(input, 'value', { configurable: true, get: () => text });
    fireEvent.input(input);
  };

  it('clamps what it reports onto its range and grid (clampParam, not the DOM)', () => {
    const onChange = vi.fn();
    render(<Slider id="t" spec={SPEC.temperature} value={1} onChange={onChange} />);
    const input = screen.getByLabelText('Temperature');
    for (const [text, expected] of [['5', 3], ['-2', 0], ['0.7000000000000001', 0.7], ['1.23', 1.25], ['abc', SPEC.temperature.def]]) {
      typed(input, text);
      expect(onChange, text).toHaveBeenLastCalledWith(expected);
    }
    cleanup();
    const onK = vi.fn();
    render(<Slider id="k" spec={SPEC.top_k} value={0} max={54} vocab={54} onChange={onK} />);
    const k = screen.getByLabelText('Top-k');
    for (const [text, expected] of [['999', 54], ['12.6', 13], ['-1', 0]]) {
      typed(k, text);
      expect(onK, text).toHaveBeenLastCalledWith(expected);
    }
  });
});
