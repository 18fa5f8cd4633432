// The course's words in English: the source the other languages
// translate (the same keys; {name} is a value filled in; an object holds
// plural forms chosen by {count}).  Each chapter's own words are in its
// folder (chapters/SLUG/en.js).
export default {
  // ---- every page: the header, Back / Next (Header.jsx, chapter.jsx)
  'learn.course': 'The sampler course',
  'learn.skip': 'Skip to the text',
  'learn.language': 'Language',
  'learn.playground': 'The playground',
  'learn.chapters': 'Chapters',
  'learn.chapterN': 'Chapter {n}',
  'learn.chapterOf': 'Chapter {n} of {count}',
  'learn.stateDone': 'Done: every question answered right',
  'learn.stateSolved': { one: 'Started: {solved} of {count} question answered right', other: 'Started: {solved} of {count} questions answered right' },
  'learn.stateStarted': 'Started',
  'learn.stateNew': 'Not started yet',
  'learn.pager': 'Chapters before and after',
  'learn.back': '← Back:',
  'learn.next': 'Next →',
  'learn.finished': 'Finished! Back to',
  'learn.index': 'the course\'s contents',

  // ---- a chapter's blocks (ChapterBody.jsx) and widgets (widgets/)
  'learn.open': 'Open in the playground',
  'learn.newTab': '(opens in a new tab)',
  'learn.points': 'To remember',
  'learn.setterLegend': 'Rewrite the text with',
  'learn.less': '{name} one less',
  'learn.more': '{name} one more',
  'learn.logitsLegend': 'The model\'s scores (logits)',
  'learn.logitOf': 'logit of “{word}”',

  // the hand-made model's tokens: what might follow the example's text
  'learn.examplePrompt': 'The cat sat on the',
  'learn.exampleWords': 'mat,sofa,rug,bed,roof,moon',

  // ---- the index (index.jsx)
  'learn.indexTitle': 'How a language model picks its next token',
  'learn.indexIntro': `A language model writes one token at a time: at each step it gives every token it knows a probability, and a <em>sampler</em> picks one. This course shows how, in fourteen short chapters. Each has a live widget to play with and a question the engine itself grades — the same engine as the playground, running in your browser.

No maths beyond percentages is needed. Start at the beginning, or jump to any chapter.`,
  'learn.indexFoot': 'Your progress stays on this device; nothing is sent anywhere. Every number in the course is computed by the engine as the page opens, never copied into the text.',
  'learn.start': 'Start with chapter 1',
  'learn.continue': 'Continue: {title}',
  'learn.doneCount': { one: '{done} of {count} chapter done', other: '{done} of {count} chapters done' },
  'learn.reset': 'Forget my progress',
  'learn.resetConfirm': 'Forget which chapters and questions you have done on this device?',

  // ---- the parts and the chapters: titles and one-line summaries
  'part.basics': 'Part 1 · From scores to a choice',
  'part.cutoffs': 'Part 2 · Cutting the tail',
  'part.steering': 'Part 3 · Steering the text',
  'part.order': 'Part 4 · The chain as a whole',
  'part.decoding': 'Part 5 · Beyond one token at a time',
  'part.speed': 'Part 6 · Making it fast',
  'part.yours': 'Part 7 · Your own model',

  'title.distribution': 'What a model outputs',
  'summary.distribution': 'Scores for every token, and the softmax that turns them into probabilities.',
  'title.sampling': 'Sampling and the seed',
  'summary.sampling': 'Drawing a token, why the same seed gives the same text, and greedy decoding.',
  'title.temperature': 'Temperature',
  'summary.temperature': 'Sharper or flatter: dividing the scores before the softmax.',
  'title.top-k': 'Top-k',
  'summary.top-k': 'Keep the k likeliest tokens, drop the rest.',
  'title.top-p': 'Top-p and the nucleus',
  'summary.top-p': 'Keep the fewest tokens that hold a share p of the probability.',
  'title.beyond-top-p': 'When a fixed cutoff fails',
  'summary.beyond-top-p': 'Min-p, typical-p, top-nσ, ε, η and top-a on a confident step and a flat one.',
  'title.repetition': 'Repetition',
  'summary.repetition': 'Penalties, no-repeat n-grams and DRY against a text that loops.',
  'title.xtc-mirostat': 'Cutting the top, steering surprise',
  'summary.xtc-mirostat': 'XTC removes the likeliest tokens on purpose; Mirostat aims at a level of surprise.',
  'title.order': 'Order matters',
  'summary.order': 'The same stages in Hugging Face\'s order and llama.cpp\'s keep different tokens.',
  'title.beam-search': 'Beam search',
  'summary.beam-search': 'Several hypotheses at once, the length penalty, and why beams repeat themselves.',
  'title.constrained': 'Constrained decoding',
  'summary.constrained': 'A regular expression or JSON as a mask on the bars.',
  'title.kv-cache': 'The KV cache',
  'summary.kv-cache': 'Keep what the model computed for earlier tokens, and how much work that saves.',
  'title.speculative': 'Speculative decoding',
  'summary.speculative': 'A small model drafts, the big one checks: the same text, sometimes faster.',
  'title.train': 'Train your own',
  'summary.train': 'A bigram model from your own text, then sample from it.',
};
