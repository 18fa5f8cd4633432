// Vite builds the playground (web/) into dist/ as static files with
// relative URLs; Vitest runs the JS tests (tests/js, web/src) in Node.
import { defineConfig } from 'vite';

export default defineConfig({
  root: 'web',
  base: './',
  publicDir: false,
  oxc: {
    jsx: { runtime: 'automatic', importSource: 'preact' },
  },
  build: {
    outDir: '../dist',
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: 0,
  },
  server: {
    host: '127.0.0.1',
    fs: { allow: ['..'] },
  },
  worker: { format: 'es' },
  test: {
    root: '.',
    include: ['tests/js/**/*.test.js', 'web/src/**/*.test.{js,jsx}'],
    testTimeout: 60000,
    hookTimeout: 60000,
  },
});
