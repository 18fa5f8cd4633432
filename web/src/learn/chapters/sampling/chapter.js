// @ts-check
// Chapter 2: sampling and the seed — a draw from the distribution, 1000
// draws against the bars (KL), the seed that makes a text repeatable, and
// greedy decoding as temperature 0.
import { playground, points, question, text, widget } from '../../blocks.js';
import { Setter } from '../../widgets/Setter.jsx';

// the example's words with a (no-break) space after each, so a text of them reads as words
const THREE = 'logits:{w0}\u00a0=2,{w1}\u00a0=1,{w2}\u00a0=0';

/** @type {import('../../blocks.js').Chapter} */
export default {
  blocks: [
    text('intro'),
    playground('draws', { model: THREE, seed: 42, view: 'text,bars,samples', controls: 'seed' }, { note: 'tryDraws' }),
    text('many'),
    text('seed'),
    playground('names', { model: 'bigram', seed: 42, temperature: 1, steps: 40, view: 'text', controls: '' }, {
      note: 'tryNames',
      control: widget(Setter, {
        target: 'names',
        fields: [
          { attr: 'seed', label: 'seed.label', kind: 'whole', value: 42, min: 0, max: 999999 },
          { attr: 'temperature', label: 'param.temperature.label', kind: 'range', value: 1, min: 0, max: 2, step: 0.1 },
        ],
      }),
    }),
    text('greedy'),
    question('q1', { model: THREE, temperature: 0, ask: 'nucleus' }),
    question('q2', { model: THREE, temperature: 0, ask: 'p1', digits: 2 }),
    points('points'),
  ],
};
