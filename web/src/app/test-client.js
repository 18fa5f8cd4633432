// For tests: a client whose Worker host runs in process, behind a queue
// that clones every message both ways as postMessage does; and the text
// the engine itself gives, to compare the UI's with.
import fs from 'node:fs';
import path from 'node:path';

import { loadEngineNode } from '../engine/node.js';
import { MODELS } from '../../../tests/e2e/fixtures.js';
import { EngineHost } from '../worker/host.js';

const bigramPath = path.join(MODELS, 'bigram.bin');

export function inProcessClient() {
  const host = new EngineHost(loadEngineNode('simd'), {
    builtins: {
      bigram: { name: 'Bigram names', url: bigramPath, missing: 'no bigram' },
      transformer: { name: 'Tiny transformer', url: '/nonexistent/t.bin', tokenizerUrl: '/nonexistent/tt.bin', missing: 'The tiny transformer is not in this build yet.' },
    },
    fetchBytes: async (url) => (fs.existsSync(url) ? new Uint8Array(fs.readFileSync(url)) : null),
  });
  let queue = Promise.resolve();
  return {
    host,
    request(op, args = {}) {
      const run = queue.then(async () => structuredClone(await host.handle(op, structuredClone(args))));
      queue = run.catch(() => {});
      return run;
    },
  };
}


/**
 * The bigram's generated text for prompt, seed and params, straight from
 * the engine (without the prompt; stops early if the text finishes).
 */
export async function engineText(prompt, seed, params, steps) {
  const e = await loadEngineNode('simd');
  const model = e.loadModel(new Uint8Array(fs.readFileSync(bigramPath)));
  const s = e.createSession(model);
  s.start(prompt, seed);
  let text = '';
  for (let i = 0; i < steps && !s.finished; i++) text += s.step(params).piece;
  s.free();
  model.free();
  return text;
}
