// Chapter 6 in English.
export default {
  intro: `Top-p ended the last chapter with a problem. On the flat step, p = 0.9 kept {flatP} tokens: the six words, and symbols from the tail that no text wants. Top-p only asks how much probability is kept; it cannot tell a word that is slightly less likely from one that does not belong. Several samplers look at the <em>shape</em> of the distribution instead, each in its own way.`,
  minP: `## Min-p: compared with the favourite

<em>Min-p</em> keeps every token that is at least a fraction of the top token's probability: with min-p = 0.1, at least a tenth as likely as the favourite. When the model is sure, the favourite is very likely, the bar is high, and few tokens pass: the confident step keeps {confidentMin}. When it is unsure, the favourite is not much likelier than the rest, the bar is low, and every reasonable word passes — but the tail, far below, does not: the flat step keeps {flatMin}, exactly the six words.`,
  tryMethods: 'Choose a method and move its slider. Compare how many bars each one keeps on the confident step (above) and on the flat one (below). Which methods keep the six words on the flat step without the symbols?',
  flatNote: 'The <strong>flat</strong> step: the six words about equally likely, the symbols of the tail close behind.',
  both: 'A cutoff on both steps',
  others: `## The others

- <em>Typical-p</em> keeps the tokens whose surprise is closest to the step's average surprise (its entropy), until they hold a share p. It prefers tokens that are as surprising as a typical token here — on a confident step that is the favourite.
- <em>Top-nσ</em> works on the scores (logits) before the softmax: it keeps the tokens whose score is within n standard deviations of the best one. Because it measures the spread of the scores, the temperature does not change what it keeps.
- <em>ε (epsilon) cutoff</em> drops every token below a fixed probability ε. Simple, but one floor for every step.
- <em>η (eta) cutoff</em> is a floor that moves: it is lower when the step is flat (high entropy), so an open step keeps more.
- <em>Top-a</em> drops the tokens below a × (the top probability)². The square makes it strict when the favourite is strong and very lenient when it is weak: on the flat step it keeps everything, tail included.`,
  choose: `None of these is right for every model and every text, and they can be combined: a chain of samplers often runs top-k, then top-p, then min-p. Min-p at 0.05–0.1 is a popular choice today because it cuts the tail on flat steps without cutting good words. The playground lets you put any of them in any order.`,
  q1: 'On the flat step, how many tokens does top-nσ keep with n = 1?',
  q2: 'On the flat step, how many tokens does top-a keep with a = 0.2?',
  q3: 'On the confident step, how many tokens does min-p keep with min-p = 0.05?',
  points: `- Top-p keeps a share of the probability and cannot tell a slightly less likely word from one that does not belong.
- Min-p keeps the tokens at least a fraction as likely as the favourite: strict when the model is sure, lenient when it is not.
- Typical-p, top-nσ, ε, η and top-a each measure the step's shape in their own way; they can be chained.`,
};
