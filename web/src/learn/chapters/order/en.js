// Chapter 9 in English.
export default {
  intro: `So far each chapter has looked at one setting on its own. A real sampler runs several of them in a row, a <em>chain</em>: the model's scores go into the first stage, each stage changes some scores or removes some tokens, and hands what is left to the next one. Only at the end does the softmax turn the survivors into probabilities and the draw pick one.

Each stage sees only what the stages before it left. So the same settings, run in another order, can leave other tokens standing. The order is a setting too, even though most programs never show it.`,
  presets: `## Two orders in wide use

<strong>Hugging Face</strong> (the Python library most research code uses) applies the penalties, then the temperature, then the cuts: top-k, top-p, min-p and the rest. The cuts see scores the temperature has already sharpened or flattened.

<strong>llama.cpp</strong> (the engine under Ollama, LM Studio and many phone apps) applies the penalties and the cuts first, and the temperature <em>last</em>. The cuts see the model's own probabilities; the temperature only reshares the mass among the tokens that survived.

The playground's chain editor has both orders one click away, and you can drag any stage to another place.`,
  example: `Take six words with the logits 3, 2, 1.5, 1, 0.5 and 0, a temperature of 3 and top-p 0.7. On its own the model gives the first word {raw1}. At T = 3 the distribution is much flatter: the first word has only {hot1}. In Hugging Face's order top-p comes after that flattening and needs {hfKept} words to gather 0.7. In llama.cpp's order top-p sees the model's own, steeper probabilities, and {lcKept} words are enough; the temperature then spreads the mass over those few.`,
  tryOrders: 'The same model and the same two settings, in two orders: panel A uses Hugging Face\'s, panel B llama.cpp\'s. Count the words each one keeps under “Next token”. Then move each panel\'s temperature: in B the words left never change, only their shares.',
  why: `Neither order is wrong; they answer different questions. With the temperature first, a hot setting really does bring more words into play. With the temperature last, the cuts are decided by the model alone, and the temperature cannot revive a word they removed — which makes high temperatures much safer.

That is also why a setting copied from one program can behave differently in another: "T = 1.5, top-p 0.9" means two different samplers. When you write down settings, write down the order as well.`,
  q1: 'Temperature 2 and top-p 0.8, in llama.cpp\'s order: how many of the six words can still be picked?',
  q2: 'Temperature 0.5 and top-p 0.7, in llama.cpp\'s order: what probability does “{w0}” end up with? (two decimals)',
  points: `- The stages of a sampler run one after another; each sees only what the ones before it left.
- Hugging Face applies the temperature before the cuts; llama.cpp applies it last.
- Temperature first: a hot temperature lets more tokens through the cuts. Temperature last: the cuts are the model's, and the temperature only reshares the survivors.
- Settings are only complete with their order.`,
};
