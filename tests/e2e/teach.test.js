// The playground teaches: a first visit's "Start here" (the course's first
// chapter or a three-step tour; dismissed once, never again; never in an
// embed), each stage's plain sentence, live line (the engine's count and
// mass), "why and when" and chapter, the readouts explained on hover and on
// focus, and the layout at 1280 × 800 and 1024 × 768: each stage turned on
// from the chain, its control and the first bar are on screen together
// (document.elementFromPoint), and so are the text and the nucleus readout;
// on a phone (390 × 844) the strip at the bottom shows the first bars and
// the nucleus size while a setting of the chain is used.
import { describe, expect, it } from 'vitest';

import { skipWithoutChromium, stepTimes, until, useBrowser } from './harness.js';

const stage = (page, name) => page.locator(`[data-testid="stage"][data-stage="${name}"]`).first();

/** Whether the element's centre is on screen and is the element (or inside it) at that point. */
const onTop = (locator) => locator.evaluate((el) => {
  const r = el.getBoundingClientRect();
  const x = r.left + Math.min(r.width / 2, 20);
  const y = r.top + r.height / 2;
  if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) return `off screen at ${Math.round(x)},${Math.round(y)}`;
  const hit = document.elementFromPoint(x, y);
  return hit && (hit === el || el.contains(hit) || hit.contains(el) || hit.closest('label')?.contains(el)) ? 'ok' : `covered by ${hit?.className}`;
});

