// gguf.mjs — GGUF models: the forward pass on weights of each type and the
// quantized kernels' weight bandwidth, in one run.
//
// The model: the bench's stories15M-shaped random model with the 32 000-token
// vocabulary (build/bench/model32k.bin, written by bench-native) as GGUF
// (tests/helpers/gguf-files.js: bench32k-f32, -q8_0, -q4_0, -q4_k; the Q4_K
// file holds Q4_K where a row is a whole number of its 256-weight blocks —
// the FFN's down matrix, 768 wide — and Q4_0 in the 288-wide rows).
//
// 1. forward: tokens per second of sp_forward alone over positions 0..N-1
//    on each file, in the native harness (build/bench/bench-native, gcc -O2,
//    SSE2) and in the bench's WASM SIMD module (build/bench/bench-simd.wasm)
//    run by Chromium, interleaved: each round runs every type in both.  The
//    last logits must hash the same in both builds.  Beside each rate, the
//    weight bytes a token reads (every matrix once: the layers' seven and the
//    classifier, here the tied embedding) and what that is per second.
// 2. kernels: one product y = W x (sp_qmatmul, one input, as a forward pass
//    does per matrix) on a random matrix of each type, 1024 inputs, sized to
//    0.5 MB (in the caches: the kernel's arithmetic) and 64 MB (twice the
//    L3: memory); the weight bytes it reads per second.
// (Our engine against llama.cpp in WebAssembly, wllama, is bench/wllama.mjs.)
//
// Budget (a goal: a miss prints MISS): our WASM SIMD forward pass on Q8_0 at
// least 1.5 times its rate on F32 (a round's ratio, the median of the
// rounds).
//
// bench/run.sh runs it after page.mjs; it adds a "gguf" section to
// build/bench.json and prints its rows.
//   node bench/gguf.mjs   (BENCH_QUICK=1: fewer rounds; GGUF_PARTS=forward,kernels: some parts only)
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';

import { serveStatic } from '../tests/e2e/server.js';
import { readGguf } from '../tests/helpers/gguf.js';
import { ggufMissing, ggufPath } from '../tests/helpers/gguf-files.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(ROOT, 'build/bench');
const CHROMIUM = '/usr/bin/chromium';
const QUICK = process.env.BENCH_QUICK === '1';
const PARTS = (process.env.GGUF_PARTS ?? 'forward,kernels').split(',');
const ROUNDS = QUICK ? 1 : 5; // forward, kernels
const N = 256; // forward: positions per run (the model's whole context)
export const GGUF_BUDGET = { q8_0_over_f32: 1.5 };

const TYPES = /** @type {const} */ (['f32', 'q8_0', 'q4_0', 'q4_k']);
/** the kernels: ggml's type ids (model/gguf.h) */
const KERNELS = /** @type {const} */ ([['F32', 0], ['F16', 1], ['BF16', 30], ['Q8_0', 8], ['Q4_0', 2], ['Q4_K', 12], ['Q6_K', 14]]);
const KERNEL_COLS = 1024;
const KERNEL_MB = /** @type {const} */ ([['cache', 0.5], ['memory', 64]]);

const round = (/** @type {number} */ x, d = 3) => (Number.isFinite(x) ? Number(x.toPrecision(d)) : null);
const median = (/** @type {number[]} */ xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN;
};
const spread = (/** @type {number[]} */ xs) => (xs.length ? { min: round(Math.min(...xs)), max: round(Math.max(...xs)), n: xs.length } : null);
const log = (/** @type {any[]} */ ...a) => process.stderr.write(`  gguf: ${a.join(' ')}\n`);

