// Chapter 3 in English.
export default {
  intro: `Temperature is the best-known setting of a sampler, and the simplest. Before the softmax, every logit is divided by one number, <em>T</em>, the temperature. That is all it does.

Dividing by a number below 1 makes the logits larger and the gaps between them wider, so the likely tokens get likelier and the unlikely ones fade: the distribution gets <em>sharper</em>. Dividing by a number above 1 shrinks the gaps: the distribution gets <em>flatter</em>, and unlikely tokens get more of a chance. At T = 1 nothing changes.`,
  example: `Take the logits 2, 1 and 0 again. At T = 1 the first word gets {one1}. At T = 0.5 the logits become 4, 2 and 0, and the softmax gives {half1}, {half2} and {half3}: the top word has taken most of the rest. At T = 2 they become 1, 0.5 and 0, and the softmax gives {two1}, {two2} and {two3}: much more even.`,
  tryBars: 'Drag the temperature slider from one end to the other and watch the three bars. At 0 the sampler is greedy: one bar takes everything.',
  order: `Notice what never happens: the bars never change places. For any temperature above 0, the likeliest token stays the likeliest, the second stays second, and so on. Temperature changes <em>how much</em> likelier one token is than another, never which one is ahead. Near 0 the top token takes everything (greedy decoding); as T grows, all tokens get closer to the same share.`,
  tryNames: 'The name model again, one letter at a time. Press <strong>{play}</strong>, then move the temperature while it writes: low temperatures give ordinary names that repeat, high ones give letter soup.',
  use: `In practice, temperatures between about 0.2 and 1 are common. Low values suit tasks with one right answer (code, facts); values near 1 suit stories and brainstorming. Above 1 the text soon loses the thread, because the long tail of unlikely tokens gets too much of a chance — which is what the next chapters are about.`,
  q1: 'At T = 0.25, what probability does “{w0}” get? (three decimals)',
  q2: 'At T = 3, what probability does “{w2}”, the least likely word, get? (two decimals)',
  points: `- Temperature divides every logit by T before the softmax.
- T below 1 sharpens the distribution, T above 1 flattens it, T = 1 leaves it alone, T = 0 means greedy.
- Temperature never changes the order of the tokens: the likeliest stays the likeliest.`,
};
