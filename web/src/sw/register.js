// @ts-check
/**
 * register.js — registers dist/sw.js (the offline cache) for the page:
 * only in a production build, only over http(s), once the page has loaded
 * and shows its first distribution (so its downloads never compete with
 * the page's own).  It sits next to
 * index.html, so its scope is dist/ wherever dist/ was copied (the
 * course's pages, in dist/learn/, are in it too).  A browser
 * or host that refuses service workers just gets no offline copy.
 */

/**
 * @param {Window} [win]
 * @param {Promise<unknown>} [after] the page is ready
 * @param {string} [script] sw.js from the page (the course's pages are a folder below it: ../sw.js)
 */
export function registerServiceWorker(win = window, after = Promise.resolve(), script = 'sw.js') {
  if (!import.meta.env.PROD) return;
  if (!/^https?:$/.test(win.location.protocol) || !('serviceWorker' in win.navigator)) return;
  const go = () => {
    win.navigator.serviceWorker.register(new URL(script, win.document.baseURI)).catch(() => {
      /* no offline copy: the page works as before */
    });
  };
  const loaded = win.document.readyState === 'complete'
    ? Promise.resolve()
    : new Promise((resolve) => win.addEventListener('load', resolve, { once: true }));
  Promise.all([loaded, after.catch(() => {})]).then(go);
}
