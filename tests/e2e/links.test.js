// The worst links in Chromium: a link whose sampler settings the engine
// refuses (1e308, ±Infinity, huge integers, NaN, settings that refuse each
// other) opens a usable page — the calm notice, the link's prompt kept in
// its field, no error under it, Step enabled and drawing a token.  (Every
// parameter with many more values: tests/js/linkfuzz.test.js, in a panel
// in Node.)
import { describe, expect, it } from 'vitest';

import { haveTransformer } from './fixtures.js';
import { skipWithoutChromium, until, useBrowser } from './harness.js';

const tokens = (scope) => scope.locator('[data-testid="output-token"]');

describe.skipIf(skipWithoutChromium)('links the engine would refuse', () => {
  const { open } = useBrowser();

  /** Opens a link and checks that the page is usable: its notices' text. */
  async function usable(hash, { prompt = 'Ma', steps = 0 } = {}) {
    const page = await open({ hash, width: 1280, height: 800 });
    await until(async () => (await tokens(page).count()) === steps, 15000);
    expect(await page.getByTestId('prompt').first().inputValue(), hash).toBe(prompt);
    expect(await page.getByTestId('prompt-error').count(), hash).toBe(0);
    const step = page.getByTestId('step').first();
    expect(await step.isEnabled(), hash).toBe(true);
    await step.click();
    await until(async () => (await tokens(page).count()) === steps + 1, 15000);
    return { page, notice: await page.getByTestId('notice').first().textContent() };
  }

  it('temperature=1e308 (the issue\'s link): "Ignored …", the prompt kept, Step draws', async () => {
    const model = haveTransformer ? 'transformer' : 'bigram';
    const { notice } = await usable(`#model=${model}&seed=42&prompt=Ma&temperature=1e308`);
    expect(notice).toContain('Ignored temperature="1e308" from the link: Temperature must be a finite number the engine can hold (at most about 3.4e38); using 1.');
  });

  it('huge integers, NaN, −Infinity, −0 and settings that refuse each other, at once', async () => {
    const { page, notice } = await usable('#model=bigram&seed=42&prompt=Ma&top_k=99999999999999999999&min_p=NaN&top_p=-0&dynatemp_range=-Infinity'
      + '&mirostat=2&adaptive_target=0.3&steps=2', { steps: 2 });
    expect(notice).toContain('Ignored top_k="100000000000000000000" from the link: Top-k must be in [0, 2147483647]; using 0.');
    expect(notice).toContain('Ignored min_p="NaN" from the link: Min-p must be a number; using 0.');
    expect(notice).toContain('Ignored top_p="-0" from the link: Top-p must be in (0, 1]; using 1.');
    expect(notice).toContain('Ignored dynatemp_range="-Infinity" from the link');
    expect(notice).toContain('Ignored adaptive_target="0.3" from the link: mirostat and adaptive-target are both set');
    // the link the page writes back holds what it uses
    await until(async () => /mirostat=2/.test(await page.evaluate(() => location.hash)));
    const hash = await page.evaluate(() => location.hash);
    expect(hash).not.toMatch(/top_k=1e|adaptive_target=0\.3|min_p=NaN/);
  });

  it('compare mode: a panel\'s absurd field falls back, the panels still step together', async () => {
    const page = await open({ hash: '#view=compare&model=bigram&seed=42&prompt=Ma&panels=greedy_t99999999999999999999999999999999999999999_k-5,balanced', width: 1280, height: 800 });
    const notice = await page.getByTestId('notice').first().textContent();
    expect(notice).toMatch(/Panel 1 of the link: "t1e41": Temperature must be a finite number the engine can hold/);
    expect(notice).toContain('Panel 1 of the link: "k-5": Top-k must be in [0, 2147483647]');
    const step = page.getByTestId('step').first();
    await until(() => step.isEnabled(), 15000);
    await step.click();
    await until(async () => (await tokens(page).count()) === 2, 15000);
  });
});
