// What every browser must reproduce: the native CLI's `generate --json`
// output for each case of the matrix (build/sampler), and the digest of
// the Worker's answers when the same host code runs in Node on the WASM
// build (simd and scalar give one digest: the builds are byte-identical).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { loadEngineNode } from '../../web/src/engine/node.js';
import { EngineHost } from '../../web/src/worker/host.js';
import { FIXTURES, IN_CI, MODELS, ROOT } from '../e2e/fixtures.js';
import { CASES, cliArgs, cliLine, loadModels, runCase } from './matrix.js';
import { ggufPath, registerGguf } from '../helpers/gguf-files.js';
import { writeGguf } from '../helpers/gguf.js';
import { llamaTensors, modelMetadata, randomWeights, syntheticVocab, vocabMetadata } from '../helpers/gguf-models.js';

/** The matrix's GGUF: random weights, 256 wide (Q8_0 blocks fit every row), a 512-token SentencePiece vocabulary. */
registerGguf('matrix-q8_0', 'the browser matrix\'s GGUF: random Q8_0 weights (2 layers, 256 wide, grouped-query 4/2 heads), a synthetic 512-token vocabulary', () => {
  const shape = { dim: 256, ffn: 512, layers: 2, heads: 4, kvHeads: 2, ctx: 256 };
  const vocab = syntheticVocab(512);
  const w = randomWeights(shape, 512, { seed: 21, peak: 8 });
  return writeGguf({
    metadata: { ...modelMetadata('llama', shape, 512, 'matrix-q8_0'), ...vocabMetadata(vocab) },
    tensors: llamaTensors(w, shape, 512, { type: 'Q8_0' }),
  });
});

export const SAMPLER = path.join(ROOT, 'build', 'sampler');
export const STORIES = path.join(FIXTURES, 'stories260K.bin');
export const haveStories = fs.existsSync(STORIES);
/** The cases this machine can run: without the llama2.c fixture (and not
 * under CI=true, where its absence fails the suite), the stories260K cases
 * are left out, and the suite says so. */
export const RUN_CASES = haveStories || IN_CI ? CASES : CASES.filter((c) => c.model !== 'stories');

/**
 * A tokenizer.bin of `vocab` distinct ASCII pieces for the llama2.c
 * fixture checkpoint, whose own 512-piece tokenizer is not available (the
 * fixture is for numbers, not text): id 1 is <s>, 2 is </s>.
 */
export function standInTokenizer(vocab = 512) {
  const pieces = Array.from({ length: vocab }, (_, i) => (i === 1 ? '<s>' : i === 2 ? '</s>' : ` t${i}`));
  const parts = [Buffer.from(new Int32Array([8]).buffer)];
  for (const p of pieces) {
    const b = Buffer.from(p, 'utf8');
    parts.push(Buffer.from(new Float32Array([0]).buffer), Buffer.from(new Int32Array([b.length]).buffer), b);
  }
  return new Uint8Array(Buffer.concat(parts));
}

/** The matrix's model files: paths for the CLI, bytes for a host. */
export function matrixFiles() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spg-matrix-'));
  const storiesTokenizer = path.join(dir, 'stories260K-standin-tokenizer.bin');
  fs.writeFileSync(storiesTokenizer, standInTokenizer());
  return {
    dir,
    paths: { stories: STORIES, storiesTokenizer, gguf: ggufPath('matrix-q8_0') },
    bytes: () => ({
      stories: haveStories ? new Uint8Array(fs.readFileSync(STORIES)) : null,
      gguf: new Uint8Array(fs.readFileSync(ggufPath('matrix-q8_0'))),
      storiesTokenizer: haveStories ? new Uint8Array(fs.readFileSync(storiesTokenizer)) : null,
      bigram: new Uint8Array(fs.readFileSync(path.join(MODELS, 'bigram.bin'))),
      transformer: new Uint8Array(fs.readFileSync(path.join(MODELS, 'transformer.bin'))),
      transformerTokenizer: new Uint8Array(fs.readFileSync(path.join(MODELS, 'transformer_tokenizer.bin'))),
    }),
  };
}

/** The native CLI's stdout for every case: {name: text}. */
export function nativeOutputs(files) {
  const out = {};
  for (const c of RUN_CASES) {
    const r = spawnSync(SAMPLER, cliArgs(c, files.paths), { cwd: ROOT, encoding: 'buffer' });
    if (r.status !== 0) throw new Error(`${c.name}: build/sampler ${cliArgs(c, files.paths).join(' ')} failed: ${r.stderr}`);
    out[c.name] = r.stdout.toString('utf8');
  }
  return out;
}

/**
 * The matrix in Node through the Worker's own host code (worker/host.js)
 * on the WASM build: {name: {lines, digest}}.
 * @param {'simd' | 'scalar'} flavor
 */
export async function nodeRun(files, flavor) {
  const host = new EngineHost(loadEngineNode(flavor));
  const request = async (op, args = {}) => structuredClone(await host.handle(op, structuredClone(args)));
  await loadModels(request, files.bytes());
  const out = {};
  for (const c of RUN_CASES) {
    const r = await runCase(request, c);
    out[c.name] = { text: r.records.map(cliLine).join(''), digest: r.digest };
  }
  return out;
}
