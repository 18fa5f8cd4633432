// @ts-check
/**
 * progress.js — what the learner has done in the course, remembered on
 * this device (localStorage): the chapters opened, the questions answered
 * right, and the last chapter opened.  Nothing leaves the browser.  Where
 * storage is refused (a private window may refuse it) the progress lasts
 * as long as the page.
 */

export const PROGRESS_KEY = 'spg-course:v1';

/**
 * @typedef {Object} ChapterProgress
 * @property {number} opened     when it was last opened (ms since 1970)
 * @property {number} questions  how many questions it had then
 * @property {string[]} solved   its questions answered right (their ids)
 */
/** @typedef {{chapters: Record<string, ChapterProgress>, last: string}} Progress */

/** @type {Progress | null} the progress where storage is refused */
let kept = null;

/** @returns {Progress} */
const empty = () => ({ chapters: {}, last: '' });

/** @param {Storage | null} [store] */
function storage(store) {
  if (store !== undefined) return store;
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null; // a browser that refuses storage throws on access
  }
}

/**
 * The learner's progress (a damaged record counts as none).
 * @param {Storage | null} [store]
 * @returns {Progress}
 */
export function readProgress(store) {
  const s = storage(store);
  let raw = null;
  try {
    raw = s ? s.getItem(PROGRESS_KEY) : null;
  } catch { /* refused */ }
  if (raw === null) return kept ? structuredClone(kept) : empty();
  try {
    const p = JSON.parse(raw);
    /** @type {Progress} */
    const out = empty();
    if (p && typeof p.last === 'string') out.last = p.last;
    for (const [slug, c] of Object.entries(p?.chapters ?? {})) {
      if (!c || typeof c !== 'object') continue;
      out.chapters[slug] = {
        opened: Number(c.opened) || 0,
        questions: Math.max(0, Math.floor(Number(c.questions) || 0)),
        solved: Array.isArray(c.solved) ? c.solved.filter((/** @type {unknown} */ q) => typeof q === 'string') : [],
      };
    }
    return out;
  } catch {
    return empty();
  }
}

/** @param {Progress} p @param {Storage | null} [store] */
function write(p, store) {
  const s = storage(store);
  kept = structuredClone(p);
  try {
    s?.setItem(PROGRESS_KEY, JSON.stringify(p));
  } catch { /* refused or full: kept for this page */ }
}

/**
 * A chapter was opened (it has `questions` questions).
 * @param {string} slug @param {number} questions @param {Storage | null} [store]
 */
export function markOpened(slug, questions, store) {
  const p = readProgress(store);
  const c = p.chapters[slug] ?? { opened: 0, questions, solved: [] };
  p.chapters[slug] = { ...c, opened: Date.now(), questions };
  p.last = slug;
  write(p, store);
  return p;
}

/**
 * A question of a chapter was answered right.
 * @param {string} slug @param {string} question its id @param {Storage | null} [store]
 */
export function markSolved(slug, question, store) {
  const p = readProgress(store);
  const c = p.chapters[slug] ?? { opened: Date.now(), questions: 0, solved: [] };
  if (!c.solved.includes(question)) c.solved = [...c.solved, question];
  p.chapters[slug] = c;
  write(p, store);
  return p;
}

/** Forgets everything. @param {Storage | null} [store] */
export function resetProgress(store) {
  kept = null;
  const s = storage(store);
  try {
    s?.removeItem(PROGRESS_KEY);
  } catch { /* refused */ }
  return empty();
}

/**
 * Where a chapter stands: 'new' (never opened), 'started', or 'done' (every
 * question answered right; a chapter without questions once opened).
 * @param {Progress} p @param {string} slug
 * @returns {{state: 'new' | 'started' | 'done', solved: number, questions: number}}
 */
export function chapterState(p, slug) {
  const c = p.chapters[slug];
  if (!c) return { state: 'new', solved: 0, questions: 0 };
  const solved = c.solved.length;
  const done = c.questions === 0 ? c.opened > 0 : solved >= c.questions;
  return { state: done ? 'done' : 'started', solved: Math.min(solved, c.questions || solved), questions: c.questions };
}

/**
 * The chapter to go on with: the first not done after the last one opened
 * (else the first not done at all); null when every chapter is done.
 * @param {Progress} p @param {string[]} order the chapters' slugs in order
 */
export function nextChapter(p, order) {
  const notDone = (/** @type {string} */ s) => chapterState(p, s).state !== 'done';
  const from = order.indexOf(p.last);
  if (from >= 0 && notDone(p.last)) return p.last;
  return order.slice(from + 1).find(notDone) ?? order.find(notDone) ?? null;
}
