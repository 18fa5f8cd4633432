// Chapter 13 in English.
export default {
  intro: `A large model writes slowly, and mostly not because of arithmetic. To produce one token, the computer has to read every one of the model's weights from memory — billions of numbers — and memory is much slower than the processor. Reading the weights once and using them for several positions at a time costs hardly more than using them for one.

<em>Speculative decoding</em> turns this into speed. A small, fast <em>draft</em> model guesses the next few tokens, one after another. Then the big model checks all of the guesses in a single pass, as if it had written them itself. Every guess it agrees with is a token gained without a pass of its own.`,
  verify: `## Checking a draft

For each drafted token, in order, the sampler compares two probabilities: p, what the big model gives that token, and q, what the draft gave it. If p is at least q, the token is kept. If p is smaller, it is kept only with probability p / q. At the first token turned down, the round stops: the drafts after it are thrown away, and the big model draws a replacement of its own. If every draft is kept, the big model adds one more token for free, since it has already computed the next distribution.

The text that comes out is distributed exactly as if the big model had sampled it alone, token by token. Speculative decoding is not an approximation: it changes the speed, never the text's chances.`,
  pick: 'The draft model',
  optTiny: 'Bible draft (a 1-layer transformer)',
  optBigram: 'Bible bigram (a table of letter pairs)',
  trySpec: 'The tiny Bible model with a draft that proposes four tokens a round. Press <strong>{step}</strong> for one round at a time. In the text, green underlines are drafts the model kept, red marks its corrections and a dotted box a bonus token; each round is listed below with the drafts on the left and what was kept on the right. Then switch to the bigram draft and compare the acceptance rate.',
  residual: `## Where a replacement comes from

A replacement is not drawn from the big model's own p, but from the <em>residual</em> max(0, p − q), rescaled to add up to 1: only the tokens the big model likes <em>more</em> than the draft did. The reason is balance. Tokens the draft proposes too often are turned down part of the time; tokens it proposes too rarely get that share back through the residual. Together, the two steps give each token exactly its probability p. The rounds above show the residual of the last rejection.`,
  q1: 'After “And God said”, what probability p does the big model give the comma? (two decimals)',
  q2: 'And what probability q does the Bible draft give the same comma? (two decimals) If the draft proposes it, the comma is kept with probability min(1, p / q).',
  pays: `## When it pays

The trick needs two things. The draft must agree with the big model often, or most rounds end at the first token; a draft that is too weak, like the bigram, wastes its work. And the big model's pass must really be limited by reading its weights. That is true of large models, whose weights do not fit in the processor's caches. The tiny transformer here does fit, so its pass is limited by arithmetic, which checking more positions does not make cheaper: compare “Tokens per pass” with the measured “Speed-up” above — the passes saved are many more than the time saved, and on a busy machine a round can even cost more than it gains.`,
  points: `- A small draft model proposes a few tokens; the big model checks them all in one pass.
- A draft token is kept with probability min(1, p / q); the first one turned down is replaced from the residual max(0, p − q).
- The text is distributed exactly as the big model's own: only the speed changes.
- It pays when the draft agrees often and the big model's weights are too large for the processor's caches.`,
};