const PAGE = `<!doctype html>
<meta charset="utf-8">
<script type="module">
const bytesOf = async (url) => new Uint8Array(await (await fetch(url)).arrayBuffer());
let h = null;
window.bench = {
  // the bench's WASM SIMD module (bench_core.c): the forward pass alone, the kernels
  async harness() {
    const mod = await WebAssembly.compile(await bytesOf('/build/bench/bench-simd.wasm'));
    const imports = {};
    for (const imp of WebAssembly.Module.imports(mod)) (imports[imp.module] ??= {})[imp.name] = () => 0;
    h = (await WebAssembly.instantiate(mod, imports)).exports;
    h._initialize?.();
    return true;
  },
  async load(slot, url) {
    const b = await bytesOf(url);
    const p = h.malloc(b.length);
    if (!p) return 1;
    new Uint8Array(h.memory.buffer, p, b.length).set(b);
    return h.bench_gguf_load(slot, p, b.length); // takes ownership
  },
  forward(slot, n) {
    const t0 = performance.now();
    const r = h.bench_gguf_forward(slot, n);
    return { ns: (performance.now() - t0) * 1e6, r };
  },
  qmat(type, cols, mb) { return h.bench_qmat_init(type, cols, mb); },
  qmatRun(n) {
    const t0 = performance.now();
    const r = h.bench_qmat_run(n);
    return { ns: (performance.now() - t0) * 1e6, r };
  },
};
window.benchReady = true;
</script>`;

/**
 * CPU time (seconds) of a process and its descendants, from /proc (clock
 * ticks: 10 ms): the machine is shared, and a timed run's wall time counts
 * the time it waited for a core; its CPU time does not.
 * @param {number} root @param {number[]} [exclude] pids left out with their descendants
 */
function cpuSeconds(root, exclude = [], withRoot = true) {
  /** @type {Map<number, {ppid: number, ticks: number}>} */
  const procs = new Map();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const st = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
      procs.set(Number(d), { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) });
    } catch { /* gone */ }
  }
  /** @type {Map<number, number[]>} */
  const kids = new Map();
  for (const [pid, p] of procs) kids.set(p.ppid, [...(kids.get(p.ppid) ?? []), pid]);
  let ticks = 0;
  const todo = [root];
  while (todo.length) {
    const pid = /** @type {number} */ (todo.pop());
    if (exclude.includes(pid)) continue;
    if (pid !== root || withRoot) ticks += procs.get(pid)?.ticks ?? 0;
    todo.push(...(kids.get(pid) ?? []));
  }
  return ticks / CLK_TCK;
}
const CLK_TCK = 100;

/** The native harness (bench-native serve), over its line protocol. */
class Native {
  constructor() {
    this.child = spawn(path.join(OUT, 'bench-native'), ['serve'], { stdio: ['pipe', 'pipe', 'inherit'] });
    /** @type {((line: string) => void)[]} */
    this.waiting = [];
    readline.createInterface({ input: /** @type {any} */ (this.child.stdout) }).on('line', (line) => this.waiting.shift()?.(line));
  }
  /** @param {string} line @returns {Promise<number[]>} */
  cmd(line) {
    return new Promise((resolve, reject) => {
      this.waiting.push((a) => (a.startsWith('error') ? reject(new Error(`native: ${line}: ${a}`)) : resolve(a.split(' ').map(Number))));
      /** @type {any} */ (this.child.stdin).write(line + '\n');
    });
  }
  close() { /** @type {any} */ (this.child.stdin).end('quit\n'); }
}

/** The weight bytes a token reads: every 2-D weight once (the embedding only when it is also the classifier), by type. @param {string} file */
export function weightBytes(file) {
  const { tensors } = readGguf(new Uint8Array(fs.readFileSync(file)));
  const BLOCK = /** @type {Record<string, [number, number]>} */ ({ F32: [1, 4], F16: [1, 2], BF16: [1, 2], Q8_0: [32, 34], Q4_0: [32, 18], Q4_K: [256, 144], Q6_K: [256, 210] });
  const tied = !tensors.some((t) => t.name === 'output.weight');
  /** @type {Record<string, number>} */
  const byType = {};
  let bytes = 0;
  for (const t of tensors) {
    if (t.shape.length !== 2 || (t.name === 'token_embd.weight' && !tied)) continue;
    const [elems, size] = BLOCK[/** @type {string} */ (t.type)];
    const b = (t.shape[0] * t.shape[1] / elems) * size;
    bytes += b;
    byType[/** @type {string} */ (t.type)] = (byType[/** @type {string} */ (t.type)] ?? 0) + 1;
  }
  return { bytes, matrices: byType };
}

