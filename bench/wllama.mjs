// wllama.mjs — our engine against llama.cpp compiled to WebAssembly
// (@wllama/wllama, a devDependency), on the same GGUF files in the same
// Chromium, one thread each: what a figure published against another engine
// must be (docs/engine.md, "Measuring against another engine").
//
// - Each engine by its own wall clock: wllama's own count of its generation
//   (llama.cpp's timings: predicted_n tokens in predicted_ms, the prompt's
//   pass excluded), ours by performance.now() around our session's steps
//   (the forward pass, the warp and the draw; each step's token forced so
//   the end-of-text token cannot stop it, as wllama's ignore_eos; the first
//   step, the prompt's, excluded).  No CPU time: a Chromium's processes
//   include threads neither engine runs on.  Beside wllama's own count, the
//   page's clock around its whole call (the prompt's pass and the request's
//   way to its Worker and back included) is recorded.
// - One thread each: wllama with n_threads 1 (then it starts no pthreads),
//   ours on the page's thread.
// - Interleaved rounds (ROUNDS, at least 7): each round runs every file with
//   both engines, the order of the two turned round every other round; the
//   ratio ours / wllama is taken within each round; medians with their
//   spread (min–max and the quartiles) over the rounds.
// - The machine's load: /proc/loadavg before and after every round.
//
// Files: the bench's stories15M-shaped model with the 32 000-token
// vocabulary (bench32k) and with a 512-token one (bench512), F32 and Q8_0
// (tests/helpers/gguf-files.js).  Greedy decoding of GEN tokens after BOS.
//
// Budget (a goal: a miss prints MISS): our Q8_0 generation on bench32k at
// least 2.5 times wllama's (the median of the rounds' ratios).
//
//   node bench/wllama.mjs   (BENCH_QUICK=1: one round; WLLAMA_ROUNDS=N)
// bench/run.sh runs it after gguf.mjs: it writes the "wllama" section of
// build/bench.json and prints its rows.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';

import { serveStatic } from '../tests/e2e/server.js';
import { ggufMissing, ggufPath } from '../tests/helpers/gguf-files.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CHROMIUM = '/usr/bin/chromium';
const QUICK = process.env.BENCH_QUICK === '1';
const ROUNDS = Number(process.env.WLLAMA_ROUNDS ?? (QUICK ? 1 : 7));
const GEN = 200;
export const WLLAMA_BUDGET = { ours_q8_0_over_wllama_q8_0: 2.5 };
/** the files compared: [model, type] */
const FILES = /** @type {const} */ ([['bench32k', 'q8_0'], ['bench32k', 'f32'], ['bench512', 'q8_0'], ['bench512', 'f32']]);

const round = (/** @type {number} */ x, d = 3) => (Number.isFinite(x) ? Number(x.toPrecision(d)) : null);
/** @param {number[]} xs @param {number} q */
function quantile(xs, q) {
  const s = [...xs].sort((a, b) => a - b);
  if (!s.length) return NaN;
  const at = (s.length - 1) * q;
  const lo = Math.floor(at);
  return s[lo] + (s[Math.min(s.length - 1, lo + 1)] - s[lo]) * (at - lo);
}
/** median, quartiles and min–max of a series @param {number[]} xs */
const stats = (xs) => ({
  median: round(quantile(xs, 0.5)), q1: round(quantile(xs, 0.25)), q3: round(quantile(xs, 0.75)),
  min: round(Math.min(...xs)), max: round(Math.max(...xs)), n: xs.length,
});
const log = (/** @type {any[]} */ ...a) => process.stderr.write(`  wllama: ${a.join(' ')}\n`);
/** the 1, 5 and 15 minute load averages */
const loadavg = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number);

