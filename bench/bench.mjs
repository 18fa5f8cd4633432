// bench.mjs — runs the benchmarks of bench/ (built by bench/run.sh) and
// writes build/bench.json.
//
// Three runners do the same work (bench_core.c): the WASM SIMD module and
// the scalar WASM module, instantiated here and timed with
// process.hrtime.bigint() around exported functions that each run a whole
// batch, and the native harness (build/bench/bench-native serve), which
// times its own batches with clock_gettime.  Every measurement is a round
// over the runners in turn (simd, scalar, native, simd, scalar, native, ...)
// so that the machine's noise hits them alike; ratios come from the same
// invocation; each number is the median of its rounds, with the spread
// (min, quartiles, max) alongside.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

import { benchLookup, lookupTable } from './lookup.mjs';
import { benchCfg } from './cfg.mjs';
import { benchInspect } from './inspect.mjs';
import { benchSpeculative } from './spec.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(ROOT, 'build/bench');
const QUICK = process.env.BENCH_QUICK === '1';

const VOCAB = 32000;
const TOKENS = 256; // forward and kv_cache
const BUDGET = {
  sampler_us: 20, // WASM SIMD, per step, at most
  generate_vs_forward: 0.8, // WASM SIMD: a session's generation at least this share of the forward pass's rate
  sampler_vs_full_sort: 5, // full sort / pipeline, at least
  forward_simd_vs_scalar: 2,
  forward_simd_vs_native: 0.5,
  kv_speedup: 10,
};

// ------------------------------------------------------------------ runners

/** The WASM modules: any import the C side does not use is a no-op. */
class WasmRunner {
  constructor(name, file) {
    this.name = name;
    const mod = new WebAssembly.Module(fs.readFileSync(file));
    const imports = {};
    for (const imp of WebAssembly.Module.imports(mod)) {
      if (imp.kind !== 'function') throw new Error(`${file}: unexpected import ${imp.module}.${imp.name}`);
      (imports[imp.module] ??= {})[imp.name] = () => 0;
    }
    this.x = new WebAssembly.Instance(mod, imports).exports;
    if (this.x._initialize) this.x._initialize();
    this.scratch = this.x.malloc(128);
  }
  mem() {
    return this.x.memory.buffer;
  }
  timed(fn) {
    const t0 = process.hrtime.bigint();
    const r = fn();
    const ns = Number(process.hrtime.bigint() - t0);
    return { ns, r };
  }
  async samplerInit(v) { return this.x.bench_sampler_init(v); }
  async sampler(n, report) { return this.timed(() => this.x.bench_sampler_steps(n, report)); }
  async ref(n) { return this.timed(() => this.x.bench_ref_steps(n)); }
  async softmaxPass(n, what) { return this.timed(() => this.x.bench_softmax_pass(n, what)); }
  async config(i) { return this.x.bench_sampler_config(i); }
  async generate(n, raw) { return this.timed(() => this.x.bench_generate_run(n, raw)); }
  async check() {
    const bad = this.x.bench_sampler_check(this.scratch, this.scratch + 8);
    return { bad, nKept: new Int32Array(this.mem(), this.scratch, 1)[0], maxDp: new Float64Array(this.mem(), this.scratch + 8, 1)[0] };
  }
  async digest() { return this.x.bench_sampler_digest(); }
  async load(file) {
    const bytes = fs.readFileSync(file);
    const ptr = this.x.malloc(bytes.length);
    if (!ptr) return 1;
    new Uint8Array(this.mem(), ptr, bytes.length).set(bytes);
    return this.x.bench_model_load(ptr, bytes.length); // takes ownership
  }
  async forward(n) { return this.timed(() => this.x.bench_forward_run(n)); }
  async recompute(t0, t1) { return this.timed(() => this.x.bench_recompute(t0, t1)); }
  async counters() {
    this.x.bench_counters(this.scratch);
    return countersOf(Array.from(new Float64Array(this.mem(), this.scratch, 10)));
  }
  async countersResetRecompute() { this.x.bench_counters_reset_recompute(); }
  close() {}
}

