// Keeping the page and the URL hash in step: the link is written as soon
// as the page is ready, later changes at most every `delay` ms (while Play
// runs, every `playingDelay` ms, and at once the usual way when it stops),
// and an edited hash is loaded.
import { computed, signal } from '@preact/signals';
import { describe, expect, it, vi } from 'vitest';

import { defaultState } from './hash.js';
import { bindHash } from './url.js';

function fakeWindow(hash = '') {
  const listeners = {};
  const win = {
    location: { hash },
    history: { state: null, replaceState: vi.fn((_, __, h) => { win.location.hash = h; }) },
    addEventListener: (type, fn) => { listeners[type] = fn; },
    removeEventListener: (type) => { delete listeners[type]; },
    fire: (type, event) => listeners[type]?.(event),
  };
  return win;
}

function fakeTarget() {
  const hashState = signal({ ...defaultState(), seed: '5' });
  const ready = signal(false);
  return { hashState, ready, init: vi.fn(async () => {}), load: vi.fn(async () => { ready.value = true; }) };
}

describe('bindHash', () => {
  it('writes the link at once when the page becomes ready, then throttled', async () => {
    vi.useFakeTimers();
    const win = fakeWindow('#seed=5');
    const t = fakeTarget();
    const bound = bindHash(t, win, { delay: 150 });
    await bound.loaded;
    expect(t.load).toHaveBeenCalledWith(expect.objectContaining({ seed: '5' }), []);
    expect(win.location.hash).toBe('#model=bigram&temperature=1&top_k=0&top_p=1&seed=5');
    t.hashState.value = { ...t.hashState.value, seed: '6' };
    t.hashState.value = { ...t.hashState.value, seed: '7' };
    expect(win.location.hash).toContain('seed=5');
    vi.advanceTimersByTime(150);
    expect(win.location.hash).toContain('seed=7');
    expect(win.history.replaceState).toHaveBeenCalledTimes(2);
    // an edited hash is loaded (and a hash the page wrote is not)
    win.location.hash = '#seed=9';
    win.fire('hashchange');
    expect(t.load).toHaveBeenCalledTimes(2);
    expect(t.load.mock.calls[1][0].seed).toBe('9');
    bound.dispose();
    vi.useRealTimers();
  });

  it('loads an edited hash even when a throttled write put the old one back before the event came', async () => {
    vi.useFakeTimers();
    const win = fakeWindow('#seed=5');
    const t = fakeTarget();
    const bound = bindHash(t, win, { delay: 150 });
    await bound.loaded;
    t.hashState.value = { ...t.hashState.value, seed: '6' }; // a write is due in 150 ms
    win.location.hash = '#seed=9'; // the learner edits the hash ...
    vi.advanceTimersByTime(150); // ... the due write runs first ...
    expect(win.location.hash).toContain('seed=6');
    win.fire('hashchange', { newURL: 'http://127.0.0.1/#seed=9' }); // ... then the event
    expect(t.load).toHaveBeenCalledTimes(2);
    expect(t.load.mock.calls[1][0].seed).toBe('9');
    bound.dispose();
    vi.useRealTimers();
  });

  it('writes nothing while an edited hash is being loaded (a reload then opens that link, not a half-applied one), and the loaded link at once after', async () => {
    vi.useFakeTimers();
    const win = fakeWindow('#seed=5');
    const t = fakeTarget();
    const bound = bindHash(t, win, { delay: 150 });
    await bound.loaded;
    t.hashState.value = { ...t.hashState.value, seed: '6' }; // a write of the old setup is due in 150 ms
    /** @type {() => void} */
    let finish = () => {};
    t.load.mockImplementationOnce(() => new Promise((r) => { finish = r; }));
    win.location.hash = '#seed=2&steps=3';
    win.fire('hashchange', { newURL: 'http://127.0.0.1/#seed=2&steps=3' });
    expect(t.load).toHaveBeenCalledTimes(2);
    // the load applies the seed, then takes a while (the model, the steps)
    t.hashState.value = { ...t.hashState.value, seed: '2' };
    vi.advanceTimersByTime(1000);
    expect(win.location.hash).toBe('#seed=2&steps=3');
    // loaded: its link written at once
    t.hashState.value = { ...t.hashState.value, steps: 3 };
    finish();
    await vi.advanceTimersByTimeAsync(0);
    expect(win.location.hash).toBe('#model=bigram&temperature=1&top_k=0&top_p=1&seed=2&steps=3');
    bound.dispose();
    vi.useRealTimers();
  });

  it('while Play runs the link is written once a second; when it stops, the last step is in it within delay ms', async () => {
    vi.useFakeTimers();
    const win = fakeWindow('#seed=5');
    const t = { ...fakeTarget(), playing: signal(false) };
    const bound = bindHash(t, win, { delay: 150, playingDelay: 1000 });
    await bound.loaded;
    const writes = win.history.replaceState.mock.calls.length;
    t.playing.value = true;
    for (let step = 1; step <= 30; step++) {
      t.hashState.value = { ...t.hashState.value, steps: String(step) }; // a token every 20 ms
      vi.advanceTimersByTime(20);
    }
    // 600 ms of Play: not one write yet (a step each 20 ms would be 4 at 150 ms)
    expect(win.history.replaceState.mock.calls.length).toBe(writes);
    for (let step = 31; step <= 50; step++) {
      t.hashState.value = { ...t.hashState.value, steps: String(step) };
      vi.advanceTimersByTime(20);
    }
    expect(win.history.replaceState.mock.calls.length).toBe(writes + 1); // at 1000 ms
    expect(win.location.hash).toMatch(/steps=(4[89]|50)\b/);
    t.hashState.value = { ...t.hashState.value, steps: '51' };
    vi.advanceTimersByTime(10);
    // Pause: the pending once-a-second write is brought forward
    t.playing.value = false;
    vi.advanceTimersByTime(149);
    expect(win.location.hash).not.toContain('steps=51');
    vi.advanceTimersByTime(1);
    expect(win.location.hash).toContain('steps=51');
    bound.dispose();
    vi.useRealTimers();
  });

  it('while Play runs the setup is not written out at each token (only for the once-a-second write)', async () => {
    vi.useFakeTimers();
    const win = fakeWindow('#seed=5');
    const base = fakeTarget();
    const setup = signal(base.hashState.value);
    let reads = 0;
    // the page's hashState is computed (its list of changes grows with the text): count its computations
    const t = { ...base, hashState: computed(() => { reads++; return setup.value; }), playing: signal(false) };
    const bound = bindHash(t, win, { delay: 150, playingDelay: 1000 });
    await bound.loaded;
    t.playing.value = true;
    reads = 0;
    for (let step = 1; step <= 60; step++) {
      setup.value = { ...setup.value, steps: String(step) }; // a token every 20 ms
      vi.advanceTimersByTime(20);
    }
    // 1.2 s of Play, 60 tokens: one computation, for the write at 1000 ms
    expect(reads).toBe(1);
    expect(win.location.hash).toMatch(/steps=(49|50)\b/);
    t.playing.value = false;
    vi.advanceTimersByTime(150);
    expect(win.location.hash).toContain('steps=60');
    bound.dispose();
    vi.useRealTimers();
  });
});
