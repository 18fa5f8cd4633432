// The course (dist/learn/) in Chromium: every chapter in every language
// opens with no console error, its facts computed by the engine and its
// elements ready; each chapter's widget does what it says; its questions
// say "not quite" to a wrong answer and "right" to the engine's; Next walks
// from the first chapter to the last; progress is remembered and shown on
// the index; "Open in the playground" carries the widget's state; axe finds
// nothing serious or critical; no text is clipped or overlaps at 390 and
// 1280 px; each chapter weighs at most 200 KiB gzipped with its engine;
// the course works offline and from a sub-path; a chapter printed to PDF
// shows every row of its bars.
// Each chapter page is loaded once per language and width, and every check
// of that language and width is made on that load (a load is what takes
// the time): English at 1280 px in each chapter's own test, the other
// languages and 390 px in sweeps that walk one page through the chapters.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';

import { CHAPTERS, COURSE_LANGUAGES } from '../../web/src/learn/course.js';
import { audit } from './axe.js';
import { DIST } from './fixtures.js';
import { skipWithoutChromium, until, useBrowser } from './harness.js';
import { pdfText, squeeze } from '../helpers/pdftext.js';
import { textProblems } from './layout.js';
import { USE } from './course.widgets.js';

const gz = (file) => zlib.gzipSync(fs.readFileSync(file), { level: 9 }).length;
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;

/** Whether a chapter page is ready: every element ready, every fact computed, every question there. */
export const chapterReady = (page) => page.evaluate(() => {
  const main = document.querySelector('[data-testid="learn-chapter"]');
  if (!main) return false;
  const elements = [...document.querySelectorAll('sampler-playground')];
  const ready = elements.every((el) => el.shadowRoot?.querySelector('[data-testid="embed"][data-ready="true"]'));
  const facts = !document.querySelector('.learn-fact.is-pending');
  const questions = [...document.querySelectorAll('[data-testid="learn-question"]')].every((q) => q.shadowRoot?.querySelector('[data-testid="question-check"]')?.textContent);
  return ready && facts && questions;
});

