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

  it('clamps what it reports onto its range and grid', () => {
    const onChange = vi.fn();
    render(<Slider id="t" spec={SPEC.temperature} value={1} onChange={onChange} />);
    const input = screen.getByLabelText('Temperature');
    for (const [typed, expected] of [['5', 3], ['-2', 0], ['0.7000000000000001', 0.7], ['1.23', 1.25]]) {
      input.value = typed;
      fireEvent.input(input);
      expect(onChange).toHaveBeenLastCalledWith(expected);
    }
    cleanup();
    const onK = vi.fn();
    render(<Slider id="k" spec={SPEC.top_k} value={0} max={54} vocab={54} onChange={onK} />);
    const k = screen.getByLabelText('Top-k');
    k.value = '999';
    fireEvent.input(k);
    expect(onK).toHaveBeenLastCalledWith(54);
  });
});