describe.skipIf(skipWithoutChromium)('the playground teaches', () => {
  const { h, open, newContext } = useBrowser();

  it('a first visit offers the course or a tour; dismissed once, never again; a link\'s setup or an embed never shows it', async () => {
    const context = await newContext({ width: 1280, height: 800 });
    const page = await open({ context });
    await page.mouse.move(5, 5); // the card comes with the teaching texts, at the learner's first move
    const card = page.getByTestId('start-here');
    await card.waitFor();
    // the course's first chapter, in the page's language
    expect(await page.getByTestId('start-course').getAttribute('href')).toMatch(/\/learn\/distribution\.html$/);
    await page.getByTestId('start-close').click();
    expect(await card.count()).toBe(0);
    const again = await open({ context });
    await again.mouse.move(5, 5);
    await again.waitForTimeout(500);
    expect(await again.getByTestId('start-here').count()).toBe(0);

    const fresh = await open({ hash: '#seed=3' });
    await fresh.mouse.move(5, 5);
    await fresh.waitForTimeout(500);
    expect(await fresh.getByTestId('start-here').count()).toBe(0);
    const embedded = await open({ url: `${h.server.url}?embed=1` });
    expect(await embedded.getByTestId('start-here').count()).toBe(0);
  });

  it('the tour: the bars, one slider, Play — each ringed and on screen, its text fetched on demand; the keyboard walks it and Escape ends it', async () => {
    for (const [width, height] of [[1280, 800], [390, 844]]) {
      const page = await open({ width, height });
      await page.mouse.move(5, 5);
      await page.getByTestId('start-tour').click();
      const tour = page.getByTestId('tour');
      await until(async () => !(await tour.locator('#spg-tour-text').textContent()).startsWith('…'));
      expect(await tour.getAttribute('data-step')).toBe('1');
      // the focus is in the tour; the part it names is ringed
      expect(await page.evaluate(() => !!document.activeElement?.closest('[data-testid="tour"]'))).toBe(true);
      expect(await page.locator('.spg-tour-target').evaluate((el) => el.classList.contains('spg-dist'))).toBe(true);
      await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      expect(await tour.getAttribute('data-step')).toBe('2');
      expect(await page.locator('.spg-tour-target').evaluate((el) => el.matches('input[type="range"]'))).toBe(true);
      expect(await onTop(page.locator('.spg-tour-target'))).toBe('ok');
      await page.getByTestId('tour-next').click();
      expect(await tour.getAttribute('data-step')).toBe('3');
      expect(await page.locator('.spg-tour-target').getAttribute('data-testid')).toBe('play');
      expect(await tour.textContent()).toContain('Press Play');
      await page.keyboard.press('Escape');
      expect(await tour.count()).toBe(0);
      expect(await page.locator('.spg-tour-target').count()).toBe(0);
    }
  });

  it('a stage says what it does, what it just did (the engine\'s count and mass), why and when, and links its chapter', async () => {
    const page = await open({ hash: '#seed=9&top_k=10&lang=de' });
    await page.mouse.move(5, 5); // the learner's first move fetches the texts
    const topK = stage(page, 'top_k');
    const live = topK.getByTestId('stage-live');
    await until(async () => Number(await live.getAttribute('data-cut').catch(() => '0')) > 0);
    const cut = Number(await topK.getByTestId('stage-cut').getAttribute('data-cut'));
    expect(cut).toBe(await page.locator('[data-testid="prob-bar"][data-cut="top_k"]').count());
    expect(await live.getAttribute('data-cut')).toBe(String(cut));
    const said = new RegExp(`^Top-k hat ${cut} Tokens abgeschnitten, die \\d+,\\d+\\s% der Wahrscheinlichkeit des Modells hatten\\.$`);
    await until(async () => said.test(await live.textContent()));
    // the plain sentence, in German
    await until(async () => (await topK.locator('.spg-stage-doc').textContent()) === 'Behält die k wahrscheinlichsten Tokens und wirft den Rest weg.');
    await topK.getByTestId('stage-why').locator('summary').click();
    expect(await topK.getByTestId('stage-why').locator('p').textContent()).toMatch(/^Der älteste Schnitt/);
    expect(await topK.getByTestId('stage-chapter').getAttribute('href')).toMatch(/\/learn\/top-k\.html#lang=de$/);
    // a stage the course groups with the other cutoffs
    await stage(page, 'eta').getByTestId('stage-more').click();
    expect(await stage(page, 'eta').getByTestId('stage-chapter').getAttribute('href')).toMatch(/\/learn\/beyond-top-p\.html#lang=de$/);
    // top-p on and cutting nothing says so
    const english = await open({ hash: '#seed=9&top_p=0.99&steps=1' });
    await english.mouse.move(5, 5);
    const liveP = /^Top-p (cut nothing at this step\.|cut \d+ tokens? holding [\d.]+% of the model's probability\.)$/;
    await until(async () => liveP.test(await stage(english, 'top_p').getByTestId('stage-live').textContent().catch(() => '')));
  });

  it('the temperature\'s dynamic part is folded; Mirostat\'s version is a choice of off, 1 and 2 that writes the same link', async () => {
    const page = await open({ hash: '#seed=4' });
    const fold = stage(page, 'temperature').getByTestId('stage-fold');
    expect(await fold.evaluate((d) => d.open)).toBe(false);
    expect(await stage(page, 'temperature').locator('input[type="range"]:visible').count()).toBe(1);
    const mirostat = page.getByTestId('mirostat-version');
    expect(await mirostat.getByRole('radio').count()).toBe(3);
    await page.getByTestId('mirostat-1').check();
    await until(async () => (await page.evaluate(() => location.hash)).includes('mirostat=1'));
    await until(async () => (await stage(page, 'mirostat').getAttribute('data-on')) === 'true');
    await page.getByTestId('mirostat-0').check();
    await until(async () => (await stage(page, 'mirostat').getAttribute('data-on')) === 'false');
    const linked = await open({ hash: '#seed=4&mirostat=2&dynatemp_range=0.5' });
    expect(await linked.getByTestId('mirostat-2').isChecked()).toBe(true);
    expect(await stage(linked, 'temperature').getByTestId('stage-fold').evaluate((d) => d.open)).toBe(true);
  });

  it('each readout says what it means on hover and on focus', async () => {
    const page = await open({ hash: '#seed=2' });
    await stepTimes(page, 1);
    for (const key of ['size', 'mass', 'entropy', 'argmax']) {
      await page.getByTestId(`term-${key}`).hover();
      const tip = page.getByTestId(`tip-${key}`);
      await until(async () => (await tip.isVisible()) && !(await tip.textContent()).startsWith('…'));
      expect(await page.getByTestId(`term-${key}`).getAttribute('aria-describedby')).toBe(await tip.getAttribute('id'));
    }
    await page.mouse.move(0, 0);
    await page.getByTestId('term-mass').focus();
    expect(await page.getByTestId('tip-mass').isVisible()).toBe(true);
    expect(await page.getByTestId('tip-mass').textContent()).toContain('model\'s own probability');
    await page.keyboard.press('Escape');
    expect(await page.getByTestId('tip-mass').isVisible()).toBe(false);
  });

  for (const [width, height] of [[1280, 800], [1024, 768]]) {
    it(`at ${width} × ${height}: each stage turned on from the chain, its control, the first bar, the text and the nucleus readout are on screen together`, async () => {
      const page = await open({ hash: '#seed=5&steps=30', width, height });
      const names = await page.locator('[data-testid="stage"]').evaluateAll((els) => els.map((e) => e.dataset.stage));
      expect(names.length).toBeGreaterThanOrEqual(15);
      const checked = [];
      /** the control just used, the first bar, the text's end and the nucleus size: all on screen, none covered */
      const allInSight = async (control, what) => {
        await until(async () => (await page.locator('[data-testid="prob-bar"]').count()) > 0);
        const seen = {
          control: await onTop(control),
          bar: await onTop(page.locator('[data-testid="prob-bar"]').first()),
          text: await onTop(page.getByTestId('output').first()),
          nucleus: await onTop(page.getByTestId('nucleus-size').first()),
        };
        expect(seen, what).toEqual({ control: 'ok', bar: 'ok', text: 'ok', nucleus: 'ok' });
        checked.push(what);
      };
      for (const name of names) {
        if (name !== 'mirostat' && !(await page.getByTestId(`stage-on-${name}`).count())) {
          // no switch (the logit bias, the words stages: on when they hold something): its settings open
          await stage(page, name).getByTestId('stage-more').click();
          await allInSight(stage(page, name).getByTestId('stage-more'), name);
          continue;
        }
        const box = name === 'mirostat' ? page.getByTestId('mirostat-2') : page.getByTestId(`stage-on-${name}`);
        await box.check();
        await until(async () => (await stage(page, name).getAttribute('data-on')) === 'true');
        await allInSight(box, name);
        // a slider of the stage, moved from the keyboard
        const slider = stage(page, name).locator('input[type="range"]:visible').first();
        if (await slider.count()) {
          await slider.focus();
          await page.keyboard.press('ArrowRight');
          await allInSight(slider, `${name} slider`);
        }
        if (name === 'mirostat') await page.getByTestId('mirostat-0').check();
        else await page.getByTestId(`stage-on-${name}`).uncheck();
        await until(async () => (await stage(page, name).getAttribute('data-on')) === 'false');
      }
      // the constraint box
      await page.getByTestId('constraint-regex').check();
      const regex = page.getByTestId('regex-input');
      await regex.fill('[A-M][a-z]+');
      await page.getByTestId('regex-apply').click();
      await allInSight(regex, 'constraint');
      expect(checked.length).toBeGreaterThanOrEqual(names.length + 1);
    });
  }

  it('at 390 × 844: while a stage\'s slider far down the chain is used, the strip shows the first bars and the nucleus size beside it', async () => {
    const page = await open({ hash: '#seed=5&steps=10', width: 390, height: 844 });
    const mini = page.getByTestId('mini-bars');
    expect(await mini.count()).toBe(0); // not before the chain is used
    for (const name of ['top_k', 'min_p', 'xtc']) {
      await page.getByTestId(`stage-on-${name}`).check();
      await until(async () => (await stage(page, name).getAttribute('data-on')) === 'true');
      const slider = stage(page, name).locator('input[type="range"]:visible').first();
      await slider.focus();
      await page.keyboard.press('ArrowRight');
      await mini.waitFor();
      // the bars are far above; the slider, the strip's first bar and the nucleus size are on screen together
      expect(await onTop(page.locator('[data-testid="prob-bar"]').first())).not.toBe('ok');
      const seen = { control: await onTop(slider), bar: await onTop(page.getByTestId('mini-bar').first()), nucleus: await onTop(page.getByTestId('mini-nucleus')) };
      expect(seen, name).toEqual({ control: 'ok', bar: 'ok', nucleus: 'ok' });
      // the engine's numbers, as the bars have them
      const first = page.locator('[data-testid="prob-bar"]').first();
      await until(async () => (await page.getByTestId('mini-bar').first().getAttribute('data-prob')) === (await first.getAttribute('data-prob')));
      expect(await page.getByTestId('mini-nucleus').textContent()).toContain(await page.getByTestId('nucleus-size').first().textContent());
      await page.getByTestId(`stage-on-${name}`).uncheck();
    }
    // back at the bars: the strip is small again
    await page.locator('[data-testid="prob-bar"]').first().click({ trial: true });
    await page.getByTestId('output').first().click();
    await until(async () => (await mini.count()) === 0);
  });
});
