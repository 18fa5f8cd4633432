// wllama.mjs — our engine against llama.cpp compiled to WebAssembly
// (@wllama/wllama, a devDependency) in the same Chromium, one thread each,
// on the same model: the bench's stories15M-shaped random model with the
// 32 000-token vocabulary (build/bench/model32k.bin, written by bench-native),
// as GGUF (tests/helpers/gguf-files.js: bench32k-f32, bench32k-q8_0).
//
// Each round, interleaved: wllama F32, wllama Q8_0, ours F32 (the llama2.c
// file), ours Q8_0 (the GGUF, once the engine reads GGUF files): greedy
// decoding of GEN tokens after BOS.  wllama's rate is its own count
// (timings.predicted_per_second: the generated tokens, the prompt's pass
// excluded), with its defaults (F16 KV cache, flash attention as it
// chooses); ours is a session's steps over the same count (the forward
// pass, the warp and the draw, each step's token forced so that the
// end-of-text token cannot stop it; no raw distribution), timed in the page.  Budget:
// ours Q8_0 at least 2.5 times wllama's Q8_0.
//
// bench/run.sh runs it after page.mjs; it adds a "wllama" section to
// build/bench.json and prints its rows.   node bench/wllama.mjs  (BENCH_QUICK=1: fewer rounds)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';

import { serveStatic } from '../tests/e2e/server.js';
import { ggufMissing, ggufPath } from '../tests/helpers/gguf-files.js';
import { LLAMA2C_DIR } from '../tests/helpers/vocab.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CHROMIUM = '/usr/bin/chromium';
const QUICK = process.env.BENCH_QUICK === '1';
const ROUNDS = QUICK ? 1 : 3;
const GEN = 200;
export const WLLAMA_BUDGET = { ours_q8_0_over_wllama_q8_0: 2.5 };

const round = (x, d = 3) => (Number.isFinite(x) ? Number(x.toPrecision(d)) : null);
const median = (/** @type {number[]} */ xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN;
};
const log = (/** @type {any[]} */ ...a) => process.stderr.write(`  wllama: ${a.join(' ')}\n`);

const PAGE = `<!doctype html>
<meta charset="utf-8">
<script type="module">
import { Wllama } from '/wllama/esm/index.js';
import { loadEngine } from '/web/src/engine/engine.js';
const quiet = { debug() {}, log() {}, warn() {}, error: (...a) => console.error(...a) };
let engine = null;
window.bench = {
  async wllama(url, n) {
    const w = new Wllama({ default: '/wllama/esm/wasm/wllama.wasm' }, { logger: quiet, suppressNativeLog: true });
    const blob = await (await fetch(url)).blob();
    await w.loadModel([blob], { n_threads: 1, n_gpu_layers: 0, n_ctx: 512 });
    const r = await w.createCompletion({ prompt: '', max_tokens: n, temperature: 0, top_k: 1, ignore_eos: true, cache_prompt: false });
    await w.exit();
    return { tok_s: r.timings.predicted_per_second, n: r.timings.predicted_n };
  },
  async ours(url, n) {
    engine ??= await loadEngine(fetch('/build/engine-simd.wasm'));
    const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
    let model;
    try { model = engine.loadModel(bytes); } catch (e) { return { error: String(e.message || e) }; }
    // a llama2.c checkpoint has no tokenizer of its own: Llama 2's (a GGUF carries its own)
    const tok = url.endsWith('.bin') ? engine.loadTokenizer(new Uint8Array(await (await fetch('/llama2c/tokenizer.bin')).arrayBuffer())) : null;
    const s = engine.createSession(model, tok);
    s.setRaw(false);
    s.start('', 1);
    // each step forced to a token (the forward pass, the warp and the draw
    // run as in generation; the end-of-text token never stops it, as
    // wllama's ignore_eos)
    s.advance({ temperature: 0 }, 100); // warm-up: the first step
    const t0 = performance.now();
    for (let i = 0; i < n; i++) s.advance({ temperature: 0 }, 101 + i);
    const ms = performance.now() - t0;
    s.free();
    model.free?.();
    return { tok_s: n / (ms / 1000), n };
  },
};
window.benchReady = true;
</script>`;

/** Why the comparison cannot run ('' when it can). */
export function wllamaMissing() {
  if (!fs.existsSync(CHROMIUM)) return `${CHROMIUM} is missing`;
  if (!fs.existsSync(path.join(ROOT, 'node_modules/@wllama/wllama/esm/wasm/wllama.wasm'))) return '@wllama/wllama is missing (npm ci)';
  if (!fs.existsSync(path.join(ROOT, 'build/engine-simd.wasm'))) return 'build/engine-simd.wasm is missing (./build.sh)';
  if (!fs.existsSync(path.join(LLAMA2C_DIR, 'tokenizer.bin'))) return `${LLAMA2C_DIR}/tokenizer.bin is missing (the Llama 2 tokenizer, for our session on the llama2.c file)`;
  return ggufMissing('bench32k-f32');
}

