// Chapter 7 in English.
export default {
  intro: `Let a model always take its likeliest token and, sooner or later, it starts to repeat itself. Once a phrase has appeared twice, the model has just seen that it comes round again, so the phrase becomes even likelier — and the text goes round in a loop. Low temperatures and small nuclei make loops more likely; big models fall into them too.

The model below has read the King James Bible, one character at a time. It writes greedily (temperature 0) from the prompt “the”, and soon says the same thing over and over. Under the text, <em>Longest repeat</em> measures the loop, and <em>Distinct-3</em> (the share of different three-token runs) drops when the text repeats.`,
  tryLoop: 'Each setting below rewrites the text from the start. Raise one at a time — each breaks the loop differently — then put it back to where it was and try the next. Watch Longest repeat and Distinct-3.',
  penalties: `## Three penalties

All three push down the scores (logits) of tokens the text already contains, before the softmax:

- The <em>repetition penalty</em> divides the logit of every token already seen by a number above 1 (and multiplies it, if the logit is negative, so it always goes down).
- The <em>frequency penalty</em> subtracts a number times how often the token was seen: the more it was used, the further it falls.
- The <em>presence penalty</em> subtracts a number once, if the token was seen at all, however often.

Take the logits 2, 1 and 0 again: on its own “{w0}” gets {plain}. Say the text so far is “{w0} {w0}”. A repetition penalty of 2 halves its logit to 1, and it gets {rep}. A frequency penalty of 0.5, twice, takes it to 1 as well: {freq}. A presence penalty of 0.5, once, takes it to 1.5: {pres}.`,
  tryBars: 'This hand-made model gives the same scores at every step, so only the penalties change its bars. Press <strong>{step}</strong> a few times and watch the bar of each word that was written shrink. Then move the three sliders.',
  ngrams: `## Banning the repeat itself

Penalties punish single tokens, even when their use is fine (“the” has to come back). Two other samplers look at sequences instead.

- <em>No-repeat n-gram</em> forbids outright any token that would complete a run of n tokens already in the text. Hard and simple — on a model that writes letters, a small n forbids ordinary spelling, as the text above shows with 3 or 4.
- <em>DRY</em> (“don't repeat yourself”) looks for the longest stretch at the end of the text that also appeared earlier, and penalizes the token that would continue it. Short repeats go free; the penalty grows quickly with the length of the repeat, so a loop is stopped while normal phrases are left alone.`,
  q1: 'The text so far is “{w0} {w0} {w0}”. With a frequency penalty of 0.5, what probability does “{w0}” get? (three decimals)',
  q2: 'The text so far is “{w0} {w1}”. With a repetition penalty of 4, what probability does “{w1}” get? (three decimals)',
  q3: 'The text so far is “{w0} {w1} {w0}”. With no-repeat n-gram size 2, how many of the three words can come next?',
  points: `- Greedy and near-greedy decoding fall into loops: a repeat makes itself likelier.
- Repetition, frequency and presence penalties push down the tokens already used: by division, per use, or once.
- No-repeat n-gram bans a repeated run outright; DRY penalizes extending a repeat, more the longer it gets.`,
};
