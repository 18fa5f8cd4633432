// Classifier-free guidance on the page: a link's guidance scale and
// negative prompt reach the engine (the text is the engine's for those
// settings), the stage's field shows the negative prompt and changes it
// (the link follows), and its view draws, for the step shown, the three
// distributions the engine reports: the conditional run, the
// unconditional one and their mix.
import { describe, expect, it } from 'vitest';

import { needTransformer, skipWithoutTransformer } from './fixtures.js';
import { engineText, generated, hashOf, skipWithoutChromium, stepTimes, until, useBrowser } from './harness.js';

const stage = (page, name) => page.locator(`[data-testid="stage"][data-stage="${name}"]`).first();

describe.skipIf(skipWithoutChromium)('classifier-free guidance', () => {
  const { open } = useBrowser();

  it.skipIf(skipWithoutTransformer)('a link\'s scale and negative prompt give the engine\'s text; the field changes the negative prompt; the view draws both runs and their mix', async () => {
    needTransformer();
    const prompt = 'And God said';
    const negative = 'And the king';
    const page = await open({ hash: `#model=transformer&prompt=${encodeURIComponent(prompt)}&seed=5&cfg_scale=2&negative_prompt=${encodeURIComponent(negative)}`, height: 1300 });
    const cfg = stage(page, 'cfg');
    await until(async () => (await cfg.getAttribute('data-on')) === 'true');
    await stepTimes(page, 12);
    const params = { cfg_scale: 2, negative_prompt: negative };
    expect(await generated(page)).toBe(await engineText({ model: 'transformer', prompt, seed: 5, steps: 12, params }));
    // the stage is open (on): its field holds the negative prompt, its view the step's three distributions
    const field = cfg.getByTestId('negative-prompt');
    await until(() => field.isVisible());
    expect(await field.inputValue()).toBe(negative);
    await until(async () => (await cfg.getByTestId('cfg-row').count()) > 0);
    const row = cfg.getByTestId('cfg-row').first();
    const ps = await row.locator('[data-kind]').evaluateAll((els) => els.map((el) => [el.getAttribute('data-kind'), Number(el.getAttribute('data-p'))]));
    expect(ps.map(([k]) => k)).toEqual(['cond', 'uncond', 'mix']);
    for (const [, p] of ps) expect(p).toBeGreaterThan(0);
    expect(await row.getAttribute('aria-label')).toMatch(/your prompt .*negative prompt .*mix /);
    // a new negative prompt (Enter): the link says so, and the next steps read it
    await field.fill('In the beginning');
    await field.press('Enter');
    await until(async () => new URLSearchParams((await hashOf(page)).slice(1)).get('negative_prompt') === 'In the beginning');
    // scale 1: the stage is off and the view says how to see it
    await page.goto(page.url().replace('cfg_scale=2', 'cfg_scale=1'));
    await page.reload();
    await until(async () => (await stage(page, 'cfg').getAttribute('data-on')) === 'false');
  });
});