const PAGE = `<!doctype html>
<meta charset="utf-8">
<link rel="icon" href="data:,">
<script type="module">
import { Wllama } from '/wllama/esm/index.js';
import { loadEngine } from '/web/src/engine/engine.js';
const quiet = { debug() {}, log() {}, warn() {}, error: (...a) => console.error(...a) };
const bytesOf = async (url) => new Uint8Array(await (await fetch(url)).arrayBuffer());
let engine = null, w = null, model = null, session = null;
window.bench = {
  async wllamaLoad(url) {
    w = new Wllama({ default: '/wllama/esm/wasm/wllama.wasm' }, { logger: quiet, suppressNativeLog: true });
    await w.loadModel([await (await fetch(url)).blob()], { n_threads: 1, n_gpu_layers: 0, n_ctx: 512 });
    return { threads: w.useMultiThread ? w.nbThreads : 1 };
  },
  async wllamaGen(n) {
    const t0 = performance.now();
    const r = await w.createCompletion({ prompt: '', max_tokens: n, temperature: 0, top_k: 1, ignore_eos: true, cache_prompt: false });
    const outer = performance.now() - t0;
    await w.exit();
    w = null;
    return { n: r.timings.predicted_n, ms: r.timings.predicted_ms, outerMs: outer };
  },
  async oursLoad(url) {
    engine ??= await loadEngine(fetch('/build/engine-simd.wasm'));
    model = engine.loadModel(await bytesOf(url));
    session = engine.createSession(model, null); // a GGUF carries its tokenizer
    session.setRaw(false);
    session.start('', 1);
    session.advance({ temperature: 0 }, 100); // the prompt's step (not timed, as wllama's prompt pass)
    return { threads: 1 };
  },
  oursGen(n) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) session.advance({ temperature: 0 }, 101 + i);
    const ms = performance.now() - t0;
    session.free();
    model.free?.();
    return { n, ms, outerMs: ms };
  },
};
window.benchReady = true;
</script>`;

/** Why the comparison cannot run here ('' when it can). */
export function wllamaMissing() {
  if (!fs.existsSync(CHROMIUM)) return `${CHROMIUM} is missing`;
  if (!fs.existsSync(path.join(ROOT, 'node_modules/@wllama/wllama/esm/wasm/wllama.wasm'))) return '@wllama/wllama is missing (npm ci)';
  if (!fs.existsSync(path.join(ROOT, 'build/engine-simd.wasm'))) return 'build/engine-simd.wasm is missing (./build.sh)';
  for (const [m, t] of FILES) {
    const why = ggufMissing(`${m}-${t}`);
    if (why) return why;
  }
  return '';
}

