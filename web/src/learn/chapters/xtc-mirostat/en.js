// Chapter 8 in English.
export default {
  xtc: `Every sampler so far removed the <em>unlikely</em> tokens. <em>XTC</em> (“exclude top choices”) does the opposite, on purpose. At a step where it acts, it looks at every token whose probability is at least a threshold, and removes all of them except the least likely one. A reasonable choice always remains, but the most predictable ones are gone, and the text takes a turn it would rarely take. Writers of stories use it against bland, predictable prose. If fewer than two tokens reach the threshold, it does nothing. A second number, its probability, says how often it acts: at 0.5, at about half the steps.

The six words again, with threshold 0.1: three of them (0.50, 0.20 and 0.15) reach it, so XTC removes the first two and keeps “{w2}”, the least likely of the three. {xtcKept} words are left, and “{w2}” is now the favourite with {xtcP}.`,
  tryXtc: 'Move the <strong>XTC threshold</strong>: the higher it is, the fewer tokens reach it. Above 0.2 only one word does, and nothing is removed. With <strong>XTC probability</strong> below 1, whether XTC acts on this step is decided by a random number.',
  surprise: `## Surprise

How surprising is a token? Information theory measures it in <em>bits</em>: a token with probability p carries −log₂ p bits of surprise. A token with probability 0.5 carries 1 bit; with 0.25, 2 bits; with 0.125, 3 bits. A text whose tokens are all likely is dull; one full of surprises is hard to follow. The average surprise of a text measures where it lies between the two.`,
  mirostat: `## Mirostat: a target for the surprise

<em>Mirostat</em> does not fix a cutoff at all. You give it a target surprise τ (tau), and it steers. It keeps a budget μ (mu), which starts at 2τ. At each step it drops every token whose surprise is above μ, then draws from the rest. After the draw it compares the drawn token's surprise with the target: if it was more surprising than τ, μ goes down (the next step is stricter); if less, μ goes up. The cutoff moves from step to step so that, on average, the text's surprise stays near τ. That is version 2; version 1 reaches the same goal with an estimate of how fast the probabilities fall off.`,
  tryMirostat: 'The name model with Mirostat 2. Change the target and the seed; each change writes the text again, and <strong>Play</strong> writes on. Under the text, one mark per letter: the bar is the budget μ Mirostat used at that step, the dot how surprising the drawn letter was, the dashed line the target τ. Watch μ drop after a dot above the line and climb after one below it. Point at a mark to see its step. The chart under it shows how many tokens Mirostat kept each step; compare <em>Mean nucleus</em> and <em>Perplexity</em> for low and high targets.',
  watch: `With a low target the budget stays tight: Mirostat keeps only a few letters at most steps, and the names come out plain and repetitive. With a higher target it keeps many more. Perplexity, 2 raised to the text's average surprise under the model, rises with τ. But Mirostat can only remove tokens, never add surprise: once τ passes the model's own average surprise, it barely cuts anything, and raising τ further changes little.`,
  q1: 'XTC with probability 1 and threshold 0.18: what probability does the likeliest token left get? (two decimals)',
  q2: 'XTC with probability 1 and threshold 0.3: how many of the six words are left?',
  q3: 'Mirostat 2 with target τ = 1.5 starts with the budget μ = 2τ = 3 bits. How many of the six words does its first step keep?',
  points: `- XTC removes the tokens at or above a threshold, all but the least likely of them, at a share of the steps: the predictable choices are skipped on purpose.
- The surprise of a token is −log₂ p bits; a text's average surprise measures how predictable it is.
- Mirostat keeps a budget μ and drops tokens more surprising than it, moving μ after each token so the surprise stays near the target τ.`,
};
