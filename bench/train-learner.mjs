// train-learner.mjs — what a learner gets in 60 seconds of training in
// Chromium (Debian's, driven by playwright-core), in a Worker, as the page's
// training Worker runs it (bench/train-worker.js over the training engine,
// build/engine-train-simd.wasm, served from the repository's root):
//
// - the names list (/usr/share/dict/propernames): the held-out loss beside
//   the bigram's on the same held-out predictions (counted on the training
//   lines: the bigram chapter's model, add-0.1) — the budget: below it
//   within 60 s, a transformer seeing more than one character back; and
//   what a schedule of the whole 60 s does to so short a text (overfits);
// - the King James text (models/kjv.py's, one verse a line): the loss and
//   samples at 10, 30 and 60 seconds.
//
// The steps of each run's schedule come from its Worker's first, short
// trainer (its speed times the budget), so that the learning rate's cosine
// ends near 60 s; the checkpoints' evaluation and sampling are not counted
// in the training time (each checkpoint says its own).
//
//   node bench/train-learner.mjs     (BENCH_QUICK=1: 20 s budgets)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { serveStatic } from '../tests/e2e/server.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
const QUICK = process.env.BENCH_QUICK === '1';
const SECONDS = QUICK ? 20 : 60;

const round = (x, d = 3) => Math.round(x * 10 ** d) / 10 ** d;

/** the runs: a text, its preset and settings, its checkpoints and prompts */
const MARKS = [SECONDS / 6, SECONDS / 2, SECONDS];
const RUNS = [
  // the names list is 10 000 tokens: 800 steps of 8 windows of 64 are 40
  // passes over it, where the held-out loss stops falling (a 60-second
  // schedule makes many more and overfits: the second run shows it)
  { key: 'names', text: 'names', preset: 'tiny', settings: { steps: 800 }, checkpoints: MARKS, prompts: [''], samples: [1, 2, 3, 4, 5, 6], evalWindows: 0 },
  { key: 'names_60s_schedule', text: 'names', preset: 'tiny', settings: {}, checkpoints: MARKS, prompts: [''], samples: [1, 2, 3], evalWindows: 0 },
  { key: 'kjv', text: 'kjv', preset: 'tiny', settings: {}, checkpoints: MARKS, prompts: ['And God said', ''], samples: [1, 2], evalWindows: 64 },
];

const HTML = `<!doctype html><meta charset="utf-8"><title>train bench</title>
<script type="module">
window.train = (job) => new Promise((resolve) => {
  const w = new Worker('/bench/train-worker.js', { type: 'module' });
  w.onmessage = ({ data }) => { w.terminate(); resolve(data); };
  w.onerror = (e) => resolve({ ok: false, error: e.message });
  w.postMessage(job);
});
</script>`;

/** @param {{texts: {names: string | null, kjv: string | null, missing: string[]}, log?: (s: string) => void}} o */
export async function benchTrainLearner({ texts, log = console.log }) {
  if (!fs.existsSync(CHROMIUM)) return { skipped: `no Chromium at ${CHROMIUM} (apt-get install chromium)` };
  const { chromium } = await import('playwright-core');
  const server = await serveStatic(ROOT, { files: { '/bench-train.html': HTML } });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  const out = { seconds: SECONDS, runs: {}, load_average: os.loadavg().map((x) => round(x, 2)) };
  try {
    const page = await browser.newPage();
    await page.goto(`${server.url}bench-train.html`);
    for (const run of RUNS) {
      const file = texts[run.text];
      if (!file) {
        out.runs[run.key] = { skipped: texts.missing.join('; ') };
        continue;
      }
      log(`train in Chromium: ${run.key}, ${run.preset}, ${SECONDS} s of training`);
      const job = { textUrl: `/${path.relative(ROOT, file)}`, preset: run.preset, settings: run.settings, seconds: SECONDS, checkpoints: run.checkpoints, seed: 1, prompts: run.prompts, samples: run.samples, evalWindows: run.evalWindows };
      const r = await page.evaluate((j) => window.train(j), job);
      if (!r.ok) throw new Error(`${run.key}: ${r.error}`);
      out.runs[run.key] = r.result;
      for (const c of r.result.checkpoints)
        log(`  ${c.seconds} s, step ${c.steps}: train ${c.train_loss === null ? '-' : round(c.train_loss)}, held out ${round(c.heldout_loss)} (bigram ${round(c.bigram_heldout_loss)})\n    ${c.samples.map((s) => JSON.stringify(s)).join('\n    ')}`);
      log(`  ${r.result.tokens_per_s} tokens/s over ${r.result.trained_seconds} s; ${r.result.steps_planned} steps planned (${r.result.plan.tokensPerStep} tokens each)`);
    }
    out.chromium = browser.version();
  } finally {
    await browser.close();
    await server.close();
  }
  out.load_average_after = os.loadavg().map((x) => round(x, 2));
  const names = out.runs.names;
  out.budgets = {};
  if (names?.checkpoints) {
    const last = names.checkpoints.at(-1);
    out.budgets.train_names_beats_bigram = { value: `${round(last.heldout_loss)} < ${round(last.bigram_heldout_loss)}`, budget: 'held-out loss below the bigram\'s after 60 s', pass: last.heldout_loss < last.bigram_heldout_loss };
  }
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { benchTexts } = await import('./train.mjs');
  const r = await benchTrainLearner({ texts: benchTexts() });
  console.log(JSON.stringify(r.budgets));
}
