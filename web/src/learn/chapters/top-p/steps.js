// @ts-check
// Two steps of a hand-made model that the cutoff chapters (top-p, and
// "when a fixed cutoff fails") set side by side: the course's six example
// words, then ten tokens no text wants here (symbols), the tail.
// On the confident step the model is sure of the first word; on the flat
// one the six words are about as likely as each other, and the tail holds
// a good share of the probability.

/** the tail: ten symbols, each a little less likely than the one before */
const TAIL = ['#', '@', '%', '&', '*', '+', '~', '§', '¶', '°']
  .map((s, i) => `${s}=${(-1.2 - 0.04 * i).toFixed(2)}`).join(',');

/** the six words' logits, then the tail */
const step = (/** @type {number[]} */ words) => `logits:${words.map((l, i) => `{w${i}}=${l}`).join(',')},${TAIL}`;

export const CONFIDENT = step([4, 1.5, 1, 0.6, 0.3, 0]);
export const FLAT = step([1.2, 1.1, 1, 0.9, 0.8, 0.7]);
/** the lessons' worked example: six words */
export const SIX = 'probs:{w0}=0.50,{w1}=0.20,{w2}=0.15,{w3}=0.08,{w4}=0.05,{w5}=0.02';
