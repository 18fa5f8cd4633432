// The shipped outputs (tests/golden/cases.js) are a contract: the native CLI
// and the WASM engine still print exactly the pinned bytes.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { CLI_CASES } from '../golden/cases.js';
import { cliArgs } from '../golden/run.js';
import { haveFixtures, needFixtures, ROOT, runNative, runWasm, skipWithoutFixtures } from './helpers.js';

const golden = JSON.parse(fs.readFileSync(path.join(ROOT, 'tests/golden/cli.golden.json'), 'utf8'));

describe('golden outputs: what shipped still prints the same bytes', () => {
  it('every case is pinned', () => {
    expect(Object.keys(golden).sort()).toEqual(CLI_CASES.map((c) => c.name).sort());
  });

  const cases = CLI_CASES.map((c) => [c.name, c]);
  it.each(cases)('%s', async (name, c) => {
    if (c.needs === 'fixtures' && !haveFixtures) {
      if (!skipWithoutFixtures) needFixtures(); // CI: fails, saying why
      console.warn(`golden: ${name} skipped, no llama2.c fixtures`);
      return;
    }
    const want = golden[name];
    const native = runNative(cliArgs(c), c.stdin ?? '');
    expect({ status: native.status, stdout: native.stdout.toString(), stderr: native.stderr }).toEqual(want);
    const simd = await runWasm('simd', cliArgs(c), c.stdin ?? '');
    expect({ status: simd.status, stdout: simd.stdout.toString(), stderr: simd.stderr }).toEqual(want);
  });
});
