// @ts-check
// Chapter 3: temperature — divide the logits by T before the softmax.  The
// worked example: logits 2, 1, 0 at T = 0.5 and T = 2.
import { playground, points, question, text } from '../../blocks.js';

const THREE = 'logits:{w0}=2,{w1}=1,{w2}=0';

/** @type {import('../../blocks.js').Chapter} */
export default {
  facts: {
    one1: { model: THREE, ask: 'p1', digits: 3 },
    half1: { model: THREE, temperature: 0.5, ask: 'p1', digits: 3 },
    half2: { model: THREE, temperature: 0.5, ask: 'p2', digits: 3 },
    half3: { model: THREE, temperature: 0.5, ask: 'p3', digits: 3 },
    two1: { model: THREE, temperature: 2, ask: 'p1', digits: 3 },
    two2: { model: THREE, temperature: 2, ask: 'p2', digits: 3 },
    two3: { model: THREE, temperature: 2, ask: 'p3', digits: 3 },
  },
  blocks: [
    text('intro'),
    text('example'),
    playground('bars', { model: THREE, view: 'bars', controls: 'temperature' }, { note: 'tryBars' }),
    text('order'),
    playground('names', { model: 'bigram', seed: 7, temperature: 1, view: 'text,bars', controls: 'temperature' }, { note: 'tryNames' }),
    text('use'),
    question('q1', { model: THREE, temperature: 0.25, ask: 'p1', digits: 3 }),
    question('q2', { model: THREE, temperature: 3, ask: 'p3', digits: 2 }),
    points('points'),
  ],
};
