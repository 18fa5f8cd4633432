// train.mjs — the trainer's benchmarks (bench/run.sh runs it; it adds a
// "train" section to build/bench.json and prints its rows):
//
// 1. Training tokens per second, each shape of the presets (tiny, small,
//    shipped), on the King James text: the engine in WASM SIMD (the
//    training engine in Node, timed around trainer.run), in scalar WASM
//    (tiny only: it is slow), natively (build/bench/bench-train-native,
//    its own clock) and PyTorch on the CPU on one thread
//    (bench/train_torch.py: models/tiny_llama.py's model, the same batch
//    and context, torch.set_num_threads(1)) with the BLAS this machine
//    has, and again with OpenBLAS when its library is there
//    (/usr/lib/x86_64-linux-gnu/openblas-pthread, or BENCH_OPENBLAS_DIR:
//    Debian's python3-torch calls whichever libblas.so.3 it finds, and
//    netlib's reference BLAS is many times slower).  Each by its own wall
//    clock, the same steps, in rounds that take the runners in turn; the
//    medians of the rounds with their spread, and the ratio within each
//    round.  The budget: WASM SIMD at least 2x PyTorch, each shape.
// 2. What a learner gets in 60 seconds in Chromium (bench/train-learner.mjs).
//
//   node bench/train.mjs        (BENCH_QUICK=1: 3 rounds, fewer steps)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

import { loadTrainEngineNode } from '../web/src/engine/node.js';
import { createTrainer } from '../web/src/engine/trainer.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(ROOT, 'build/bench');
const QUICK = process.env.BENCH_QUICK === '1';
const ROUNDS = QUICK ? 3 : 7;
const PYTHON = '/usr/bin/python3';
export const TRAIN_BUDGET = { simd_vs_torch: 2 };

/** the shapes: a preset, and the steps a round times on each runner */
const SHAPES = [
  { preset: 'tiny', steps: QUICK ? 2 : 6, torchSteps: QUICK ? 1 : 3, scalar: true },
  { preset: 'small', steps: QUICK ? 1 : 2, torchSteps: 1 },
  { preset: 'shipped', steps: 1, torchSteps: 1 },
];

const round = (x, d = 0) => Math.round(x * 10 ** d) / 10 ** d;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const spread = (xs) => ({ min: round(Math.min(...xs)), max: round(Math.max(...xs)), n: xs.length });

// ------------------------------------------------------------------ texts

/** The names list and the King James text as training files in build/bench
 * (null when the package is missing: said in the results). */
export function benchTexts() {
  fs.mkdirSync(OUT, { recursive: true });
  const names = path.join(OUT, 'names.txt');
  const kjv = path.join(OUT, 'kjv.txt');
  const out = { names: null, kjv: null, missing: [] };
  const gz = '/usr/share/dict/propernames.gz';
  if (fs.existsSync(gz)) fs.writeFileSync(names, zlib.gunzipSync(fs.readFileSync(gz)));
  else if (fs.existsSync('/usr/share/dict/propernames')) fs.copyFileSync('/usr/share/dict/propernames', names);
  if (fs.existsSync(names)) out.names = names;
  else out.missing.push('the names list (apt-get install miscfiles)');
  if (!fs.existsSync(kjv)) {
    // models/kjv.py's corpus: one verse a line, normalized as the shipped
    // transformer's training read it
    const py = `import sys; sys.path.insert(0, ${JSON.stringify(path.join(ROOT, 'models'))})
import kjv
lines = [kjv.normalize(v) for ch in kjv.read_kjv() for v in ch]
open(${JSON.stringify(kjv)}, 'w').write('\\n'.join(l for l in lines if l) + '\\n')`;
    spawnSync(PYTHON, ['-c', py], { stdio: ['ignore', 'ignore', 'inherit'] });
  }
  if (fs.existsSync(kjv)) out.kjv = kjv;
  else out.missing.push('the King James text (apt-get install bible-kjv)');
  return out;
}

// ------------------------------------------------------------------ runners

