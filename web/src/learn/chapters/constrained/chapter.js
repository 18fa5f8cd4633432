// @ts-check
// Chapter 11: constrained decoding — a regular expression (then JSON) as a
// mask on the bars: tokens that cannot lead to a match are cut before the
// draw.  The names bigram under "[AEIOU][a-z][a-z][a-z]": four-letter names that
// start with a vowel; the tiny transformer under JSON.
import { playground, points, question, text, widget } from '../../blocks.js';
import { Choices } from '../../widgets/Choices.jsx';

const VOWEL = '[AEIOU][a-z][a-z][a-z]';

/** @type {import('../../blocks.js').Chapter} */
export default {
  blocks: [
    text('intro'),
    playground('names', { model: 'bigram', seed: 3, steps: 0, view: 'text,bars' }, {
      note: 'tryNames',
      control: widget(Choices, {
        target: 'names',
        legend: 'pick',
        options: [
          { label: 'optVowel', attrs: { regex: VOWEL } },
          { label: 'optList', attrs: { regex: '(Anna|Emil|Ida|Otto)' } },
          { label: 'optShort', attrs: { regex: '[A-Z][a-z]{1,2}' } },
          { label: 'optNone', attrs: { regex: null } },
        ],
        own: { attr: 'regex', label: 'own', apply: 'ownApply' },
        words: ['optVowel', 'optList', 'optShort', 'optNone', 'own', 'ownApply'],
      }),
    }),
    text('mask'),
    question('q1', { model: 'bigram', regex: VOWEL, ask: 'nucleus' }),
    question('q2', { model: 'bigram', regex: VOWEL, ask: 'kept-mass', digits: 2 }),
    text('json'),
    playground('json', { model: 'transformer', grammar: 'json_object', seed: 1, steps: 0, view: 'text,bars' }, { note: 'tryJson' }),
    text('limits'),
    points('points'),
  ],
};
