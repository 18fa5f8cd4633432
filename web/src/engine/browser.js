// @ts-check
/**
 * browser.js — the engine in a browser (the Worker): fetches the SIMD build
 * where WebAssembly SIMD exists, else the scalar build.
 */
import { loadEngine, simdSupported } from './engine.js';
import { fileKey, SHIPPED_FILES } from '../shared/manifest.js';

const SIMD_URL = new URL('../../../build/engine-simd.wasm', import.meta.url);
const SCALAR_URL = new URL('../../../build/engine-scalar.wasm', import.meta.url);
/** the two builds' URLs (the npm package resolves them in its own module) */
export const WASM_URLS = { simd: SIMD_URL, scalar: SCALAR_URL };

/**
 * The build a URL asks for: `?wasm=scalar` (or `?wasm=simd`) overrides the
 * feature detection, so the scalar build can be run, and checked, in a
 * browser that has SIMD.
 * @param {string | URL} url
 * @returns {'auto' | 'simd' | 'scalar'}
 */
export function requestedFlavor(url) {
  const v = new URL(url).searchParams.get('wasm');
  return v === 'simd' || v === 'scalar' ? v : 'auto';
}

/**
 * @param {'auto' | 'simd' | 'scalar'} [flavor]
 * @param {{simd: URL | string, scalar: URL | string}} [urls]  where the builds are
 */
export function loadEngineBrowser(flavor = 'auto', urls = WASM_URLS) {
  const simd = flavor === 'simd' || (flavor === 'auto' && simdSupported());
  return loadEngine(fetch(simd ? urls.simd : urls.scalar));
}

/** the URLs of the shipped models, resolved against the page; null for a
 * model that is not in models/ at build time */
const shipped = import.meta.glob('../../../models/*.bin', { query: '?url', import: 'default', eager: true });
const url = (/** @type {string} */ name) => {
  const found = shipped[`../../../models/${name}`];
  return found ? new URL(/** @type {string} */ (found), import.meta.url) : null;
};
/** @type {Record<string, URL | null>} by fileKey: bigram, transformer, transformerTokenizer, ... (models/manifest.json) */
export const MODEL_URLS = Object.fromEntries(SHIPPED_FILES.map((file) => [fileKey(file), url(file)]));
