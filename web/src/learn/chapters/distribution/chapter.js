// @ts-check
// Chapter 1: what a model outputs — a score (logit) per token, and the
// softmax that makes them probabilities.  The worked example: logits 2, 1, 0.
import { playground, points, question, text, widget } from '../../blocks.js';
import { LogitSliders } from '../../widgets/LogitSliders.jsx';

const THREE = 'logits:{w0}=2,{w1}=1,{w2}=0';

/** @type {import('../../blocks.js').Chapter} */
export default {
  facts: {
    p1: { model: THREE, ask: 'p1', digits: 3 },
    p2: { model: THREE, ask: 'p2', digits: 3 },
    p3: { model: THREE, ask: 'p3', digits: 3 },
  },
  blocks: [
    text('intro'),
    text('softmax'),
    playground('softmax', { model: THREE, view: 'bars', controls: '' }, {
      note: 'try', control: widget(LogitSliders, { target: 'softmax', logits: [2, 1, 0] }),
    }),
    text('shift'),
    question('q1', { model: 'logits:{w0}=3,{w1}=1,{w2}=0', ask: 'p1', digits: 2 }),
    question('q2', { model: 'logits:{w0}=12,{w1}=11,{w2}=10', ask: 'p1', digits: 2 }),
    points('points'),
  ],
};
