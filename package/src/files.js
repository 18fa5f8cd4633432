// @ts-check
/**
 * The package's files: the engine Worker, the two WebAssembly builds and
 * the shipped models.  In the built module each is
 * `new URL("./file", import.meta.url)`, the form a bundler (Vite, webpack,
 * Parcel, Rollup's plugins) follows to copy the file into the site, under a
 * new name; without a bundler they are the files next to the module.  The
 * Worker is copied as it is, so it cannot find the others itself: their
 * URLs, resolved here, travel in its URL's fragment (engine.worker.js
 * reads them).
 */
import workerUrl from '../../web/src/worker/engine.worker.js?worker&url';
import { MODEL_URLS, WASM_URLS } from '../../web/src/engine/browser.js';

const href = (/** @type {URL | string | null} */ u) => (u === null ? null : String(u));

export const FILES = {
  simd: href(WASM_URLS.simd),
  scalar: href(WASM_URLS.scalar),
  ...Object.fromEntries(Object.entries(MODEL_URLS).map(([key, u]) => [key, href(u)])),
};

export const WORKER_URL = `${workerUrl}#${encodeURIComponent(JSON.stringify(FILES))}`;
