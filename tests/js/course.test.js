// @vitest-environment happy-dom
// The course (web/src/learn/): its chapters and their words in every
// language, the text's markup, and the learner's progress.
//  - every chapter folder is in the course's parts, and every part's
//    chapter has a folder with chapter.js and a file per language;
//  - each language has English's keys and no other (the course's words and
//    each chapter's), the same {values} and tags, its own plural forms, and
//    is a translation (few texts the same as English);
//  - every key a chapter.js names has words; every {value} a text names is
//    a fact the chapter computes or a word the page provides;
//  - Text.jsx makes elements of the markup (never HTML from a text);
//  - progress.js remembers, counts and recovers from a damaged record.
import fs from 'node:fs';
import path from 'node:path';
import { h, render } from 'preact';
import { describe, expect, it } from 'vitest';

import { CHAPTERS, CHAPTER_FOLDERS, COURSE_LANGUAGES, PARTS, pageLanguage } from '../../web/src/learn/course.js';
import { Text, inline } from '../../web/src/learn/Text.jsx';
import { chapterState, markOpened, markSolved, nextChapter, readProgress, resetProgress, PROGRESS_KEY } from '../../web/src/learn/progress.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const LEARN = path.join(ROOT, 'web/src/learn');
const OTHERS = COURSE_LANGUAGES.filter((l) => l !== 'en');

