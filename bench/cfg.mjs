// cfg.mjs — the bench's section on classifier-free guidance: what a
// guided step costs on the shipped transformer (WASM SIMD, through the
// engine's JS wrapper).  The same 200 tokens (forced: the plain text's, so
// both runs feed the same positions) from "And God said", plain and at
// scale 1.5 with a negative prompt, in alternating rounds; medians of the
// rounds, and the ratio within each round (timings are noisy: the ratio
// is the figure).  The model's work counters say the rest: guidance feeds
// each position twice.
//
//   node bench/cfg.mjs      prints the figures, writes build/bench-cfg.json
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { loadEngineNode } from '../web/src/engine/node.js';

const TOKENS = 200;
const PROMPT = 'And God said';

/** @param {{ROOT: string, rounds?: number, log?: (s: string) => void}} o */
export async function benchCfg({ ROOT, rounds = 7, log = () => {} }) {
  const e = await loadEngineNode('simd');
  const models = path.join(ROOT, 'models');
  const model = e.loadModel(new Uint8Array(fs.readFileSync(path.join(models, 'transformer.bin'))));
  const tok = e.loadTokenizer(new Uint8Array(fs.readFileSync(path.join(models, 'transformer_tokenizer.bin'))), model.vocab);
  const plainParams = { temperature: 1 };
  const cfgParams = { temperature: 1, cfg_scale: 1.5, negative_prompt: 'And the king' };
  try {
    // the text both runs append (forced, so each feeds the same positions)
    const ref = e.createSession(model, tok);
    ref.start(PROMPT, 1);
    const tokens = [];
    for (let i = 0; i < TOKENS; i++) {
      const r = ref.step({ ...plainParams, logit_bias: [[0, -Infinity], [1, -Infinity], [2, -Infinity]] }); // no end of text
      tokens.push(r.token);
    }
    ref.free();
    /** ms for the forced text under params, and the work counters @param {Record<string, any>} params */
    const run = (params) => {
      const s = e.createSession(model, tok);
      s.setRaw(false);
      s.start(PROMPT, 1);
      const t0 = performance.now();
      for (const t of tokens) s.advance(params, t);
      const ms = performance.now() - t0;
      const work = s.counters();
      s.free();
      return { ms, work };
    };
    run(plainParams); // warm-up
    run(cfgParams);
    const plain = [], guided = [], ratio = [];
    let work = null;
    for (let r = 0; r < rounds; r++) {
      const a = run(plainParams);
      const b = run(cfgParams);
      plain.push(a.ms);
      guided.push(b.ms);
      ratio.push(b.ms / a.ms);
      work = { plain: a.work, guided: b.work };
    }
    const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
    const out = {
      tokens: TOKENS,
      plain_us_per_token: Math.round((1e3 * median(plain)) / TOKENS),
      cfg_us_per_token: Math.round((1e3 * median(guided)) / TOKENS),
      cfg_over_plain: Math.round(100 * median(ratio)) / 100,
      positions_fed: { plain: work?.plain.tokens, cfg: work?.guided.tokens },
      passes: { plain: work?.plain.passes, cfg: work?.guided.passes },
    };
    log(`classifier-free guidance, shipped transformer, ${TOKENS} tokens: ${out.plain_us_per_token} µs a token plain, ${out.cfg_us_per_token} guided (${out.cfg_over_plain}×)`);
    return out;
  } finally {
    tok.free?.();
    model.free();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const out = await benchCfg({ ROOT, log: console.log });
  fs.mkdirSync(path.join(ROOT, 'build'), { recursive: true });
  fs.writeFileSync(path.join(ROOT, 'build/bench-cfg.json'), JSON.stringify({ date: new Date().toISOString(), ...out }, null, 2) + '\n');
  console.log(JSON.stringify(out, null, 2));
}
