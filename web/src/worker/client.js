// @ts-check
/**
 * client.js — the page's side of the Worker protocol (host.js): one
 * promise per request.  A failed request rejects with an Error carrying the
 * engine's message (its name is kept: RangeError, EngineError, ...).
 * While a model loads, the Worker also sends {id, progress: {loaded,
 * total}} for that request; `onProgress` gets them.
 */
import workerUrl from './engine.worker.js?worker&url';

/** @typedef {{loaded: number, total: number}} Progress  total 0: unknown */

export class EngineClient {
  /** @param {Worker} worker */
  constructor(worker) {
    this.worker = worker;
    this.nextId = 1;
    /** @type {Map<number, {resolve: (v: any) => void, reject: (e: Error) => void, onProgress?: (p: Progress) => void}>} */
    this.pending = new Map();
    worker.onmessage = (event) => {
      const { id, ok, result, error, progress } = event.data;
      const p = this.pending.get(id);
      if (!p) return;
      if (progress) {
        p.onProgress?.(progress);
        return;
      }
      this.pending.delete(id);
      if (ok) p.resolve(result);
      else {
        // the engine's code, or the Worker's reason and its values (host.js WorkerError)
        const err = Object.assign(new Error(error.message), { code: error.code, reason: error.reason, kind: error.kind, vars: error.vars, part: error.part });
        err.name = error.name;
        p.reject(err);
      }
    };
    worker.onerror = (event) => {
      event.preventDefault?.();
      const err = Object.assign(new Error(`the engine worker failed: ${event.message || 'could not start'}`), { reason: 'worker' });
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
      this.failed = err;
    };
    /** @type {Error | null} */
    this.failed = null;
  }

  /**
   * @param {string} op @param {any} [args] @param {Transferable[]} [transfer]
   * @param {{onProgress?: (p: Progress) => void}} [options]
   * @returns {Promise<any>}
   */
  request(op, args = {}, transfer = [], { onProgress } = {}) {
    if (this.failed) return Promise.reject(this.failed);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onProgress });
      this.worker.postMessage({ id, op, args }, transfer);
    });
  }

  /** Stops the Worker; what was pending fails. */
  terminate() {
    this.worker.terminate();
    const err = Object.assign(new Error('the engine worker was stopped'), { reason: 'worker' });
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
    this.failed = err;
  }
}

/**
 * Starts the engine Worker.  Its script is resolved against this module's
 * own URL (never the page's), so the page or a lesson that includes
 * embed.js can live anywhere.  A Worker cannot be started from another
 * origin's URL: then a same-origin Blob module imports the real one (the
 * other origin must allow it with CORS, as it must for embed.js itself).
 * @param {{name?: string, base?: string, url?: string, engine?: 'full' | 'lite'}} [options] base: the
 *   URL the Worker's URL is resolved against (this module's by default);
 *   url: the Worker's script (this build's by default); engine: 'lite' for
 *   the lesson engine (no GGUF files: engine/browser.js LITE_WASM_URLS)
 */
export function createEngineWorker({ name = 'sampler-engine', base = import.meta.url, url: script = workerUrl, engine = 'full' } = {}) {
  const url = new URL(script, base);
  if (engine === 'lite') url.searchParams.set('engine', 'lite');
  // ?wasm=scalar (or simd) on the page's URL picks the engine's build
  const flavor = typeof location === 'undefined' ? null : new URLSearchParams(location.search).get('wasm');
  if (flavor === 'simd' || flavor === 'scalar') url.searchParams.set('wasm', flavor);
  if (typeof location === 'undefined' || url.origin === location.origin || url.protocol === 'blob:' || url.protocol === 'data:') {
    return new Worker(url, { type: 'module', name });
  }
  const blobUrl = URL.createObjectURL(new Blob([`import ${JSON.stringify(url.href)};\n`], { type: 'text/javascript' }));
  const worker = new Worker(blobUrl, { type: 'module', name });
  // the Blob has been read once the Worker answers (or fails)
  const revoke = () => URL.revokeObjectURL(blobUrl);
  worker.addEventListener('message', revoke, { once: true });
  worker.addEventListener('error', revoke, { once: true });
  return worker;
}

/** The engine Worker of this page. */
export function createEngineClient() {
  return new EngineClient(createEngineWorker());
}
