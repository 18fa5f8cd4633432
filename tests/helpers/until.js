// @ts-check
/**
 * Waits until fn() (sync or async, polled every 25 ms) is truthy and
 * returns its value; fails after `timeout` ms, naming what it waited for.
 * The one wait of every test suite (unit, e2e, browsers).
 * @template T
 * @param {() => T | Promise<T>} fn @param {number} [timeout] @param {string} [what]
 * @returns {Promise<T>}
 */
export async function until(fn, timeout = 5000, what = String(fn)) {
  const t0 = Date.now();
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() - t0 > timeout) throw new Error(`timed out after ${timeout} ms waiting for ${what} (last: ${JSON.stringify(v)})`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
