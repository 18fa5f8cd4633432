// @ts-check
// Chapter 13: speculative decoding — a small draft proposes a few tokens,
// the model checks them in one batched pass, keeps each with probability
// min(1, p/q) and replaces the first it turns down from max(0, p − q).  The
// tiny transformer with its shipped drafts (bible-tiny, bible-bigram:
// models/MODELS.md); the questions ask the model's p and the draft's q of
// the same token.
import { playground, points, question, text, widget } from '../../blocks.js';
import { Choices } from '../../widgets/Choices.jsx';

const PROMPT = 'And God said';

/** @type {import('../../blocks.js').Chapter} */
export default {
  blocks: [
    text('intro'),
    text('verify'),
    playground('spec', {
      model: 'transformer', prompt: PROMPT, seed: 1, strategy: 'speculative', draft: 'bible-tiny', speculate: 4, steps: 0, view: 'text,rounds',
    }, {
      note: 'trySpec',
      control: widget(Choices, {
        target: 'spec',
        legend: 'pick',
        options: [
          { label: 'optTiny', attrs: { draft: 'bible-tiny' } },
          { label: 'optBigram', attrs: { draft: 'bible-bigram' } },
        ],
        words: ['optTiny', 'optBigram'],
      }),
    }),
    text('residual'),
    question('q1', { model: 'transformer', prompt: PROMPT, ask: 'p:,', digits: 2 }),
    question('q2', { model: 'bible-tiny', prompt: PROMPT, ask: 'p:,', digits: 2 }),
    text('pays'),
    points('points'),
  ],
};
