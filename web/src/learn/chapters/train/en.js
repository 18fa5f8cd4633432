// Chapter 14 in English.
export default {
  intro: `Every model in this course was trained by someone: a program read a lot of text and turned it into numbers. For a large model that takes weeks and a hall full of computers. For the simplest kind of language model it takes a fraction of a second, and you can do it here.

A <em>bigram</em> model predicts the next character from the one before it, and nothing else. Training it is counting: go through the text and, for each character, note which character comes next and how often.`,
  counting: `## From counts to probabilities

Suppose that in your text “q” is followed by “u” nine times and by “a” once. Then after “q” the model gives “u” nine chances in ten and “a” one in ten. Each character gets its own row of counts, and each row, divided by its total, is a distribution over the next character — the same bars as in every chapter before.

One detail matters: a pair that never appeared in the text would get probability 0, and the model could never write it. So a small amount, 0.1, is added to every count first. This is called <em>smoothing</em>: unseen pairs become unlikely instead of impossible. Each line of the text is one word, and an invisible boundary token marks where a word starts and ends, so the model also learns how words begin and end.`,
  legend: 'Train a bigram on your own text',
  label: 'One word per line (replace these with your own):',
  go: 'Train and use it',
  sample: `apple
apricot
banana
blackberry
blueberry
cherry
grape
grapefruit
lemon
lime
mango
melon
orange
papaya
peach
pear
pineapple
plum
raspberry
strawberry`,
  tryTrain: 'Replace the words with your own — names, cities, made-up words — and press the button: the engine counts the pairs and the playground below switches to your model. Then press <strong>{play}</strong> and watch it invent new words in the style of yours, and look at the bars after each letter.',
  names: `The playground's first model, the names bigram, was trained exactly this way, on a list of first names. Its bars after the boundary token say how names begin; its bars after each letter say what tends to follow it.`,
  q1: 'In the names bigram, what probability does the likeliest first letter of a name get? (two decimals)',
  q2: 'Very few names start with “Q”. After “Q”, what probability does the names bigram give “u”? (two decimals; notice how much the smoothing takes)',
  bigger: `## Why bigger models write better

A bigram sees one character back. Its words look plausible letter by letter but it forgets everything else at once: it cannot finish a word it started, let alone a sentence. Real models look back thousands of tokens, and instead of a table of counts they learn their numbers by gradually adjusting billions of weights until their predictions on the training text get better. But the result has the same shape: for the next token, a distribution — and everything this course showed about sampling from it applies unchanged.`,
  points: `- A bigram predicts the next character from the previous one; training it means counting pairs of characters.
- Each row of counts, divided by its total, is the distribution over the next character.
- Smoothing adds a little to every count, so unseen pairs are unlikely but not impossible.
- Larger models look much further back and learn their numbers instead of counting, but they too output a distribution for the sampler.`,
};