/** The native harness, over its line protocol. */
class NativeRunner {
  constructor(bin) {
    this.name = 'native';
    this.child = spawn(bin, ['serve'], { stdio: ['pipe', 'pipe', 'inherit'] });
    this.waiting = [];
    readline.createInterface({ input: this.child.stdout }).on('line', (line) => this.waiting.shift()?.(line));
    this.child.on('exit', (code) => {
      for (const w of this.waiting.splice(0)) w(`error exited ${code}`);
    });
  }
  cmd(line) {
    return new Promise((resolve, reject) => {
      this.waiting.push((answer) => (answer.startsWith('error') ? reject(new Error(`native: ${line}: ${answer}`)) : resolve(answer)));
      this.child.stdin.write(line + '\n');
    });
  }
  async nums(line) { return (await this.cmd(line)).split(' ').map(Number); }
  async timed(line) {
    const [ns, r] = await this.nums(line);
    return { ns, r };
  }
  async samplerInit(v) { return (await this.nums(`sampler_init ${v}`))[0]; }
  async sampler(n, report) { return this.timed(`sampler ${n} ${report}`); }
  async ref(n) { return this.timed(`ref ${n}`); }
  async config(i) { return (await this.nums(`config ${i}`))[0]; }
  async generate(n, raw) { return this.timed(`generate ${n} ${raw}`); }
  async check() {
    const [bad, nKept, maxDp] = await this.nums('check');
    return { bad, nKept, maxDp };
  }
  async digest() { return (await this.nums('digest'))[0]; }
  async load(file) { return (await this.nums(`load ${file}`))[0]; }
  async forward(n) { return this.timed(`forward ${n}`); }
  async recompute(t0, t1) { return this.timed(`recompute ${t0} ${t1}`); }
  async counters() { return countersOf(await this.nums('counters')); }
  async countersResetRecompute() { await this.cmd('counters_reset_recompute'); }
  close() {
    this.child.stdin.end('quit\n');
  }
}

function countersOf(c) {
  const one = (o) => ({ flops: c[o], flops_no_cache: c[o + 1], tokens: c[o + 2], kv_reused: c[o + 3], kv_written: c[o + 4] });
  return { state: one(0), recompute: one(5) };
}

// ------------------------------------------------------------------ numbers

function stats(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => {
    const i = (s.length - 1) * p, lo = Math.floor(i), hi = Math.ceil(i);
    return s[lo] + (s[hi] - s[lo]) * (i - lo);
  };
  return { median: q(0.5), min: s[0], q1: q(0.25), q3: q(0.75), max: s[s.length - 1], n: s.length };
}

const round = (x, d = 3) => (Number.isFinite(x) ? Number(x.toPrecision(d + 2)) : null);
const spreadOf = (st) => ({ min: round(st.min), q1: round(st.q1), q3: round(st.q3), max: round(st.max), n: st.n });
const fmt = (x, d = 1) => (x >= 1000 ? x.toFixed(0) : x >= 100 ? x.toFixed(d) : x.toPrecision(Math.max(3, d + 1)));

/** Batch size whose run takes about targetMs (at least 1), found by doubling. */
async function calibrate(run, targetMs) {
  let n = 1;
  for (;;) {
    const { ns } = await run(n);
    if (ns >= targetMs * 1e6 || n >= 1 << 20) return Math.max(1, Math.round((n * targetMs * 1e6) / ns));
    n *= ns < targetMs * 1e5 ? 8 : 2;
  }
}

function log(...a) {
  process.stderr.write(a.join(' ') + '\n');
}

// ------------------------------------------------------------------ main

const simd = new WasmRunner('wasm_simd', path.join(OUT, 'bench-simd.wasm'));
const scalar = new WasmRunner('wasm_scalar', path.join(OUT, 'bench-scalar.wasm'));
const native = new NativeRunner(path.join(OUT, 'bench-native'));
const RUNNERS = [simd, scalar, native];
const result = {};

