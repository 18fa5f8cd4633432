// Chapter 4 in English.
export default {
  intro: `Temperature reshapes the distribution but never takes a token away: even at a low temperature, every token keeps a tiny chance. A real model knows tens of thousands of tokens, and most of them make no sense at a given point. One at a time they are unlikely, but together this <em>long tail</em> can hold a good share of the probability — and every so often the sampler picks from it, and the text goes off the rails.

<em>Top-k</em> is the bluntest fix: keep the <em>k</em> likeliest tokens, give every other token probability 0, and share the probability out again among the ones kept, so that it adds up to 1.`,
  example: `Take six words with the probabilities 0.50, 0.20, 0.15, 0.08, 0.05 and 0.02. With k = 3 the last three are dropped. The three kept hold {kept3} of the probability between them, so each is divided by {kept3}: they become {k3p1}, {k3p2} and {k3p3}. The kept words stay in the same order, and the same distances apart in proportion; the dropped ones can no longer be picked at all.`,
  tryBars: 'Move the <strong>Top-k</strong> slider. Watch the bars beyond the k-th disappear and the kept ones grow. Set k to 1, then to 6 (or 0, which switches top-k off).',
  greedy: `At k = 1 only the likeliest token is left, and it gets probability 1: top-k with k = 1 is greedy decoding, the same as temperature 0. With k as large as the vocabulary, nothing is dropped and top-k does nothing.`,
  tryNames: 'The name model, letter by letter. Press <strong>{play}</strong> and change k while it writes. With k = 1 it writes the same name again and again; with small k the names look ordinary; with k switched off (0) strange letter pairs creep in.',
  blunt: `## Why one k does not fit every step

The trouble with top-k is that k is the same at every step, while the model's confidence is not. After “q” in an English name almost everything is “u”: k = 3 still keeps two letters that are nearly always wrong. After “The cat sat on the”, dozens of words are fine: k = 3 throws most of them away. A cutoff that follows the shape of the distribution would do better — that is top-p, the next chapter.`,
  q1: 'With k = 2, what probability does “{w0}” get? (three decimals)',
  q2: 'With k = 4, what share of the model\'s probability do the kept words hold together? (two decimals)',
  points: `- Top-k keeps the k likeliest tokens, sets the others to 0 and rescales the kept ones to add up to 1.
- k = 1 is greedy decoding; a k as large as the vocabulary changes nothing.
- The same k at every step is too many when the model is sure and too few when many tokens fit.`,
};
