// Shared by the JS tests: the engine in both WASM flavors, the native CLI,
// and in-process runs of the WASM CLI that capture stdout and stderr.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { expect } from 'vitest';

import { loadCliNode, loadEngineNode, MODELS_DIR, ROOT } from '../../web/src/engine/node.js';
import { FIXTURES, needFixture, skipWithout } from '../e2e/fixtures.js';

export { ROOT, MODELS_DIR, FIXTURES };
/** the shipped transformer and its tokenizer are both there (one meaning everywhere) */
export { haveTransformer, needTransformer, skipWithoutTransformer } from '../e2e/fixtures.js';
export const NATIVE = path.join(ROOT, 'build/sampler');
export const haveFixtures = fs.existsSync(path.join(FIXTURES, 'stories260K.bin'));
/** Skip the tests that need the llama2.c fixtures: missing, and not CI
 * (under CI=true they run, and needFixtures() fails them). */
export const skipWithoutFixtures = skipWithout(haveFixtures, `the llama2.c fixtures are missing (${FIXTURES}: ../shared next to the repository)`);
export const needFixtures = () => needFixture(path.join(FIXTURES, 'stories260K.bin'));

/** @type {Record<string, Promise<import('../../web/src/engine/engine.js').Engine>>} */
const engines = {};
/** @param {'simd' | 'scalar'} flavor */
export function engine(flavor) {
  engines[flavor] ??= loadEngineNode(flavor);
  return engines[flavor];
}

/** @type {Record<string, Promise<import('../../web/src/engine/cli.js').Cli>>} */
const clis = {};

/**
 * Runs the CLI in WASM, in process.
 * @param {'simd' | 'scalar'} flavor @param {string[]} args @param {string} [stdin]
 */
export async function runWasm(flavor, args, stdin = '') {
  clis[flavor] ??= loadCliNode(flavor);
  const cli = await clis[flavor];
  const out = [], err = [];
  const status = cli.run(['sampler', ...args], {
    write: (fd, bytes) => (fd === 2 ? err : out).push(Buffer.from(bytes)),
    readFile: (file) => {
      if (file === '-') return new Uint8Array(Buffer.from(stdin));
      return fs.existsSync(file) ? new Uint8Array(fs.readFileSync(file)) : null;
    },
    writeFile: (file, bytes) => fs.writeFileSync(file, bytes),
    modelsDir: MODELS_DIR,
  });
  return { status, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString() };
}

/** Runs the native CLI. @param {string[]} args @param {string} [stdin] */
export function runNative(args, stdin = '') {
  const r = spawnSync(NATIVE, args, { input: stdin, maxBuffer: 1 << 28 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr.toString() };
}

/**
 * Runs the CLI natively and in both WASM builds: the same status, the same
 * stdout byte for byte and the same stderr everywhere.  Returns the native
 * run.
 * @param {string[]} args @param {string} [stdin]
 */
export async function sameEverywhere(args, stdin = '') {
  const native = runNative(args, stdin);
  for (const flavor of /** @type {const} */ (['simd', 'scalar'])) {
    const w = await runWasm(flavor, args, stdin);
    expect({ flavor, status: w.status, stderr: w.stderr }).toEqual({ flavor, status: native.status, stderr: native.stderr });
    expect(w.stdout.equals(native.stdout), `${flavor} differs from native: ${args.join(' ')}`).toBe(true);
  }
  return native;
}

/** A deterministic stream of numbers for test inputs (not the engine's). */
export function lcg(seed) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** chi-square statistic with bins of expected count < 5 merged. */
export function chiSquare(counts, probs, total) {
  let stat = 0, bins = 0, so = 0, se = 0;
  for (let i = 0; i < probs.length; i++) {
    const e = probs[i] * total;
    if (e < 5) { so += counts[i]; se += e; continue; }
    stat += (counts[i] - e) ** 2 / e;
    bins++;
  }
  if (se > 0) { stat += (so - se) ** 2 / se; bins++; }
  const df = bins - 1;
  const z = 3.090232, a = 2 / (9 * df);
  return { stat, df, critical: df * (1 - a + z * Math.sqrt(a)) ** 3 };
}
