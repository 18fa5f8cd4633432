// @ts-check
/**
 * modelUrl.js — a model named by URL (a link's model_url, an element's
 * model-url): where it may come from, and its download in the page with
 * progress, a rate and Cancel.  A link can be shared: it loads only from
 * the page's own origin unless the page's author allows others, and the
 * learner is asked before more than MODEL_ASK_BYTES are downloaded.
 */

/** the Cache Storage where a model file is kept when the page's author opts in (model-cache="keep") */
export const MODEL_CACHE = 'spg-models-v1';

/** a download larger than this is asked for first */
export const MODEL_ASK_BYTES = 50 * 1000 * 1000;
/** a download of unknown size is checked against the engine's memory every this many bytes */
export const UNSIZED_STEP = 16 * 1024 * 1024;

/**
 * The URL a model is loaded from, or why not: resolved against the page;
 * http(s) only; the page's own origin or one the author allows.
 * @param {string} raw @param {string} base  the page's URL
 * @param {string[]} [origins]  other origins the page's author allows ("https://models.example.org")
 * @returns {{url: URL} | {why: 'url' | 'origin', origin?: string}}
 */
export function resolveModelUrl(raw, base, origins = []) {
  /** @type {URL} */
  let url;
  try {
    url = new URL(raw.trim(), base);
  } catch {
    return { why: 'url' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { why: 'url' };
  const own = new URL(base).origin;
  const allowed = new Set([own, ...origins.map((o) => {
    try {
      return new URL(o.trim()).origin;
    } catch {
      return '';
    }
  })]);
  if (!allowed.has(url.origin)) return { why: 'origin', origin: url.origin };
  return { url };
}

/** A model file's name in a URL. @param {URL} url */
export const urlFileName = (url) => decodeURIComponent(url.pathname.replace(/.*\//, '')) || url.host;

/**
 * Downloads a model file: its size first (Content-Length), which
 * `beforeBody` may refuse (too large for the engine) or ask about (throws to
 * stop); then the bytes as they arrive, with progress and the rate.  When
 * the server does not say the size, `unsized` is asked about the bytes so
 * far every UNSIZED_STEP bytes (throws to stop: the file has outgrown the
 * engine's memory), so an endless or huge answer is refused on the way.
 * @param {URL} url
 * @param {{signal?: AbortSignal, onProgress?: (p: {loaded: number, total: number, rate: number}) => void,
 *   beforeBody?: (total: number) => Promise<void>, unsized?: (loaded: number) => Promise<void>}} [opts]
 *   rate: bytes per second so far; total 0: the server does not say
 * @returns {Promise<Uint8Array>}
 */
export async function downloadModel(url, { signal, onProgress, beforeBody, unsized } = {}) {
  const name = urlFileName(url);
  /** @type {Response} */
  let res;
  try {
    res = await fetch(url, { signal });
  } catch (err) {
    if (signal?.aborted) throw err;
    throw Object.assign(new Error(`${name} could not be fetched (offline, or another site that does not allow it)`), { reason: 'fetch', vars: { file: name } });
  }
  if (!res.ok) throw Object.assign(new Error(`${name} could not be fetched (HTTP ${res.status})`), { reason: 'http', vars: { file: name, status: res.status } });
  if ((res.headers.get('content-type') || '').includes('text/html')) {
    throw Object.assign(new Error(`${name} is a web page, not a model file`), { reason: 'html', vars: { file: name } });
  }
  const encoded = !!res.headers.get('content-encoding');
  const total = encoded ? 0 : Number(res.headers.get('content-length') || 0);
  try {
    await beforeBody?.(total);
  } catch (err) {
    res.body?.cancel().catch(() => {});
    throw err;
  }
  const t0 = performance.now();
  const report = (/** @type {number} */ loaded) => {
    const s = (performance.now() - t0) / 1000;
    onProgress?.({ loaded, total, rate: s > 0 ? loaded / s : 0 });
  };
  if (!res.body) {
    const all = new Uint8Array(await res.arrayBuffer());
    report(all.length);
    return all;
  }
  const reader = res.body.getReader();
  /** @type {Uint8Array[]} */
  const parts = [];
  let loaded = 0, nextCheck = UNSIZED_STEP;
  report(0);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    loaded += value.length;
    if (!total && unsized && loaded >= nextCheck) {
      nextCheck = loaded + UNSIZED_STEP;
      try {
        await unsized(loaded);
      } catch (err) {
        reader.cancel().catch(() => {});
        throw err;
      }
    }
    report(loaded);
  }
  const out = new Uint8Array(loaded);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
