// The playground in other languages, in Chromium: a link with lang=de opens
// in German; the switch changes the words while Play runs and keeps the
// text, the settings and Play (and the text stays the engine's); an element
// with lang="zh" speaks Chinese, one without lang its page's language (and a
// <sampler-question lang="de"> German, then Chinese); the
// engine's errors in the learner's words with the engine's line beneath;
// and the pseudo-locale (accented, about 40 % longer, right to left) with
// German, the longest real language, laid out with no text clipped, cut
// short, off screen or over other text at 360 px and 1280 px (the boxes
// of every text on the page: layout.js).  Screenshots of each layout are
// written to build/e2e/ to look at.  In every language, at 1280 px and
// 390 px, no word of a label or a readout is broken across two lines
// ("Nukleusgröß / e").
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { ROOT } from './fixtures.js';
import { engineText, generated, hashOf, skipWithoutChromium, lesson, until, useBrowser } from './harness.js';
import { textProblems, wordBreaks } from './layout.js';

const SHOTS = path.join(ROOT, 'build/e2e');
const tokens = (scope) => scope.locator('[data-testid="output-token"]');
const el = (page, id) => page.locator(`sampler-playground#${id}`);

describe.skipIf(skipWithoutChromium)('the playground in other languages', () => {
  const { h, open, newContext, watch } = useBrowser();

  it('a link with lang=de opens in German; switching language during Play keeps the text, the settings and Play', async () => {
    const page = await open({ hash: '#lang=de&seed=5&temperature=0.8&top_p=0.9&steps=3' });
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('de');
    expect(await page.locator('h1').textContent()).toBe('Sampler-Spielwiese');
    expect(await page.getByRole('button', { name: 'Schritt', exact: true }).isVisible()).toBe(true);
    expect(await page.getByTestId('value-temperature').textContent()).toBe('0,80'); // the decimal comma
    expect(await page.getByTestId('lang-select').inputValue()).toBe('de');
    expect(await page.getByTestId('bars-summary').textContent()).toMatch(/^54 Tokens, \d+ behalten, .* Am wahrscheinlichsten: /);
    const main = (await page.locator('main').textContent()) ?? '';
    for (const english of ['Next token', 'Probabilities', 'Text metrics', 'Sampler chain', 'Draw 1000 samples']) expect(main).not.toContain(english);
    expect(await generated(page)).toBe(await engineText({ seed: 5, steps: 3, params: { temperature: 0.8, top_p: 0.9 } }));

    // Play, then another language while it plays
    await page.getByRole('button', { name: 'Abspielen' }).click();
    await until(async () => (await tokens(page).count()) >= 8);
    const before = await generated(page);
    await page.getByTestId('lang-select').selectOption('es');
    await page.getByRole('button', { name: 'Pausa' }).waitFor();
    expect(await page.locator('[data-playing]').first().getAttribute('data-playing')).toBe('true');
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('es');
    const at = await tokens(page).count();
    await until(async () => (await tokens(page).count()) >= at + 4); // still playing
    expect((await generated(page)).startsWith(before)).toBe(true); // the text went on, nothing redrawn
    await page.getByTestId('lang-select').selectOption('zh');
    await page.getByRole('button', { name: '暂停' }).click();
    await page.getByRole('button', { name: '播放' }).waitFor();
    expect(await page.getByTestId('value-temperature').textContent()).toBe('0.80');
    // the link keeps the language and the settings; the text is the engine's for them
    await until(async () => (await hashOf(page)).includes('lang=zh'));
    // a step Play had asked for may land after the pause: the link and the text agree once it is drawn
    const stepsOf = async () => Number(/steps=(\d+)/.exec(await hashOf(page))[1]);
    await until(async () => (await stepsOf()) === (await tokens(page).count()));
    const hash = await hashOf(page);
    expect(hash).toMatch(/temperature=0\.8&.*top_p=0\.9&seed=5/);
    const steps = await stepsOf();
    expect(steps).toBe(await tokens(page).count());
    expect(await generated(page)).toBe(await engineText({ seed: 5, steps, params: { temperature: 0.8, top_p: 0.9 } }));
  });

  it('the engine\'s errors and the link\'s notices in the learner\'s words, the engine\'s own line beneath', async () => {
    const page = await open({ hash: '#lang=de&seed=1&temperature=hot' });
    expect(await page.getByTestId('notice').textContent()).toContain('temperature="hot" aus dem Link ignoriert: Temperatur muss eine Zahl sein; es gilt 1.');
    await page.getByTestId('constraint-regex').check();
    await page.getByTestId('regex-input').fill('(ab');
    await page.getByTestId('regex-apply').click();
    const error = page.getByTestId('constraint-error');
    await error.waitFor();
    expect(await error.textContent()).toMatch(/^Die Engine kann diesen regulären Ausdruck nicht verwenden\.Technisches Detail: regex: /);
    expect(await error.getByTestId('error-detail').locator('[lang="en"]').textContent()).toBe("regex: missing ')' at offset 3");
    // in English, the engine's line is the message itself
    await page.getByTestId('lang-select').selectOption('en');
    await until(async () => (await error.textContent()) === "regex: missing ')' at offset 3");
  });

  it('an element with lang="zh" speaks Chinese; one without lang speaks its page\'s language; the attribute can change', async () => {
    const site = await h.serve(null, {
      mounts: { '/playground/': path.join(ROOT, 'dist') },
      files: {
        '/favicon.ico': '',
        '/lesson.html': lesson(`
<sampler-playground id="zh" lang="zh" seed="3" steps="5" temperature="0.7" controls="temperature" view="text,bars"></sampler-playground>
<div lang="de-AT"><sampler-playground id="de" seed="3" steps="5" controls="temperature"></sampler-playground></div>
<sampler-playground id="en" seed="3" steps="5" controls="temperature"></sampler-playground>
<sampler-question id="q" lang="de" logits="2,1,0" temperature="1" ask="p1" digits="3">p1?</sampler-question>`),
      },
    });
    const page = watch(await (await newContext()).newPage());
    await page.goto(`${site.url}lesson.html`);
    await until(async () => (await page.locator('sampler-playground [data-testid="embed"][data-ready="true"]').count()) === 3, 15000);
    const zh = el(page, 'zh');
    await zh.getByRole('button', { name: '单步', exact: true }).waitFor();
    expect(await zh.getByRole('slider', { name: /^温度/ }).count()).toBe(1);
    expect(await zh.getByTestId('value-temperature').textContent()).toBe('0.70');
    expect(await zh.evaluate((host) => host.shadowRoot.querySelector('.spg-lang-root').getAttribute('lang'))).toBe('zh-Hans');
    expect(await generated(zh)).toBe(await engineText({ seed: 3, steps: 5, params: { temperature: 0.7 } }));
    await el(page, 'de').getByRole('button', { name: 'Schritt', exact: true }).waitFor();
    expect(await el(page, 'de').getByTestId('value-temperature').textContent()).toBe('1,00');
    expect(await el(page, 'en').getByRole('button', { name: 'Step', exact: true }).isVisible()).toBe(true);
    // a new lang: new words, the same text
    const text = await generated(zh);
    await page.evaluate(() => document.getElementById('zh').setAttribute('lang', 'es'));
    await zh.getByRole('button', { name: 'Paso', exact: true }).waitFor();
    expect(await zh.getByTestId('value-temperature').textContent()).toBe('0,70');
    expect(await generated(zh)).toBe(text);
    // a question in German: its buttons, and the engine's value with a decimal comma; in Chinese when its lang changes
    const q = page.locator('sampler-question#q');
    expect(await q.getByTestId('question-check').textContent()).toBe('Prüfen');
    await q.getByTestId('question-answer').fill('0,665');
    await q.getByTestId('question-check').click();
    await until(async () => (await q.getByTestId('question-result').getAttribute('data-correct')) === 'true', 20000);
    expect(await q.getByTestId('question-result').textContent()).toBe('Richtig: Die Engine berechnet 0,665.');
    await page.evaluate(() => document.getElementById('q').setAttribute('lang', 'zh'));
    await until(async () => (await q.getByTestId('question-result').textContent()) === '正确：引擎算得 0.665。');
    expect(await q.getByTestId('question-show').textContent()).toBe('演示给我看');
  });

  /** a page's text problems, and its screenshot in build/e2e/ */
  async function layout(page, name) {
    fs.mkdirSync(SHOTS, { recursive: true });
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(SHOTS, `i18n-${name}.png`), fullPage: true });
    return page.evaluate(textProblems);
  }

  for (const width of [1280, 360]) {
    it(`the pseudo-locale at ${width} px: right to left, accented, longer, and no text clipped or over other text`, async () => {
      const page = await open({ width, height: 900, hash: '#lang=en-XA&seed=9&prompt=Ma&top_k=5&ban=3,12&steps=20' });
      expect(await page.evaluate(() => [document.documentElement.dir, document.documentElement.lang])).toEqual(['rtl', 'en-XA']);
      expect(await page.getByTestId('step').textContent()).toMatch(/^\[Šţéþ .+\]$/);
      // mirrored: a bar grows from the right
      const bar = page.locator('[data-testid="prob-bar"]').first();
      const [track, fill] = await Promise.all(['.spg-bar-track', '.spg-bar-fill'].map((s) => bar.locator(s).boundingBox()));
      expect(Math.abs(track.x + track.width - (fill.x + fill.width))).toBeLessThan(2);
      await page.getByTestId('draw-samples').click();
      await page.getByTestId('kl').waitFor();
      await page.getByTestId('copy-link').click();
      await page.getByTestId('link').waitFor();
      expect(await layout(page, `pseudo-${width}`)).toEqual([]);
      await page.getByRole('button', { name: /^\[Çļöšé/ }).click();
      // compare mode: stacked or side by side
      await page.goto(`${h.server.url}#lang=en-XA&view=compare&seed=3&steps=8&panels=greedy,balanced_beam3,chaos_spec2`);
      await page.waitForSelector('[data-ready="true"]');
      await page.locator('[data-testid="compare-panel"] summary').first().click();
      expect(await layout(page, `pseudo-compare-${width}`)).toEqual([]);
    });
  }

  it('German and Chinese at 360 px: no text clipped or over other text', async () => {
    for (const lang of ['de', 'zh']) {
      const page = await open({ width: 360, height: 800, hash: `#lang=${lang}&seed=9&prompt=Ma&top_k=5&steps=20&strategy=speculative` });
      expect(await layout(page, `${lang}-360`)).toEqual([]);
      if (lang === 'de') {
        // the check sees what it must: labels kept on one line, cut at their box
        await page.addStyleTag({ content: '.spg-readouts > div { min-width: 0; } .spg-readouts dt { white-space: nowrap; overflow: hidden; }' });
        expect((await page.evaluate(textProblems)).filter((p) => p.startsWith('cut short: dt')).length).toBeGreaterThan(0);
      }
    }
  });

  for (const width of [1280, 390]) {
    it(`at ${width} px, in English, German, Spanish and Chinese: no word of a label or a readout broken across two lines`, async () => {
      const found = {};
      for (const lang of ['en', 'de', 'es', 'zh']) {
        const page = await open({ width, height: 844, hash: `#lang=${lang}&seed=9&steps=5` });
        // every fold open: the chain's stages, the metrics, the model's parts
        await page.evaluate(() => document.querySelectorAll('details').forEach((d) => { d.open = true; }));
        await page.waitForTimeout(300);
        found[lang] = await page.evaluate(wordBreaks);
        // a chapter's labels and its playground's readouts too
        const chapter = await open({ url: `${h.server.url}learn/top-p.html`, hash: `#lang=${lang}`, width, height: 844 });
        found[`${lang} top-p`] = await chapter.evaluate(wordBreaks);
      }
      expect(found).toEqual({ en: [], de: [], es: [], zh: [], 'en top-p': [], 'de top-p': [], 'es top-p': [], 'zh top-p': [] });
    });
  }

  it('the word check sees a word broken across two lines', async () => {
    const page = await open({ width: 1280, height: 844, hash: '#lang=de&seed=9&steps=5' });
    // the readouts as narrow as they were when "Nukleusgröße" broke after its ß
    await page.addStyleTag({ content: '.spg-readouts > div { flex: 0 0 82px; } .spg-readouts dt { overflow-wrap: anywhere; }' });
    const found = await page.evaluate(wordBreaks);
    expect(found.filter((p) => /^word broken: button\.spg-term "Nukleusgr\S* \/ \S*e"$/.test(p)), found.join('\n')).toHaveLength(1);
  });
});
