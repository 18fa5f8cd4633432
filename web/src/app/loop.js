// @ts-check
/**
 * loop.js — Play: one step after another, at the chosen speed, until the
 * step says there is nothing more or the loop is no longer the current one.
 */

import { batch, signal } from '@preact/signals';

const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));

/**
 * The start of the next frame (its timestamp, where the page draws; a timer
 * elsewhere).
 * @returns {Promise<number>}
 */
const nextFrame = () => (typeof requestAnimationFrame === 'function'
  ? new Promise((r) => requestAnimationFrame(r))
  : sleep(0).then(() => performance.now()));

/** Half a 60 Hz frame: a frame that begins this close to a step's time is its frame. */
const HALF_FRAME_MS = 1000 / 120;

/**
 * One step after another, at most one per frame: the next step is asked for
 * as a frame begins, so its answer is drawn in a frame of its own.  (Asked
 * for at once, a step's answer could land while the last one was being
 * drawn, and the page would draw two in one frame, late, at high speeds.)
 * The steps keep a schedule, one every 1/speed s: each is asked for in the
 * frame that begins nearest its time, so 60 steps a second on a 60 Hz screen
 * is one a frame.  (Waiting out the interval and then for a frame lost the
 * frame the interval ended in, and played every other frame.)  A step that
 * comes late moves the schedule on rather than bunching the next ones.
 * @param {() => Promise<boolean>} step  one step; false when nothing can follow
 * @param {() => number} speed           steps per second
 * @param {() => boolean} current        false once paused or superseded
 */
export async function playLoop(step, speed, current) {
  let due = performance.now();
  while (current()) {
    const more = await step();
    if (!more || !current()) return;
    const interval = 1000 / speed();
    due = Math.max(due + interval, performance.now() - HALF_FRAME_MS);
    if (typeof requestAnimationFrame !== 'function') {
      await sleep(Math.max(0, due - performance.now()));
      continue;
    }
    // a frame or more between steps: the page renders, the Worker computes
    for (;;) {
      const frameStart = await nextFrame();
      if (!current()) return;
      if (frameStart >= due - HALF_FRAME_MS) break;
    }
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