export async function runWllama() {
  const why = wllamaMissing();
  if (why) return { skipped: why };
  const rel = (/** @type {string} */ f) => `/${path.relative(ROOT, f)}`;
  const files = FILES.map(([m, t]) => ({ key: `${m}_${t}`, url: rel(ggufPath(`${m}-${t}`)) }));
  const server = await serveStatic(null, {
    mounts: { '/wllama/': path.join(ROOT, 'node_modules/@wllama/wllama'), '/web/': path.join(ROOT, 'web'), '/build/': path.join(ROOT, 'build') },
    files: { '/bench.html': PAGE },
    headers: { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp', 'cross-origin-resource-policy': 'same-origin' },
  });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
  /** @type {Record<string, {wllama: number[], ours: number[], wllama_outer: number[], ratio: number[]}>} */
  const series = Object.fromEntries(files.map((f) => [f.key, { wllama: [], ours: [], wllama_outer: [], ratio: [] }]));
  /** @type {Array<{round: number, before: number[], after: number[], order: string}>} */
  const rounds = [];
  const started = new Date().toISOString();
  try {
    const page = await browser.newPage();
    page.on('console', (m) => { if (m.type() === 'error') log(`page: ${m.text()}`); });
    await page.goto(`${server.url}bench.html`);
    await page.waitForFunction(() => /** @type {any} */ (window).benchReady === true);
    /** @param {string} fn @param {any[]} args */
    const inPage = (fn, ...args) => page.evaluate(([f, a]) => /** @type {any} */ (window).bench[f](...a), /** @type {[string, any[]]} */ ([fn, args]));
    /** one generation: tokens per second by the engine's own clock (and the page's clock around wllama's call) */
    const gen = async (/** @type {'wllama' | 'ours'} */ who, /** @type {string} */ url) => {
      const { threads } = await inPage(`${who}Load`, url);
      if (threads !== 1) throw new Error(`${who} runs ${threads} threads, not one`);
      const r = await inPage(`${who}Gen`, GEN);
      if (r.n !== GEN) throw new Error(`${who} generated ${r.n} tokens, not ${GEN}`);
      return { tokS: r.n / (r.ms / 1000), outer: r.n / (r.outerMs / 1000) };
    };
    // a first generation of each, not counted (each engine's code compiled and warmed up)
    await gen('wllama', files[0].url);
    await gen('ours', files[0].url);
    for (let r = 0; r < ROUNDS; r++) {
      const order = /** @type {const} */ (r % 2 ? ['ours', 'wllama'] : ['wllama', 'ours']);
      const before = loadavg();
      for (const f of files) {
        /** @type {Record<string, {tokS: number, outer: number}>} */
        const got = {};
        for (const who of order) got[who] = await gen(who, f.url);
        const s = series[f.key];
        s.wllama.push(got.wllama.tokS);
        s.wllama_outer.push(got.wllama.outer);
        s.ours.push(got.ours.tokS);
        s.ratio.push(got.ours.tokS / got.wllama.tokS);
      }
      const after = loadavg();
      rounds.push({ round: r + 1, before, after, order: order.join(' then ') });
      log(`round ${r + 1}/${ROUNDS} (load ${before.join(' ')} -> ${after.join(' ')}): ${files.map((f) => `${f.key} ${series[f.key].ours.at(-1)?.toFixed(0)} / ${series[f.key].wllama.at(-1)?.toFixed(1)} = ${series[f.key].ratio.at(-1)?.toFixed(2)}×`).join(', ')}`);
    }
  } finally {
    await browser.close();
    await server.close();
  }
  return {
    what: `greedy decoding of ${GEN} tokens after BOS, one thread each, in Chromium, the same GGUF files; each engine by its own wall clock (wllama: llama.cpp's timings.predicted_n / predicted_ms; ours: performance.now() around the session's steps); ${ROUNDS} interleaved rounds, the order of the two engines turned every other round; ratios within a round; medians with quartiles and min–max`,
    chromium: browser.version(),
    started,
    finished: new Date().toISOString(),
    gen: GEN,
    rounds_n: ROUNDS,
    tok_s: Object.fromEntries(files.map((f) => [f.key, { ours: stats(series[f.key].ours), wllama: stats(series[f.key].wllama), wllama_page_clock: stats(series[f.key].wllama_outer) }])),
    ours_over_wllama: Object.fromEntries(files.map((f) => [f.key, stats(series[f.key].ratio)])),
    series,
    load: rounds,
  };
}

/** @param {any} w */
export function wllamaBudgets(w) {
  /** @type {Record<string, {value: number, min: number, pass: boolean}>} */
  const b = {};
  const r = w.ours_over_wllama?.bench32k_q8_0?.median;
  if (r != null) b.gguf_ours_q8_0_over_wllama_q8_0 = { value: r, min: WLLAMA_BUDGET.ours_q8_0_over_wllama_q8_0, pass: r >= WLLAMA_BUDGET.ours_q8_0_over_wllama_q8_0 };
  return b;
}

/** @param {any} w */
export function wllamaTable(w) {
  if (w.skipped) return `Ours against wllama: skipped — ${w.skipped}`;
  const b = wllamaBudgets(w).gguf_ours_q8_0_over_wllama_q8_0;
  const span = (/** @type {any} */ s) => `${s.median} (${s.min}–${s.max})`;
  const lines = [`Ours against wllama (llama.cpp in WebAssembly), Chromium, one thread each, ${w.gen} tokens, each by its own clock: tokens/s, median (min–max) of ${w.rounds_n} rounds`];
  lines.push(`  ${'file'.padEnd(16)}${'ours'.padStart(20)}${'wllama'.padStart(22)}${'ours / wllama'.padStart(24)}`);
  for (const [key, t] of Object.entries(w.tok_s)) {
    const r = w.ours_over_wllama[key];
    lines.push(`  ${key.padEnd(16)}${span(t.ours).padStart(20)}${span(t.wllama).padStart(22)}${`${r.median}× (${r.min}–${r.max})`.padStart(24)}`
      + (key === 'bench32k_q8_0' && b ? `   budget ≥ ${b.min}×  ${b.pass ? 'PASS' : 'MISS'}` : ''));
  }
  const before = w.load.map((/** @type {any} */ l) => l.before[0]);
  const after = w.load.map((/** @type {any} */ l) => l.after[0]);
  lines.push(`  load average (1 min) before the rounds ${Math.min(...before)}–${Math.max(...before)}, after ${Math.min(...after)}–${Math.max(...after)}; ${w.started} – ${w.finished}; Chromium ${w.chromium}`);
  return lines.join('\n');
}

// run as a script: measure, add to build/bench.json, print the rows
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const w = await runWllama();
  const file = path.join(ROOT, 'build/bench.json');
  const result = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : {};
  if (result.gguf) delete result.gguf.wllama; // (gguf.mjs's section until 2026-12-07)
  result.wllama = w;
  result.budgets = { ...Object.fromEntries(Object.entries(result.budgets ?? {}).filter(([k]) => !k.includes('wllama'))), ...(w.skipped ? {} : wllamaBudgets(w)) };
  result.budgets_met = Object.values(result.budgets).every((/** @type {any} */ x) => x.pass);
  fs.writeFileSync(file, JSON.stringify(result, null, 2) + '\n');
  console.log('');
  console.log(wllamaTable(w));
}
