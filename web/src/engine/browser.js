// @ts-check
/**
 * browser.js — the engine in a browser (the Worker): fetches the SIMD build
 * where WebAssembly SIMD exists, else the scalar build.
 */
import { loadEngine, simdSupported } from './engine.js';

const SIMD_URL = new URL('../../../build/engine-simd.wasm', import.meta.url);
const SCALAR_URL = new URL('../../../build/engine-scalar.wasm', import.meta.url);

/** @param {'auto' | 'simd' | 'scalar'} [flavor] */
export function loadEngineBrowser(flavor = 'auto') {
  const simd = flavor === 'simd' || (flavor === 'auto' && simdSupported());
  return loadEngine(fetch(simd ? SIMD_URL : SCALAR_URL));
}

/** the URLs of the shipped models, resolved against the page; null for a
 * model that is not in models/ at build time */
const shipped = import.meta.glob('../../../models/*.bin', { query: '?url', import: 'default', eager: true });
const url = (/** @type {string} */ name) => {
  const found = shipped[`../../../models/${name}`];
  return found ? new URL(/** @type {string} */ (found), import.meta.url) : null;
};
export const MODEL_URLS = {
  bigram: url('bigram.bin'),
  transformer: url('transformer.bin'),
  transformerTokenizer: url('transformer_tokenizer.bin'),
};
