// Accessibility in Chromium: axe-core finds no serious or critical
// violation on the playground, the decoding lab, compare mode and a lesson
// page with <sampler-playground> (light and dark, wide and phone); every
// control is reached with Tab and shows its focus; the bars and the
// nucleus view have text alternatives that say the engine's numbers;
// reduced motion and the colour scheme are followed, and the theme switch
// (theme= in the link, the element's theme attribute) overrides the system.
import { describe, expect, it } from 'vitest';

import { audit } from './axe.js';
import { DIST } from './fixtures.js';
import { skipWithoutChromium, until, useBrowser } from './harness.js';

const luminance = (page, sel, host) => page.evaluate(([s, h]) => {
  const root = h ? document.querySelector(h).shadowRoot : document;
  const [r, g, b] = getComputedStyle(root.querySelector(s)).backgroundColor.match(/\d+(\.\d+)?/g).map(Number);
  return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
}, [sel, host]);

const LESSON = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>A lesson</title>
<script type="module" src="/playground/embed.js"></script></head>
<body><main><h1>Temperature</h1><p>Press Step, then move the slider.</p>
<sampler-playground id="a" seed="3" steps="5" controls="all" view="text,bars,nucleus"></sampler-playground>
<sampler-playground id="b" theme="dark" seed="4" steps="3" controls="temperature" view="text,bars"></sampler-playground>
</main></body></html>`;

describe.skipIf(skipWithoutChromium)('accessibility', () => {
  const { h, open } = useBrowser();

  it('axe: no serious or critical violations on the playground, the lab, compare mode and a lesson page', async () => {
    const found = {};
    const pages = {
      'playground (top-k cuts, a past token pinned)': { hash: '#seed=7&steps=20&top_k=5' },
      'playground at 390 px': { hash: '#seed=7&steps=20', width: 390, height: 844 },
      'playground, dark system': { hash: '#seed=7&steps=20&top_p=0.6', dark: true },
      'playground, theme=dark': { hash: '#seed=7&steps=20&theme=dark' },
      'lab: beam search': { hash: '#prompt=Ro&seed=1&steps=16&strategy=beam&beams=4' },
      'lab: speculative': { hash: '#seed=5&strategy=speculative&speculate=3&steps=5' },
      'lab: constrained': { hash: '#seed=6&temperature=1.5&regex=%5BA-Z%5D%5Ba-z%5D%7B2,5%7D&steps=12' },
      'compare mode': { hash: '#view=compare&model=bigram&seed=7&prompt=Ma&steps=30&panels=greedy,balanced,chaos' },
    };
    for (const [name, o] of Object.entries(pages)) {
      const page = await open({ hash: o.hash, width: o.width, height: o.height });
      if (o.dark) await page.emulateMedia({ colorScheme: 'dark' });
      if (name.includes('pinned')) await page.locator('[data-testid="output-token"]').nth(3).click();
      found[name] = await audit(page);
    }
    const site = await h.serve(null, { mounts: { '/playground/': DIST }, files: { '/lessons/temperature.html': LESSON, '/favicon.ico': '' } });
    const page = await open({ url: `${site.url}lessons/temperature.html`, ready: 'sampler-playground [data-testid="embed"][data-ready="true"]' });
    await until(async () => (await page.locator('sampler-playground [data-testid="embed"][data-ready="true"]').count()) === 2, 15000);
    found['lesson page with two elements'] = await audit(page);
    expect(found).toEqual(Object.fromEntries(Object.keys(found).map((k) => [k, []])));
  }, 240_000); // nine pages, each audited whole: about a minute on an idle machine

  it('every control is reached with Tab, in order, and shows its focus', async () => {
    const page = await open({ hash: '#seed=5&steps=8' });
    // the teaching texts (each stage's "why and when" and chapter link) come
    // at the learner's first move: move, and wait for them, before counting
    await page.mouse.move(5, 5);
    await page.getByTestId('stage-chapter').first().waitFor({ state: 'attached' });
    // what a keyboard should reach: every visible, enabled control
    const controls = await page.evaluate(() => {
      // (a radio group is one tab stop, at its checked radio; a closed
      // <details> shows only its summary)
      const els = [...document.querySelectorAll('button, input, select, textarea, a[href], summary, [tabindex="0"]')]
        .filter((el) => !el.disabled && el.tabIndex >= 0 && el.getClientRects().length && getComputedStyle(el).visibility !== 'hidden')
        .filter((el) => el.tagName === 'SUMMARY' || !el.closest('details:not([open])'))
        .filter((el) => el.type !== 'radio' || el.checked);
      window.__controls = els;
      return els.map((el) => el.outerHTML.slice(0, 100));
    });
    const reached = [];
    const unseen = [];
    await page.evaluate(() => document.activeElement?.blur());
    for (let i = 0; i < controls.length + 5; i++) {
      await page.keyboard.press('Tab');
      const f = await page.evaluate(() => {
        const el = document.activeElement;
        if (!el || el === document.body) return null;
        const s = getComputedStyle(el);
        const ring = (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0) || s.boxShadow !== 'none';
        return { at: window.__controls.indexOf(el), html: el.outerHTML.slice(0, 100), ring };
      });
      if (!f || reached.includes(f.at)) break;
      reached.push(f.at);
      if (!f.ring) unseen.push(f.html);
    }
    // (the bars are one tab stop: the arrow keys move between them)
    expect(controls.filter((c, i) => !reached.includes(i))).toEqual([]);
    expect(reached).toEqual([...reached].sort((a, b) => a - b)); // in the page's order
    expect(unseen).toEqual([]);
    // the first Tab reaches a skip button, seen when focused, past the settings to Step
    await page.evaluate(() => document.activeElement?.blur());
    await page.keyboard.press('Tab');
    const skip = page.getByTestId('skip');
    expect(await skip.evaluate((el) => el === document.activeElement)).toBe(true);
    const box = await skip.boundingBox();
    expect(box && box.y >= 0 && box.x >= 0).toBe(true);
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('step');
    // operable: Step with Enter, the temperature with the arrow keys
    await page.getByRole('button', { name: 'Step', exact: true }).focus();
    await page.keyboard.press('Enter');
    await until(async () => (await page.locator('[data-testid="output-token"]').count()) === 9);
    await page.getByRole('slider', { name: /^Temperature/ }).focus();
    await page.keyboard.press('ArrowLeft');
    await until(async () => (await page.evaluate(() => location.hash)).includes('temperature=0.95'));
  });

  it('the bars and the nucleus view say the distribution in words: the numbers on screen', async () => {
    const page = await open({ hash: '#seed=7&steps=6&top_p=0.8' });
    const bars = await page.locator('[data-testid="prob-bar"]').evaluateAll((els) => els.map((e) => ({ piece: e.dataset.piece, p: Number(e.dataset.prob) })));
    const text = await page.getByTestId('bars-summary').textContent();
    const pct = (p) => (p * 100 >= 10 ? `${(p * 100).toFixed(1)}%` : `${(p * 100).toFixed(2)}%`);
    const named = (piece) => (piece === '\n' ? 'newline' : piece === ' ' ? 'space' : piece);
    const top = bars.filter((b) => b.p > 0).slice(0, 5).map((b) => `${named(b.piece)} ${pct(b.p)}`).join(', ');
    expect(text).toContain(`Most likely: ${top}.`);
    const kept = await page.getByTestId('nucleus-size').textContent();
    expect(text).toContain(`54 tokens, ${kept} kept`);
    expect(text).toContain(`Entropy ${Number(await page.getByTestId('entropy').getAttribute('data-value')).toFixed(2)} bits`);
    // the list is described by it
    const describedBy = await page.getByTestId('prob-bars').getAttribute('aria-describedby');
    expect(await page.locator(`[id="${describedBy}"]`).textContent()).toBe(text);
    // each bar's name is its piece's name and probability
    const first = bars[0];
    await expect(page.getByRole('button', { name: new RegExp(`^${named(first.piece).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} ${pct(first.p).replace('.', '\\.')}`) }).first().isVisible()).resolves.toBe(true);
    // the nucleus view: how many ranked tokens reach the p-line (the kept count under top-p alone)
    const nucleus = await page.getByTestId('nucleus-summary').textContent();
    expect(nucleus).toMatch(new RegExp(`^Nucleus: \\d+ tokens ranked by probability; the first ${kept} reach p = 0\\.80`));
  });

  it('reduced motion stops the animations; the theme switch overrides the system and lives in the link', async () => {
    const anim = (page) => page.getByTestId('output').evaluate((el) => getComputedStyle(el, '::after').animationName);
    const moving = await open({ hash: '#seed=5' });
    expect(await anim(moving)).toBe('spg-blink');
    const still = await open({ hash: '#seed=5' });
    await still.emulateMedia({ reducedMotion: 'reduce' });
    expect(await anim(still)).toBe('none');
    expect(await still.locator('.spg-bar-fill').first().evaluate((el) => getComputedStyle(el).transitionDuration)).toBe('0s');

    // the switch: Auto follows the system, Light and Dark override it
    const page = await open({ hash: '#seed=5&steps=3' });
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await luminance(page, '.spg')).toBeLessThan(0.2);
    await page.getByRole('group', { name: 'Theme' }).getByRole('button', { name: 'Light' }).click();
    expect(await luminance(page, '.spg')).toBeGreaterThan(0.8);
    expect(await luminance(page, '.spg-card')).toBeGreaterThan(0.8);
    await until(async () => (await page.evaluate(() => location.hash)).includes('theme=light'));
    expect(await page.getByTestId('theme-light').getAttribute('aria-pressed')).toBe('true');
    await page.getByTestId('theme-auto').click();
    expect(await luminance(page, '.spg')).toBeLessThan(0.2);
    await until(async () => !(await page.evaluate(() => location.hash)).includes('theme='));
    // a link with theme=dark on a light system
    const linked = await open({ hash: '#seed=5&steps=3&theme=dark' });
    expect(await luminance(linked, '.spg')).toBeLessThan(0.2);
    expect(await linked.getByTestId('theme-dark').getAttribute('aria-pressed')).toBe('true');
    // the element: theme="dark" on a light page, the other follows the system
    const site = await h.serve(null, { mounts: { '/playground/': DIST }, files: { '/lessons/temperature.html': LESSON, '/favicon.ico': '' } });
    const lesson = await open({ url: `${site.url}lessons/temperature.html`, ready: 'sampler-playground [data-testid="embed"][data-ready="true"]' });
    expect(await luminance(lesson, '.spg', '#b')).toBeLessThan(0.2);
    expect(await luminance(lesson, '.spg', '#a')).toBeGreaterThan(0.8);
  });
});
