// The outputs this project has shipped, pinned: "an output, once shipped,
// is a contract".  These are the commands and links whose bytes must not
// change unless an issue says so.  tests/golden/pin.mjs records them into
// cli.golden.json and links.golden.json (run it only when an issue changes an
// output on purpose, and say so in the commit); tests/js/golden.test.js
// and tests/e2e/golden.test.js hold the engine and the page to them.

/** A deterministic stream of numbers for the warp requests (not the engine's). */
function lcg(seed) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** a warp request over n logits: random, Zipf-like, or with ties and masked entries */
function warpRequest(kind, n, seed) {
  const rand = lcg(seed);
  const logits = Array.from({ length: n }, (_, i) => {
    if (kind === 'zipf') return Number((-1.07 * Math.log(1 + i)).toFixed(6));
    if (kind === 'ties') return i % 7 === 3 ? '-inf' : Math.floor(rand() * 5) / 2;
    return Number((8 * (rand() - 0.5)).toFixed(6));
  });
  const history = Array.from({ length: 24 }, () => Math.floor(rand() * n));
  return JSON.stringify({ logits, history });
}

/** Sampler settings the golden cases (and the identity tests, the first six)
 * run under. */
export const SAMPLER_SETTINGS = [
  [],
  ['--temperature', '0'],
  ['--temperature', '0.7', '--top-k', '10'],
  ['--temperature', '1.3', '--top-p', '0.9', '--min-p', '0.05'],
  ['--typical-p', '0.8', '--repetition-penalty', '1.3', '--penalty-last-n', '8'],
  ['--frequency-penalty', '0.4', '--presence-penalty', '0.6', '--logit-bias', '0=-inf', '--logit-bias', '5=2.5'],
  ['--temperature', '0.5', '--top-p', '0.5'],
  ['--temperature', '2', '--top-k', '5', '--min-p', '0.2', '--repetition-penalty', '1.1'],
];

/** @typedef {{name: string, args: string[], stdin?: string, needs?: 'fixtures'}} CliCase */

/** @type {CliCase[]} */
export const CLI_CASES = [];
for (const [i, s] of SAMPLER_SETTINGS.entries()) {
  for (const seed of ['1', '42', '18446744073709551615']) {
    CLI_CASES.push({ name: `bigram settings${i} seed${seed}`, args: ['generate', '--model', 'bigram', '--steps', '160', '--seed', seed, ...s] });
  }
  CLI_CASES.push({ name: `bigram settings${i} json`, args: ['generate', '--model', 'bigram', '--prompt', 'Ma', '--steps', '24', '--seed', '7', '--json', ...s] });
  CLI_CASES.push({ name: `transformer settings${i}`, args: ['generate', '--model', 'transformer', '--prompt', 'And God said', '--steps', '100', '--seed', String(i + 3), ...s] });
}
CLI_CASES.push(
  { name: 'transformer json', args: ['generate', '--model', 'transformer', '--prompt', 'In the beginning', '--steps', '16', '--temperature', '0.8', '--top-k', '20', '--json'] },
  { name: 'transformer metrics', args: ['generate', '--model', 'transformer', '--prompt', 'The ', '--steps', '120', '--seed', '9', '--metrics'] },
  { name: 'bigram metrics', args: ['generate', '--model', 'bigram', '--steps', '200', '--seed', '3', '--top-p', '0.8', '--metrics'] },
  // decoding strategies
  { name: 'bigram beam 4', args: ['generate', '--model', 'bigram', '--prompt', 'Ma', '--beams', '4', '--steps', '20'] },
  { name: 'bigram beam 3 lp1', args: ['generate', '--model', 'bigram', '--prompt', 'Jo', '--beams', '3', '--length-penalty', '1', '--steps', '20'] },
  { name: 'transformer beam 4', args: ['generate', '--model', 'transformer', '--prompt', 'And God said', '--beams', '4', '--steps', '40'] },
  { name: 'transformer beam 4 lp1', args: ['generate', '--model', 'transformer', '--prompt', 'And God said', '--beams', '4', '--length-penalty', '1', '--steps', '40'] },
  { name: 'transformer beam 2 json', args: ['generate', '--model', 'transformer', '--prompt', 'And', '--beams', '2', '--steps', '10', '--json'] },
  { name: 'spec bigram/bigram', args: ['generate', '--model', 'bigram', '--draft', 'bigram', '--speculate', '3', '--steps', '60', '--seed', '5'] },
  { name: 'spec transformer/bigram T0', args: ['generate', '--model', 'transformer', '--prompt', 'And God said', '--draft', 'bigram', '--speculate', '4', '--steps', '60', '--temperature', '0'] },
  { name: 'spec transformer/bigram T1', args: ['generate', '--model', 'transformer', '--prompt', 'And God said', '--draft', 'bigram', '--speculate', '4', '--steps', '60', '--seed', '11'] },
  { name: 'spec transformer/bigram T0.8 k12 json', args: ['generate', '--model', 'transformer', '--prompt', 'And', '--draft', 'bigram', '--speculate', '2', '--steps', '12', '--temperature', '0.8', '--top-k', '12', '--json'] },
  // constraints
  { name: 'bigram regex', args: ['generate', '--model', 'bigram', '--regex', '[A-Z][a-z]{2,5}', '--steps', '12', '--seed', '6', '--temperature', '1.5'] },
  { name: 'bigram regex json', args: ['generate', '--model', 'bigram', '--regex', '(Ma|Jo)[a-z]+ [A-Z][a-z]+', '--steps', '20', '--seed', '2', '--json'] },
  { name: 'bigram grammar json', args: ['generate', '--model', 'bigram', '--grammar', 'json', '--steps', '40', '--seed', '2', '--temperature', '2'] },
  { name: 'transformer grammar json', args: ['generate', '--model', 'transformer', '--grammar', 'json', '--steps', '200', '--seed', '3', '--temperature', '0.8'] },
  { name: 'transformer grammar json-object', args: ['generate', '--model', 'transformer', '--grammar', 'json-object', '--steps', '120', '--seed', '5', '--temperature', '0.9'] },
  { name: 'transformer regex', args: ['generate', '--model', 'transformer', '--prompt', 'And ', '--regex', '(God|the LORD) (said|spake)[a-z ,]*\\.', '--steps', '60', '--seed', '4'] },
  // warp requests
  { name: 'warp random', args: ['warp', '--temperature', '0.8', '--top-k', '40', '--top-p', '0.9', '--seed', '3'], stdin: warpRequest('random', 300, 1) },
  { name: 'warp zipf', args: ['warp', '--min-p', '0.02', '--typical-p', '0.7', '--repetition-penalty', '1.2', '--seed', '4'], stdin: warpRequest('zipf', 300, 2) },
  { name: 'warp ties', args: ['warp', '--top-k', '9', '--frequency-penalty', '0.3', '--presence-penalty', '0.2', '--penalty-last-n', '10', '--seed', '5'], stdin: warpRequest('ties', 120, 3) },
  { name: 'warp no seed', args: ['warp', '--temperature', '1.7', '--top-p', '0.5'], stdin: warpRequest('random', 50, 4) },
  { name: 'warp worked example', args: ['warp', '--temperature', '0.5'], stdin: '{"logits": [2, 1, 0]}' },
  // the llama2.c fixture model
  { name: 'stories260K logits', needs: 'fixtures', args: ['logits', '--model', '@FIXTURES/stories260K.bin', '--tokens', '1,403,407,261,378,1,9,300,42,500'] },
  { name: 'llama2 tokenizer encode', needs: 'fixtures', args: ['encode', '--tokenizer', '@FIXTURES/tokenizer.bin', '--text', 'Once upon a time, a tiny model wrote: \u00e9t\u00e9 \u{1F600}!', '--bos'] },
  { name: 'llama2 tokenizer encode eos', needs: 'fixtures', args: ['encode', '--tokenizer', '@FIXTURES/tokenizer.bin', '--text', 'The quick brown fox', '--eos'] },
);