try {
  // ---- sampler -------------------------------------------------------
  for (const r of RUNNERS) if ((await r.samplerInit(VOCAB)) !== 0) throw new Error(`${r.name}: sampler_init failed`);
  const checks = {};
  for (const r of RUNNERS) checks[r.name] = await r.check();
  const digests = await Promise.all(RUNNERS.map((r) => r.digest()));
  // the same kept set on every variant, the same probabilities to 1e-6
  const samplerAgrees = RUNNERS.every((r) => checks[r.name].bad === 0 && checks[r.name].maxDp <= 1e-6);
  const samplerIdentical = digests.every((d) => d === digests[0]);
  log(`sampler: kept ${checks.native.nKept} tokens; pipeline == full-sort reference: ${samplerAgrees ? 'yes' : 'NO'} ` +
    `(max |dp| ${checks.native.maxDp.toExponential(2)}); identical bits in every build: ${samplerIdentical ? 'yes' : 'NO'}`);

  const WORK = {
    fast: (r, n) => r.sampler(n, 0),
    report: (r, n) => r.sampler(n, 1),
    full_sort: (r, n) => r.ref(n),
  };
  const batch = {};
  for (const r of RUNNERS) {
    batch[r.name] = {};
    for (const [w, run] of Object.entries(WORK)) {
      // doubling to a 25 ms batch is also the warm-up (V8 tiers up)
      batch[r.name][w] = await calibrate((n) => run(r, n), 25);
      await run(r, batch[r.name][w]);
    }
  }
  const samplerRounds = QUICK ? 7 : 25;
  const perStep = {};
  for (let i = 0; i < samplerRounds; i++) {
    for (const r of RUNNERS) {
      for (const [w, run] of Object.entries(WORK)) {
        const n = batch[r.name][w];
        const { ns } = await run(r, n);
        ((perStep[r.name] ??= {})[w] ??= []).push(ns / n / 1e3);
      }
    }
  }
  const S = {};
  for (const r of RUNNERS) for (const w of Object.keys(WORK)) (S[r.name] ??= {})[w] = stats(perStep[r.name][w]);
  const speedups = perStep.wasm_simd.fast.map((t, i) => perStep.wasm_simd.full_sort[i] / t);
  result.sampler = {
    vocab: VOCAB,
    wasm_simd_us: round(S.wasm_simd.fast.median),
    wasm_scalar_us: round(S.wasm_scalar.fast.median),
    wasm_full_sort_us: round(S.wasm_simd.full_sort.median),
    native_us: round(S.native.fast.median),
    wasm_simd_report_us: round(S.wasm_simd.report.median),
    wasm_scalar_report_us: round(S.wasm_scalar.report.median),
    native_report_us: round(S.native.report.median),
    wasm_scalar_full_sort_us: round(S.wasm_scalar.full_sort.median),
    native_full_sort_us: round(S.native.full_sort.median),
    full_sort_speedup: round(S.wasm_simd.full_sort.median / S.wasm_simd.fast.median),
    full_sort_speedup_spread: spreadOf(stats(speedups)),
    settings: 'repetition penalty 1.1 over 64 history tokens, T 0.8, top-k 50, top-p 0.9, min-p 0.05, softmax, draw; Zipf (s = 1.1) logits',
    kept_tokens: checks.native.nKept,
    agrees_with_full_sort: samplerAgrees,
    identical_across_builds: samplerIdentical,
    batch_steps: Object.fromEntries(RUNNERS.map((r) => [r.name, batch[r.name]])),
    spread_us: Object.fromEntries(RUNNERS.flatMap((r) => Object.keys(WORK).map((w) => [`${r.name}_${w}`, spreadOf(S[r.name][w])]))),
  };

  // ---- each stage of the chain on top of the pipeline (WASM SIMD) ------
  // Per round: the pipeline alone, then with each stage, so that the
  // stage's added cost is a difference within the round.
  const STAGES = ['top-nσ 1.0', 'epsilon 3e-4', 'eta 3e-4', 'top-a 0.2', 'XTC 0.5 / 0.1', 'DRY 0.8 / 1.75 / 2',
    'dynamic temperature ±0.5', 'no-repeat-ngram 3', 'mirostat v1 5 / 0.1', 'mirostat v2 5 / 0.1',
    'top-H 0.4', 'p-less', 'tail-free 0.95',
    'quadratic sampling 0.3 / 1', 'min-new-tokens 8 (step 3)', 'exp. decay length penalty 0, 1.1 (step 3)',
    'adaptive-p 0.3 / 0.9', 'watermark 0.25 / 2', 'bad words 32 x 3 tokens', 'sequence bias 32 x 3 tokens',
    'classifier-free guidance 1.5'];
  const stageBatch = [];
  for (let i = 0; i <= STAGES.length; i++) {
    if ((await simd.config(i)) !== 0) throw new Error(`sampler config ${i} refused`);
    stageBatch[i] = await calibrate((n) => simd.sampler(n, 0), 20);
  }
  const stageUs = STAGES.map(() => []);
  const stageDelta = STAGES.map(() => []);
  for (let round = 0; round < (QUICK ? 5 : 15); round++) {
    await simd.config(0);
    const base = (await simd.sampler(stageBatch[0], 0)).ns / stageBatch[0] / 1e3;
    for (let i = 1; i <= STAGES.length; i++) {
      await simd.config(i);
      const us = (await simd.sampler(stageBatch[i], 0)).ns / stageBatch[i] / 1e3;
      stageUs[i - 1].push(us);
      stageDelta[i - 1].push(us - base);
    }
  }
  await simd.config(0);
  const ST = stageUs.map(stats);
  result.sampler_stages = {
    build: 'wasm_simd',
    what: "the benchmark's pipeline (reporting off) with one more stage on",
    stages: Object.fromEntries(STAGES.map((name, i) => [name, {
      us: round(ST[i].median), added_us: round(stats(stageDelta[i]).median), spread_us: spreadOf(ST[i]),
    }])),
  };

  // ---- what the reporting on cannot do without (WASM SIMD) --------------
  // One pass over the vocabulary of each kind of work the step record needs
  // for every token: a softmax's exps (every exp enters its sum; two a step,
  // the raw softmax's and the tempered one's) and divisions (three a step:
  // the temperature's and the two normalizations).
  const FLOOR = { exps: 0, divisions: 1 };
  const floorBatch = {};
  const floorUs = { exps: [], divisions: [] };
  for (const [k, w] of Object.entries(FLOOR)) floorBatch[k] = await calibrate((n) => simd.softmaxPass(n, w), 20);
  for (let round = 0; round < (QUICK ? 7 : 25); round++) {
    for (const [k, w] of Object.entries(FLOOR)) floorUs[k].push((await simd.softmaxPass(floorBatch[k], w)).ns / floorBatch[k] / 1e3);
  }
  const FL = { exps: stats(floorUs.exps), divisions: stats(floorUs.divisions) };
  result.sampler_floor = {
    build: 'wasm_simd',
    what: "one pass over the vocabulary of each kind of work the reporting on needs for every token: a softmax's exps (two a step: the raw softmax and the tempered one) and divisions (three a step: the temperature, the two normalizations)",
    exps_us: round(FL.exps.median),
    divisions_us: round(FL.divisions.median),
    two_exps_us: round(2 * FL.exps.median),
    two_exps_three_divisions_us: round(2 * FL.exps.median + 3 * FL.divisions.median),
    spread_us: { exps: spreadOf(FL.exps), divisions: spreadOf(FL.divisions) },
  };

  // ---- forward -------------------------------------------------------
  const modelFile = path.join(OUT, 'model.bin');
  for (const r of RUNNERS) if ((await r.load(modelFile)) !== 0) throw new Error(`${r.name}: cannot load ${modelFile}`);
  for (const r of RUNNERS) await r.forward(TOKENS); // warm-up
  const fwdRounds = QUICK ? 3 : 9;
  const tokS = {};
  const fwdDigest = {};
  // a generation: the session's whole step (forward, sampler, bookkeeping)
  // for GEN_TOKENS tokens after BOS, as `sampler generate` runs it
  const GEN_TOKENS = TOKENS - 1;
  const genTokS = {};
  const genRawOffTokS = {};
  const genDigest = {};
  for (const r of RUNNERS) await r.generate(GEN_TOKENS, 1); // warm-up
  for (let i = 0; i < fwdRounds; i++) {
    for (const r of RUNNERS) {
      const { ns, r: digest } = await r.forward(TOKENS);
      (tokS[r.name] ??= []).push(TOKENS / (ns / 1e9));
      fwdDigest[r.name] = digest;
      const g = await r.generate(GEN_TOKENS, 1);
      (genTokS[r.name] ??= []).push(GEN_TOKENS / (g.ns / 1e9));
      genDigest[r.name] = g.r;
      const off = await r.generate(GEN_TOKENS, 0);
      (genRawOffTokS[r.name] ??= []).push(GEN_TOKENS / (off.ns / 1e9));
      if (off.r !== g.r) genDigest[r.name] = -1; // the reporting changes no token
    }
  }
  const F = Object.fromEntries(RUNNERS.map((r) => [r.name, stats(tokS[r.name])]));
  const simdOverScalar = stats(tokS.wasm_simd.map((t, i) => t / tokS.wasm_scalar[i]));
  const simdOverNative = stats(tokS.wasm_simd.map((t, i) => t / tokS.native[i]));
  const fwdIdentical = RUNNERS.every((r) => fwdDigest[r.name] === fwdDigest.native && fwdDigest[r.name] >= 0);
  const counters = await native.counters();
  result.forward = {
    model: `llama2.c format, random weights: dim 288, 6 layers, 6 heads (6 kv), hidden 768, vocab 512, seq_len 256 (${(fs.statSync(modelFile).size / 4 / 1e6).toFixed(2)}M params)`,
    wasm_simd_tok_s: round(F.wasm_simd.median),
    wasm_scalar_tok_s: round(F.wasm_scalar.median),
    native_tok_s: round(F.native.median),
    tokens_per_run: TOKENS,
    simd_over_scalar: round(simdOverScalar.median),
    simd_over_native: round(simdOverNative.median),
    gflop_s: Object.fromEntries(RUNNERS.map((r) => [r.name, round((F[r.name].median * counters.state.flops) / TOKENS / 1e9)])),
    identical_across_builds: fwdIdentical,
    spread_tok_s: Object.fromEntries(RUNNERS.map((r) => [r.name, spreadOf(F[r.name])])),
    spread_ratios: { simd_over_scalar: spreadOf(simdOverScalar), simd_over_native: spreadOf(simdOverNative) },
  };
  log(`forward: logits identical in every build: ${fwdIdentical ? 'yes' : 'NO'}`);
  const G = Object.fromEntries(RUNNERS.map((r) => [r.name, stats(genTokS[r.name])]));
  const genOverFwd = stats(genTokS.wasm_simd.map((t, i) => t / tokS.wasm_simd[i]));
  const genOff = Object.fromEntries(RUNNERS.map((r) => [r.name, stats(genRawOffTokS[r.name])]));
  const genIdentical = RUNNERS.every((r) => genDigest[r.name] === genDigest.native && genDigest[r.name] >= 0);
  result.generate = {
    what: `a session generating ${GEN_TOKENS} tokens after BOS on the forward pass's model (sp_session_step: forward, the benchmark's sampler settings; raw distribution on, as the page's fast-forward runs for its metrics; raw_off: as \`sampler generate\` runs)`,
    tokens: GEN_TOKENS,
    wasm_simd_tok_s: round(G.wasm_simd.median),
    wasm_scalar_tok_s: round(G.wasm_scalar.median),
    native_tok_s: round(G.native.median),
    raw_off_tok_s: Object.fromEntries(RUNNERS.map((r) => [r.name, round(genOff[r.name].median)])),
    over_forward_wasm_simd: round(genOverFwd.median),
    identical_across_builds: genIdentical,
    spread_tok_s: Object.fromEntries(RUNNERS.map((r) => [r.name, spreadOf(G[r.name])])),
    spread_over_forward: spreadOf(genOverFwd),
  };

  // ---- kv cache (native: the recomputation is ~129x the work) ----------
  // The recomputation (steps 0..255, each from a fresh state) runs once, in
  // chunks of about equal work; a cached 256-token run goes between chunks.
  const kvRunner = native;
  const chunks = QUICK ? 4 : 12;
  const bounds = [0];
  for (let c = 1; c < chunks; c++) {
    // positions recomputed up to step t: (t)(t+1)/2; equal shares of the total
    const target = (c / chunks) * ((TOKENS * (TOKENS + 1)) / 2);
    bounds.push(Math.round((Math.sqrt(1 + 8 * target) - 1) / 2));
  }
  bounds.push(TOKENS);
  await kvRunner.countersResetRecompute();
  const cached = [];
  const chunkNs = [];
  let recomputeDigest = 0;
  cached.push((await kvRunner.forward(TOKENS)).ns);
  for (let c = 0; c < chunks; c++) {
    const { ns, r } = await kvRunner.recompute(bounds[c], bounds[c + 1]);
    chunkNs.push(ns);
    recomputeDigest = r;
    cached.push((await kvRunner.forward(TOKENS)).ns);
  }
  const kvCounters = await kvRunner.counters();
  const C = stats(cached.map((ns) => ns / 1e6));
  const recomputeMs = chunkNs.reduce((a, b) => a + b, 0) / 1e6;
  // per-chunk rate: ns per recomputed forward call, relative to the cached run's
  const perCall = chunkNs.map((ns, c) => {
    const calls = ((bounds[c + 1] * (bounds[c + 1] + 1)) - (bounds[c] * (bounds[c] + 1))) / 2;
    return ns / calls;
  });
  const flopRatio = kvCounters.state.flops_no_cache / kvCounters.state.flops;
  result.kv_cache = {
    tokens: TOKENS,
    with_cache_ms: round(C.median),
    recompute_ms: round(recomputeMs),
    speedup: round(recomputeMs / C.median),
    flop_ratio: round(flopRatio),
    build: kvRunner.name,
    counters_with_cache: kvCounters.state,
    counters_recompute: kvCounters.recompute,
    counters_agree: Math.abs(kvCounters.recompute.flops - kvCounters.state.flops_no_cache) <= 1e-9 * kvCounters.state.flops_no_cache,
    same_logits: recomputeDigest === fwdDigest.native,
    spread_with_cache_ms: spreadOf(C),
    recompute_chunks: chunks,
    recompute_us_per_forward_call: spreadOf(stats(perCall.map((x) => x / 1e3))),
    with_cache_us_per_forward_call: round((C.median * 1e3) / TOKENS),
  };

  // ---- batched forward pass, speculative decoding (spec.mjs) ----------
  const spec = benchSpeculative({ simd, scalar, ROOT, OUT, QUICK, stats, round, spreadOf, log });
  Object.assign(result, spec.result);
  // ---- prompt lookup (lookup.mjs): counts, no timing ------------------
  result.prompt_lookup = await benchLookup({ ROOT });
  log(lookupTable(result.prompt_lookup));
  // ---- classifier-free guidance (cfg.mjs): a guided step's cost --------
  result.cfg = await benchCfg({ ROOT, rounds: QUICK ? 3 : 7, log });
  // ---- the look inside (inspect.mjs): attention capture, logit lens ----
  result.inspect = await benchInspect({ ROOT, rounds: QUICK ? 3 : 7, log });

  // ---- budgets, table -------------------------------------------------
  const budgets = {
    sampler_wasm_simd_us: { value: result.sampler.wasm_simd_us, limit: `<= ${BUDGET.sampler_us}`, pass: result.sampler.wasm_simd_us <= BUDGET.sampler_us },
    generate_over_forward: { value: result.generate.over_forward_wasm_simd, limit: `>= ${BUDGET.generate_vs_forward}`, pass: result.generate.over_forward_wasm_simd >= BUDGET.generate_vs_forward },
    sampler_full_sort_speedup: { value: result.sampler.full_sort_speedup, limit: `>= ${BUDGET.sampler_vs_full_sort}`, pass: result.sampler.full_sort_speedup >= BUDGET.sampler_vs_full_sort },
    forward_simd_over_scalar: { value: result.forward.simd_over_scalar, limit: `>= ${BUDGET.forward_simd_vs_scalar}`, pass: result.forward.simd_over_scalar >= BUDGET.forward_simd_vs_scalar },
    forward_simd_over_native: { value: result.forward.simd_over_native, limit: `>= ${BUDGET.forward_simd_vs_native}`, pass: result.forward.simd_over_native >= BUDGET.forward_simd_vs_native },
    kv_cache_speedup: { value: result.kv_cache.speedup, limit: `>= ${BUDGET.kv_speedup}`, pass: result.kv_cache.speedup >= BUDGET.kv_speedup },
    ...spec.budgets,
  };
  result.budgets = budgets;
  result.budgets_met = Object.values(budgets).every((b) => b.pass);
  const cpu = (fs.readFileSync('/proc/cpuinfo', 'utf8').match(/^model name\s*:\s*(.*)$/m) || [])[1] || os.cpus()[0]?.model || 'unknown CPU';
  result.machine = `${cpu.trim()}, ${os.cpus().length} cores, Linux ${os.release()}, Node ${process.version}`;
  result.date = new Date().toISOString();
  result.load_average = os.loadavg().map((x) => round(x, 1));
  result.quick = QUICK;

  fs.writeFileSync(path.join(ROOT, 'build/bench.json'), JSON.stringify(result, null, 2) + '\n');
  console.log(table(result, S, F, G, ST, spec.rows, FL));
} finally {
  native.close();
}

