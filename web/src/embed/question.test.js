// @vitest-environment happy-dom
// <sampler-question>'s own checks: a label that is a no-break space is a
// label (only an attribute's own spaces are trimmed); a question it cannot
// ask says so when it is put on the page, not after Check.
import { afterEach, describe, expect, it } from 'vitest';

import { parseAsk } from './question.js';

afterEach(() => { document.body.innerHTML = ''; });

describe('sampler-question', () => {
  it('reads the question; a label may be a no-break space', () => {
    expect(parseAsk(' p2 \n')).toEqual({ kind: 'rank', n: 2 });
    expect(parseAsk('p:\u00a0')).toEqual({ kind: 'label', label: '\u00a0' });
    expect(parseAsk('p:a\u00a0')).toEqual({ kind: 'label', label: 'a\u00a0' });
    expect(parseAsk('p:')).toBeNull();
  });

  it('says a question it cannot ask on load', async () => {
    document.body.innerHTML = '<sampler-question logits="2,1,0" ask="p7x">?</sampler-question>';
    const el = /** @type {any} */ (document.querySelector('sampler-question'));
    const error = el.shadowRoot.querySelector('[data-testid="question-error"]');
    expect(error.hidden).toBe(false);
    expect(error.textContent).toMatch(/p7x/);
  });
});
