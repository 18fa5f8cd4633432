// @ts-check
/**
 * teach.js — what the playground says to a learner who came without a
 * lesson around it: each stage's plain sentence and its "why and when",
 * what each readout means, the tour of the page (texts/LANG.js, one lazy
 * chunk per language, fetched on the learner's first move — a pointer,
 * a key, a scroll — so the page's first load carries none of it); each
 * stage's chapter in the course; and whether this is a first visit (the
 * "Start here" card: once dismissed, never again).
 */
import { signal } from '@preact/signals';

/** @typedef {Record<string, string | Record<string, string>>} Texts  a text, or its plural forms (as the catalogues') */

const LOADERS = /** @type {Record<string, () => Promise<{default: Texts}>>} */ (textFiles());

/** The texts' files, as Vite (the page, the package, Vitest) finds them. */
function textFiles() {
  try {
    return import.meta.glob('./texts/*.js');
  } catch {
    return {};
  }
}

/** the texts loaded, by language code */
const loaded = signal(/** @type {Record<string, Texts>} */ ({}));
/** whether the learner has moved yet (then the texts are fetched) */
const wanted = signal(false);
/** @type {Map<string, Promise<Texts | null>>} */
const loading = new Map();

/** The texts' language for a page language: en-XA (the pseudo-locale) and unknown codes read English. @param {string} lang */
export function teachLang(lang) {
  const code = String(lang).split('-')[0];
  return LOADERS[`./texts/${code}.js`] ? code : 'en';
}

/**
 * Fetches a language's texts (once; offline: tried again next time).
 * @param {string} lang
 * @returns {Promise<Texts | null>}
 */
export function loadTeach(lang) {
  const code = teachLang(lang);
  const have = loaded.peek()[code];
  if (have) return Promise.resolve(have);
  let p = loading.get(code);
  if (!p) {
    const load = LOADERS[`./texts/${code}.js`];
    if (!load) return Promise.resolve(null);
    p = load().then((m) => {
      loaded.value = { ...loaded.peek(), [code]: m.default };
      return m.default;
    }, () => {
      loading.delete(code);
      return null;
    });
    loading.set(code, p);
  }
  return p;
}

/**
 * The texts in a language, or null while they are not here (a component
 * shows its short words meanwhile).  Subscribes: the component redraws
 * when they arrive.
 * @param {string} lang
 * @returns {Texts | null}
 */
export function useTeach(lang) {
  const code = teachLang(lang);
  const have = loaded.value[code];
  if (!have && wanted.value) loadTeach(code);
  return have ?? null;
}

/**
 * A text with its values, in the page's language ('' while the texts are
 * not here): its plural form for `count`, its {placeholders} filled as
 * the catalogues' are.
 * @param {Texts | null} texts @param {import('../i18n/index.js').I18n} i18n
 * @param {string} key @param {Record<string, unknown>} [vars]
 */
export function teachSay(texts, i18n, key, vars = {}) {
  const entry = texts?.[key];
  if (entry === undefined) return '';
  const text = typeof entry === 'string' ? entry : entry[new Intl.PluralRules(i18n.locale).select(Number(vars.count))] ?? entry.other;
  return text.replace(/\{(\w+)\}/g, (all, name) => (Object.hasOwn(vars, name) ? i18n.value(vars[name]) : all));
}

/** The texts are wanted now (a component that shows one at once: a tour, a "why and when" opened). */
export function wantTeach() {
  wanted.value = true;
}

let watching = false;
/**
 * Fetches the texts at the learner's first move on the page (once per
 * page, whatever number of panels or elements ask).
 * @param {Document} doc
 */
export function teachOnFirstMove(doc) {
  if (watching || wanted.peek()) return;
  watching = true;
  const events = ['pointerdown', 'pointermove', 'keydown', 'focusin', 'touchstart', 'wheel', 'scroll'];
  const go = () => {
    for (const e of events) doc.removeEventListener(e, go, true);
    wantTeach();
  };
  for (const e of events) doc.addEventListener(e, go, { capture: true, passive: true });
}

// ---------------------------------------------------------------- chapters

/**
 * Each stage's chapter in the course (the course's slugs, web/src/learn).
 * A stage not named here (a newer cutoff) is one of "when a fixed cutoff
 * fails".
 */
const CHAPTER_OF = /** @type {Record<string, string>} */ ({
  bias: 'constrained',
  penalties: 'repetition',
  dry: 'repetition',
  no_repeat_ngram: 'repetition',
  temperature: 'temperature',
  quadratic_sampling: 'temperature',
  top_k: 'top-k',
  top_p: 'top-p',
  xtc: 'xtc-mirostat',
  mirostat: 'xtc-mirostat',
  adaptive_p: 'xtc-mirostat',
});

/** A stage's chapter's slug. @param {string} stage */
export function chapterOf(stage) {
  return CHAPTER_OF[stage] ?? 'beyond-top-p';
}

/** the course's folder: next to the page's code (assets/ -> learn/), so an element on a lesson site finds it too */
const HERE = import.meta.url;

/**
 * A chapter's address, in a language (English needs no lang=).
 * @param {string} slug @param {string} lang
 */
export function chapterUrl(slug, lang) {
  const code = teachLang(lang);
  let base;
  try {
    base = new URL(`../learn/${slug}.html`, HERE).href;
  } catch {
    base = `learn/${slug}.html`;
  }
  return `${base}${code === 'en' ? '' : `#lang=${code}`}`;
}

// ---------------------------------------------------------------- first visit

/** the record of the "Start here" card's dismissal (and of the course's progress: a learner who took it has been here) */
export const START_KEY = 'spg-start:v1';
const COURSE_KEY = 'spg-course:v1';

/** @returns {Storage | null} */
function store() {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null;
  }
}

/**
 * Whether the page is a first visit: no setup in the link, nothing
 * remembered (the card dismissed, the course begun).
 * @param {string} hash location.hash
 */
export function isFirstVisit(hash) {
  if (hash.replace(/^#/, '') !== '') return false;
  const s = store();
  try {
    return !s || (s.getItem(START_KEY) === null && s.getItem(COURSE_KEY) === null);
  } catch {
    return false;
  }
}

/** The card was dismissed (or one of its offers taken): never again on this device. */
export function dismissStart() {
  try {
    store()?.setItem(START_KEY, String(Date.now()));
  } catch { /* refused: this page only */ }
}