const load = async (file) => (await import(path.join(LEARN, file))).default;
const placeholders = (entry) => [...new Set((typeof entry === 'string' ? [entry] : Object.values(entry)).flatMap((t) => [...t.matchAll(/\{(\w+)\}/g)].map((m) => m[1])))].sort();
const tags = (entry) => [...(typeof entry === 'string' ? entry : entry.other).matchAll(/<\/?\w+(?:\s+href="[^"]*")?>/g)].map((m) => m[0]);
const categories = (locale) => {
  const rules = new Intl.PluralRules(locale);
  return [...new Set(Array.from({ length: 1001 }, (_, n) => rules.select(n)))].sort();
};

/** The checks a translation passes against English: the same keys, values, tags; plural forms; not English. */
function compare(en, tr, lang) {
  const bad = [];
  const missing = Object.keys(en).filter((k) => !Object.hasOwn(tr, k));
  const unknown = Object.keys(tr).filter((k) => !Object.hasOwn(en, k));
  if (missing.length) bad.push(`missing: ${missing.join(', ')}`);
  if (unknown.length) bad.push(`not in English: ${unknown.join(', ')}`);
  for (const [k, e] of Object.entries(en)) {
    const t = tr[k];
    if (t === undefined) continue;
    if (JSON.stringify(placeholders(t)) !== JSON.stringify(placeholders(e))) bad.push(`${k}: values ${placeholders(t)} ≠ ${placeholders(e)}`);
    if (JSON.stringify(tags(t)) !== JSON.stringify(tags(e))) bad.push(`${k}: tags ${tags(t)} ≠ ${tags(e)}`);
    if (typeof e !== typeof t) bad.push(`${k}: ${typeof e === 'string' ? 'a text' : 'plural forms'} in English`);
    else if (typeof t !== 'string' && JSON.stringify(Object.keys(t).sort()) !== JSON.stringify(categories(lang))) bad.push(`${k}: forms ${Object.keys(t).sort()}`);
    for (const s of typeof t === 'string' ? [t] : Object.values(t)) {
      if (!s.trim()) bad.push(`${k}: empty`);
      // the markup's shape: as many paragraphs, and lists of as many items
      const shape = (x) => x.split(/\n\s*\n/).map((b) => (b.trim().startsWith('- ') ? `l${b.trim().split('\n').length}` : b.trim().startsWith('## ') ? 'h' : 'p')).join(',');
      const es = typeof e === 'string' ? e : e.other;
      if (shape(s) !== shape(es)) bad.push(`${k}: paragraphs ${shape(s)} ≠ ${shape(es)}`);
    }
  }
  const long = Object.keys(en).filter((k) => typeof en[k] === 'string' && en[k].length > 12 && !/^[\w,]+$/.test(en[k]));
  const same = long.filter((k) => tr[k] === en[k]);
  if (same.length > Math.max(1, 0.05 * long.length)) bad.push(`the same as English: ${same.join(', ')}`);
  return bad;
}

describe('the course\'s chapters', () => {
  it('every chapter folder is in a part, and every part\'s chapter has its folder and files', () => {
    expect(CHAPTER_FOLDERS).toEqual([...CHAPTERS.map((c) => c.slug)].sort());
    expect(CHAPTERS.length).toBeGreaterThanOrEqual(3);
    expect(new Set(CHAPTERS.map((c) => c.slug)).size).toBe(CHAPTERS.length);
    for (const c of CHAPTERS) {
      for (const f of ['chapter.js', ...COURSE_LANGUAGES.map((l) => `${l}.js`)]) {
        expect(fs.existsSync(path.join(LEARN, 'chapters', c.slug, f)), `${c.slug}/${f}`).toBe(true);
      }
    }
    expect(PARTS.flatMap((p) => p.chapters)).toEqual(CHAPTERS.map((c) => c.slug));
  });

  it('the course\'s words: every language has English\'s keys, values and tags, a title and summary for each chapter and a name for each part', async () => {
    const en = await load('catalogues/en.js');
    for (const c of CHAPTERS) {
      expect(en[`title.${c.slug}`], c.slug).toBeTruthy();
      expect(en[`summary.${c.slug}`], c.slug).toBeTruthy();
    }
    for (const p of PARTS) expect(en[`part.${p.id}`]).toBeTruthy();
    for (const lang of OTHERS) expect(compare(en, await load(`catalogues/${lang}.js`), lang), lang).toEqual([]);
    // the example's words: six distinct labels a hand-made model takes (no ',' '=' and short)
    for (const lang of COURSE_LANGUAGES) {
      const words = (await load(`catalogues/${lang}.js`))['learn.exampleWords'].split(',');
      expect(words, lang).toHaveLength(6);
      expect(new Set(words).size).toBe(6);
      for (const w of words) expect(w, lang).toMatch(/^[^,=\s][^,=]{0,11}$/u);
    }
  });

  for (const c of CHAPTERS) {
    it(`${c.number}. ${c.slug}: its words in every language, for every block it has`, async () => {
      const chapter = await load(`chapters/${c.slug}/chapter.js`);
      const en = await load(`chapters/${c.slug}/en.js`);
      const keys = chapter.blocks.flatMap((b) => (b.kind === 'text' || b.kind === 'points' ? [b.key] : b.kind === 'question' ? [b.id] : b.kind === 'playground' && b.note ? [b.note] : []));
      expect(keys.filter((k) => !Object.hasOwn(en, k)), 'keys without words').toEqual([]);
      // every word is used (a widget's own keys say so in its props: `words`)
      const widgets = chapter.blocks.flatMap((b) => (b.kind === 'widget' ? [b] : b.kind === 'playground' && b.control ? [b.control] : []));
      const used = new Set([...keys, ...widgets.flatMap((w) => [...(w.props.words ?? []), ...(w.props.legend ? [w.props.legend] : [])]), ...(chapter.words ?? [])]);
      expect(Object.keys(en).filter((k) => !used.has(k)), 'words no block uses').toEqual([]);
      expect(chapter.blocks.some((b) => b.kind === 'question'), 'a question').toBe(true);
      expect(chapter.blocks.some((b) => b.kind === 'playground' || b.kind === 'widget'), 'a widget').toBe(true);
      // every {value}: a fact, the example's words, the playground's buttons, or a widget's own
      const known = new Set([...Object.keys(chapter.facts ?? {}), 'w0', 'w1', 'w2', 'w3', 'w4', 'w5', 'example', 'step', 'play', 'reset', 'draw', ...(chapter.values ?? [])]);
      for (const [k, v] of Object.entries(en)) for (const p of placeholders(v)) expect(known.has(p), `${k}: {${p}}`).toBe(true);
      for (const lang of OTHERS) expect(compare(en, await load(`chapters/${c.slug}/${lang}.js`), lang), lang).toEqual([]);
    });
  }
});

describe('the link\'s language', () => {
  it('is lang= when the course has it, else the browser\'s, else English', () => {
    expect(pageLanguage('#lang=de', ['en'])).toEqual({ chosen: 'de', lang: 'de' });
    expect(pageLanguage('#lang=es-MX', [])).toEqual({ chosen: 'es', lang: 'es' });
    expect(pageLanguage('#lang=fr', ['zh-CN'])).toEqual({ chosen: '', lang: 'zh' });
    expect(pageLanguage('', ['fr'])).toEqual({ chosen: '', lang: 'en' });
  });
});

describe('Text.jsx', () => {
  const html = (text, vars = {}, lang = '') => {
    const div = document.createElement('div');
    render(h(Text, { text, vars, lang }), div);
    return div.innerHTML;
  };
  it('paragraphs, headings, lists, inline tags and values', () => {
    expect(html('One <em>two</em>\nthree.\n\n## Head\n\n- a {x}\n- <code>b</code>', { x: 7 }))
      .toBe('<p>One <em>two</em> three.</p><h2>Head</h2><ul><li>a 7</li><li><code>b</code></li></ul>');
  });
  it('links to chapters (keeping the link\'s language) and to the playground; anything else is text', () => {
    expect(html('See <a href="temperature">T</a> and <a href="playground">it</a>.', {}, 'de'))
      .toBe('<p>See <a href="temperature.html#lang=de">T</a> and <a href="../index.html">it</a>.</p>');
    expect(html('<a href="https://evil.example">x</a>')).toBe('<p><span>x</span></p>');
  });
  it('never turns a text into HTML: other tags and unknown values stay text', () => {
    expect(html('<img src=x onerror=alert(1)> <script>x</script> {nope}')).toBe('<p>&lt;img src=x onerror=alert(1)&gt; &lt;script&gt;x&lt;/script&gt; {nope}</p>');
    expect(inline('a <em>b', { vars: {}, lang: '' })).toHaveLength(2); // an unclosed tag closes at the end
  });
});

describe('progress.js', () => {
  /** a Storage in memory */
  const memory = () => {
    const m = new Map();
    return { getItem: (k) => m.get(k) ?? null, setItem: (k, v) => m.set(k, String(v)), removeItem: (k) => m.delete(k), raw: m };
  };
  const order = ['a', 'b', 'c'];

  it('remembers chapters opened and questions answered right; says where each stands and where to go on', () => {
    const s = memory();
    expect(nextChapter(readProgress(s), order)).toBe('a');
    markOpened('a', 2, s);
    expect(chapterState(readProgress(s), 'a')).toEqual({ state: 'started', solved: 0, questions: 2 });
    markSolved('a', 'q1', s);
    markSolved('a', 'q1', s); // once
    expect(chapterState(readProgress(s), 'a')).toEqual({ state: 'started', solved: 1, questions: 2 });
    expect(nextChapter(readProgress(s), order)).toBe('a');
    markSolved('a', 'q2', s);
    expect(chapterState(readProgress(s), 'a').state).toBe('done');
    expect(nextChapter(readProgress(s), order)).toBe('b');
    markOpened('c', 1, s);
    markSolved('c', 'q', s);
    expect(nextChapter(readProgress(s), order)).toBe('b'); // after c: none left after it, so the first not done
    expect(chapterState(readProgress(s), 'b').state).toBe('new');
    markOpened('b', 1, s);
    markSolved('b', 'q', s);
    expect(nextChapter(readProgress(s), order)).toBe(null);
    resetProgress(s);
    expect(readProgress(s)).toEqual({ chapters: {}, last: '' });
  });

  it('a damaged record counts as none; a refused storage keeps the progress for the page', () => {
    const s = memory();
    s.setItem(PROGRESS_KEY, '{not json');
    expect(readProgress(s)).toEqual({ chapters: {}, last: '' });
    s.setItem(PROGRESS_KEY, JSON.stringify({ last: 3, chapters: { a: { opened: 'x', questions: -2, solved: ['q', 5] }, b: null } }));
    expect(readProgress(s)).toEqual({ chapters: { a: { opened: 0, questions: 0, solved: ['q'] } }, last: '' });
    const refusing = { getItem: () => { throw new Error('denied'); }, setItem: () => { throw new Error('denied'); }, removeItem: () => {} };
    markOpened('a', 1, refusing);
    expect(chapterState(readProgress(refusing), 'a').state).toBe('started');
  });
});
