// @ts-check
/**
 * course.js — the course (dist/learn/): its chapters in order, grouped in
 * parts, and its words.
 *
 * A chapter is a folder of chapters/: chapter.js (what the page shows:
 * its texts, widgets and questions, in order — blocks.js) and one file of
 * words per language (en.js, de.js, es.js, zh.js: the catalogue pattern
 * of the playground).  The course's own words (its title, the chapters'
 * titles and summaries, Back / Next) are in catalogues/, one file per
 * language.  Adding a chapter: its folder, its line in PARTS, and its
 * title and summary in each of catalogues/ (docs/lessons.md).
 */
import { LANGUAGES, browserLanguage, normalizeLang } from '../i18n/index.js';

/** The course's parts, each a few chapters (by their folders' names), in order. */
export const PARTS = [
  { id: 'basics', chapters: ['distribution', 'sampling', 'temperature'] },
  { id: 'cutoffs', chapters: ['top-k', 'top-p', 'beyond-top-p'] },
  { id: 'steering', chapters: ['repetition', 'xtc-mirostat'] },
  { id: 'order', chapters: ['order'] },
  { id: 'decoding', chapters: ['beam-search', 'constrained'] },
  { id: 'speed', chapters: ['kv-cache', 'speculative'] },
  { id: 'yours', chapters: ['train'] },
];

/** Every chapter in order: its slug (the folder and the page's name), number (1-based) and part. */
export const CHAPTERS = PARTS.flatMap((part) => part.chapters.map((slug) => ({ slug, part: part.id })))
  .map((c, i) => ({ ...c, number: i + 1 }));

/** @typedef {(typeof CHAPTERS)[number]} ChapterInfo */

/** @param {string} slug */
export const chapterInfo = (slug) => CHAPTERS.find((c) => c.slug === slug) ?? null;

/** A page that names no chapter of the course (a build's mistake, never the learner's). @param {string} slug */
export const noSuchChapter = (slug) => new RangeError(`this page names no chapter of the course ("${slug}")`);

/** A chapter's page, relative to another page of the course; with the language when one was chosen. */
export function chapterHref(/** @type {string} */ slug, /** @type {string} */ lang = '') {
  return `${slug}.html${lang ? `#lang=${lang}` : ''}`;
}

/** The course's index, relative to a page of the course. */
export function indexHref(/** @type {string} */ lang = '') {
  return `./${lang ? `#lang=${lang}` : ''}`;
}

/** The playground, relative to a page of the course, with a setup (a link's hash, without '#'). */
export function playgroundHref(/** @type {string} */ hash = '') {
  return `../index.html${hash ? `#${hash}` : ''}`;
}

// ---------------------------------------------------------------- words

/** @typedef {string | Record<string, string>} Entry  a text, or its plural forms by category */
/** @typedef {Record<string, Entry>} Words */

/** The course's words, one file per language (fetched when chosen). */
const COURSE_WORDS = /** @type {Record<string, () => Promise<{default: Words}>>} */ (import.meta.glob('./catalogues/*.js'));
/** Each chapter's blocks (chapter.js), and its words in each language. */
const CHAPTER_FILES = /** @type {Record<string, () => Promise<{default: any}>>} */ (import.meta.glob(['./chapters/*/*.js', '!./chapters/*/*.test.js']));

/** the languages the course speaks: the playground's (the same codes, the same menu) */
export const COURSE_LANGUAGES = LANGUAGES.map((l) => l.code);

/**
 * The language a course page speaks: the link's lang= (#lang=de), else the
 * browser's when the course has it, else English.  `chosen` is the link's
 * (kept in the links to other pages), '' when it names none.
 * @param {string} hash  location.hash
 * @param {readonly string[]} [browser]  navigator.languages
 */
export function pageLanguage(hash, browser) {
  const chosen = normalizeLang(new URLSearchParams(hash.replace(/^#/, '')).get('lang'));
  const ok = COURSE_LANGUAGES.includes(chosen) ? chosen : '';
  return { chosen: ok, lang: ok || browserLanguage(browser) };
}

/** @param {string} file @param {Record<string, () => Promise<{default: any}>>} files */
async function loadFile(file, files) {
  const load = files[file];
  if (!load) throw new RangeError(`no such file in the course: ${file}`);
  return (await load()).default;
}

/** The course's words in a language (every language has every key: tests/js/course.test.js). @param {string} lang @returns {Promise<Words>} */
export function courseWords(lang) {
  return loadFile(`./catalogues/${lang}.js`, COURSE_WORDS);
}

/** A chapter's blocks. @param {string} slug */
export function chapterModule(slug) {
  return loadFile(`./chapters/${slug}/chapter.js`, CHAPTER_FILES);
}

/** A chapter's words in a language. @param {string} slug @param {string} lang @returns {Promise<Words>} */
export function chapterWords(slug, lang) {
  return loadFile(`./chapters/${slug}/${lang}.js`, CHAPTER_FILES);
}

/** The chapters' folders the build found (for the tests: every folder is in PARTS). */
export const CHAPTER_FOLDERS = [...new Set(Object.keys(CHAPTER_FILES).map((f) => f.split('/')[2]))].sort();
