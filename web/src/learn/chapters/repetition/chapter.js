// @ts-check
// Chapter 7: repetition — a greedy text that loops, the three penalties
// (repetition, frequency, presence) worked on logits 2, 1, 0, then
// no-repeat n-grams and DRY against the loop.
import { playground, points, question, text, widget } from '../../blocks.js';
import { Setter } from '../../widgets/Setter.jsx';

// the example's words with a (no-break) space after each, so a text of them reads as words
const THREE = 'logits:{w0}\u00a0=2,{w1}\u00a0=1,{w2}\u00a0=0';
const W0 = '{w0}\u00a0';
const W1 = '{w1}\u00a0';

/** the greedy text that loops, and the settings that break the loop (each off to begin with) */
const LOOP = { model: 'transformer', prompt: 'the', temperature: 0, steps: 150, view: 'text,metrics', controls: '' };

/** @type {import('../../blocks.js').Chapter} */
export default {
  facts: {
    // (by rank: a label's trailing no-break space would not survive ask=)
    // "{w0}" is still the likeliest after each of these penalties
    plain: { model: THREE, ask: 'p1', digits: 3 },
    rep: { model: THREE, prompt: W0 + W0, 'repetition-penalty': 2, ask: 'p1', digits: 3 },
    freq: { model: THREE, prompt: W0 + W0, 'frequency-penalty': 0.5, ask: 'p1', digits: 3 },
    pres: { model: THREE, prompt: W0 + W0, 'presence-penalty': 0.5, ask: 'p1', digits: 3 },
  },
  blocks: [
    text('intro'),
    playground('loop', LOOP, {
      note: 'tryLoop',
      control: widget(Setter, {
        target: 'loop',
        fields: [
          { attr: 'repetition-penalty', label: 'param.repetition_penalty.label', kind: 'range', value: 1, min: 1, max: 2, step: 0.05 },
          { attr: 'frequency-penalty', label: 'param.frequency_penalty.label', kind: 'range', value: 0, min: 0, max: 1, step: 0.05 },
          { attr: 'presence-penalty', label: 'param.presence_penalty.label', kind: 'range', value: 0, min: 0, max: 1, step: 0.05 },
          { attr: 'no-repeat-ngram-size', label: 'param.no_repeat_ngram_size.label', kind: 'whole', value: 0, min: 0, max: 8 },
          { attr: 'dry-multiplier', label: 'param.dry_multiplier.label', kind: 'range', value: 0, min: 0, max: 2, step: 0.05 },
        ],
      }),
    }),
    text('penalties'),
    playground('bars', { model: THREE, seed: 3, view: 'text,bars', controls: 'repetition-penalty,frequency-penalty,presence-penalty', 'frequency-penalty': 0.5 }, { note: 'tryBars' }),
    text('ngrams'),
    // "{w0}" falls to second place behind "{w1}" (q1); "{w1}" stays second behind "{w0}" (q2)
    question('q1', { model: THREE, prompt: W0 + W0 + W0, 'frequency-penalty': 0.5, ask: 'p2', digits: 3 }),
    question('q2', { model: THREE, prompt: W0 + W1, 'repetition-penalty': 4, ask: 'p2', digits: 3 }),
    question('q3', { model: THREE, prompt: W0 + W1 + W0, 'no-repeat-ngram-size': 2, ask: 'nucleus' }),
    points('points'),
  ],
};
