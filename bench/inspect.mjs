// inspect.mjs — the bench's section on the look inside the model: what the
// attention capture and the logit lens add to a step (WASM SIMD, through
// the engine's JS wrapper, as the page's Worker runs it: a step, then the
// preview of the next token, which carries the look).  Three runs of the
// same forced text, in alternating rounds: the look off, the attention
// weights on, the attention and the lens (5 tokens a layer) on.  Medians
// of the rounds and the ratios within each round (timings are noisy: the
// ratios are the figures).  Two models: the shipped transformer (99
// tokens) and the bench's stories15M-shaped model with the 32 000-token
// vocabulary (build/bench/model32k.bin), where each layer's lens is a pass
// of the classifier over 32 000 rows.
//
//   node bench/inspect.mjs   prints the figures, writes build/bench-inspect.json
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { loadEngineNode } from '../web/src/engine/node.js';

const MODES = [
  ['off', {}],
  ['attention', { attention: true }],
  ['lens', { attention: true, lens: true, top: 5 }],
];

/**
 * One model's figures.
 * @param {import('../web/src/engine/engine.js').Engine} e
 * @param {{name: string, model: string, tokenizer: string | null, prompt: string, tokens: number, rounds: number}} o
 */
function measure(e, { name, model: file, tokenizer, prompt, tokens: count, rounds }) {
  const model = e.loadModel(new Uint8Array(fs.readFileSync(file)));
  const tok = tokenizer ? e.loadTokenizer(new Uint8Array(fs.readFileSync(tokenizer)), model.vocab) : e.idsTokenizer(model.vocab);
  const params = { temperature: 1 };
  try {
    // the text every run appends (forced: each feeds the same positions)
    const ref = e.createSession(model, tok);
    ref.start(prompt, 1);
    const forced = [];
    for (let i = 0; i < count; i++) forced.push(ref.step({ ...params, logit_bias: [[1, -Infinity], [2, -Infinity]] }).token);
    ref.free();
    /** ms for the forced text, a step and a preview a token @param {Record<string, any>} what */
    const run = (what) => {
      const s = e.createSession(model, tok);
      s.setInspect(what);
      s.start(prompt, 1);
      const t0 = performance.now();
      for (const t of forced) {
        s.advance(params, t);
        s.preview(params);
      }
      const ms = performance.now() - t0;
      s.free();
      return ms;
    };
    for (const [, what] of MODES) run(what); // warm-up
    /** @type {Record<string, number[]>} */
    const ms = { off: [], attention: [], lens: [] };
    // each round in another order (the first run of a round is not always the same one)
    for (let r = 0; r < rounds; r++) {
      for (let k = 0; k < MODES.length; k++) {
        const [mode, what] = MODES[(r + k) % MODES.length];
        ms[mode].push(run(what));
      }
    }
    const median = (/** @type {number[]} */ xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
    const ratio = (/** @type {string} */ mode) => Math.round(100 * median(ms[mode].map((x, i) => x / ms.off[i]))) / 100;
    const us = (/** @type {string} */ mode) => Math.round((1e3 * median(ms[mode])) / count);
    return {
      model: name, vocab: model.vocab, tokens: count,
      us_per_token: { off: us('off'), attention: us('attention'), lens: us('lens') },
      attention_over_off: ratio('attention'),
      lens_over_off: ratio('lens'),
    };
  } finally {
    tok.free?.();
    model.free();
  }
}

/** @param {{ROOT: string, rounds?: number, log?: (s: string) => void}} o */
export async function benchInspect({ ROOT, rounds = 7, log = () => {} }) {
  const e = await loadEngineNode('simd');
  const out = [];
  out.push(measure(e, {
    name: 'shipped transformer', model: path.join(ROOT, 'models/transformer.bin'),
    tokenizer: path.join(ROOT, 'models/transformer_tokenizer.bin'), prompt: 'And God said', tokens: 200, rounds,
  }));
  const big = path.join(ROOT, 'build/bench/model32k.bin');
  if (fs.existsSync(big)) {
    out.push(measure(e, { name: 'stories15M-shaped, 32 000 tokens', model: big, tokenizer: null, prompt: '<1><450>', tokens: 40, rounds }));
  } else {
    log('inspect: build/bench/model32k.bin is missing (bench/run.sh writes it): the 32 000-token model is not measured');
  }
  for (const r of out) {
    log(`look inside, ${r.model}: ${r.us_per_token.off} µs a token (step + preview), ${r.us_per_token.attention} with the attention ` +
      `(${r.attention_over_off}×), ${r.us_per_token.lens} with the lens too (${r.lens_over_off}×)`);
  }
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const rounds = process.env.BENCH_QUICK ? 3 : 7;
  const out = await benchInspect({ ROOT, rounds, log: console.log });
  fs.mkdirSync(path.join(ROOT, 'build'), { recursive: true });
  const load = fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  fs.writeFileSync(path.join(ROOT, 'build/bench-inspect.json'), JSON.stringify({ date: new Date().toISOString(), load, results: out }, null, 2) + '\n');
  console.log(JSON.stringify(out, null, 2));
}
