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

/** the URLs of the shipped models, resolved against the page */
export const MODEL_URLS = {
  bigram: new URL('../../../models/bigram.bin', import.meta.url),
  transformer: new URL('../../../models/transformer.bin', import.meta.url),
  transformerTokenizer: new URL('../../../models/transformer_tokenizer.bin', import.meta.url),
};
