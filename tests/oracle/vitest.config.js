// The engine against llama.cpp itself (@wllama/wllama in Debian's Chromium)
// on the GGUF files the tests write (build/gguf/).  `./build.sh test` runs
// them:  npx vitest run --config tests/oracle/vitest.config.js
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export default defineConfig({
  root,
  test: {
    root,
    include: ['tests/oracle/**/*.test.js'],
    environment: 'node',
    // one browser at a time: steady on 2 cores
    fileParallelism: false,
    sequence: { concurrent: false },
    testTimeout: 180000,
    hookTimeout: 180000,
  },
});
