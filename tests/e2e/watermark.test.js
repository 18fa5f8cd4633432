// The watermark's view on the page: with the stage on, the text's tokens
// green or red as the engine's detector judges them and the running
// z-score; a learner copies the text into the box, detects it (z high),
// edits it and detects again (z falls).  Its code and words come in a
// chunk of their own, fetched only when the stage is on (the page's weight).
import { describe, expect, it } from 'vitest';

import { skipWithoutChromium, stepTimes, until, useBrowser } from './harness.js';

const SHOTS = process.env.WATERMARK_SHOTS; // a directory: the test saves its screenshots there

/** Generates n tokens with Generate N and waits for them. */
async function generateN(page, n) {
  await page.getByTestId('generate-n').first().fill(String(n));
  await page.getByTestId('generate').first().click();
  await page.getByTestId('generate-done').first().waitFor({ timeout: 30000 });
}

const zOf = async (loc) => Number(await loc.getAttribute('data-z'));

describe.skipIf(skipWithoutChromium)('the watermark on the page', () => {
  const { h, open } = useBrowser();

  it('no watermark chunk on a page without the stage', async () => {
    const page = await open({ hash: '#seed=42' });
    await page.waitForTimeout(300);
    expect(await page.getByTestId('wm-card').count()).toBe(0);
    expect(h.requested.filter((u) => /Watermark/.test(u))).toEqual([]);
  });

  it('colours the text, shows the running z; copy, detect, edit, detect: the z falls (1280 px)', async () => {
    const page = await open({ hash: '#seed=42&watermark_delta=2', height: 1400 });
    const card = page.getByTestId('wm-card');
    await card.waitFor({ timeout: 15000 });
    await generateN(page, 150);
    await stepTimes(page, 1); // a step of its own: its record (green mass, spike entropy) comes with it
    const z = page.getByTestId('wm-z');
    await until(async () => (await zOf(z)) > 4, 15000);
    await until(async () => (await card.getByTestId('wm-text').locator('[data-green="1"], [data-green="0"]').count()) === 151, 15000);
    const green = await card.getByTestId('wm-text').locator('[data-green="1"]').count();
    expect(green / 151).toBeGreaterThan(0.4); // gamma 0.25: the bias shows
    expect(await z.textContent()).toContain(`${green} of 151 tokens green`);
    const spike = /^The last step \(token 151\): .*spike entropy (\d\.\d{3})/.exec(await card.getByTestId('wm-step').textContent())?.[1];
    expect(spike).toBeTruthy();
    // the stepped token's title: its colour, the z after it, its step's spike entropy (the same number)
    const lastTok = card.getByTestId('wm-text').locator('[data-testid="wm-token"]').last();
    expect(await lastTok.getAttribute('title')).toMatch(new RegExp(`^Token 151, (green|red): z after it -?\\d+\\.\\d\\d; spike entropy of its step ${spike}$`));
    // a line break is a token too: drawn (↵), so its colour shows
    const nl = card.getByTestId('wm-text').locator('.is-nl');
    expect(await nl.count()).toBeGreaterThan(5);
    expect(await nl.first().evaluate((el) => getComputedStyle(el, '::before').content)).toBe('"↵"');
    // the learner copies the text into the box and detects it
    await card.getByTestId('wm-copy').click();
    await card.getByTestId('wm-detect').click();
    const detected = card.getByTestId('wm-detected');
    await detected.waitFor();
    const zBefore = await zOf(detected);
    expect(zBefore).toBeGreaterThan(4);
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/watermark-1280.png`, fullPage: true });
    // edits it: every other line replaced by names written without the key
    const box = card.getByTestId('wm-box');
    const text = await box.inputValue();
    const edited = text.split('\n').map((line, i) => (i % 2 ? line : 'Mary')).join('\n');
    await box.fill(edited);
    await card.getByTestId('wm-detect').click();
    await until(async () => (await zOf(detected)) !== zBefore);
    const zAfter = await zOf(detected);
    expect(zAfter).toBeLessThan(zBefore - 2);
    // the stage off: the card goes
    await page.evaluate(() => { location.hash = '#seed=42'; });
    await until(async () => (await page.getByTestId('wm-card').count()) === 0, 15000);
  });

  it('on a phone (390 px), in German', async () => {
    const page = await open({ hash: '#seed=7&watermark_delta=3&lang=de', width: 390, height: 1600 });
    const card = page.getByTestId('wm-card');
    await card.waitFor({ timeout: 15000 });
    expect(await card.locator('h2').textContent()).toBe('Wasserzeichen');
    await generateN(page, 80);
    await until(async () => (await zOf(page.getByTestId('wm-z'))) > 3, 15000);
    const box = await card.boundingBox();
    expect(box.width).toBeLessThanOrEqual(390);
    await card.scrollIntoViewIfNeeded();
    if (SHOTS) await card.screenshot({ path: `${SHOTS}/watermark-390.png` });
  });
});
