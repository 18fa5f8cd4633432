// @ts-check
// Chapter 8: cutting the top on purpose and steering surprise — XTC on the
// six words (threshold 0.1 removes the two likeliest), then Mirostat 2
// keeping the name model's surprise near a target, its cut moving step by
// step: under the text the strip draws μ and each drawn token's surprise
// over the steps (the engine's step records), the metrics' chart the
// nucleus size per step.
import { playground, points, question, text, widget } from '../../blocks.js';
import { Setter } from '../../widgets/Setter.jsx';
import { SIX } from '../top-p/steps.js';

/** @type {import('../../blocks.js').Chapter} */
export default {
  facts: {
    xtcKept: { model: SIX, 'xtc-probability': 1, 'xtc-threshold': 0.1, ask: 'nucleus', digits: 0 },
    xtcP: { model: SIX, 'xtc-probability': 1, 'xtc-threshold': 0.1, ask: 'p1', digits: 3 },
  },
  blocks: [
    text('xtc'),
    playground('xtc', { model: SIX, 'xtc-probability': 1, 'xtc-threshold': 0.1, view: 'bars', controls: 'xtc-threshold,xtc-probability' }, { note: 'tryXtc' }),
    text('surprise'),
    text('mirostat'),
    playground('mirostat', { model: 'bigram', seed: 1, steps: 150, mirostat: 2, 'mirostat-tau': 2, view: 'text,strip,metrics' }, {
      note: 'tryMirostat',
      control: widget(Setter, {
        target: 'mirostat',
        fields: [
          { attr: 'mirostat-tau', label: 'param.mirostat_tau.label', kind: 'range', value: 2, min: 0.5, max: 6, step: 0.5 },
          { attr: 'seed', label: 'seed.label', kind: 'whole', value: 1, min: 0, max: 999999 },
        ],
      }),
    }),
    text('watch'),
    question('q1', { model: SIX, 'xtc-probability': 1, 'xtc-threshold': 0.18, ask: 'p1', digits: 2 }),
    question('q2', { model: SIX, 'xtc-probability': 1, 'xtc-threshold': 0.3, ask: 'nucleus' }),
    question('q3', { model: SIX, mirostat: 2, 'mirostat-tau': 1.5, ask: 'nucleus' }),
    points('points'),
  ],
};
