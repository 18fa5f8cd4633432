// @vitest-environment happy-dom
// <sampler-question>'s own checks: a label that is a no-break space is a
// label (only an attribute's own spaces are trimmed); a question it cannot
// ask says so when it is put on the page, not after Check.
import { afterEach, describe, expect, it } from 'vitest';

import { answerKind, grade, parseAsk, readTyped } from './question.js';

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

describe('a question grades by the kind of its answer', () => {
  // (a shipped model: a hand-made one is checked by the engine on load)
  /** a question whose engine value is `value` (the Worker stubbed), answered `text`: what it says */
  async function answered(attrs, value, text) {
    document.body.innerHTML = `<sampler-question ${attrs}>?</sampler-question>`;
    const el = /** @type {any} */ (document.querySelector('sampler-question'));
    el.engineValue = () => Promise.resolve(value);
    const $ = (id) => el.shadowRoot.querySelector(`[data-testid="${id}"]`);
    $('question-answer').value = text;
    const events = [];
    el.addEventListener('sampler-question-answered', (e) => events.push(e.detail));
    await el.check();
    const r = $('question-result');
    return { text: r.textContent, correct: r.getAttribute('data-correct'), invalid: r.dataset.invalid ?? null, events, input: $('question-answer') };
  }

  it('"how many" takes a whole number: 0.5 is told so, not graded (it was "Right: the engine computes 1.")', async () => {
    const half = await answered('model="bigram" temperature="0" ask="nucleus"', 1, '0.5');
    expect(half.correct).toBeNull();
    expect(half.invalid).toBe('notWhole');
    expect(half.text).toBe('This question asks how many: answer with a whole number (e.g. 3).');
    expect(half.events).toEqual([]);
    expect(half.input.placeholder).toBe('a whole number');
    expect(half.input.inputMode).toBe('numeric');
    // a percent is no count either; 1 and 1.0 are
    expect((await answered('model="bigram" ask="cut:top_p"', 1, '100%')).invalid).toBe('notWhole');
    const one = await answered('model="bigram" temperature="0" ask="nucleus" digits="2"', 1, '1');
    expect([one.correct, one.text]).toEqual(['true', 'Right: the engine computes 1.']);
    expect(one.events).toEqual([{ ask: 'nucleus', answer: 1, value: 1, correct: true, digits: 0, kind: 'whole' }]);
    expect((await answered('model="bigram" temperature="0" ask="nucleus"', 1, '1.0')).correct).toBe('true');
    expect((await answered('model="bigram" temperature="0" ask="nucleus"', 1, '2')).text).toBe('Not quite: the engine computes 1.');
  });

  it('a decimal to its digits: 0.67 is not 0.665 to three digits, 66.5% is', async () => {
    const q = 'model="bigram" ask="p1" digits="3"';
    expect((await answered(q, 0.6652, '0.67')).text).toBe('Not quite: the engine computes 0.665.');
    expect((await answered(q, 0.6652, '66.5%')).correct).toBe('true');
    expect((await answered(q, 0.6652, '0,665')).correct).toBe('true');
    const none = await answered(q, 0.6652, 'abc');
    expect([none.invalid, none.text]).toEqual(['notNumber', 'Type a number (e.g. 0.87, 87% or 3).']);
    expect(none.input.placeholder).toBe('a decimal, 3 digits');
    expect((await answered('model="bigram" ask="p1"', 0.6652, '0.67')).input.placeholder).toBe('a decimal, 2 digits');
  });

  it('a token question takes the token: its text, outer spaces aside', async () => {
    const q = 'model="bigram" ask="t1"';
    const a = await answered(q, 'a', ' a ');
    expect([a.correct, a.text]).toEqual(['true', 'Right: the engine computes “a”.']);
    expect(a.events[0].kind).toBe('token');
    expect((await answered(q, 'a', 'b')).correct).toBe('false');
    expect((await answered(q, 'a', '0.5')).correct).toBe('false');
    expect((await answered(q, 'a', '')).invalid).toBe('notToken');
    expect(a.input.placeholder).toBe('a token');
    // a token of spaces is its spaces
    expect((await answered(q, ' ', ' ')).correct).toBe('true');
    expect((await answered(q, ' ', '  ')).correct).toBe('false');
  });
});

describe('answer kinds', () => {
  it('every question has a kind; counts are whole, tokens tokens, the rest decimals to their digits', () => {
    expect(answerKind(parseAsk('nucleus'), '3')).toEqual({ kind: 'whole' });
    expect(answerKind(parseAsk('cut:top_p'), null)).toEqual({ kind: 'whole' });
    expect(answerKind(parseAsk('t2'), null)).toEqual({ kind: 'token' });
    expect(answerKind(parseAsk('p1'), null)).toEqual({ kind: 'decimal', digits: 2 });
    expect(answerKind(parseAsk('kv-ratio'), '1')).toEqual({ kind: 'decimal', digits: 1 });
    expect(answerKind(parseAsk('entropy'), '9')).toEqual({ kind: 'decimal', digits: 6 });
    expect(answerKind(parseAsk('entropy'), 'x')).toEqual({ kind: 'decimal', digits: 2 });
    expect(parseAsk('t3')).toEqual({ kind: 'token', n: 3 });
    expect(parseAsk('t0')).toBeNull();
    expect(readTyped('3', { kind: 'whole' })).toEqual({ answer: 3 });
    expect(readTyped('2.5', { kind: 'whole' })).toEqual({ invalid: 'notWhole' });
    expect(readTyped('', { kind: 'whole' })).toEqual({ invalid: 'notNumber' });
    expect(readTyped('87%', { kind: 'decimal', digits: 2 })).toEqual({ answer: 0.87 });
    expect(grade(3, 3, { kind: 'whole' })).toBe(true);
    expect(grade(0.5, 1, { kind: 'whole' })).toBe(false);
    expect(grade(0.87, 0.874, { kind: 'decimal', digits: 2 })).toBe(true);
    expect(grade(0.87, 0.876, { kind: 'decimal', digits: 2 })).toBe(false);
  });
});
