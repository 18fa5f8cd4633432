// @ts-check
/**
 * sight.js — a card out of sight is not redrawn at every token while Play
 * runs.  Play asks for a token each frame; a card below the screen (the
 * text metrics, the KV cache) would re-render, lay out and paint each time
 * for nobody to see, in the frame's time the bars need.  Such a card reads
 * the panel's per-token signals through a hold: while it is out of sight
 * (an IntersectionObserver, with a margin) and Play runs, the hold keeps
 * the value it last showed and the card is not redrawn; once it comes into
 * sight, or Play stops, the hold reads the panel's value again and the card
 * catches up.  The numbers it shows are always the engine's, of the text's
 * latest step whenever they can be seen.
 */
import { computed, useSignal } from '@preact/signals';
import { useEffect, useMemo } from 'preact/hooks';

/** how far outside the screen a card still counts as in sight: it is drawn before it scrolls in */
const MARGIN = '150px';

/**
 * A value that follows `source` while `open`, and holds the last one it
 * had while not (reading nothing else then: no re-render at a change).
 * @template T
 * @param {import('@preact/signals').ReadonlySignal<T>} source
 * @param {import('@preact/signals').ReadonlySignal<boolean>} open
 * @returns {import('@preact/signals').ReadonlySignal<T>}
 */
export function hold(source, open) {
  let last = source.peek();
  return computed(() => (open.value ? (last = source.value) : last));
}

/**
 * The panel as a card out of sight sees it: `keys` (the panel's signals
 * that change at every token) held while the element `ref` is out of
 * sight and the panel plays.  A panel without `playing` (or a browser
 * without IntersectionObserver) is given as it is.
 * @template {{playing?: import('@preact/signals').ReadonlySignal<boolean>}} P
 * @param {{current: Element | null}} ref
 * @param {P} panel
 * @param {Array<keyof P>} keys
 * @returns {P}
 */
export function useHeldOutOfSight(ref, panel, keys) {
  const inSight = useSignal(true);
  useEffect(() => {
    const el = ref.current;
    if (!el || typeof IntersectionObserver !== 'function') return undefined;
    const io = new IntersectionObserver((entries) => {
      inSight.value = entries[entries.length - 1].isIntersecting;
    }, { rootMargin: MARGIN });
    io.observe(el);
    return () => io.disconnect();
  }, []);
  return useMemo(() => {
    const playing = panel.playing;
    if (!playing) return panel;
    const open = computed(() => inSight.value || !playing.value);
    const held = { ...panel };
    for (const key of keys) held[key] = /** @type {any} */ (hold(/** @type {any} */ (panel[key]), open));
    return held;
  }, [panel]);
}
