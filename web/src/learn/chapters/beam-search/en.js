// Chapter 10 in English.
export default {
  intro: `Greedy decoding takes the likeliest token at every step. That sounds like the way to the likeliest text, but it is not: a step that looks best on its own can lead into a sentence whose later steps are all unlikely, while a slightly worse first step might have opened a much better sentence. Greedy never looks back.

<em>Beam search</em> keeps several texts at once instead of one. These partial texts are called <em>beams</em> (or hypotheses), and their number is the beam <em>width</em>.`,
  how: `## One step of beam search

At every step each beam is extended by every possible next token, which makes many candidate texts. Each candidate gets a score: the sum of the logarithms of its tokens' probabilities, ln p. Adding logarithms is the same as multiplying the probabilities, so this measures how likely the model finds the whole text. Then only the best few candidates, as many as the width, are kept as the new beams. No random numbers are involved: the same prompt always gives the same beams.

With width 1 it is exactly greedy decoding. The wider the beam, the more of the possible texts it looks at, and the more work it costs: one model run per beam and step.`,
  tryBeams: 'The tiny Bible model continues “And God said” with four beams. Each line under the text is one beam with its ln p and score; the best is on top. Press <strong>{step}</strong> to extend them one token at a time. Then try width 1 (greedy) and width 8, and set the length penalty to 0.',
  length: `## The length penalty

Every token's ln p is negative, so a beam's total only falls as it grows. A beam that ends its text early stops losing points and tends to win, and beam search prefers short answers. At length penalty 0 you can see this: the winning text stops right after “And God said,”.

To make long and short texts comparable, the score divides the total by the length raised to a power, the <em>length penalty</em>. At 1 (the usual default) the score is the average ln p per token; above 1, long texts are favoured even more.`,
  repeat: `## Why beams repeat themselves

Look at the beams after a few dozen steps: they are almost the same text, differing only in their last few tokens. Candidates that share a good beginning all score well, so the width is spent on small variations of one idea instead of on different ideas.

And the text itself tends to loop. Beam search looks for the text the model finds most probable, and once a phrase has appeared, repeating it is often the most probable continuation. This is why chat models sample instead, and why beam search is kept for tasks with one right answer, such as translation, usually with a penalty against repeated n-grams.`,
  q1: 'After “And God said”, what probability does the model give its likeliest next character, the one greedy decoding takes? (two decimals)',
  q2: 'And the second likeliest, which a beam of width 2 or more also keeps? (two decimals)',
  points: `- Beam search keeps the best few partial texts (beams) at every step, ranked by the sum of their tokens' ln p.
- Width 1 is greedy decoding; wider beams look at more texts and cost one model run per beam.
- The length penalty divides the score by the length to that power; at 0, short texts win.
- Beams tend to be near-copies of each other, and the most probable text often repeats itself.`,
};