/** The engine's preset's settings (the training engine's own table). */
function presetSettings(engine, preset) {
  const t = createTrainer(engine, 'a\n'.repeat(2000), { preset, settings: { steps: 1 } });
  const s = t.settings;
  t.free();
  return s;
}

/** WASM: one trainer a shape, each round timing `steps` more steps. */
async function wasmRunner(flavor, text, shapes) {
  const engine = await loadTrainEngineNode(flavor);
  const bytes = new Uint8Array(fs.readFileSync(text));
  const trainers = {};
  for (const s of shapes) {
    trainers[s.preset] = createTrainer(engine, bytes, { preset: s.preset, settings: { steps: 100000 } });
    trainers[s.preset].run({ steps: 1 }); // warm-up
  }
  return {
    run(shape) {
      const t = trainers[shape.preset];
      const t0 = performance.now(), c0 = process.cpuUsage();
      const done = t.run({ steps: shape.steps });
      const seconds = (performance.now() - t0) / 1000;
      const c = process.cpuUsage(c0);
      const tokens = done * t.plan.tokensPerStep;
      return { wall: tokens / seconds, cpu: tokens / ((c.user + c.system) / 1e6) };
    },
    free: () => Object.values(trainers).forEach((t) => t.free()),
  };
}

function nativeRun(text, shape) {
  const r = spawnSync(path.join(OUT, 'bench-train-native'), [text, shape.preset, '1', String(shape.steps)], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`bench-train-native: ${r.stderr}`);
  const j = JSON.parse(r.stdout);
  return { wall: j.tokens_per_s, cpu: j.tokens_per_cpu_s };
}

/** PyTorch on one thread; lib: a folder holding another libblas.so.3 */
function torchRun(text, settings, steps, lib) {
  const args = [path.join(ROOT, 'bench/train_torch.py'), '--text', text, '--warmup', '1', '--steps', String(steps), '--threads', '1'];
  for (const k of ['dim', 'hidden', 'layers', 'heads', 'kv-heads', 'context', 'batch']) args.push(`--${k}`, String(settings[k]));
  const env = { ...process.env, OMP_NUM_THREADS: '1', OPENBLAS_NUM_THREADS: '1' };
  if (lib) env.LD_LIBRARY_PATH = lib;
  const r = spawnSync(PYTHON, args, { encoding: 'utf8', env });
  if (r.status !== 0) throw new Error(`train_torch.py: ${r.stderr.slice(-400)}`);
  return JSON.parse(r.stdout);
}

function openblasDir() {
  const dirs = [process.env.BENCH_OPENBLAS_DIR, '/usr/lib/x86_64-linux-gnu/openblas-pthread'];
  return dirs.find((d) => d && fs.existsSync(path.join(d, 'libblas.so.3'))) ?? null;
}

/** PyTorch is there (Debian's python3-torch)? */
function haveTorch() {
  return spawnSync(PYTHON, ['-c', 'import torch'], { stdio: 'ignore' }).status === 0;
}

// ------------------------------------------------------------------ speed

