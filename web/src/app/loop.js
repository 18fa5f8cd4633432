// @ts-check
/**
 * loop.js — Play: one step after another, at the chosen speed, until the
 * step says there is nothing more or the loop is no longer the current one.
 */

import { batch, signal } from '@preact/signals';

const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));

/**
 * The start of the next frame (where the page draws; a timer elsewhere).
 * @returns {Promise<unknown>}
 */
const nextFrame = () => (typeof requestAnimationFrame === 'function'
  ? new Promise((r) => requestAnimationFrame(r))
  : sleep(0));

/**
 * One step after another, at most one per frame: the next step is asked for
 * as a frame begins, so its answer is drawn in a frame of its own.  (Asked
 * for at once, a step's answer could land while the last one was being
 * drawn, and the page would draw two in one frame, late, at high speeds.)
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
    if (!current()) return;
    await nextFrame();
  }
}

/**
 * Play, Pause and the loop between them, for a panel or for compare
 * mode's panels in lockstep (the one place that knows how).
 * @param {{step: () => Promise<boolean>, speed: () => number, canStart: () => boolean,
 *   onPlay?: () => void, onPause?: () => void}} o
 *   onPlay: as Play starts; onPause: as it stops (by a pause, not by the end)
 */
export function createPlayer({ step, speed, canStart, onPlay = () => {}, onPause = () => {} }) {
  const playing = signal(false);
  let loopId = 0;
  function play() {
    if (playing.value || !canStart()) return;
    const id = ++loopId;
    batch(() => {
      playing.value = true;
      onPlay();
    });
    playLoop(step, speed, () => playing.value && id === loopId).then(() => {
      if (id === loopId) playing.value = false;
    });
  }
  function pause() {
    loopId++;
    playing.value = false;
    onPause();
  }
  function togglePlay() {
    if (playing.value) pause();
    else play();
  }
  return { playing, play, pause, togglePlay };
}
