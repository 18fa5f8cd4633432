// The shipped outputs (tests/golden/cases.js) are a contract: the native CLI
// and the WASM engine still print exactly the pinned bytes.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { CLI_CASES } from '../golden/cases.js';
import { cliArgs } from '../golden/run.js';
import { needFixtures, ROOT, runNative, runWasm, skipWithoutFixtures } from './helpers.js';

const golden = JSON.parse(fs.readFileSync(path.join(ROOT, 'tests/golden/cli.golden.json'), 'utf8'));

describe('golden outputs: what shipped still prints the same bytes', () => {
  it('every case is pinned', () => {
    expect(Object.keys(golden).sort()).toEqual(CLI_CASES.map((c) => c.name).sort());
  });

  // a case that needs the llama2.c fixtures: skipped without them (said
  // once by helpers.js), except under CI=true, where it fails
  const skipped = (c) => c.needs === 'fixtures' && skipWithoutFixtures;
  it.each(CLI_CASES.filter((c) => !skipped(c)).map((c) => [c.name, c]))('%s', async (name, c) => {
    if (c.needs === 'fixtures') needFixtures();
    const want = golden[name];
    const native = runNative(cliArgs(c), c.stdin ?? '');
    expect({ status: native.status, stdout: native.stdout.toString(), stderr: native.stderr }).toEqual(want);
    const simd = await runWasm('simd', cliArgs(c), c.stdin ?? '');
    expect({ status: simd.status, stdout: simd.stdout.toString(), stderr: simd.stderr }).toEqual(want);
  });
  it.skip.each(CLI_CASES.filter(skipped).map((c) => [c.name]))('%s (no llama2.c fixtures)', () => {});
});
