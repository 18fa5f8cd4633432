// @ts-check
// Chapter 10: beam search — several texts kept at once, ranked by their
// summed log-probabilities; the length penalty; why beams are near-copies
// of each other and drift into loops.  The tiny transformer, from "And God
// said": greedy takes "," first, four beams find " unto …".
import { playground, points, question, text, widget } from '../../blocks.js';
import { Setter } from '../../widgets/Setter.jsx';

const PROMPT = 'And God said';

/** @type {import('../../blocks.js').Chapter} */
export default {
  blocks: [
    text('intro'),
    text('how'),
    playground('beams', {
      model: 'transformer', prompt: PROMPT, strategy: 'beam', beams: 4, 'length-penalty': 1, steps: 40, view: 'text,beams',
    }, {
      note: 'tryBeams',
      control: widget(Setter, {
        target: 'beams',
        fields: [
          { attr: 'beams', label: 'beam.width', kind: 'whole', value: 4, min: 1, max: 8 },
          { attr: 'length-penalty', label: 'beam.lengthPenalty', kind: 'range', value: 1, min: 0, max: 2, step: 0.5 },
        ],
      }),
    }),
    text('length'),
    text('repeat'),
    question('q1', { model: 'transformer', prompt: PROMPT, ask: 'p1', digits: 2 }),
    question('q2', { model: 'transformer', prompt: PROMPT, ask: 'p2', digits: 2 }),
    points('points'),
  ],
};
