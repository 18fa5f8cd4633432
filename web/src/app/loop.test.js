// Play's schedule on a simulated 60 Hz screen: one step every 1/speed s,
// each asked for as a frame begins, at most one a frame — 60 steps a second
// at speed 60 (waiting out the interval and then for a frame played every
// other frame: 30), the set speed below it, and a late step moves the
// schedule on instead of bunching the next ones.
import { afterEach, describe, expect, it, vi } from 'vitest';

import { playLoop } from './loop.js';

/** the simulated screen: a frame every 16 ms */
const FRAME = 16;

/**
 * Play on fake timers (setTimeout, performance.now and requestAnimationFrame
 * on one virtual clock): a step takes `work(i)` ms of it; Play runs for
 * `seconds` of it.
 * @returns {Promise<{asked: number[], frames: Set<number>}>} when each step was asked for
 */
async function simulate({ speed, seconds = 2, work = () => 4 }) {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  // the screen: a frame begins at every whole multiple of FRAME ms
  vi.stubGlobal('requestAnimationFrame', (/** @type {(t: number) => void} */ cb) => setTimeout(() => cb(performance.now()), FRAME - (performance.now() % FRAME)));
  const asked = [];
  let i = 0;
  let on = true;
  const step = async () => {
    asked.push(performance.now());
    await new Promise((r) => setTimeout(r, work(i++)));
    return true;
  };
  const done = playLoop(step, () => speed, () => on);
  await vi.advanceTimersByTimeAsync(seconds * 1000);
  on = false;
  await vi.advanceTimersByTimeAsync(200);
  await done;
  return { asked, frames: new Set(asked.map((t) => Math.floor(t / FRAME))) };
}

describe('playLoop', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('at speed 60: 60 steps a second, each asked for as its frame begins, never two in a frame', async () => {
    const { asked, frames } = await simulate({ speed: 60 });
    // 2 s: about 120 steps (this screen draws 62.5 frames a second)
    expect(asked.length).toBeGreaterThanOrEqual(116);
    expect(asked.length).toBeLessThanOrEqual(124);
    expect(frames.size).toBe(asked.length);
    for (const t of asked.slice(1)) expect(t % FRAME).toBe(0);
  });

  it('below 60: the set speed on average (8, 24, 45 steps a second), at most one a frame', async () => {
    for (const speed of [8, 24, 45]) {
      const { asked, frames } = await simulate({ speed, seconds: 4 });
      const rate = (asked.length - 1) / ((asked[asked.length - 1] - asked[0]) / 1000);
      expect(Math.abs(rate - speed) / speed, `speed ${speed}: ${rate.toFixed(1)}/s`).toBeLessThan(0.05);
      expect(frames.size).toBe(asked.length);
    }
  });

  it('a step that takes three frames moves the schedule on: no burst of steps after it', async () => {
    const { asked } = await simulate({ speed: 60, work: (i) => (i === 10 ? 3 * FRAME : 4) });
    const gaps = asked.slice(1).map((t, i) => t - asked[i]);
    // after the slow step, the next steps come one a frame again (none closer)
    for (const g of gaps) expect(g).toBeGreaterThan(FRAME - 1e-6);
  });

  it('stops when it is no longer current, and when the step says nothing can follow', async () => {
    let n = 0;
    vi.stubGlobal('requestAnimationFrame', (/** @type {(t: number) => void} */ cb) => setTimeout(() => cb(performance.now()), 0));
    await playLoop(async () => ++n < 5, () => 1000, () => true);
    expect(n).toBe(5);
    n = 0;
    await playLoop(async () => { n++; return true; }, () => 1000, () => n < 3);
    expect(n).toBe(3);
  });
});
