// @ts-check
// Chapter 4: top-k — keep the k likeliest tokens, drop the rest, and share
// the probability out again.  The worked example: six words with the
// probabilities 0.50, 0.20, 0.15, 0.08, 0.05, 0.02 (the lessons' top-p example).
import { playground, points, question, text } from '../../blocks.js';

const SIX = 'probs:{w0}=0.50,{w1}=0.20,{w2}=0.15,{w3}=0.08,{w4}=0.05,{w5}=0.02';

/** @type {import('../../blocks.js').Chapter} */
export default {
  facts: {
    kept3: { model: SIX, 'top-k': 3, ask: 'kept-mass', digits: 2 },
    k3p1: { model: SIX, 'top-k': 3, ask: 'p1', digits: 3 },
    k3p2: { model: SIX, 'top-k': 3, ask: 'p2', digits: 3 },
    k3p3: { model: SIX, 'top-k': 3, ask: 'p3', digits: 3 },
  },
  blocks: [
    text('intro'),
    text('example'),
    playground('bars', { model: SIX, 'top-k': 3, view: 'bars', controls: 'top-k' }, { note: 'tryBars' }),
    text('greedy'),
    playground('names', { model: 'bigram', seed: 7, 'top-k': 3, view: 'text,bars', controls: 'top-k' }, { note: 'tryNames' }),
    text('blunt'),
    question('q1', { model: SIX, 'top-k': 2, ask: 'p1', digits: 3 }),
    question('q2', { model: SIX, 'top-k': 4, ask: 'kept-mass', digits: 2 }),
    points('points'),
  ],
};
