// Chapter 1 in English (chapter.js says where each text goes).
export default {
  intro: `A language model does not write a sentence in one go. It writes one <em>token</em> at a time — a word, a piece of a word, or a single character, depending on the model — and each time it has to decide what comes next.

What the model actually produces at each step is not a token but a list of numbers: one score for every token it knows. These scores are called <em>logits</em>. After “{example}”, a model might give “{w0}” a high score, “{w1}” a slightly lower one and “{w2}” a lower one still, and thousands of other tokens scores so low they hardly matter.`,
  softmax: `Logits are not probabilities yet: they can be negative, and they do not add up to anything in particular. The <em>softmax</em> turns them into probabilities in two moves: raise the number e (about 2.72) to the power of each score, then divide each result by the sum of them all. Every token gets a share between 0 and 1, the shares add up to exactly 1, and a higher score always means a bigger share.

Take three tokens with logits 2, 1 and 0. The softmax gives them {p1}, {p2} and {p3}. One point more of score multiplies a token's share by e: that is why {w0} gets about 2.7 times the share of {w1}.`,
  try: 'Drag the sliders: each sets one word\'s logit, and the bars show the probabilities the engine computes from them. What happens when two logits are equal? When one is far above the others?',
  shift: `Only the <em>differences</em> between logits matter. Move all three sliders up by the same amount and the bars do not move at all, because every share is multiplied by the same factor before the division. A model can therefore only say how much it prefers one token to another, never how good a token is on its own.`,
  q1: 'Set the logits to 3, 1 and 0. What probability does “{w0}” get? (two decimals, e.g. 0.42)',
  q2: 'Now the logits are 12, 11 and 10. What probability does “{w0}” get?',
  points: `- At each step the model gives every token in its vocabulary a score, its logit.
- The softmax turns logits into probabilities: all positive, adding up to 1, in the same order as the logits.
- Only the differences between logits matter: adding the same number to all of them changes nothing.`,
};
