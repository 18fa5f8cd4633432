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

import { createI18n, loadLanguage, normalizeLang } from './index.js';

/**
 * @param {() => string} fallback  the language when none is chosen
 */
export function createLanguage(fallback) {
  /** the language chosen ('' = the fallback's) */
  const chosen = signal('');
  /** the words on screen */
  const i18n = signal(createI18n('en'));
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

  return { chosen, i18n, failed, choose };
}

/** @typedef {ReturnType<typeof createLanguage>} Language */
