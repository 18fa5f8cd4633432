// Chapter 12 in English.
export default {
  intro: `Until now the model was a box that turns a text into a distribution. To write the next token, though, a transformer does not just look at the last token: through <em>attention</em> it looks back at every earlier one. For each token and in each layer it computes two short lists of numbers: a <em>key</em>, which says what the token has to offer, and a <em>value</em>, which is what it passes on. The newest token compares its question with all the keys and takes a mix of the values of the tokens that fit best.

So the obvious way to write token 100 is to run the model over all 100 tokens again, and then over all 101 for the next one. Almost all of that work repeats what was done a step before.`,
  cache: `## Keep what does not change

In a model that writes from left to right, a token only ever looks at the tokens before it. Its key and value therefore never change once it has been computed: a later token cannot alter them. So they are computed once and kept in memory, one row of keys and one row of values per position and layer. That memory is the <em>KV cache</em>.

With it, each new step runs the model over one token only: it computes that token's own key and value, adds them to the cache, and reads every earlier row back instead of computing it again.`,
  tryKv: 'The tiny Bible model with its cache drawn: one K row and one V row per position, the new one highlighted. Press <strong>{step}</strong> (or ▶ in the picture) and watch one row arrive per token, and the work with and without the cache add up beneath it.',
  growth: `With the cache, the work per token grows only a little as the text gets longer: the new token still reads every earlier row, which costs a bit more at each step, but the bulk of the work, passing one token through the weights of every layer, stays the same. Without a cache, each step redoes the whole text so far, so the total work grows with the <em>square</em> of the length. The ratio between them keeps growing: for the tiny transformer it is {r32} after 32 tokens and {r256} after 256.`,
  q1: 'For a text of 64 tokens (the prompt\'s included), how many times more work does the tiny transformer do without its KV cache than with it? (one decimal)',
  q2: 'And for a text of 128 tokens? (one decimal)',
  memory: `## The price: memory

The cache is not free. It holds two rows of numbers per token and per layer, as wide as the model. For the tiny model that is nothing; for a large model with a long context it is gigabytes, sometimes more than the weights themselves. That is why a longer context window needs more memory, why servers limit how many conversations run at once, and why much engineering goes into shrinking the cache (sharing keys between attention heads, storing it in fewer bits).`,
  points: `- Attention lets every new token look at all earlier ones, through their keys and values.
- Earlier tokens' keys and values never change, so the KV cache computes them once and keeps them.
- With the cache the work grows about in proportion to the length; without it, with its square.
- The price is memory: two rows per token and layer, which for large models can reach gigabytes.`,
};
