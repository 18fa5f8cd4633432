// @ts-check
/**
 * engine.worker.js — the Web Worker that owns the engine.  All engine work
 * (model loading, forward passes, warping, sampling) happens here; the page
 * only renders what it is sent.  Requests are answered one at a time, in
 * the order they came (see host.js for the protocol); while a model file
 * loads, progress messages {id, progress: {loaded, total}} come first.
 */
import { loadEngineBrowser, MODEL_URLS, requestedFlavor, WASM_URLS } from '../engine/browser.js';
import { fileKey, SHIPPED } from '../shared/manifest.js';
import { EngineHost, errorOf, fetchBytes } from './host.js';

/**
 * Where the engine's files are: next to this script, unless its URL's
 * fragment names other places (#{"simd": URL, "bigram": URL, ...} as
 * JSON).  The npm package's module resolves its files itself and says so
 * there, because a lesson's bundler renames and moves them.
 * @returns {{simd: URL | string, scalar: URL | string} & Record<string, URL | string | null>}
 *   simd, scalar, and each shipped file by its fileKey (bigram, transformer,
 *   transformerTokenizer, ...: models/manifest.json)
 */
function files() {
  const fragment = new URL(import.meta.url).hash || self.location.hash;
  const given = fragment ? JSON.parse(decodeURIComponent(fragment.slice(1))) : {};
  return { ...WASM_URLS, ...MODEL_URLS, ...given };
}
const at = files();

/**
 * The default model (12 KB) is fetched at once, beside the engine's
 * compilation, instead of when the page asks for it: most pages start
 * with it.  The first load of it takes these bytes.
 * @type {Map<string, Promise<Uint8Array | null>>}
 */
const early = new Map();
if (at.bigram) early.set(String(at.bigram), fetchBytes(at.bigram).catch(() => null));

// the page passes its ?wasm=simd|scalar on in this module's URL (client.js)
const host = new EngineHost(loadEngineBrowser(requestedFlavor(import.meta.url), at), {
  fetchBytes: (url, onProgress) => {
    const got = url ? early.get(String(url)) : undefined;
    if (!got) return fetchBytes(url, onProgress);
    early.delete(String(url));
    return got.then((bytes) => bytes ?? fetchBytes(url, onProgress));
  },
  // the shipped models (models/manifest.json); a draft is loaded only to draft
  builtins: Object.fromEntries(SHIPPED.map((m) => [m.name, {
    name: m.label,
    url: at[fileKey(m.file)] ?? null,
    ...(m.tokenizer ? { tokenizerUrl: at[fileKey(m.tokenizer)] ?? null } : {}),
    missing: m.missing,
  }])),
});

/** @type {Promise<unknown>} */
let queue = Promise.resolve();

self.onmessage = (/** @type {MessageEvent} */ event) => {
  const { id, op, args } = event.data || {};
  let last = 0;
  /** a loading model's progress, at most every 50 ms (and when done) */
  const progress = (/** @type {number} */ loaded, /** @type {number} */ total) => {
    const now = Date.now();
    if (now - last < 50 && loaded !== total) return;
    last = now;
    self.postMessage({ id, progress: { loaded, total } });
  };
  if (op === 'stopGenerate') { // now, not after the generate it stops
    self.postMessage({ id, ok: true, result: host.stopGenerate(args?.session) });
    return;
  }
  queue = queue.then(async () => {
    try {
      const result = await host.handle(op, args, { progress });
      self.postMessage({ id, ok: true, result });
    } catch (err) {
      self.postMessage({ id, ok: false, error: errorOf(err) });
    }
  });
};
