// Diverse beam search and prompt lookup in Debian's Chromium: the beam
// view tags each hypothesis with its group (the engine's numbers, as the
// wrapper gives them), the controls write the link's keys; the rounds view
// says where each prompt-lookup draft was copied from.  Every test fails
// on a console error or a request that leaves localhost (harness.js).
import { describe, expect, it } from 'vitest';

import { hashOf, skipWithoutChromium, stepTimes, until, useBrowser } from './harness.js';

const SHOTS = process.env.SPG_SHOTS; // a folder for screenshots, when set

describe.skipIf(skipWithoutChromium)('diverse beams and prompt lookup in Chromium', () => {
  const { open } = useBrowser();

  it('diverse beam search: groups in the list, the groups\' first tokens differ under a big penalty, the link keeps the settings', async () => {
    const page = await open({ hash: '#model=bigram&prompt=Ma&strategy=beam&beams=4&length_penalty=0&num_beam_groups=2&diversity_penalty=5' });
    await page.waitForSelector('.spg-panel[data-strategy="beam"]');
    await stepTimes(page, 1);
    await until(async () => (await page.getByTestId('beam').count()) === 4);
    const beams = await page.getByTestId('beam').evaluateAll((els) => els.map((e) => [e.dataset.text, e.dataset.group, Number(e.dataset.score)]));
    // after "Ma": group 0 takes n and r, group 1 the end of the name and l
    expect(beams.map((b) => b[0])).toEqual(['n', 'r', '\n', 'l']);
    expect(beams.map((b) => b[1])).toEqual(['0', '0', '1', '1']);
    expect(beams[2][2]).toBeCloseTo(-1.8191, 4);
    expect(await page.getByTestId('beam-groups-summary').getAttribute('data-groups')).toBe('2');
    expect(await page.locator('.spg-beam-group').count()).toBe(4);
    expect(await page.getByTestId('beam-groups').inputValue()).toBe('2');
    await stepTimes(page, 7);
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/diverse-beams-1280.png`, fullPage: false });
    // the diversity slider: a new search with the new penalty, in the link
    await page.getByTestId('diversity-penalty').fill('0.5');
    await until(async () => (await hashOf(page)).includes('num_beam_groups=2&diversity_penalty=0.5'));
    // one group: plain beam search, nothing new in the link
    await page.getByTestId('beam-groups').fill('1');
    await until(async () => !(await hashOf(page)).includes('num_beam_groups=2'));
    await until(async () => (await page.locator('.spg-beam-group').count()) === 0);
  });

  it('prompt lookup: the text drafts, each round says where its draft came from; the link keeps it', async () => {
    const page = await open({ hash: '#model=bigram&prompt=AnnaAnn&seed=3&temperature=0&strategy=speculative&prompt_lookup=4&prompt_lookup_ngram=2' });
    await page.waitForSelector('.spg-panel[data-strategy="speculative"]');
    await stepTimes(page, 4);
    await until(async () => (await page.getByTestId('spec-round').count()) === 4);
    expect(await page.getByTestId('draft-select').inputValue()).toBe('lookup');
    expect(await page.getByTestId('lookup-ngram').inputValue()).toBe('2');
    // the first round: "nn" first occurs in the prompt's "Anna"
    const first = page.locator('[data-testid="spec-round"][data-round="1"]');
    expect(await first.getAttribute('data-match')).toBe('-4');
    expect(await first.getAttribute('data-ngram')).toBe('2');
    await until(async () => (await page.getByTestId('spec-match').first().textContent()).length > 0);
    expect(await page.getByTestId('spec-rate').getAttribute('data-drafted')).not.toBe('0');
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/prompt-lookup-1280.png`, fullPage: false });
    await page.setViewportSize({ width: 390, height: 844 });
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/prompt-lookup-390.png`, fullPage: true });
    expect(await hashOf(page)).toContain('prompt_lookup=4&prompt_lookup_ngram=2');
    // back to a draft model: the link names it again
    await page.getByTestId('draft-select').selectOption('bigram');
    await until(async () => (await hashOf(page)).includes('draft=bigram'));
  });
});
