// Chapter 11 in English.
export default {
  intro: `Sometimes the text must have a shape: a date, a number between 1 and 10, one of four answers, or JSON that another program will read. Asking the model nicely works most of the time. <em>Constrained decoding</em> makes it work every time, without changing the model.

The idea is a mask. Before each draw, the sampler checks every token: could the text still end up in the required shape if this token came next? Each token that could not is cut, exactly as top-k or top-p cut tokens, and the draw happens among the rest. The shape is usually written as a <em>regular expression</em>, a small pattern language: <code>[AEIOU]</code> means one of these letters, <code>[a-z]+</code> one or more small letters, <code>(Anna|Emil)</code> one of these words.`,
  tryNames: 'The names model again, under the pattern <code>[AEIOU][a-z][a-z][a-z]</code>: four letters, the first a capital vowel. Look at the bars: every letter but five is cut by the “constraint”. Press <strong>{step}</strong> to write the name letter by letter, then pick another pattern, or type your own.',
  pick: 'The pattern the text must match',
  optVowel: 'Four letters, starting with a vowel',
  optList: 'One of Anna, Emil, Ida, Otto',
  optShort: 'Two or three letters',
  optNone: 'No pattern',
  own: 'Your own pattern',
  ownApply: 'Use it',
  mask: `Two things happen at every step. The mask removes what the pattern forbids, and the probabilities of what is left are scaled up so they add up to 1 again, just as after any other cut. Among the allowed tokens, the model's preferences still decide: the constraint chooses the shape, the model fills it in.

When the pattern is complete and nothing more can follow, the text ends. The price shows in the bars: if the model gave the allowed tokens little probability, the sampler is now drawing from a part of the distribution the model itself found unlikely.`,
  q1: 'Under the pattern <code>[AEIOU][a-z][a-z][a-z]</code>, how many letters can the first letter of the name be?',
  q2: 'Before the mask, what share of the model\'s probability did those letters hold together? (two decimals)',
  json: `## JSON

A regular expression cannot describe JSON, because JSON nests: every <code>{</code> needs its <code>}</code>, however deep. So JSON mode uses a <em>grammar</em> instead, which keeps track of the brackets still open. The principle does not change: at each step, every token that would break the JSON is masked.`,
  tryJson: 'The tiny Bible model, which has never seen JSON, under the “JSON object” grammar. Press <strong>{step}</strong> a few times and watch which characters the mask leaves at each step: strict around the brackets and quotes, while inside a string almost any character is allowed.',
  limits: `The constraint guarantees the form, not the content. A model that never learned JSON writes valid but strange JSON, and a mask that cuts almost all of the probability forces the model into text it would not have written. In practice the prompt still explains what is wanted, and the mask makes sure the answer can be parsed.`,
  points: `- Constrained decoding masks, at every step, the tokens that could not lead to text of the required shape.
- The shape is a regular expression, or a grammar for nested formats such as JSON.
- The model still chooses among the allowed tokens; the probabilities of what is left are scaled up to add up to 1.
- The form is guaranteed, the quality is not: a mask that cuts most of the probability pushes the model into text it finds unlikely.`,
};
