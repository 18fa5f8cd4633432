// Makes sure dist/ is the build of the current web/ sources (./build.sh
// has just built it; a bare `npx vitest run --config tests/e2e/...` may
// not have).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { DIST, ROOT } from './fixtures.js';

function newest(dir) {
  let t = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    t = Math.max(t, entry.isDirectory() ? newest(p) : fs.statSync(p).mtimeMs);
  }
  return t;
}

export default function setup() {
  const index = path.join(DIST, 'index.html');
  const sources = Math.max(newest(path.join(ROOT, 'web')), newest(path.join(ROOT, 'models')),
    ...['engine-simd.wasm', 'engine-scalar.wasm'].map((f) => {
      const p = path.join(ROOT, 'build', f);
      return fs.existsSync(p) ? fs.statSync(p).mtimeMs : Infinity;
    }));
  if (fs.existsSync(index) && fs.statSync(index).mtimeMs >= sources) return;
  if (!fs.existsSync(path.join(ROOT, 'build', 'engine-simd.wasm'))) {
    throw new Error('build/engine-*.wasm are missing: run ./build.sh first');
  }
  // a production build, as ./build.sh makes: Vitest sets NODE_ENV=test, and
  // a build under it would leave out the offline cache and ship Preact's
  // debug build
  const r = spawnSync('npx', ['vite', 'build', '--logLevel', 'error'], { cwd: ROOT, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } });
  if (r.status !== 0) throw new Error('vite build failed');
}
