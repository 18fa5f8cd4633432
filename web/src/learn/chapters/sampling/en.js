// Chapter 2 in English.
export default {
  intro: `The model's probabilities do not write anything yet: something has to pick one token. The simplest way is a <em>draw</em>. The sampler takes a random number between 0 and 1 and walks down the tokens, adding up their probabilities, until the sum passes the number. A token with probability 0.6 owns 60 % of the numbers between 0 and 1, so it is picked 60 % of the time; a token with probability 0.01 is picked now and then.

The chosen token is appended to the text, the longer text goes back into the model, and the model gives the next distribution. One token per step: that is how every chatbot writes.`,
  tryDraws: 'Press <strong>{step}</strong> a few times: each step draws one word from the same three probabilities. Then press <strong>{draw}</strong>: the black ticks show how often each word came up in 1000 draws.',
  many: `With 1000 draws the ticks land close to the tops of the bars, but not exactly on them: chance never evens out completely. The number under the bars, the <em>KL divergence</em>, measures how far the counted frequencies are from the probabilities. It is 0 only when they match exactly; the more draws, the closer it gets to 0.`,
  seed: `## The seed

Where do the random numbers come from? A computer cannot roll dice, so the sampler uses a <em>pseudo-random</em> generator: a formula that turns a starting number, the <em>seed</em>, into a long sequence of numbers that look random. The same seed always gives the same sequence.

So the same model, the same prompt, the same settings and the same seed give the same text, on any computer, every time. That is what makes a text reproducible — and why a lesson can say “seed 42 gives this”. Change the seed and the same model writes something else.`,
  tryNames: 'This model has read a list of first names and writes new ones, letter by letter. Change the seed and watch the names change; put 42 back and the same names return. Then set the temperature to 0.',
  greedy: `## Greedy decoding

At temperature 0 (the next chapter explains temperature) the sampler stops drawing: it always takes the likeliest token. This is called <em>greedy</em> decoding. Every seed now gives the same text, because no random number is used any more.

Greedy decoding is predictable, but it is not the best way to write: always taking the likeliest next token tends to make the text repeat itself, as chapter 7 shows.`,
  q1: 'At temperature 0, how many of the three words can the sampler still pick?',
  q2: 'And what probability does “{w0}” get at temperature 0?',
  points: `- Sampling draws one token with a random number: each token is picked as often as its probability says, in the long run.
- 1000 draws come close to the probabilities; the KL divergence measures how close.
- The seed fixes the random numbers: same model, prompt, settings and seed give the same text.
- Temperature 0 is greedy decoding: always the likeliest token, whatever the seed.`,
};
