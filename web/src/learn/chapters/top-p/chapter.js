// @ts-check
// Chapter 5: top-p (nucleus sampling) — keep the fewest likeliest tokens
// whose probabilities add up to p.  The worked example: 0.50, 0.20, 0.15,
// 0.08, 0.05, 0.02 at p = 0.9 keeps 4; then one p on a confident step and
// on a flat one with a long tail.
import { playground, points, question, text, widget } from '../../blocks.js';
import { Cutoff } from '../../widgets/Cutoff.jsx';
import { CONFIDENT, FLAT, SIX } from './steps.js';

/** @type {import('../../blocks.js').Chapter} */
export default {
  facts: {
    sum2: { model: SIX, 'top-p': 0.6, ask: 'kept-mass', digits: 2 },
    sum3: { model: SIX, 'top-p': 0.8, ask: 'kept-mass', digits: 2 },
    sum4: { model: SIX, 'top-p': 0.9, ask: 'kept-mass', digits: 2 },
    kept9: { model: SIX, 'top-p': 0.9, ask: 'nucleus', digits: 0 },
    confident9: { model: CONFIDENT, 'top-p': 0.9, ask: 'nucleus', digits: 0 },
    flat9: { model: FLAT, 'top-p': 0.9, ask: 'nucleus', digits: 0 },
  },
  blocks: [
    text('intro'),
    text('example'),
    playground('nucleus', { model: SIX, 'top-p': 0.9, view: 'bars,nucleus', controls: 'top-p' }, { note: 'tryNucleus' }),
    text('shapes'),
    playground('confident', { model: CONFIDENT, 'top-p': 0.9, view: 'bars', controls: '' }, {
      note: 'tryShapes',
      control: widget(Cutoff, {
        targets: ['confident', 'flat'], legend: 'both',
        methods: [{ attr: 'top-p', label: 'param.top_p.label', value: 0.9, off: 1, min: 0.05, max: 1, step: 0.01 }],
      }),
    }),
    playground('flat', { model: FLAT, 'top-p': 0.9, view: 'bars', controls: '' }, { note: 'flatNote' }),
    text('adapts'),
    question('q1', { model: SIX, 'top-p': 0.75, ask: 'nucleus' }),
    question('q2', { model: SIX, 'top-p': 0.9, ask: 'p1', digits: 3 }),
    question('q3', { model: FLAT, 'top-p': 0.95, ask: 'nucleus' }),
    points('points'),
  ],
};
