// Records the golden outputs (tests/golden/cases.js) from the current build:
//   node tests/golden/pin.mjs cli     the native CLI's bytes -> cli.golden.json
//   node tests/golden/pin.mjs links   the page's texts in Chromium -> links.golden.json
// Only when an issue changes an output on purpose; the commit says which.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { CLI_CASES, LINK_CASES } from './cases.js';
import { cliArgs, pageTexts } from './run.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(here, '../..');
const what = process.argv[2];

if (what === 'cli') {
  const out = {};
  for (const c of CLI_CASES) {
    const r = spawnSync(path.join(ROOT, 'build/sampler'), cliArgs(c), { input: c.stdin ?? '', maxBuffer: 1 << 28 });
    out[c.name] = { status: r.status, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
  }
  fs.writeFileSync(path.join(here, 'cli.golden.json'), `${JSON.stringify(out, null, 1)}\n`);
  console.log(`pinned ${CLI_CASES.length} CLI outputs`);
} else if (what === 'links') {
  const out = await pageTexts(LINK_CASES);
  fs.writeFileSync(path.join(here, 'links.golden.json'), `${JSON.stringify(out, null, 1)}\n`);
  console.log(`pinned ${LINK_CASES.length} links`);
} else {
  console.error('usage: node tests/golden/pin.mjs cli|links');
  process.exit(2);
}
