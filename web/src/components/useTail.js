// @ts-check
/**
 * useTail — keeps a scrolled box at its end as its content grows: the
 * scroll is done in the next animation frame, just before the page lays
 * itself out for that frame, not as soon as the content changed: reading
 * scrollHeight right after a change would lay the page out once more per
 * token while Play runs (a layout that is thrown away when the bars change
 * next).
 */
import { useEffect, useRef } from 'preact/hooks';

/**
 * @param {unknown} dep the content's version (a change scrolls to the end)
 * @param {boolean} [on] false: leave the scroll where it is
 */
export function useTail(dep, on = true) {
  const ref = useRef(/** @type {HTMLDivElement | null} */ (null));
  useEffect(() => {
    if (!on) return undefined;
    const frame = requestAnimationFrame(() => {
      const el = ref.current;
      if (el && el.scrollTop !== el.scrollHeight - el.clientHeight) el.scrollTop = el.scrollHeight;
    });
    return () => cancelAnimationFrame(frame);
  }, [dep, on]);
  return ref;
}
