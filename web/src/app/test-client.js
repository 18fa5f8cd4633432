// A client for tests: the Worker's host in process, behind a queue that
// clones every message both ways, as postMessage does.
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

