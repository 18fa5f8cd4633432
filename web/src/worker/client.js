// @ts-check
/**
 * client.js — the page's side of the Worker protocol (host.js): one
 * promise per request.  A failed request rejects with an Error carrying the
 * engine's message (its name is kept: RangeError, EngineError, ...).
 */

export class EngineClient {
  /** @param {Worker} worker */
  constructor(worker) {
    this.worker = worker;
    this.nextId = 1;
    /** @type {Map<number, {resolve: (v: any) => void, reject: (e: Error) => void}>} */
    this.pending = new Map();
    worker.onmessage = (event) => {
      const { id, ok, result, error } = event.data;
      const p = this.pending.get(id);
      if (!p) return;
      this.pending.delete(id);
      if (ok) p.resolve(result);
      else {
        const err = new Error(error.message);
        err.name = error.name;
        p.reject(err);
      }
    };
    worker.onerror = (event) => {
      event.preventDefault?.();
      const err = new Error(`the engine worker failed: ${event.message || 'could not start'}`);
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
      this.failed = err;
    };
    /** @type {Error | null} */
    this.failed = null;
  }

  /**
   * @param {string} op @param {any} [args] @param {Transferable[]} [transfer]
   * @returns {Promise<any>}
   */
  request(op, args = {}, transfer = []) {
    if (this.failed) return Promise.reject(this.failed);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, op, args }, transfer);
    });
  }
}

/** The engine Worker of this page. */
export function createEngineClient() {
  const worker = new Worker(new URL('./engine.worker.js', import.meta.url), { type: 'module', name: 'sampler-engine' });
  return new EngineClient(worker);
}
