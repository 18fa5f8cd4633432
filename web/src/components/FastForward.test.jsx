// @vitest-environment happy-dom
// Generate N: a whole number from 1, or the field says so (never read as 1);
// the rate only when the time can be measured.
import { signal } from '@preact/signals';
import { cleanup, fireEvent, render, screen } from '@testing-library/preact';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { FastForward } from './FastForward.jsx';

afterEach(cleanup);

function fakePanel(generated = null) {
  return {
    busy: signal(''), generate: vi.fn(), generated: signal(generated), generating: signal(null), playing: signal(false),
    session: 'main', status: signal({ ready: true, nGenerated: 0 }), stopGenerate: vi.fn(), strategy: signal('sample'),
  };
}

describe('FastForward', () => {
  it('refuses -5, 2.5 and nothing with a message, and generates a whole number', () => {
    const panel = fakePanel();
    render(<FastForward panel={/** @type {any} */ (panel)} />);
    const field = screen.getByTestId('generate-n');
    for (const bad of ['-5', '2.5', '0', '']) {
      fireEvent.input(field, { target: { value: bad } });
      expect(screen.getByTestId('generate').hasAttribute('disabled'), bad).toBe(true);
      expect(screen.getByTestId('generate').textContent).toBe('Generate');
      expect(screen.getByTestId('generate-bad').textContent).toMatch(/whole number from 1 to/);
      expect(field.getAttribute('aria-invalid')).toBe('true');
      fireEvent.click(screen.getByTestId('generate'));
      fireEvent.keyDown(field, { key: 'Enter' });
    }
    expect(panel.generate).not.toHaveBeenCalled();
    fireEvent.input(field, { target: { value: '7' } });
    expect(screen.getByTestId('generate').textContent).toBe('Generate 7');
    expect(screen.queryByTestId('generate-bad')).toBeNull();
    fireEvent.click(screen.getByTestId('generate'));
    expect(panel.generate).toHaveBeenCalledWith(7);
  });

  it('says no rate when the time was too short to measure', () => {
    render(<FastForward panel={/** @type {any} */ (fakePanel({ count: 1, ms: 0.1, stopped: false }))} />);
    expect(screen.getByTestId('generate-done').textContent).toContain('Fast-forwarded 1 token in 0.000 s (— tokens/s in the engine).');
  });
});
