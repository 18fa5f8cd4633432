// @vitest-environment happy-dom
// The playground's teaching texts (web/src/teach/texts/): every language
// has English's keys and no other; every stage of the engine's registry
// (and Mirostat) has its plain sentence and its "why and when"; each
// stage's chapter is a chapter of the course; a first visit is one with
// nothing in the link and nothing remembered.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import registry from '../../web/src/shared/registry.gen.js';
import { LANGUAGES } from '../../web/src/i18n/index.js';
import { START_KEY, chapterOf, chapterUrl, dismissStart, isFirstVisit, loadTeach, teachLang } from '../../web/src/teach/teach.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const texts = async (code) => (await import(`../../web/src/teach/texts/${code}.js`)).default;

describe('the teaching texts', () => {
  it('every language of the page has English\'s keys, and no other; none is empty', async () => {
    const en = await texts('en');
    for (const { code } of LANGUAGES) {
      const t = await texts(code);
      expect(Object.keys(t).sort(), code).toEqual(Object.keys(en).sort());
      for (const [k, v] of Object.entries(t)) expect(JSON.stringify(v).length, `${code} ${k}`).toBeGreaterThan(3);
    }
  });

  it('the course\'s stages, Mirostat and adaptive-p have a plain sentence and a "why and when", and every text names a stage of the registry (a newer stage without one shows the registry\'s own line); a readout each its meaning; the tour three steps', async () => {
    const en = await texts('en');
    const names = [...registry.stages, ...registry.terminal].map((s) => s.name);
    for (const name of ['bias', 'penalties', 'dry', 'no_repeat_ngram', 'temperature', 'top_n_sigma', 'top_k', 'top_p', 'min_p', 'typical_p',
      'epsilon', 'eta', 'top_a', 'xtc', 'mirostat', 'adaptive_p']) {
      expect(en[`plain.${name}`], name).toBeTruthy();
      expect(en[`whyWhen.${name}`], name).toBeTruthy();
    }
    for (const key of Object.keys(en).filter((k) => /^(plain|whyWhen)\./.test(k))) expect(names).toContain(key.split('.')[1]);
    for (const key of ['size', 'mass', 'entropy', 'argmax']) expect(en[`explain.${key}`]).toBeTruthy();
    for (const key of ['bars', 'slider', 'play']) expect(String(en[`guide.${key}`]).length).toBeGreaterThan(80);
  });

  it('loads a language\'s texts on demand; the pseudo-locale and an unknown code read English', async () => {
    expect(teachLang('en-XA')).toBe('en');
    expect(teachLang('zh')).toBe('zh');
    expect(teachLang('xx')).toBe('en');
    expect((await loadTeach('de'))['plain.top_k']).toBe('Behält die k wahrscheinlichsten Tokens und wirft den Rest weg.');
  });

  it('each stage links a chapter of the course (a stage the map does not name: the other cutoffs\' chapter), in the page\'s language', () => {
    const chapters = fs.readdirSync(path.join(ROOT, 'web/src/learn/chapters'));
    for (const name of [...registry.stages.map((s) => s.name), 'mirostat', 'a_new_cutoff']) expect(chapters).toContain(chapterOf(name));
    expect(chapterOf('a_new_cutoff')).toBe('beyond-top-p');
    expect(chapterUrl('top-k', 'en')).toMatch(/learn\/top-k\.html$/);
    expect(chapterUrl('top-k', 'zh')).toMatch(/learn\/top-k\.html#lang=zh$/);
  });

  it('a first visit: nothing in the link, nothing remembered; dismissed, never again', () => {
    localStorage.clear();
    expect(isFirstVisit('')).toBe(true);
    expect(isFirstVisit('#seed=3')).toBe(false);
    localStorage.setItem('spg-course:v1', '{}'); // the course was taken on this device
    expect(isFirstVisit('')).toBe(false);
    localStorage.clear();
    dismissStart();
    expect(localStorage.getItem(START_KEY)).not.toBe(null);
    expect(isFirstVisit('')).toBe(false);
    localStorage.clear();
  });
});
