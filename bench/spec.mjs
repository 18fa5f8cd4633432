// spec.mjs — the bench's section on the batched forward pass and
// speculative decoding (bench_spec.c), run by bench.mjs in WASM SIMD (the
// scalar build runs the same generations once, for the identity check).
//
//   batch      per-position cost of sp_forward_batch against the batch size,
//              on stories15M's shape (dim 288, 6 layers, hidden 768) with its
//              32 000-token vocabulary (61 MB of weights: more than the
//              caches hold; the budget's model) and with the bench model's
//              512 (24 MB: the L3 holds it), and on the shipped transformer
//              (positions 0..239 in passes of B; 224 for B = 32)
//   prefill    a 256-token prompt through batched passes (32 positions,
//              last logits only) against one sp_forward per token
//   speculative  the shipped transformer from "And God said": plain greedy
//              decoding against speculative decoding with each draft
//              (the transformer's drafts in models/manifest.json) and k = 1..4, the same greedy text
//              (checked by hash); acceptance at T = 0 and T = 1 with k = 4
import fs from 'node:fs';
import path from 'node:path';

// the shipped transformer and its drafts, from the one list of shipped models
const MANIFEST = JSON.parse(fs.readFileSync(new URL('../models/manifest.json', import.meta.url), 'utf8')).models;
const TARGET = MANIFEST.find((m) => m.name === 'transformer');
const DRAFT_MODELS = MANIFEST.filter((m) => m.draft_of === TARGET.name);
const MAIN_DRAFT = TARGET.draft; // its default draft: the one the budgets are about

export const SPEC_BUDGET = {
  accept_t0: 0.6, // the default draft (bible-tiny), k = 4, at least
  accept_t1: 0.5,
  batch5_over_1: 2.5, // stories15M's shape, 32 000 tokens, WASM SIMD, at most
  speedup: 1.3, // speculative / plain greedy, WASM SIMD, at least
  prefill: 2, // token by token / batched, at least
};

const BATCHES = [1, 2, 3, 4, 5, 8, 16, 32];
const MAX_TOKENS = 256;

/** Copies a file into the module's memory and calls load(ptr, size). */
function loadInto(x, file, load) {
  const bytes = fs.readFileSync(file);
  const ptr = x.malloc(bytes.length);
  new Uint8Array(x.memory.buffer, ptr, bytes.length).set(bytes);
  return load(ptr, bytes.length);
}

function timed(fn) {
  const t0 = process.hrtime.bigint();
  const r = fn();
  return { ns: Number(process.hrtime.bigint() - t0), r };
}

/**
 * @param {{simd: any, scalar: any, ROOT: string, OUT: string, QUICK: boolean,
 *          stats: Function, round: Function, spreadOf: Function, log: Function}} o
 */
