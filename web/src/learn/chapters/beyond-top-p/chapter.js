// @ts-check
// Chapter 6: when a fixed cutoff fails — min-p, typical-p, top-nσ, ε, η
// and top-a, each on a confident step and on a flat one with a long tail
// (the two steps of chapter 5).
import { playground, points, question, text, widget } from '../../blocks.js';
import { Cutoff } from '../../widgets/Cutoff.jsx';
import { CONFIDENT, FLAT } from '../top-p/steps.js';

/** @type {import('../../widgets/Cutoff.jsx').Method[]} the cutoffs the widget offers, each at a usual value */
const METHODS = [
  { attr: 'min-p', label: 'param.min_p.label', value: 0.1, off: 0, min: 0.01, max: 0.5, step: 0.01 },
  { attr: 'top-p', label: 'param.top_p.label', value: 0.9, off: 1, min: 0.05, max: 1, step: 0.01 },
  { attr: 'typical-p', label: 'param.typical_p.label', value: 0.9, off: 1, min: 0.05, max: 1, step: 0.01 },
  { attr: 'top-n-sigma', label: 'param.top_n_sigma.label', value: 1, off: 0, min: 0.1, max: 3, step: 0.1 },
  { attr: 'epsilon-cutoff', label: 'param.epsilon_cutoff.label', value: 0.02, off: 0, min: 0.001, max: 0.1, step: 0.001 },
  { attr: 'eta-cutoff', label: 'param.eta_cutoff.label', value: 0.02, off: 0, min: 0.001, max: 0.1, step: 0.001 },
  { attr: 'top-a', label: 'param.top_a.label', value: 0.2, off: 0, min: 0.05, max: 1, step: 0.05 },
];

/** @type {import('../../blocks.js').Chapter} */
export default {
  facts: {
    flatP: { model: FLAT, 'top-p': 0.9, ask: 'nucleus', digits: 0 },
    confidentMin: { model: CONFIDENT, 'min-p': 0.1, ask: 'nucleus', digits: 0 },
    flatMin: { model: FLAT, 'min-p': 0.1, ask: 'nucleus', digits: 0 },
  },
  blocks: [
    text('intro'),
    text('minP'),
    playground('confident', { model: CONFIDENT, 'min-p': 0.1, view: 'bars', controls: '' }, {
      note: 'tryMethods',
      control: widget(Cutoff, { targets: ['confident', 'flat'], legend: 'both', methods: METHODS }),
    }),
    playground('flat', { model: FLAT, 'min-p': 0.1, view: 'bars', controls: '' }, { note: 'flatNote' }),
    text('others'),
    text('choose'),
    question('q1', { model: FLAT, 'top-n-sigma': 1, ask: 'nucleus' }),
    question('q2', { model: FLAT, 'top-a': 0.2, ask: 'nucleus' }),
    question('q3', { model: CONFIDENT, 'min-p': 0.05, ask: 'nucleus' }),
    points('points'),
  ],
};
