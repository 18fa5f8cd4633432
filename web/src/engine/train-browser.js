// @ts-check
/**
 * train-browser.js — the training engine in a browser (the training
 * Worker): build/engine-train-{simd,scalar}.wasm, the whole engine and the
 * trainer (trainer.js wraps it).  A module of its own so that the page's
 * first visit never fetches it: only what imports this file does, when the
 * Train card opens.
 */
import { loadEngine, simdSupported } from './engine.js';

export const TRAIN_WASM_URLS = {
  simd: new URL('../../../build/engine-train-simd.wasm', import.meta.url),
  scalar: new URL('../../../build/engine-train-scalar.wasm', import.meta.url),
};

/**
 * @param {'auto' | 'simd' | 'scalar'} [flavor]  as browser.js's requestedFlavor reads it
 * @param {{simd: URL | string, scalar: URL | string}} [urls]
 */
export function loadTrainEngineBrowser(flavor = 'auto', urls = TRAIN_WASM_URLS) {
  const simd = flavor === 'simd' || (flavor === 'auto' && simdSupported());
  return loadEngine(fetch(simd ? urls.simd : urls.scalar));
}
