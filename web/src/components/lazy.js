// @ts-check
/**
 * Code fetched when it is first needed: a part of the page few visits use
 * (compare mode, beam search's and speculative decoding's views, the embed
 * code) is its own chunk, so the page and the course's chapters load
 * within their weight budget (tests/e2e/offline.test.js, course.test.js).
 * The service worker caches every chunk, so it works offline all the same.
 */
import { useEffect, useState } from 'preact/hooks';

/**
 * A module loaded once, on demand.  `use(need)` in a component returns the
 * module once it is here (re-rendering then), or null while it is on its
 * way; a part that shows it says it is not ready until then.
 * @template M
 * @param {() => Promise<M>} load the dynamic import
 */
export function lazy(load) {
  /** @type {M | null} */
  let mod = null;
  /** @type {Promise<M> | null} */
  let pending = null;
  const get = () => {
    if (!pending) {
      pending = load().then((m) => { mod = m; return m; });
      pending.catch(() => { pending = null; }); // offline and not cached: try again next time
    }
    return pending;
  };
  return {
    get,
    /** @param {boolean} [need] whether the caller shows it now @returns {M | null} */
    use(need = true) {
      const [, loaded] = useState(0);
      const want = need && !mod;
      useEffect(() => {
        if (!want) return undefined;
        let live = true;
        get().then(() => { if (live) loaded((n) => n + 1); }, () => {});
        return () => { live = false; };
      }, [want]);
      return mod;
    },
  };
}

/** beam search's and speculative decoding's views (Decoders.jsx) */
export const decodersCode = lazy(() => import('./Decoders.jsx'));

/** the strip of the samplers' state under the text (strip/StateStrip.jsx, its words and its CSS) */
export const stripCode = lazy(() => import('../strip/StateStrip.jsx'));

/** a phone's first bars in its bottom strip, while the chain is used (MiniBars.jsx) */
export const miniCode = lazy(() => import('./MiniBars.jsx'));

/** the stateful stages, each a row of the strip (strip/rows.js ROWS): its code is fetched when one is on */
export const STRIP_STAGES = ['mirostat', 'adaptive_p', 'penalties', 'dry', 'watermark'];

/** the watermark's view (Watermark.jsx), when its stage is on */
export const watermarkCode = lazy(() => import('./Watermark.jsx'));

/** Whether a strategy's text and views are drawn by Decoders.jsx. @param {string} how */
export const usesDecoders = (how) => how === 'beam' || how === 'speculative';

/**
 * A panel's data-ready, from the part that shows it: not ready until the
 * code its strategies draw with is here.
 * @template R
 * @param {string[]} strategies the strategies of the panels it shows
 * @param {R} readyAttr the panel's own (a signal, so an attribute bound to it follows it)
 * @returns {R | 'false'}
 */
export function useReadyAttr(strategies, readyAttr) {
  const needs = strategies.some(usesDecoders);
  const code = decodersCode.use(needs);
  return needs && !code ? 'false' : readyAttr;
}
