// @ts-check
// Chapter 14: train your own — a character bigram counted from the
// learner's text by the engine (the playground's "Your text"), then
// sampled; the questions ask the shipped names bigram, trained the same
// way.
import { playground, points, question, text, widget } from '../../blocks.js';
import { TrainText } from '../../widgets/TrainText.jsx';

/** @type {import('../../blocks.js').Chapter} */
export default {
  blocks: [
    text('intro'),
    text('counting'),
    playground('yours', { model: 'bigram', seed: 5, temperature: 1, steps: 0, view: 'text,bars', controls: 'temperature' }, {
      note: 'tryTrain',
      control: widget(TrainText, {
        target: 'yours', sample: 'sample', legend: 'legend', label: 'label', go: 'go',
        words: ['sample', 'label', 'go'],
      }),
    }),
    text('names'),
    question('q1', { model: 'bigram', prompt: '', ask: 'p1', digits: 2 }),
    question('q2', { model: 'bigram', prompt: 'Q', ask: 'p:u', digits: 2 }),
    text('bigger'),
    points('points'),
  ],
};