/**
 * Playground links: the page loads each and shows this text.  `panels`
 * links (compare mode) pin each panel's text.
 * @type {{name: string, hash: string}[]}
 */
export const LINK_CASES = [
  { name: 'bigram t0.7 k40 p0.9', hash: '#model=bigram&temperature=0.7&top_k=40&top_p=0.9&seed=42&prompt=Ma&steps=60' },
  { name: 'bigram defaults', hash: '#seed=7&steps=50' },
  { name: 'bigram min-p rep', hash: '#seed=12&steps=60&temperature=1.2&min_p=0.1&repetition_penalty=1.3' },
  { name: 'bigram greedy', hash: '#temperature=0&seed=7&prompt=Ma&steps=30' },
  { name: 'bigram forced', hash: '#seed=2&steps=6&forced=0.30' },
  { name: 'bigram ban', hash: '#seed=2&steps=30&ban=1' },
  { name: 'bigram regex', hash: '#seed=6&temperature=1.5&regex=%5BA-Z%5D%5Ba-z%5D%7B2,5%7D&steps=12' },
  { name: 'bigram json', hash: '#seed=2&temperature=2&grammar=json&steps=40' },
  { name: 'bigram beam', hash: '#prompt=Ro&seed=1&steps=16&strategy=beam&beams=4' },
  { name: 'bigram speculative', hash: '#seed=5&strategy=speculative&speculate=3&steps=5' },
  { name: 'transformer', hash: '#model=transformer&temperature=0.8&top_k=20&top_p=0.95&seed=42&prompt=And%20God&steps=40' },
  { name: 'transformer json', hash: '#model=transformer&seed=3&temperature=0.8&grammar=json&steps=200' },
  { name: 'transformer beam', hash: '#model=transformer&prompt=And%20God%20said&seed=1&steps=30&strategy=beam&beams=4' },
  { name: 'transformer speculative', hash: '#model=transformer&prompt=And%20God&seed=4&steps=8&strategy=speculative&speculate=4' },
  { name: 'compare', hash: '#view=compare&model=bigram&seed=7&prompt=Ma&steps=30&panels=greedy,balanced,chaos' },
];