export async function benchTrainSpeed({ log = console.log } = {}) {
  const texts = benchTexts();
  const text = texts.kjv ?? texts.names;
  if (!text) return { skipped: texts.missing.join('; ') };
  const torch = haveTorch();
  const openblas = torch ? openblasDir() : null;
  const simd = await wasmRunner('simd', text, SHAPES);
  const scalar = await wasmRunner('scalar', text, SHAPES.filter((s) => s.scalar));
  const engine = await loadTrainEngineNode('simd');
  const out = { text: path.basename(text), rounds: ROUNDS, shapes: {}, load_average: os.loadavg().map((x) => round(x, 2)) };
  if (!torch) out.torch_skipped = 'PyTorch is missing (apt-get install python3-torch)';
  for (const shape of SHAPES) {
    const settings = presetSettings(engine, shape.preset);
    // each runner's tokens/s by its own wall clock, and by its CPU time
    // (the machine is shared: CPU time says what the code does, wall time
    // what a learner waits); the ratios within each round
    const rows = { simd: [], scalar: [], native: [], torch: [], torch_openblas: [], ratio: [], ratio_openblas: [],
      simd_cpu: [], torch_cpu: [], torch_openblas_cpu: [], ratio_cpu: [], ratio_openblas_cpu: [] };
    let blas = {};
    log(`train ${shape.preset}: ${ROUNDS} rounds (WASM SIMD${shape.scalar ? ', scalar' : ''}, native${torch ? ', PyTorch' : ''}${openblas ? ', PyTorch + OpenBLAS' : ''})`);
    for (let r = 0; r < ROUNDS; r++) {
      const s = simd.run(shape);
      rows.simd.push(s.wall);
      rows.simd_cpu.push(s.cpu);
      if (shape.scalar) rows.scalar.push(scalar.run(shape).wall);
      rows.native.push(nativeRun(text, shape).wall);
      const versus = (/** @type {string} */ key, /** @type {string | undefined} */ lib) => {
        const t = torchRun(text, settings, shape.torchSteps, lib);
        blas[lib ? 'openblas' : 'system'] = t.blas;
        out.torch_version = t.torch;
        rows[key].push(t.tokens_per_s);
        rows[`${key}_cpu`].push(t.tokens_per_cpu_s);
        const ratio = key === 'torch' ? 'ratio' : 'ratio_openblas';
        rows[ratio].push(s.wall / t.tokens_per_s);
        rows[`${ratio}_cpu`].push(s.cpu / t.tokens_per_cpu_s);
      };
      if (torch) versus('torch');
      if (openblas) versus('torch_openblas', openblas);
    }
    const row = { settings: Object.fromEntries(['dim', 'hidden', 'layers', 'heads', 'kv-heads', 'context', 'batch'].map((k) => [k, settings[k]])) };
    for (const [k, xs] of Object.entries(rows)) {
      if (!xs.length) continue;
      const ratio = k.startsWith('ratio');
      row[k] = ratio ? round(median(xs), 2) : round(median(xs));
      row[`${k}_spread`] = ratio ? { min: round(Math.min(...xs), 2), max: round(Math.max(...xs), 2), n: xs.length } : spread(xs);
    }
    row.blas = blas;
    out.shapes[shape.preset] = row;
    log(`  tokens/s (wall): WASM SIMD ${row.simd}${row.scalar ? `, scalar ${row.scalar}` : ''}, native ${row.native}` +
      (row.torch ? `, PyTorch ${row.torch} (${blas.system}; ours ${row.ratio}x, by CPU time ${row.ratio_cpu}x)` : '') +
      (row.torch_openblas ? `, PyTorch + OpenBLAS ${row.torch_openblas} (ours ${row.ratio_openblas}x, by CPU time ${row.ratio_openblas_cpu}x)` : ''));
  }
  simd.free();
  scalar.free();
  out.load_average_after = os.loadavg().map((x) => round(x, 2));
  out.budgets = {};
  for (const [preset, row] of Object.entries(out.shapes)) {
    if (row.ratio === undefined) continue;
    out.budgets[`train_${preset}_simd_vs_torch`] = { value: row.ratio, budget: TRAIN_BUDGET.simd_vs_torch, pass: row.ratio >= TRAIN_BUDGET.simd_vs_torch };
  }
  return out;
}

// ------------------------------------------------------------------ main

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const speed = await benchTrainSpeed();
  const { benchTrainLearner } = await import('./train-learner.mjs');
  const learner = await benchTrainLearner({ texts: benchTexts() });
  const file = path.join(ROOT, 'build/bench.json');
  const result = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : {};
  result.train = { speed, learner };
  result.budgets = { ...(result.budgets ?? {}), ...(speed.budgets ?? {}), ...(learner.budgets ?? {}) };
  fs.writeFileSync(file, JSON.stringify(result, null, 2) + '\n');
  const all = { ...(speed.budgets ?? {}), ...(learner.budgets ?? {}) };
  for (const [k, b] of Object.entries(all)) console.log(`${b.pass ? 'ok  ' : 'MISS'} ${k}: ${b.value} (budget ${b.budget})`);
  console.log(`load average ${speed.load_average?.join(' ')} before, ${learner.load_average_after?.join(' ') ?? '?'} after — build/bench.json`);
}
