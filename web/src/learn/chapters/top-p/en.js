// Chapter 5 in English.
export default {
  intro: `Top-k keeps a fixed <em>number</em> of tokens. <em>Top-p</em> keeps a fixed <em>share of the probability</em> instead. Line the tokens up from likeliest to least likely and add up their probabilities as you go; stop as soon as the sum reaches p. The tokens counted so far are kept — they are called the <em>nucleus</em>, which is why top-p is also called nucleus sampling — and everything after them is dropped. As with top-k, the kept tokens then share out the probability again.`,
  example: `The six words from the last chapter have the probabilities 0.50, 0.20, 0.15, 0.08, 0.05 and 0.02. With p = 0.9: the first word alone holds 0.50, not enough; with the second the sum is {sum2}; with the third {sum3}; with the fourth {sum4}, which passes 0.9. So the nucleus is {kept9} words, and the last two are dropped.`,
  tryNucleus: 'The rising curve is the running sum; the horizontal line is p. Drag the line (or use the <strong>Top-p</strong> slider) and watch which bars stay: those to the left of where the curve crosses the line.',
  shapes: `## The same p on two different steps

Here is where top-p beats top-k. Below are two steps of one model: the same six words, then ten symbols that no sentence wants at this point — the tail. On the <em>confident</em> step the model is sure of its first word. On the <em>flat</em> step the six words are about equally likely, and the tail together holds a good share.`,
  tryShapes: 'The <strong>confident</strong> step comes first, the <strong>flat</strong> one under it. One slider sets p on both steps. Count the kept bars on each as you move it.',
  flatNote: 'The <strong>flat</strong> step: the six words about equally likely, the symbols of the tail close behind.',
  both: 'Top-p on both steps',
  adapts: `At p = 0.9 the confident step keeps {confident9} tokens and the flat one keeps {flat9}. Top-p adapts: few tokens when the model is sure, many when it is not — something no single k can do. Values of p between 0.9 and 0.95 are common.

But look at what it kept on the flat step: to reach 0.9 it had to go past the six words and take symbols from the tail as well. The tail is exactly what we wanted to cut. The next chapter is about cutoffs that do better there.`,
  q1: 'With p = 0.75, how many of the six words are in the nucleus?',
  q2: 'With p = 0.9, what probability does “{w0}” get once the nucleus shares out the probability? (three decimals)',
  q3: 'On the flat step, how many tokens does top-p keep with p = 0.95?',
  points: `- Top-p keeps the fewest likeliest tokens whose probabilities add up to at least p: the nucleus.
- It adapts to the step: a small nucleus when the model is confident, a large one when it is not.
- On a flat step with a long tail, reaching p can mean keeping tokens from the tail.`,
};
