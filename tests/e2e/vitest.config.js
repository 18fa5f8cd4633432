// End-to-end tests: the built playground (dist/) in Debian's Chromium,
// driven by playwright-core.  `./build.sh test` runs them after the unit
// tests:  npx vitest run --config tests/e2e/vitest.config.js
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export default defineConfig({
  root,
  test: {
    root,
    include: ['tests/e2e/**/*.test.js'],
    environment: 'node',
    globalSetup: ['tests/e2e/setup.js'],
    // one browser, one page at a time: steady timings on 2 cores
    fileParallelism: false,
    sequence: { concurrent: false },
    testTimeout: 60000,
    hookTimeout: 120000,
    // a real browser on a shared 2-core machine: a test that fails is run
    // once more (vitest prints the retry), so one slow frame under load
    // does not sink the run; a test that fails twice fails
    retry: 1,
  },
});
