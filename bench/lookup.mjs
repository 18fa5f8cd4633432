// lookup.mjs — the bench's section on prompt-lookup decoding: the shipped
// transformer (WASM SIMD, through the engine's JS wrapper), 240 tokens (or
// to the context's end) from two prompts, at T = 0 (checked against plain greedy decoding's text)
// and T = 1 (seed 1), for several draft lengths N and n-gram sizes M:
// drafts, acceptance, rounds, the model's forward passes (a round's batched
// pass counts once) and tokens per pass. No timing budget: the figures are
// counts, the same on every machine.
//
//   node bench/lookup.mjs      prints the table, writes build/bench-lookup.json
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { loadEngineNode } from '../web/src/engine/node.js';

const TOKENS = 240;
/** a prompt that quotes itself, and the speculative bench's */
const PROMPTS = {
  repeats: 'And God said, Let there be light: and there was light. And God saw the light, that it was good. And God said, Let there be',
  plain: 'And God said',
};
const SETTINGS = [[2, 1], [4, 2], [8, 2], [8, 3], [16, 3]];

/**
 * @param {{ROOT: string, log?: (s: string) => void}} o
 */
export async function benchLookup({ ROOT, log = () => {} }) {
  const e = await loadEngineNode('simd');
  const models = path.join(ROOT, 'models');
  const model = e.loadModel(new Uint8Array(fs.readFileSync(path.join(models, 'transformer.bin'))));
  const tok = e.loadTokenizer(new Uint8Array(fs.readFileSync(path.join(models, 'transformer_tokenizer.bin'))), model.vocab);
  const runs = [];
  try {
    for (const [promptName, prompt] of Object.entries(PROMPTS)) {
      // (a character-level model: a token a character, and BOS)
      const steps = Math.min(TOKENS, model.seqLen - prompt.length - 2);
      for (const temperature of [0, 1]) {
        // plain decoding: one pass a token
        const plain = e.createSession(model, tok);
        plain.start(prompt, 1);
        for (let i = 0; i < steps && !plain.finished; i++) plain.step({ temperature });
        const plainText = Array.from(plain.tokens).join(',');
        plain.free();
        for (const [n, ngram] of SETTINGS) {
          const s = e.createSession(model, tok);
          const sp = e.createPromptLookup(s, n, ngram);
          sp.start(prompt, 1);
          while (s.nGenerated < steps && !s.finished) sp.round({ temperature });
          if (s.nGenerated > steps) s.rewind(steps);
          const t = sp.totals();
          const w = sp.work();
          const run = {
            prompt: promptName, temperature, n, ngram, tokens: s.nGenerated,
            drafted: t.drafted, accepted: t.accepted, rounds: t.rounds,
            acceptance: t.drafted ? t.accepted / t.drafted : 0,
            passes: w.targetPasses, tokens_per_pass: t.rounds ? s.nGenerated / w.targetPasses : 0,
            positions_fed: w.targetFed,
            // at T = 0 the text is greedy decoding's
            ...(temperature === 0 ? { same_as_greedy: Array.from(s.tokens).join(',') === plainText } : {}),
          };
          runs.push(run);
          log(`prompt lookup ${promptName} T=${temperature} N=${n} M=${ngram}: ${run.accepted}/${run.drafted} accepted, ${run.tokens_per_pass.toFixed(2)} tokens a pass`);
          sp.free();
          s.free();
        }
      }
    }
  } finally {
    tok.free?.();
    model.free();
  }
  return runs;
}

/** The runs as a Markdown table. @param {Awaited<ReturnType<typeof benchLookup>>} runs */
export function lookupTable(runs) {
  const rows = ['| prompt | T | N | M | tokens | drafted | accepted | acceptance | passes | tokens per pass | T = 0: greedy\'s text |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |'];
  for (const r of runs) {
    rows.push(`| ${r.prompt} | ${r.temperature} | ${r.n} | ${r.ngram} | ${r.tokens} | ${r.drafted} | ${r.accepted} | ${(100 * r.acceptance).toFixed(1)} % | ${r.passes} | ${r.tokens_per_pass.toFixed(2)} | ${r.temperature === 0 ? (r.same_as_greedy ? 'yes' : 'NO') : '—'} |`);
  }
  return rows.join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const runs = await benchLookup({ ROOT });
  fs.mkdirSync(path.join(ROOT, 'build'), { recursive: true });
  fs.writeFileSync(path.join(ROOT, 'build/bench-lookup.json'), JSON.stringify({ date: new Date().toISOString(), runs }, null, 2) + '\n');
  console.log(lookupTable(runs));
  if (runs.some((r) => r.same_as_greedy === false)) process.exitCode = 1;
}
