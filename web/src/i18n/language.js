// @ts-check
/**
 * The language of a page or an element: the one chosen (a link's lang=,
 * the switcher, an element's lang attribute), else the one it falls back
 * on (the browser's; for an element, its lesson page's).  The I18n
 * changes once the chosen language's catalogue is here, so the words
 * change all at once and nothing else does: the text, the settings and
 * Play go on.
 */
import { signal } from '@preact/signals';

import { SOURCE, createI18n, isLoaded, loadLanguage, normalizeLang } from './index.js';

/**
 * @param {() => string} fallback  the language when none is chosen
 */
export function createLanguage(fallback) {
  /** the language chosen ('' = the fallback's) */
  const chosen = signal('');
  /** the words on screen: English, or (where English is not loaded: the build's pages fetch it like any language) the fallback's when here */
  const first = isLoaded(SOURCE) ? SOURCE : normalizeLang(fallback()) || SOURCE;
  const i18n = signal(createI18n(first));
  /** a catalogue that could not be fetched (offline, never cached) */
  const failed = signal('');
  let asked = 0;

  /**
   * Chooses a language ('' = the fallback); resolves once its words are
   * on screen (or it failed: the words stay as they were).
   * @param {string} code
   */
  async function choose(code) {
    const want = normalizeLang(code);
    chosen.value = want;
    const lang = want || normalizeLang(fallback()) || 'en';
    const mine = ++asked;
    try {
      await loadLanguage(lang);
      if (mine !== asked) return;
      failed.value = '';
      i18n.value = createI18n(lang);
    } catch {
      if (mine === asked) failed.value = lang;
    }
  }

  /**
   * Fetches a language's words before anything is shown (an element, before
   * its first render: never a key in place of a word); they are on screen
   * unless a language was chosen meanwhile.
   * @param {string} code
   */
  async function prepare(code) {
    const lang = normalizeLang(code) || SOURCE;
    await loadLanguage(lang);
    if (!asked) i18n.value = createI18n(lang);
  }

  return { chosen, i18n, failed, choose, prepare };
}

/** @typedef {ReturnType<typeof createLanguage>} Language */