export function benchSpeculative({ simd, scalar, ROOT, OUT, QUICK, stats, round, spreadOf, log }) {
  const models = path.join(ROOT, 'models');
  // the slots of bench_spec.c: the bench model, the shipped transformer, the
  // stories15M-shaped model, then the transformer's drafts (models/manifest.json)
  const files = [path.join(OUT, 'model.bin'), path.join(models, TARGET.file), path.join(OUT, 'model32k.bin'),
    ...DRAFT_MODELS.map((m) => path.join(models, m.file))];
  for (const r of [simd, scalar]) {
    files.forEach((f, slot) => {
      if (loadInto(r.x, f, (p, n) => r.x.bench_spec_model_load(slot, p, n)) !== 0) throw new Error(`${r.name}: cannot load ${f}`);
    });
    if (loadInto(r.x, path.join(models, TARGET.tokenizer), (p, n) => r.x.bench_spec_tokenizer_load(p, n)) !== 0) throw new Error(`${r.name}: tokenizer`);
  }
  const x = simd.x;
  const outs = new Map([simd, scalar].map((r) => [r, r.x.malloc(8 * 8)]));
  const gen = (r, draft, k, t, seed) => {
    const out = outs.get(r);
    const h = r.x.bench_generate(draft, k, t, seed, MAX_TOKENS, out);
    const a = Array.from(new Float64Array(r.x.memory.buffer, out, 7));
    return { hash: h, generated: a[0], drafted: a[1], accepted: a[2], rounds: a[3], passes: a[4], fed: a[5], prompt: a[6] };
  };
  const rounds = QUICK ? 3 : 9;

  // ---- batch scaling ------------------------------------------------------
  const positionsFor = (b) => Math.floor(240 / b) * b;
  const batch = {};
  for (const [name, slot] of [['stories15m', 2], ['bench_model', 0], ['transformer', 1]]) {
    for (const b of BATCHES) x.bench_batch_run(slot, b, positionsFor(b)); // warm-up
    const per = Object.fromEntries(BATCHES.map((b) => [b, []]));
    const hashes = new Set();
    for (let i = 0; i < rounds; i++) {
      for (const b of BATCHES) {
        const { ns, r } = timed(() => x.bench_batch_run(slot, b, positionsFor(b)));
        per[b].push(ns / positionsFor(b) / 1e3);
        if (positionsFor(b) === 240) hashes.add(r);
      }
    }
    const S = Object.fromEntries(BATCHES.map((b) => [b, stats(per[b])]));
    // a pass over b positions against one over 1 position, round by round
    const passRatio = (b) => stats(per[b].map((t, i) => (t * b) / per[1][i]));
    batch[name] = {
      us_per_position: Object.fromEntries(BATCHES.map((b) => [b, round(S[b].median)])),
      pass_over_single: Object.fromEntries(BATCHES.map((b) => [b, round(passRatio(b).median)])),
      spread_us_per_position: Object.fromEntries(BATCHES.map((b) => [b, spreadOf(S[b])])),
      same_logits_every_batch: hashes.size === 1,
    };
  }
  log(`batch: stories15M's shape, a pass over 5 positions = ${batch.stories15m.pass_over_single[5]}× one position; ` +
    `with 512 tokens ${batch.bench_model.pass_over_single[5]}×; transformer ${batch.transformer.pass_over_single[5]}×; ` +
    `same logits for every batch size: ${Object.values(batch).every((m) => m.same_logits_every_batch) ? 'yes' : 'NO'}`);

  // ---- prefill ------------------------------------------------------------
  x.bench_prefill(0, 256, 1);
  x.bench_prefill(0, 256, 0);
  const pre = { batched: [], single: [] };
  let preSame = true;
  for (let i = 0; i < rounds; i++) {
    const a = timed(() => x.bench_prefill(0, 256, 1));
    const b = timed(() => x.bench_prefill(0, 256, 0));
    pre.batched.push(a.ns / 1e6);
    pre.single.push(b.ns / 1e6);
    preSame &&= a.r === b.r && a.r >= 0;
  }
  const preRatio = stats(pre.single.map((t, i) => t / pre.batched[i]));
  const prefill = {
    tokens: 256,
    batched_ms: round(stats(pre.batched).median),
    single_ms: round(stats(pre.single).median),
    speedup: round(preRatio.median),
    speedup_spread: spreadOf(preRatio),
    same_logits: preSame,
  };

  // ---- speculative decoding -----------------------------------------------
  const DRAFTS = Object.fromEntries(DRAFT_MODELS.map((m, i) => [m.name, i + 1]));
  const KS = [1, 2, 3, 4];
  const plainRef = gen(simd, 0, 1, 0, 1);
  const runs = [['plain', 0, 1], ...Object.entries(DRAFTS).flatMap(([n, d]) => KS.map((k) => [`${n} k${k}`, d, k]))];
  for (const [, d, k] of runs) gen(simd, d, k, 0, 1); // warm-up
  const ms = Object.fromEntries(runs.map(([n]) => [n, []]));
  const info = {};
  for (let i = 0; i < rounds; i++) {
    for (const [n, d, k] of runs) {
      const { ns, r } = timed(() => gen(simd, d, k, 0, 1));
      ms[n].push(ns / 1e6);
      info[n] = r;
    }
  }
  const greedy = {};
  for (const [n] of runs) {
    const st = stats(ms[n]);
    const sp = stats(ms[n].map((t, i) => ms.plain[i] / t));
    const r = info[n];
    const prefillPasses = Math.ceil(r.prompt / 32);
    greedy[n] = {
      ms: round(st.median),
      speedup: round(sp.median),
      speedup_spread: spreadOf(sp),
      same_text_as_plain: r.hash === plainRef.hash && r.generated === plainRef.generated,
      tokens: r.generated,
      accepted: r.accepted,
      drafted: r.drafted,
      acceptance: r.drafted ? round(r.accepted / r.drafted) : null,
      rounds: r.rounds,
      target_passes: r.passes - prefillPasses,
      tokens_per_target_pass: round(r.generated / (r.passes - prefillPasses)),
      target_positions_fed: r.fed - r.prompt,
    };
  }
  // acceptance at T = 1: seeds 1, 2, ... until MAX_TOKENS tokens in all
  const accept = {};
  for (const [name, d] of Object.entries(DRAFTS)) {
    for (const t of [0, 1]) {
      let generated = 0, drafted = 0, accepted = 0, passes = 0, seeds = 0;
      for (let seed = 1; generated < MAX_TOKENS && seed <= 64; seed++) {
        const r = gen(simd, d, 4, t, seed);
        generated += r.generated;
        drafted += r.drafted;
        accepted += r.accepted;
        passes += r.passes - Math.ceil(r.prompt / 32);
        seeds++;
        if (t === 0) break; // greedy: every seed gives the same text
      }
      accept[`${name} T${t}`] = { k: 4, temperature: t, seeds, tokens: generated, drafted, accepted,
        acceptance: round(accepted / drafted), tokens_per_target_pass: round(generated / passes) };
    }
  }
  // the same generations in the scalar build: the same tokens
  const idSimd = gen(simd, 1, 4, 1, 1).hash, idScalar = gen(scalar, 1, 4, 1, 1).hash;
  const identical = idSimd === idScalar && gen(simd, 2, 3, 0.8, 7).hash === gen(scalar, 2, 3, 0.8, 7).hash;

  const tinyRuns = KS.map((k) => [k, greedy[`${MAIN_DRAFT} k${k}`]]);
  const [bestK, best] = tinyRuns.reduce((a, b) => (b[1].speedup > a[1].speedup ? b : a));
  const result = {
    batch,
    prefill,
    speculative: {
      prompt: 'And God said',
      max_tokens: MAX_TOKENS,
      plain_greedy_ms: greedy.plain.ms,
      greedy,
      acceptance: accept,
      best_k_bible_tiny: bestK,
      identical_simd_scalar: identical,
    },
  };
  const B = SPEC_BUDGET;
  const budgets = {
    spec_acceptance_t0: { value: accept[`${MAIN_DRAFT} T0`].acceptance, limit: `>= ${B.accept_t0}`, pass: accept[`${MAIN_DRAFT} T0`].acceptance >= B.accept_t0 },
    spec_acceptance_t1: { value: accept[`${MAIN_DRAFT} T1`].acceptance, limit: `>= ${B.accept_t1}`, pass: accept[`${MAIN_DRAFT} T1`].acceptance >= B.accept_t1 },
    batch5_over_single: { value: batch.stories15m.pass_over_single[5], limit: `<= ${B.batch5_over_1}`, pass: batch.stories15m.pass_over_single[5] <= B.batch5_over_1 },
    spec_speedup: { value: best.speedup, limit: `>= ${B.speedup} (${MAIN_DRAFT}, best k = ${bestK})`, pass: best.speedup >= B.speedup && best.same_text_as_plain },
    prefill_speedup: { value: prefill.speedup, limit: `>= ${B.prefill}`, pass: prefill.speedup >= B.prefill },
  };
  return { result, budgets, rows: tableRows(result, budgets) };
}

