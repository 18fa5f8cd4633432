// The `sampler` command is split by job (c/cli/cli_shared.h lists the files): none over 500 lines.
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';

import { ROOT } from './helpers.js';

it('no file of the command line is over 500 lines', () => {
  const dir = path.join(ROOT, 'c/cli');
  const files = fs.readdirSync(dir, { recursive: true }).map(String).filter((f) => /\.[ch]$/.test(f));
  expect(files.length).toBeGreaterThan(8);
  const long = files.map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf8').split('\n').length - 1]).filter(([, n]) => n > 500);
  expect(long).toEqual([]);
});