/** Why the run cannot happen ('' when it can). */
export function ggufBenchMissing() {
  if (!fs.existsSync(CHROMIUM)) return `${CHROMIUM} is missing`;
  for (const f of ['bench-simd.wasm', 'bench-native']) if (!fs.existsSync(path.join(OUT, f))) return `build/bench/${f} is missing (bench/run.sh builds it)`;
  for (const t of TYPES) {
    const why = ggufMissing(`bench32k-${t}`);
    if (why) return why;
  }
  return '';
}

/** Batch size whose run takes about targetMs, found by doubling. @param {(n: number) => Promise<{ns: number}>} run */
async function calibrate(run, targetMs) {
  let n = 1;
  for (;;) {
    const { ns } = await run(n);
    if (ns >= targetMs * 1e6 || n >= 1 << 16) return Math.max(1, Math.round((n * targetMs * 1e6) / Math.max(ns, 1)));
    n *= ns < targetMs * 1e5 ? 8 : 2; // (a CPU time under a tick reads 0: eight times more)
  }
}

export async function runGgufBench() {
  const why = ggufBenchMissing();
  if (why) return { skipped: why };
  const files = Object.fromEntries(TYPES.map((t) => [t, ggufPath(`bench32k-${t}`)]));
  const rel = (/** @type {string} */ f) => `/${path.relative(ROOT, f)}`;
  const server = await serveStatic(null, {
    mounts: { '/build/': path.join(ROOT, 'build') },
    files: { '/bench.html': PAGE },
    headers: { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp', 'cross-origin-resource-policy': 'same-origin' },
  });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
  const native = new Native();
  const nativePid = /** @type {number} */ (native.child.pid);
  const loadBefore = os.loadavg().map((x) => round(x, 2));
  /** @type {any} */
  const out = { chromium: browser.version(), clocks: 'wall: the harness\'s own clock (clock_gettime, performance.now); cpu: the CPU time of the process that ran it (bench-native; Chromium\'s processes), from /proc' };
  try {
    const page = await browser.newPage();
    await page.goto(`${server.url}bench.html`);
    await page.waitForFunction(() => /** @type {any} */ (window).benchReady === true);
    /** @param {string} fn @param {any[]} args */
    const inPage = (fn, ...args) => page.evaluate(([f, a]) => /** @type {any} */ (window).bench[f](...a), /** @type {[string, any[]]} */ ([fn, args]));
    /** a timed call in the page or the native harness: its result, wall seconds, CPU seconds */
    const inPageTimed = async (/** @type {string} */ fn, /** @type {any[]} */ ...args) => {
      const c0 = cpuSeconds(process.pid, [nativePid], false);
      const r = await inPage(fn, ...args);
      return { r, cpu: cpuSeconds(process.pid, [nativePid], false) - c0 };
    };
    const nativeTimed = async (/** @type {string} */ line) => {
      const c0 = cpuSeconds(nativePid);
      const [ns, h] = await native.cmd(line);
      return { ns, h, cpu: cpuSeconds(nativePid) - c0 };
    };
    await inPage('harness');
    const BUILDS = /** @type {const} */ (['native', 'wasm_simd']);
    /** @typedef {{native: number[], wasm_simd: number[]}} Series */
    const series = () => /** @type {Series} */ ({ native: [], wasm_simd: [] });

    // ---- 1. the forward pass on each type ----------------------------------
    if (PARTS.includes('forward')) {
      const weights = Object.fromEntries(TYPES.map((t) => [t, weightBytes(files[t])]));
      for (const [slot, t] of TYPES.entries()) {
        if ((await native.cmd(`gguf_load ${slot} ${files[t]}`))[0] !== 0) throw new Error(`native: cannot load ${files[t]}`);
        if ((await inPage('load', slot, rel(files[t]))) !== 0) throw new Error(`WASM SIMD: cannot load ${files[t]}`);
        await native.cmd(`gguf_forward ${slot} 16`); // warm-up (V8 tiers up)
        await inPage('forward', slot, 16);
      }
      /** @type {Record<string, {wall: Series, cpu: Series}>} */
      const rates = Object.fromEntries(TYPES.map((t) => [t, { wall: series(), cpu: series() }]));
      /** @type {Record<string, {native?: number, wasm_simd?: number}>} */
      const hashes = Object.fromEntries(TYPES.map((t) => [t, {}]));
      for (let r = 0; r < ROUNDS; r++) {
        for (const [slot, t] of TYPES.entries()) {
          const n = await nativeTimed(`gguf_forward ${slot} ${N}`);
          rates[t].wall.native.push(N / (n.ns / 1e9));
          rates[t].cpu.native.push(N / n.cpu);
          hashes[t].native = n.h;
          const w = await inPageTimed('forward', slot, N);
          rates[t].wall.wasm_simd.push(N / (w.r.ns / 1e9));
          rates[t].cpu.wasm_simd.push(N / w.cpu);
          hashes[t].wasm_simd = w.r.r;
        }
        log(`forward round ${r + 1} (tok/s, native / WASM SIMD, by CPU time): ${TYPES.map((t) => `${t} ${rates[t].cpu.native.at(-1)?.toFixed(0)} / ${rates[t].cpu.wasm_simd.at(-1)?.toFixed(0)}`).join(', ')}`);
      }
      /** medians per type, build and clock */
      const med = (/** @type {(t: string, c: 'wall' | 'cpu', b: 'native' | 'wasm_simd') => number[]} */ f) => Object.fromEntries(TYPES.map((t) => [t,
        Object.fromEntries(/** @type {const} */ (['cpu', 'wall']).map((c) => [c, Object.fromEntries(BUILDS.map((b) => [b, round(median(f(t, c, b)))]))]))]));
      const overF32 = (/** @type {string} */ t, /** @type {'wall' | 'cpu'} */ c, /** @type {'native' | 'wasm_simd'} */ b) => rates[t][c][b].map((x, i) => x / rates.f32[c][b][i]);
      const tokS = med((t, c, b) => rates[t][c][b]);
      out.forward = {
        what: `sp_forward alone over positions 0..${N - 1} of the stories15M-shaped model with the 32 000-token vocabulary as GGUF; native (gcc -O2, SSE2) and WASM SIMD in Chromium, interleaved; medians of ${ROUNDS} rounds; tokens per second of CPU time (cpu) and of wall time (wall)`,
        tok_s: tokS,
        over_f32: med(overF32),
        over_f32_spread: Object.fromEntries(TYPES.map((t) => [t, Object.fromEntries(BUILDS.map((b) => [b, spread(overF32(t, 'cpu', b))]))])),
        weight_mb_per_token: Object.fromEntries(TYPES.map((t) => [t, round(weights[t].bytes / 1e6)])),
        matrices: Object.fromEntries(TYPES.map((t) => [t, weights[t].matrices])),
        weight_gb_s_cpu: Object.fromEntries(TYPES.map((t) => [t, Object.fromEntries(BUILDS.map((b) => [b, round((/** @type {number} */ (tokS[t].cpu[b]) * weights[t].bytes) / 1e9)]))])),
        weight_gb_s_wall: Object.fromEntries(TYPES.map((t) => [t, Object.fromEntries(BUILDS.map((b) => [b, round((/** @type {number} */ (tokS[t].wall[b]) * weights[t].bytes) / 1e9)]))])),
        spread_tok_s_wall: Object.fromEntries(TYPES.map((t) => [t, Object.fromEntries(BUILDS.map((b) => [b, spread(rates[t].wall[b])]))])),
        spread_tok_s_cpu: Object.fromEntries(TYPES.map((t) => [t, Object.fromEntries(BUILDS.map((b) => [b, spread(rates[t].cpu[b])]))])),
        identical_native_wasm_simd: TYPES.every((t) => hashes[t].native === hashes[t].wasm_simd && /** @type {number} */ (hashes[t].native) >= 0),
      };
    }

    // ---- 2. each kernel's weight bandwidth --------------------------------
    if (PARTS.includes('kernels')) {
      /** @type {Record<string, Record<string, any>>} */
      const kernels = {};
      for (const [name, type] of KERNELS) {
        for (const [where, mb] of KERNEL_MB) {
          const bytes = (await native.cmd(`qmat ${type} ${KERNEL_COLS} ${mb}`))[0];
          const wBytes = await inPage('qmat', type, KERNEL_COLS, mb);
          if (bytes <= 0 || wBytes !== bytes) throw new Error(`kernel ${name}: no matrix (${bytes}, ${wBytes})`);
          // batches of about 0.5 s of CPU time (50 of /proc's ticks)
          const nNative = await calibrate(async (n) => ({ ns: (await nativeTimed(`qmat_run ${n}`)).cpu * 1e9 }), 500);
          const nWasm = await calibrate(async (n) => ({ ns: (await inPageTimed('qmatRun', n)).cpu * 1e9 }), 500);
          const gbs = { wall: series(), cpu: series() };
          let same = true;
          for (let r = 0; r < ROUNDS; r++) {
            const n = await nativeTimed(`qmat_run ${nNative}`);
            gbs.wall.native.push((bytes * nNative) / n.ns);
            gbs.cpu.native.push((bytes * nNative) / n.cpu / 1e9);
            const w = await inPageTimed('qmatRun', nWasm);
            gbs.wall.wasm_simd.push((bytes * nWasm) / w.r.ns);
            gbs.cpu.wasm_simd.push((bytes * nWasm) / w.cpu / 1e9);
            if (w.r.r !== n.h) same = false;
          }
          const k = {
            mb: round(bytes / 1e6, 4),
            cpu: Object.fromEntries(BUILDS.map((b) => [b, round(median(gbs.cpu[b]))])),
            wall: Object.fromEntries(BUILDS.map((b) => [b, round(median(gbs.wall[b]))])),
            identical: same,
          };
          (kernels[name] ??= {})[where] = k;
          log(`kernel ${name} ${where} (${(bytes / 1e6).toFixed(1)} MB): ${k.cpu.native} / ${k.cpu.wasm_simd} GB/s (native / WASM SIMD, by CPU time)`);
        }
      }
      await native.cmd('qmat 0 32 0.001'); // a small matrix in place of the big ones
      await inPage('qmat', 0, 32, 0.001);
      out.kernels = {
        what: `one product y = W x (sp_qmatmul, one input) on a random ${KERNEL_COLS}-column matrix of each type, ${KERNEL_MB.map(([w, mb]) => `${mb} MB (${w})`).join(' and ')}: weight bytes read per second (GB/s) of CPU time and of wall time; medians of ${ROUNDS} rounds`,
        gb_s: kernels,
        identical_native_wasm_simd: Object.values(kernels).every((k) => Object.values(k).every((x) => x.identical)),
      };
    }

  } finally {
    native.close();
    await browser.close();
    await server.close();
  }
  out.load_average = loadBefore;
  out.load_average_after = os.loadavg().map((x) => round(x, 2));
  return out;
}

/** @param {any} g */
export function ggufBudgets(g) {
  /** @type {Record<string, {value: number, min: number, pass: boolean}>} */
  const b = {};
  if (g.skipped) return b;
  const q8 = g.forward?.over_f32?.q8_0?.cpu?.wasm_simd;
  if (q8 != null) b.gguf_q8_0_over_f32_wasm_simd = { value: q8, min: GGUF_BUDGET.q8_0_over_f32, pass: q8 >= GGUF_BUDGET.q8_0_over_f32 };
  return b;
}

/** @param {any} g */
export function ggufTable(g) {
  if (g.skipped) return `GGUF models: skipped — ${g.skipped}`;
  const pf = (/** @type {boolean} */ p) => (p ? 'PASS' : 'MISS');
  const pad = (/** @type {any} */ x, /** @type {number} */ n) => String(x ?? '–').padStart(n);
  const lines = [];
  const b = ggufBudgets(g);
  if (g.forward) {
    const f = g.forward;
    lines.push('GGUF, the 32 000-token model, forward pass, tokens/s by CPU time (wall)    native            WASM SIMD     / F32 (WASM)  MB/token  GB/s (WASM, wall)');
    for (const t of TYPES) {
      const kinds = Object.entries(f.matrices[t]).map(([k, v]) => `${v} ${k}`).join(', ');
      const c = f.tok_s[t].cpu, w = f.tok_s[t].wall;
      lines.push(`  ${t.toUpperCase().padEnd(5)} (${kinds})`.padEnd(72) + `${pad(c.native, 6)} (${pad(w.native, 5)})  ${pad(c.wasm_simd, 9)} (${pad(w.wasm_simd, 5)})  ${pad(`${f.over_f32[t].cpu.wasm_simd}×`, 13)}  ${pad(f.weight_mb_per_token[t], 8)}  ${pad(f.weight_gb_s_cpu[t].wasm_simd, 5)} (${pad(f.weight_gb_s_wall[t].wasm_simd, 4)})`);
    }
    const q = b.gguf_q8_0_over_f32_wasm_simd;
    if (q) lines.push(`  Q8_0 / F32, WASM SIMD (median of the rounds' ratios, CPU time): ${q.value}× (wall ${f.over_f32.q8_0.wall.wasm_simd}×; native ${f.over_f32.q8_0.cpu.native}×)   budget ≥ ${q.min}×  ${pf(q.pass)}`);
    lines.push(`  logits identical native = WASM SIMD on every type: ${f.identical_native_wasm_simd ? 'yes' : 'NO'}`);
  }
  if (g.kernels) {
    if (lines.length) lines.push('');
    lines.push('Kernels: y = W x, weight bandwidth, GB/s by CPU time (wall)     in cache: native      WASM SIMD       memory: native      WASM SIMD');
    for (const [name, k] of Object.entries(g.kernels.gb_s)) {
      const cell = (/** @type {any} */ x, /** @type {'native' | 'wasm_simd'} */ bd, /** @type {number} */ n) => `${pad(x.cpu[bd], n)} (${pad(x.wall[bd], 5)})`;
      lines.push(`  ${name.padEnd(5)} (${k.cache.mb} MB, ${k.memory.mb} MB)`.padEnd(66) + `${cell(k.cache, 'native', 8)}  ${cell(k.cache, 'wasm_simd', 7)}  ${cell(k.memory, 'native', 14)}  ${cell(k.memory, 'wasm_simd', 7)}`);
    }
    lines.push(`  outputs identical native = WASM SIMD: ${g.kernels.identical_native_wasm_simd ? 'yes' : 'NO'}`);
  }
  lines.push(`  Chromium ${g.chromium}; load average ${g.load_average.join(' ')} before, ${g.load_average_after.join(' ')} after`);
  return lines.join('\n');
}

// run as a script: measure, add to build/bench.json, print the rows
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const g = await runGgufBench();
  const file = path.join(ROOT, 'build/bench.json');
  const result = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : {};
  result.gguf = g;
  result.budgets = { ...Object.fromEntries(Object.entries(result.budgets ?? {}).filter(([k]) => !k.startsWith('gguf_') || k.includes('wllama'))), ...ggufBudgets(g) };
  result.budgets_met = Object.values(result.budgets).every((/** @type {any} */ x) => x.pass);
  fs.writeFileSync(file, JSON.stringify(result, null, 2) + '\n');
  console.log('');
  console.log(ggufTable(g));
}