export async function runWllamaBench() {
  const why = wllamaMissing();
  if (why) return { skipped: why };
  const files = { f32: ggufPath('bench32k-f32'), q8_0: ggufPath('bench32k-q8_0') };
  const server = await serveStatic(null, {
    mounts: { '/wllama/': path.join(ROOT, 'node_modules/@wllama/wllama'), '/web/': path.join(ROOT, 'web'), '/build/': path.join(ROOT, 'build'), '/llama2c/': LLAMA2C_DIR },
    files: { '/bench.html': PAGE },
    headers: { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp', 'cross-origin-resource-policy': 'same-origin' },
  });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
  const loadBefore = os.loadavg().map((x) => round(x, 2));
  try {
    const page = await browser.newPage();
    await page.goto(`${server.url}bench.html`);
    await page.waitForFunction(() => /** @type {any} */ (window).benchReady === true);
    const rel = (/** @type {string} */ f) => `/${path.relative(ROOT, f)}`;
    /** @type {Record<string, number[]>} */
    const rates = { wllama_f32: [], wllama_q8_0: [], ours_f32: [], ours_q8_0: [] };
    /** @type {string | null} */
    let oursQ8Error = null;
    const cases = /** @type {const} */ ([
      ['wllama_f32', 'wllama', rel(files.f32)],
      ['wllama_q8_0', 'wllama', rel(files.q8_0)],
      ['ours_f32', 'ours', rel(path.join(ROOT, 'build/bench/model32k.bin'))],
      ['ours_q8_0', 'ours', rel(files.q8_0)],
    ]);
    for (let r = 0; r < ROUNDS; r++) {
      for (const [key, who, url] of cases) {
        if (key === 'ours_q8_0' && oursQ8Error) continue;
        const res = await page.evaluate(([w, u, n]) => /** @type {any} */ (window).bench[w](u, n), /** @type {[string, string, number]} */ ([who, url, GEN]));
        if (res.error) {
          oursQ8Error = res.error;
          log(`${key}: ${res.error}`);
          continue;
        }
        rates[key].push(res.tok_s);
        log(`${key} round ${r + 1}: ${res.tok_s.toFixed(1)} tok/s`);
      }
    }
    const m = Object.fromEntries(Object.entries(rates).map(([k, v]) => [k, round(median(v))]));
    return {
      what: `greedy decoding of ${GEN} tokens after BOS, one thread, in Chromium: the bench's stories15M-shaped model with the 32 000-token vocabulary as GGUF (ours F32: its llama2.c file); medians of ${ROUNDS} interleaved rounds`,
      tok_s: m,
      spread_tok_s: Object.fromEntries(Object.entries(rates).map(([k, v]) => [k, v.length ? { min: round(Math.min(...v)), max: round(Math.max(...v)) } : null])),
      ours_f32_over_wllama_f32: round(/** @type {number} */ (m.ours_f32) / /** @type {number} */ (m.wllama_f32)),
      ours_q8_0_over_wllama_q8_0: oursQ8Error ? null : round(/** @type {number} */ (m.ours_q8_0) / /** @type {number} */ (m.wllama_q8_0)),
      ours_q8_0_error: oursQ8Error,
      chromium: browser.version(),
      load_average: loadBefore,
      load_average_after: os.loadavg().map((x) => round(x, 2)),
    };
  } finally {
    await browser.close();
    await server.close();
  }
}

/** @param {any} w */
export function wllamaBudgets(w) {
  if (w.skipped || w.ours_q8_0_over_wllama_q8_0 === null) return {};
  return {
    wllama_ours_q8_0_over_wllama_q8_0: {
      value: w.ours_q8_0_over_wllama_q8_0, min: WLLAMA_BUDGET.ours_q8_0_over_wllama_q8_0,
      pass: w.ours_q8_0_over_wllama_q8_0 >= WLLAMA_BUDGET.ours_q8_0_over_wllama_q8_0,
    },
  };
}

/** @param {any} w */
export function wllamaTable(w) {
  if (w.skipped) return `Ours against wllama (llama.cpp in WebAssembly): skipped — ${w.skipped}`;
  const t = w.tok_s;
  const lines = [
    'Ours against wllama (llama.cpp in WebAssembly), Chromium, one thread, tokens/s (median)',
    `  F32:   wllama ${t.wllama_f32}   ours ${t.ours_f32}   ours/wllama ${w.ours_f32_over_wllama_f32}`,
    w.ours_q8_0_error
      ? `  Q8_0:  wllama ${t.wllama_q8_0}   ours: not measured — ${w.ours_q8_0_error}`
      : `  Q8_0:  wllama ${t.wllama_q8_0}   ours ${t.ours_q8_0}   ours/wllama ${w.ours_q8_0_over_wllama_q8_0}  (budget ≥ ${WLLAMA_BUDGET.ours_q8_0_over_wllama_q8_0}: ${w.ours_q8_0_over_wllama_q8_0 >= WLLAMA_BUDGET.ours_q8_0_over_wllama_q8_0 ? 'met' : 'MISS'})`,
    `  Chromium ${w.chromium}; load average ${w.load_average.join(' ')} before, ${w.load_average_after.join(' ')} after`,
  ];
  return lines.join('\n');
}

// run as a script: measure, add to build/bench.json, print the rows
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const w = await runWllamaBench();
  const file = path.join(ROOT, 'build/bench.json');
  const result = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : {};
  result.wllama = w;
  result.budgets = { ...Object.fromEntries(Object.entries(result.budgets ?? {}).filter(([k]) => !k.startsWith('wllama_'))), ...wllamaBudgets(w) };
  result.budgets_met = Object.values(result.budgets).every((/** @type {any} */ b) => b.pass);
  fs.writeFileSync(file, JSON.stringify(result, null, 2) + '\n');
  console.log('');
  console.log(wllamaTable(w));
}