/** A chapter's page, once ready (with the ms it took from navigation to ready). */
export async function openChapter(open, url, { lang = '', width = 1280, height = 900, context } = {}) {
  const page = await open({ url: `${url}${lang ? `#lang=${lang}` : ''}`, width, height, wait: false, context });
  const t0 = Date.now();
  await until(() => chapterReady(page), 15000);
  page.readyMs = Date.now() - t0;
  return page;
}

/**
 * Answers a question (by its id) and returns what it said: right or not,
 * the engine's value and the feedback's text.
 */
export async function answer(page, id, text) {
  const q = page.locator(`#${id}`);
  const result = q.locator('[data-testid="question-result"]');
  const before = await result.textContent();
  await q.locator('[data-testid="question-answer"]').fill(text);
  await q.locator('[data-testid="question-check"]').click();
  // the feedback changes (a wrong answer, then the right one) once the engine has answered
  await until(async () => {
    const now = await result.textContent();
    return now !== before && !/computing/.test(now) && (await result.getAttribute('data-correct')) !== null;
  }, 10000);
  return { correct: (await result.getAttribute('data-correct')) === 'true', value: Number(await result.getAttribute('data-value')), text: await result.textContent() };
}

/** Answers a question (by its id) with what is not of its kind: why it was not graded. */
async function refused(page, id, text) {
  const q = page.locator(`#${id}`);
  const result = q.locator('[data-testid="question-result"]');
  await q.locator('[data-testid="question-answer"]').fill(text);
  await q.locator('[data-testid="question-check"]').click();
  await until(async () => (await result.getAttribute('data-invalid')) !== null, 10000);
  return result.getAttribute('data-invalid');
}

/** the ids of a chapter page's questions */
const questionIds = (page) => page.locator('[data-testid="learn-question"]').evaluateAll((qs) => qs.map((q) => q.id));

describe.skipIf(skipWithoutChromium)('the course', () => {
  const { h, open, newContext, watch } = useBrowser();
  const base = () => `${h.server.url}learn/`;
  const chapterUrl = (slug) => `${base()}${slug}.html`;
  /** ms from navigation to ready, of every chapter load */
  const times = [];
  afterAll(() => {
    times.sort((a, b) => a - b);
    if (times.length) console.log(`e2e: course chapters ready in ${times[0]}–${times.at(-1)} ms (median ${times[Math.floor(times.length / 2)]} ms, ${times.length} loads)`);
  });

  /** A chapter page opened as a language shows it: no value left unfilled, no fact failed, its questions, widgets and elements in that language. */
  async function expectLanguage(page, lang, where) {
    const seen = await page.evaluate(() => ({
      lang: document.documentElement.lang,
      h1: document.querySelector('h1')?.textContent ?? '',
      // a value left unfilled, or a fact the engine could not give
      left: [...document.querySelectorAll('.learn-main')].map((m) => m.textContent ?? '').join(' ').match(/\{\w+\}/g) ?? [],
      failed: document.querySelectorAll('.learn-fact.is-error').length,
      questions: document.querySelectorAll('[data-testid="learn-question"]').length,
      widgets: document.querySelectorAll('sampler-playground, .learn-control').length,
      elementsLang: [...document.querySelectorAll('sampler-playground, [data-testid="learn-question"]')].map((e) => e.getAttribute('lang')),
    }));
    expect(seen.lang.startsWith(lang), where).toBe(true);
    expect(seen.h1.trim().length, where).toBeGreaterThan(1);
    expect(seen.left, where).toEqual([]);
    expect(seen.failed, where).toBe(0);
    expect(seen.questions, where).toBeGreaterThan(0);
    expect(seen.widgets, where).toBeGreaterThan(0);
    expect(new Set(seen.elementsLang), where).toEqual(new Set([lang === 'zh' ? 'zh-Hans' : lang]));
  }

  /**
   * What a chapter's load fetched (h.requested since the load began, up to
   * ready) weighs at most 200 KiB gzipped with its engine (HTML, JS, CSS,
   * .wasm; the models apart), and holds neither the playground page's own
   * code nor the words only it shows (vite.config.js, i18n/parts.js).
   * @returns {string} the chapter's weight, for the log
   */
  function expectWeight(requested, where) {
    const files = [...new Set(requested.filter((u) => u.startsWith(h.server.url)))]
      .map((u) => decodeURIComponent(new URL(u).pathname)).filter((p) => !p.endsWith('.bin'));
    expect(files.some((f) => f.endsWith('.wasm')), where).toBe(true);
    expect(files.filter((f) => /\/assets\/(page|page-words-\w+)-[\w-]+\.(js|css)$/.test(f)), where).toEqual([]);
    const total = files.reduce((a, f) => a + gz(path.join(DIST, f)), 0);
    expect(total, `${where}: ${files.join(', ')}`).toBeLessThanOrEqual(200 * 1024);
    return `${where} ${kib(total)}`;
  }


  /** Text clipped, cut short, off screen or over another (layout.js), and anything wider than the screen. */
  const layoutProblems = async (page, width) => {
    const found = await page.evaluate(textProblems);
    const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
    return scrollWidth > width ? [...found, `the page is ${scrollWidth} px wide at ${width} px`] : found;
  };

  /**
   * Walks one page through every chapter in a language at a width, each
   * chapter once ready; `check(page, chapter, requested)` is given what its
   * load fetched.  (A download still running is let finish before the next
   * chapter, so it is not counted in the next one's weight; one the page
   * starts as it is left is cut short, as when a learner leaves.)
   */
  async function sweep(lang, width, height, check) {
    const context = await newContext({ width, height });
    let running = 0;
    context.on('request', () => running++);
    context.on('requestfinished', () => running--);
    context.on('requestfailed', () => running--);
    let leaving = false;
    const page = watch(await context.newPage(), { leaving: () => leaving });
    for (const c of CHAPTERS) {
      await until(() => running === 0, 15000, `${lang} ${c.slug}: the downloads before it`);
      h.requested = [];
      leaving = true;
      await page.goto(`${chapterUrl(c.slug)}${lang === 'en' ? '' : `#lang=${lang}`}`);
      leaving = false;
      const t0 = Date.now();
      await until(() => chapterReady(page), 15000, `${lang} ${c.slug} ready`);
      times.push(Date.now() - t0);
      await check(page, c, h.requested.slice());
    }
    await context.close();
  }

  it('every chapter in German, Spanish and Chinese (English: each chapter\'s own test): no console error, the engine\'s facts, its elements ready, its words in that language; in German no text clipped at 1280 px, in Chinese at most 200 KiB gzipped', async () => {
    const found = {};
    const sizes = [];
    for (const lang of COURSE_LANGUAGES.filter((l) => l !== 'en')) {
      await sweep(lang, 1280, 800, async (page, c, requested) => {
        const where = `${lang} ${c.slug}`;
        await expectLanguage(page, lang, where);
        if (lang === 'zh') sizes.push(expectWeight(requested, where));
        // its own language's words only: never English's (i18n/index.js fetches each catalogue as its language is chosen)
        if (lang === 'zh') expect(requested.filter((u) => /\/assets\/catalogue-en-/.test(u)), where).toEqual([]);
        if (lang === 'de') found[`${c.slug} de 1280`] = await layoutProblems(page, 1280);
      });
    }
    console.log(`e2e: course weight (gzipped, with the engine): ${sizes.join(', ')}`);
    expect(Object.fromEntries(Object.entries(found).filter(([, v]) => v.length))).toEqual({});
  }, 360000);

  it('every chapter at 390 px: no text clipped, cut short, off screen or over another (English and German); axe finds nothing serious or critical (Chinese)', async () => {
    const found = {};
    for (const lang of ['en', 'de', 'zh']) {
      await sweep(lang, 390, 844, async (page, c) => {
        await expectLanguage(page, lang, `${lang} ${c.slug} 390`);
        found[`${c.slug} ${lang} 390`] = lang === 'zh' ? await audit(page) : await layoutProblems(page, 390);
      });
    }
    expect(Object.fromEntries(Object.entries(found).filter(([, v]) => v.length))).toEqual({});
  }, 360000);

  it('the index: no text clipped at 1280 and 390 px (English and German); axe finds nothing serious or critical', async () => {
    const found = {};
    for (const [width, height] of [[1280, 800], [390, 844]]) {
      for (const lang of ['en', 'de']) {
        const index = await open({ url: `${base()}#lang=${lang}`, width, height, wait: false });
        await index.getByTestId('learn-index').waitFor();
        found[`index ${lang} ${width}`] = await layoutProblems(index, width);
        if (lang === 'en' && width === 1280) found['index axe'] = await audit(index);
        await index.context().close();
      }
    }
    expect(Object.fromEntries(Object.entries(found).filter(([, v]) => v.length))).toEqual({});
  });

  it('the worked examples\' numbers are the engine\'s, as the lessons know them', async () => {
    const page = await openChapter(open, chapterUrl('distribution'));
    const fact = (name) => page.locator(`.learn-fact[data-fact="${name}"]`).first().textContent();
    expect([await fact('p1'), await fact('p2'), await fact('p3')]).toEqual(['0.665', '0.245', '0.090']);
    const t = await openChapter(open, chapterUrl('temperature'));
    const tf = (name) => t.locator(`.learn-fact[data-fact="${name}"]`).first().textContent();
    expect([await tf('half1'), await tf('half2'), await tf('half3')]).toEqual(['0.867', '0.117', '0.016']);
    expect([await tf('two1'), await tf('two2'), await tf('two3')]).toEqual(['0.506', '0.307', '0.186']);
    // the German page writes them the German way
    const de = await openChapter(open, chapterUrl('distribution'), { lang: 'de' });
    expect(await de.locator('.learn-fact[data-fact="p1"]').first().textContent()).toBe('0,665');
  });

  const sizesEn = [];
  afterAll(() => console.log(`e2e: course weight (gzipped, with the engine): ${sizesEn.join(', ')}`));
  for (const c of CHAPTERS) {
    it(`${c.number}. ${c.slug} in English at 1280 px: no console error, the engine's facts, its elements ready, at most 200 KiB gzipped, no text clipped, nothing serious or critical for axe; its widget does what it says; each question says "not quite" to a wrong answer and "right" to the engine's`, async () => {
      h.requested = [];
      const page = await openChapter(open, chapterUrl(c.slug), { width: 1280, height: 800 });
      times.push(page.readyMs);
      // what the load fetched, up to ready (what the widget fetches later is not the chapter's load)
      sizesEn.push(expectWeight(h.requested.slice(), `${c.slug} en`));
      await expectLanguage(page, 'en', `en ${c.slug}`);
      expect(await layoutProblems(page, 1280), `${c.slug} en 1280`).toEqual([]);
      expect(await audit(page), `${c.slug}: axe`).toEqual([]);
      expect(USE[c.slug], `a check of chapter ${c.slug}'s widget in course.widgets.js`).toBeTypeOf('function');
      await USE[c.slug](page);
      for (const id of await questionIds(page)) {
        const wrong = await answer(page, id, '-12345');
        expect(wrong.correct, id).toBe(false);
        expect(wrong.text, id).toMatch(/^Not quite: the engine computes /);
        // the kind of answer the question declares: a count refuses a fraction (told so, not graded)
        const kind = await page.locator(`#${id} [data-testid="question-answer"]`).getAttribute('data-kind');
        if (kind === 'whole') expect(await refused(page, id, '0.5'), id).toBe('notWhole');
        const digits = kind === 'whole' ? 0 : Number(await page.locator(`#${id}`).getAttribute('digits') ?? 2);
        const right = await answer(page, id, wrong.value.toFixed(digits));
        expect(right.correct, `${id}: ${right.text}`).toBe(true);
        expect(right.text, id).toMatch(/^Right: the engine computes /);
      }
      // every question answered right: the chapter is done, and says so
      await until(async () => (await page.getByTestId('learn-state').getAttribute('data-state')) === 'done');
    }, 120000);
  }

  it('Next walks from the first chapter to the last, then to the index; Back goes back', async () => {
    const page = await openChapter(open, chapterUrl(CHAPTERS[0].slug), { lang: 'es' });
    // (each page is let load before the next: leaving sooner aborts its downloads, which the harness counts as failures)
    const arrived = (slug) => until(async () => (await page.getByTestId('learn-chapter').getAttribute('data-chapter')) === slug && (await chapterReady(page)), 15000);
    for (let i = 0; i < CHAPTERS.length; i++) {
      await arrived(CHAPTERS[i].slug);
      expect(await page.evaluate(() => location.hash)).toBe('#lang=es'); // the language goes along
      if (i === 1) {
        await page.getByTestId('learn-back').click();
        await arrived(CHAPTERS[0].slug);
        await page.getByTestId('learn-next').click();
        await arrived(CHAPTERS[1].slug);
      }
      await page.getByTestId('learn-next').click();
    }
    await page.getByTestId('learn-index').waitFor();
    expect(await page.locator('h1').textContent()).toBe('Cómo elige un modelo de lenguaje su siguiente token');
  }, 120000);

  it('progress stays on the device: the index shows what was done, Continue goes on, and it can be forgotten', async () => {
    const context = await newContext();
    const index = await open({ url: base(), context, wait: false });
    await index.getByTestId('learn-index').waitFor();
    expect(await index.getByTestId('learn-card').evaluateAll((cs) => cs.map((c) => c.dataset.state))).toEqual(CHAPTERS.map(() => 'new'));
    expect(await index.getByTestId('learn-reset').count()).toBe(0);
    await index.getByTestId('learn-continue').click();
    const first = CHAPTERS[0].slug;
    await until(() => chapterReady(index));
    const ids = await questionIds(index);
    // one question right: started; all right: done
    const v = (await answer(index, ids[0], '-12345')).value;
    await answer(index, ids[0], v.toFixed(Number(await index.locator(`#${ids[0]}`).getAttribute('digits') ?? 2)));
    await index.getByTestId('learn-home').click();
    await index.getByTestId('learn-index').waitFor();
    const card = index.locator(`[data-testid="learn-card"][data-chapter="${first}"]`);
    expect(await card.getAttribute('data-state')).toBe(ids.length > 1 ? 'started' : 'done');
    expect(await index.getByTestId('learn-dot').first().getAttribute('data-state')).toBe(ids.length > 1 ? 'started' : 'done');
    // the dots of a chapter page say it too, after a reload
    await index.goto(chapterUrl(CHAPTERS[1].slug));
    await until(() => chapterReady(index));
    expect(await index.getByTestId('learn-dot').evaluateAll((ds) => ds.map((d) => d.dataset.state)).then((s) => s.slice(0, 2))).toEqual([ids.length > 1 ? 'started' : 'done', 'started']);
    await index.goto(base());
    await index.getByTestId('learn-index').waitFor();
    expect(await index.getByTestId('learn-continue').textContent()).toContain(await index.locator(`[data-chapter="${CHAPTERS[1].slug}"] .learn-card-title`).evaluate((e) => e.lastChild.textContent));
    index.once('dialog', (d) => d.accept());
    await index.getByTestId('learn-reset').click();
    await until(async () => (await index.getByTestId('learn-card').evaluateAll((cs) => cs.every((c) => c.dataset.state === 'new'))));
  });

  it('"Open in the playground" carries the widget\'s exact state: the playground shows what the widget showed', async () => {
    const page = await openChapter(open, chapterUrl('distribution'), { lang: 'de' });
    // the learner moves the first logit to 4
    const slider = page.getByTestId('logit-slider').first();
    await slider.focus();
    for (let i = 0; i < 4; i++) await slider.press('ArrowRight');
    const bars = (scope) => scope.locator('[data-testid="prob-bar"]').evaluateAll((bs) => bs.map((b) => `${b.dataset.piece} ${Number(b.dataset.prob).toFixed(4)}`));
    const widget = page.locator('sampler-playground').first();
    await until(async () => (await bars(widget))[0]?.endsWith('0.9362'));
    const link = page.getByTestId('open-playground').first();
    await link.hover();
    const href = await link.getAttribute('href');
    expect(href).toMatch(/^\.\.\/index\.html#/);
    expect(decodeURIComponent(href)).toContain('model=logits:Sofa=4,Bett=1,Dach=0');
    expect(href).toContain('lang=de');
    const shown = await bars(widget);
    const pg = await open({ url: new URL(href, page.url()).href });
    expect(await bars(pg)).toEqual(shown);
  });

  it('chapter 14: "Open in the playground" carries the bigram the learner trained (its text in the link) and the same settings', async () => {
    const page = await openChapter(open, chapterUrl('train'), { lang: 'es' });
    const widget = page.locator('sampler-playground#yours');
    await page.getByTestId('train-box').fill('kiwi\nkaki\nkumquat\nlima & limón\n');
    await page.getByTestId('train-go').click();
    await page.getByTestId('train-done').waitFor();
    // the learner's model, a few letters written and the temperature moved
    await widget.getByTestId('value-temperature').waitFor();
    const slider = widget.getByRole('slider').first();
    await slider.focus();
    await slider.press('ArrowLeft');
    for (let i = 0; i < 3; i++) await widget.getByTestId('step').click();
    await until(async () => (await widget.locator('[data-step-count]').first().getAttribute('data-step-count')) === '3');
    const bars = (scope) => scope.locator('[data-testid="prob-bar"]').evaluateAll((bs) => bs.map((b) => `${b.dataset.piece} ${b.dataset.prob}`));
    const link = page.locator('[data-testid="open-playground"][data-for="yours"]');
    await link.hover();
    const link2 = new URLSearchParams((await link.getAttribute('href')).split('#')[1]);
    expect([link2.get('model'), link2.get('train'), link2.get('lang')]).toEqual(['text', 'kiwi\nkaki\nkumquat\nlima & limón\n', 'es']);
    const pg = await open({ url: new URL(await link.getAttribute('href'), page.url()).href });
    expect(await pg.getByTestId('notice').count()).toBe(0);
    await until(async () => (await pg.locator('[data-step-count]').first().getAttribute('data-step-count')) === '3');
    for (const id of ['output', 'value-temperature']) {
      expect(await pg.getByTestId(id).first().textContent(), id).toBe(await widget.getByTestId(id).first().textContent());
    }
    expect(await pg.getByTestId('model-info').first().textContent()).toMatch(/\b1[0-9] /); // the learner's letters, not the names' 54
    expect(await bars(pg)).toEqual(await bars(widget));
    // the learner's words in the playground's own box, to read and change
    expect(await pg.getByTestId('train-text').inputValue()).toBe('kiwi\nkaki\nkumquat\nlima & limón\n');
  });

  it('a chapter printed to PDF shows every row of its bars (the names bigram\'s 54), each token with its percentage', async () => {
    const page = await openChapter(open, chapterUrl('train'));
    const bars = page.locator('sampler-playground').first().locator('[data-testid="prob-bar"]');
    const rows = await bars.evaluateAll((bs) => bs.map((b) => `${b.querySelector('.spg-bar-tok')?.textContent}${b.querySelector('.spg-bar-val')?.textContent ?? ''}`));
    expect(rows.length).toBe(54);
    // on paper (print media): each row drawn (not skipped as off screen) and
    // cut by no box around it (the list's scrolling box showed 18 of 54)
    await page.emulateMedia({ media: 'print' });
    const hiddenRows = () => bars.evaluateAll((bs) => bs.filter((b) => {
      const tok = b.querySelector('.spg-bar-tok');
      if (!tok?.checkVisibility({ contentVisibilityAuto: true })) return true;
      const r = b.getBoundingClientRect();
      for (let p = b.parentElement; p; p = p.parentElement ?? p.getRootNode()?.host) {
        const s = getComputedStyle(p);
        if (!/hidden|clip|auto|scroll/.test(s.overflowY + s.overflowX)) continue;
        const c = p.getBoundingClientRect();
        if (r.top < c.top - 1 || r.bottom > c.bottom + 1) return true;
      }
      return false;
    }).map((b) => b.querySelector('.spg-bar-tok')?.textContent));
    // (once the page is laid out for print: a loaded machine takes a moment)
    await until(async () => (await hiddenRows()).length === 0).catch(() => {});
    expect(await hiddenRows()).toEqual([]);
    // and the PDF itself has the chapter's words and every row's
    const printed = squeeze(pdfText(await page.pdf({ format: 'A4' })));
    expect(printed).toContain(squeeze('A bigram model predicts the next character'));
    expect(rows.filter((r) => !printed.includes(squeeze(r)))).toEqual([]);
  });

  describe('offline and from a sub-path', () => {
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'spg-course-'));
    afterAll(() => fs.rmSync(copy, { recursive: true, force: true }));

    it('under /deep/site/dist/: the index, a chapter and the playground; then offline, once visited', async () => {
      fs.cpSync(DIST, copy, { recursive: true });
      const site = await h.serve(null, { mounts: { '/deep/site/dist/': copy } });
      const root = `${site.url}deep/site/dist/`;
      const context = await newContext({ serviceWorkers: 'allow' });
      const page = await open({ url: `${root}learn/`, context, wait: false });
      await page.getByTestId('learn-index').waitFor();
      await page.evaluate(async () => {
        await navigator.serviceWorker.ready;
        if (!navigator.serviceWorker.controller) await new Promise((r) => navigator.serviceWorker.addEventListener('controllerchange', r, { once: true }));
      });
      const cached = await page.evaluate(async () => (await (await caches.open((await caches.keys())[0])).keys()).map((r) => new URL(r.url).pathname));
      for (const c of CHAPTERS) expect(cached).toContain(`/deep/site/dist/learn/${c.slug}.html`);
      await context.setOffline(true);
      await page.goto(`${root}learn/`);
      await page.getByTestId('learn-index').waitFor();
      await page.goto(`${root}learn/${CHAPTERS[0].slug}.html#lang=de`);
      await until(() => chapterReady(page), 15000);
      expect(await page.locator('h1').textContent()).toBe('Was ein Modell ausgibt');
      await context.setOffline(false);
    });
  });
});
