// @ts-check
/**
 * node.js — the engine in Node: loads build/engine-{simd,scalar}.wasm from
 * disk, and runs the `sampler` CLI (build/cli-{simd,scalar}.wasm) with
 * files, stdout and stderr.  `node build/sampler.mjs ...` and the tests use
 * it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { loadCli } from './cli.js';
import { loadEngine, simdSupported } from './engine.js';

const here = path.dirname(fileURLToPath(import.meta.url));
/** the repository's root */
export const ROOT = path.resolve(here, '../../..');
export const BUILD_DIR = process.env.SAMPLER_BUILD_DIR || path.join(ROOT, 'build');
export const MODELS_DIR = process.env.SAMPLER_MODELS || path.join(ROOT, 'models');

/**
 * The bytes of build/NAME-{simd,scalar}.wasm.  flavor "auto" picks SIMD
 * where the JS engine has it (env SAMPLER_WASM=simd|scalar overrides).
 * @param {'engine' | 'engine-train' | 'cli'} name
 * @param {'auto' | 'simd' | 'scalar'} flavor
 */
function readWasm(name, flavor) {
  if (flavor !== 'auto' && flavor !== 'simd' && flavor !== 'scalar') {
    throw new RangeError(`SAMPLER_WASM must be simd or scalar (got ${flavor})`);
  }
  const pick = flavor === 'auto' ? (simdSupported() ? 'simd' : 'scalar') : flavor;
  return fs.readFileSync(path.join(BUILD_DIR, `${name}-${pick}.wasm`));
}

/** @returns {'auto' | 'simd' | 'scalar'} */
const defaultFlavor = () => /** @type {any} */ (process.env.SAMPLER_WASM || 'auto');

/**
 * Loads the engine from build/.
 * @param {'auto' | 'simd' | 'scalar'} [flavor]
 */
export async function loadEngineNode(flavor = defaultFlavor()) {
  return loadEngine(readWasm('engine', flavor));
}

/**
 * Loads the training engine from build/ (engine-train-*.wasm: the engine
 * and the trainer, trainer.js).
 * @param {'auto' | 'simd' | 'scalar'} [flavor]
 */
export async function loadTrainEngineNode(flavor = defaultFlavor()) {
  return loadEngine(readWasm('engine-train', flavor));
}

/**
 * Loads the command line from build/.
 * @param {'auto' | 'simd' | 'scalar'} [flavor]
 */
export async function loadCliNode(flavor = defaultFlavor()) {
  return loadCli(readWasm('cli', flavor));
}

/**
 * Writes all bytes to a file descriptor, waiting out EAGAIN on
 * non-blocking pipes.
 * @param {number} fd @param {Uint8Array} bytes
 */
function writeAll(fd, bytes) {
  let offset = 0;
  while (offset < bytes.length) {
    try {
      offset += fs.writeSync(fd, bytes, offset, bytes.length - offset);
    } catch (err) {
      if (/** @type {NodeJS.ErrnoException} */ (err).code !== 'EAGAIN') throw err;
    }
  }
}

/** @type {import('./cli.js').CliHost} */
export const nodeHost = {
  write: (fd, bytes) => writeAll(fd === 2 ? 2 : 1, bytes),
  readFile(file) {
    try {
      return new Uint8Array(file === '-' ? fs.readFileSync(0) : fs.readFileSync(file));
    } catch (err) {
      if (/** @type {NodeJS.ErrnoException} */ (err).code === 'ENOENT') return null;
      throw err;
    }
  },
  // written whole to FILE.tmp, then renamed: a failed write never leaves
  // half a file in place of a good one
  writeFile(file, bytes) {
    const tmp = `${file}.tmp`;
    try {
      fs.writeFileSync(tmp, bytes);
      fs.renameSync(tmp, file);
    } catch (err) {
      fs.rmSync(tmp, { force: true });
      throw err;
    }
  },
  modelsDir: MODELS_DIR,
};

/**
 * The CLI: `sampler ARGS...` over the WASM build.
 * @param {string[]} args without the program name
 * @returns {Promise<number>} the exit status
 */
export async function main(args) {
  const cli = await loadCliNode();
  return cli.run(['sampler', ...args], nodeHost);
}
