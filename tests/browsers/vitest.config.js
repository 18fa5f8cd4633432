// The playground in three browser engines (Chromium, Firefox, WebKit), one
// engine at a time, each with one browser: `./build.sh test` runs them
// after the Chromium e2e tests:
//   npx vitest run --config tests/browsers/vitest.config.js [tests/browsers/firefox.test.js]
// Each engine's findings go to build/browsers/ENGINE.json; table.mjs
// writes the README's table from them.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export default defineConfig({
  root,
  test: {
    root,
    include: ['tests/browsers/**/*.test.js'],
    environment: 'node',
    globalSetup: ['tests/e2e/setup.js'],
    fileParallelism: false,
    sequence: { concurrent: false },
    testTimeout: 120000,
    hookTimeout: 120000,
  },
});
