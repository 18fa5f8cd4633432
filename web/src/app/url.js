// @ts-check
/**
 * url.js — keeps a panel and the page's URL hash in step: the hash is read
 * at load and whenever the learner edits it; the panel's setup is written
 * back with history.replaceState (no history entry per slider move):
 * at once when the page becomes ready, then at most a few times a second,
 * and once a second while Play runs (a replaceState costs the page a
 * frame's worth of time in Chromium: it is not done for every token).
 * While a link is being loaded (at load, or an edited hash) nothing is
 * written: the half-applied setup in between (the new seed with no steps
 * yet) is no link, and a reload then would open it.
 */
import { effect, signal } from '@preact/signals';

import { parseHash, serializeHash } from './hash.js';

/**
 * @param {{hashState: import('@preact/signals').ReadonlySignal<any>, ready: import('@preact/signals').ReadonlySignal<boolean>,
 *   playing?: import('@preact/signals').ReadonlySignal<boolean>, init: () => Promise<unknown>, load: (state: any, notices: any[]) => Promise<unknown>}} panel
 *   a panel, or the app (its view's); playing: Play is running
 * @param {Window} win
 * @param {{delay?: number, playingDelay?: number}} [options] ms between hash writes (while Play runs: playingDelay)
 */
export function bindHash(panel, win, { delay = 150, playingDelay = 1000 } = {}) {
  /** @type {ReturnType<typeof setTimeout> | null} */
  let timer = null;
  let wanted = '';
  let timerDelay = delay;

  const write = () => {
    timer = null;
    if (win.location.hash !== wanted) win.history.replaceState(win.history.state, '', wanted);
  };

  let written = false;
  /** links being loaded from an edited hash */
  const loading = signal(0);
  /**
   * While Play runs: the link of the moment, once every playingDelay ms.
   * The link is not even written out at each token then (its list of
   * changed settings is as long as the text: Play's frames have no time for
   * it), so the effect below does not read the setup while Play runs.
   */
  const writePlaying = () => {
    timer = null;
    if (!panel.ready.peek() || loading.peek()) return;
    wanted = serializeHash(panel.hashState.peek());
    write();
    if (panel.playing?.peek()) {
      timerDelay = playingDelay;
      timer = setTimeout(writePlaying, playingDelay);
    }
  };
  const stop = effect(() => {
    const playing = !!panel.playing?.value;
    if (playing && written && !loading.value) {
      if (!timer) {
        timerDelay = playingDelay;
        timer = setTimeout(writePlaying, playingDelay);
      }
      return;
    }
    const hash = serializeHash(panel.hashState.value);
    if (!panel.ready.value || loading.value) return; // the link being loaded stays as it is
    wanted = hash;
    if (!written) {
      // the page just became ready (or loaded an edited hash): its link is
      // written at once, so it is there as soon as the page is (later
      // changes are throttled)
      written = true;
      write();
      return;
    }
    if (timer && !playing && timerDelay > delay) {
      // Play stopped: the link is written soon
      clearTimeout(timer);
      timer = null;
    }
    if (!timer) {
      timerDelay = playing ? playingDelay : delay;
      timer = setTimeout(write, timerDelay);
    }
  });

  const onHashChange = (/** @type {HashChangeEvent | undefined} */ event) => {
    // the hash the learner gave, from the event: the event is queued, and a
    // throttled write may have put the page's own hash back in the meantime
    // (WebKit runs that timer first when the hash is edited just after a
    // change)
    const hash = event?.newURL ? new URL(event.newURL).hash : win.location.hash;
    if (hash === wanted) return;
    const { state, notices } = parseHash(hash);
    wanted = '';
    // a write still due is of the setup before: dropped
    if (timer) clearTimeout(timer);
    timer = null;
    written = false;
    loading.value++;
    Promise.resolve(panel.load(state, notices)).finally(() => { loading.value--; });
  };
  win.addEventListener('hashchange', onHashChange);

  const { state, notices } = parseHash(win.location.hash);
  const loaded = panel.init().then(() => panel.load(state, notices));

  return {
    loaded,
    dispose() {
      stop();
      win.removeEventListener('hashchange', onHashChange);
      if (timer) clearTimeout(timer);
    },
  };
}