function table(r, S, F, G, ST, extraRows = [], FL = null) {
  const pf = (b) => (b.pass ? 'PASS' : 'MISS');
  const sp = (st, d = 1) => `${fmt(st.min, d)}–${fmt(st.max, d)}`;
  const iqr = (st, d = 1) => `${fmt(st.q1, d)}–${fmt(st.q3, d)}`;
  const rows = [];
  const row = (...c) => rows.push(c);
  const b = r.budgets;
  row('Sampler step, V = 32 000 (µs)', 'median', 'IQR', 'min–max', 'budget');
  row('  WASM SIMD', fmt(S.wasm_simd.fast.median), iqr(S.wasm_simd.fast), sp(S.wasm_simd.fast), `≤ ${BUDGET.sampler_us} µs  ${pf(b.sampler_wasm_simd_us)}`);
  row('  WASM scalar', fmt(S.wasm_scalar.fast.median), iqr(S.wasm_scalar.fast), sp(S.wasm_scalar.fast), '');
  row('  native', fmt(S.native.fast.median), iqr(S.native.fast), sp(S.native.fast), '');
  row('  WASM SIMD, reporting on', fmt(S.wasm_simd.report.median), iqr(S.wasm_simd.report), sp(S.wasm_simd.report), 'a record, no budget: its floor is the bit-exact exp over the vocabulary twice (below)');
  row('  WASM scalar, reporting on', fmt(S.wasm_scalar.report.median), iqr(S.wasm_scalar.report), sp(S.wasm_scalar.report), '');
  row('  native, reporting on', fmt(S.native.report.median), iqr(S.native.report), sp(S.native.report), '');
  row('  full-sort reference, WASM SIMD', fmt(S.wasm_simd.full_sort.median), iqr(S.wasm_simd.full_sort), sp(S.wasm_simd.full_sort), '');
  row('  full-sort reference, WASM scalar', fmt(S.wasm_scalar.full_sort.median), iqr(S.wasm_scalar.full_sort), sp(S.wasm_scalar.full_sort), '');
  row('  full-sort reference, native', fmt(S.native.full_sort.median), iqr(S.native.full_sort), sp(S.native.full_sort), '');
  row('  full sort / pipeline (WASM SIMD)', `${fmt(r.sampler.full_sort_speedup)}×`, '', `${fmt(r.sampler.full_sort_speedup_spread.min)}–${fmt(r.sampler.full_sort_speedup_spread.max)}×`, `≥ ${BUDGET.sampler_vs_full_sort}×  ${pf(b.sampler_full_sort_speedup)}`);
  if (FL) {
    row('');
    row('Reporting on: its per-token work alone (WASM SIMD, µs)', 'median', 'IQR', 'min–max', '');
    row("  one softmax's exps over V (2 a step)", fmt(FL.exps.median), iqr(FL.exps), sp(FL.exps), '');
    row('  one pass of divisions over V (3 a step)', fmt(FL.divisions.median), iqr(FL.divisions), sp(FL.divisions), '');
    row('  2 × exps', fmt(r.sampler_floor.two_exps_us), '', '', '');
    row('  2 × exps + 3 × divisions', fmt(r.sampler_floor.two_exps_three_divisions_us), '', '', '');
  }
  row('');
  row('Each stage on top of it (WASM SIMD, µs)', 'median', 'added', 'min–max', '');
  Object.entries(r.sampler_stages.stages).forEach(([name, st], i) => {
    row(`  + ${name}`, fmt(ST[i].median), `+${fmt(st.added_us)}`, sp(ST[i]), '');
  });
  row('');
  row('Forward pass (tokens/s)', 'median', 'IQR', 'min–max', 'budget');
  row('  WASM SIMD', fmt(F.wasm_simd.median), iqr(F.wasm_simd), sp(F.wasm_simd), '');
  row('  WASM scalar', fmt(F.wasm_scalar.median), iqr(F.wasm_scalar), sp(F.wasm_scalar), '');
  row('  native', fmt(F.native.median), iqr(F.native), sp(F.native), '');
  row('  SIMD / scalar', `${fmt(r.forward.simd_over_scalar, 2)}×`, '', `${fmt(r.forward.spread_ratios.simd_over_scalar.min, 2)}–${fmt(r.forward.spread_ratios.simd_over_scalar.max, 2)}×`, `≥ ${BUDGET.forward_simd_vs_scalar}×  ${pf(b.forward_simd_over_scalar)}`);
  row('  SIMD / native', `${fmt(r.forward.simd_over_native, 2)}×`, '', `${fmt(r.forward.spread_ratios.simd_over_native.min, 2)}–${fmt(r.forward.spread_ratios.simd_over_native.max, 2)}×`, `≥ ${BUDGET.forward_simd_vs_native}×  ${pf(b.forward_simd_over_native)}`);
  row('');
  row(`Generation, ${r.generate.tokens} tokens (tokens/s)`, 'median', 'IQR', 'min–max', 'budget');
  row('  WASM SIMD', fmt(G.wasm_simd.median), iqr(G.wasm_simd), sp(G.wasm_simd), '');
  row('  WASM scalar', fmt(G.wasm_scalar.median), iqr(G.wasm_scalar), sp(G.wasm_scalar), '');
  row('  native', fmt(G.native.median), iqr(G.native), sp(G.native), '');
  row('  WASM SIMD, raw off (the CLI)', fmt(r.generate.raw_off_tok_s.wasm_simd), '', '', '');
  row('  generation / forward (WASM SIMD)', `${fmt(r.generate.over_forward_wasm_simd, 2)}×`, '', `${fmt(r.generate.spread_over_forward.min, 2)}–${fmt(r.generate.spread_over_forward.max, 2)}×`, `≥ ${BUDGET.generate_vs_forward}×  ${pf(b.generate_over_forward)}`);
  row('');
  row(`KV cache, ${r.kv_cache.tokens} tokens (${r.kv_cache.build}, ms)`, 'median', 'IQR', 'min–max', 'budget');
  const kc = r.kv_cache.spread_with_cache_ms;
  row('  with the cache', fmt(r.kv_cache.with_cache_ms), `${fmt(kc.q1)}–${fmt(kc.q3)}`, `${fmt(kc.min)}–${fmt(kc.max)}`, '');
  row('  recomputing the prefix', fmt(r.kv_cache.recompute_ms), '', `(1 run, ${r.kv_cache.recompute_chunks} chunks)`, '');
  row('  recompute / cache', `${fmt(r.kv_cache.speedup)}×`, '', `flops ${fmt(r.kv_cache.flop_ratio)}×`, `≥ ${BUDGET.kv_speedup}×  ${pf(b.kv_cache_speedup)}`);
  if (extraRows.length) rows.push([''], ...extraRows);
  const widths = [0, 1, 2, 3, 4].map((i) => Math.max(...rows.map((c) => (c[i] ?? '').length)));
  const lines = rows.map((c) => (c.length === 1 ? '' : c.map((x, i) => (i === 0 ? x.padEnd(widths[i]) : x.padStart(widths[i]))).join('  ')));
  const checks = `checks: pipeline == full-sort reference ${r.sampler.agrees_with_full_sort ? 'yes' : 'NO'} (${r.sampler.kept_tokens} kept); ` +
    `identical bits in every build: sampler ${r.sampler.identical_across_builds ? 'yes' : 'NO'}, forward ${r.forward.identical_across_builds ? 'yes' : 'NO'}, generation ${r.generate.identical_across_builds ? 'yes' : 'NO'}; ` +
    `recompute == cache logits ${r.kv_cache.same_logits ? 'yes' : 'NO'}; counters ${r.kv_cache.counters_agree ? 'agree' : 'DISAGREE'}`;
  return [...lines, '', checks, `machine: ${r.machine}; ${r.date}; load average ${r.load_average.join(' ')}`,
    `budgets: ${Object.values(b).filter((x) => x.pass).length}/${Object.keys(b).length} met — build/bench.json`].join('\n');
}