function tableRows(r, b) {
  const pf = (x) => (x.pass ? 'PASS' : 'MISS');
  const rows = [];
  const row = (...c) => rows.push(c);
  const f = (x, d = 2) => (x == null ? '—' : Number(x).toFixed(d));
  row('Batched forward pass (WASM SIMD)', 'B=1', 'B=5', 'B=32', 'budget');
  for (const [name, label] of [['stories15m', 'stories15M shape, 32 000 tokens'], ['bench_model', 'the same, 512 tokens'], ['transformer', 'shipped transformer']]) {
    const m = r.batch[name];
    row(`  ${label}, µs per position`, f(m.us_per_position[1], 1), f(m.us_per_position[5], 1), f(m.us_per_position[32], 1), '');
    row(`  ${label}, a pass / one position`, '1×', `${f(m.pass_over_single[5])}×`, `${f(m.pass_over_single[32])}×`,
      name === 'stories15m' ? `≤ ${SPEC_BUDGET.batch5_over_1}×  ${pf(b.batch5_over_single)}` : '');
  }
  row(`  prompt prefill, 256 tokens (ms)`, `${f(r.prefill.single_ms, 1)} one by one`, `${f(r.prefill.batched_ms, 1)} batched`, `${f(r.prefill.speedup)}×`, `≥ ${SPEC_BUDGET.prefill}×  ${pf(b.prefill_speedup)}`);
  row('');
  row('Speculative decoding (WASM SIMD, T = 0)', 'ms', 'speedup', 'tok/pass', 'accepted');
  row('  plain greedy', f(r.speculative.greedy.plain.ms, 1), '1×', '1.00', '');
  for (const [n, g] of Object.entries(r.speculative.greedy)) {
    if (n === 'plain') continue;
    const same = g.same_text_as_plain ? '' : ' TEXT DIFFERS';
    row(`  ${n}${same}`, f(g.ms, 1), `${f(g.speedup)}×`, f(g.tokens_per_target_pass), `${g.accepted}/${g.drafted} (${f(100 * g.acceptance, 1)}%)`);
  }
  row(`  best: ${MAIN_DRAFT} k=${r.speculative.best_k_bible_tiny}`, '', `${f(b.spec_speedup.value)}×`, '', `≥ ${SPEC_BUDGET.speedup}×  ${pf(b.spec_speedup)}`);
  for (const [n, a] of Object.entries(r.speculative.acceptance)) {
    const budget = n === `${MAIN_DRAFT} T0` ? `≥ ${SPEC_BUDGET.accept_t0 * 100}%  ${pf(b.spec_acceptance_t0)}`
      : n === `${MAIN_DRAFT} T1` ? `≥ ${SPEC_BUDGET.accept_t1 * 100}%  ${pf(b.spec_acceptance_t1)}` : '';
    row(`  acceptance ${n}, k=4`, `${a.accepted}/${a.drafted}`, `${f(100 * a.acceptance, 1)}%`, `${f(a.tokens_per_target_pass)} tok/pass`, budget);
  }
  return rows;
}
