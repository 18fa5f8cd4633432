// @ts-check
/**
 * loop.js — Play: one step after another, at the chosen speed, until the
 * step says there is nothing more or the loop is no longer the current one.
 */

const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));

/**
 * @param {() => Promise<boolean>} step  one step; false when nothing can follow
 * @param {() => number} speed           steps per second
 * @param {() => boolean} current        false once paused or superseded
 */
export async function playLoop(step, speed, current) {
  while (current()) {
    const t0 = performance.now();
    const more = await step();
    if (!more || !current()) return;
    // a timer between steps: the page renders, the Worker computes
    await sleep(Math.max(0, 1000 / speed() - (performance.now() - t0)));
  }
}
