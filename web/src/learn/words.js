// @ts-check
/**
 * words.js — the course's words in one language: a key's text with its
 * values filled in (a plural form chosen by {count}), and numbers written
 * the language's way (the playground's I18n: the same signs and digits as
 * the playground beside it).
 */
import { createI18n, loadLanguage } from '../i18n/index.js';

/** @typedef {import('./course.js').Words} Words */

/**
 * @typedef {Object} Say
 * @property {string} lang
 * @property {import('../i18n/index.js').I18n} i18n  the playground's numbers and plurals in this language
 * @property {(key: string, count?: number) => string} template  a key's raw text ('' when missing)
 * @property {(key: string, vars?: Record<string, unknown>) => string} t  a key's text, values filled in
 * @property {(key: string) => boolean} has
 */

/**
 * The words of a page: the chapter's own (when on a chapter), then the course's.
 * @param {string} lang @param {Words[]} sources  the first that has a key gives it
 * @returns {Promise<Say>}
 */
export async function makeSay(lang, sources) {
  // the playground's catalogue brings the language's number formats and
  // plural rules; the elements on the page need it too
  await loadLanguage(lang).catch(() => {});
  const i18n = createI18n(lang);
  const rules = new Intl.PluralRules(i18n.locale);
  const find = (/** @type {string} */ key) => sources.find((s) => Object.hasOwn(s, key))?.[key];
  /** @type {Say} */
  const say = {
    lang,
    i18n,
    has: (key) => find(key) !== undefined,
    template(key, count) {
      const entry = find(key);
      if (entry === undefined) return '';
      if (typeof entry === 'string') return entry;
      return entry[count === undefined ? 'other' : rules.select(count)] ?? entry.other ?? '';
    },
    t(key, vars = {}) {
      const count = typeof vars.count === 'number' ? vars.count : undefined;
      return say.template(key, count).replace(/\{(\w+)\}/g, (all, name) => (Object.hasOwn(vars, name) ? i18n.value(vars[name]) : all));
    },
  };
  return say;
}
