// The strip of the samplers' state under the text: Mirostat 2 on, Play,
// one mark per token with the engine's μ (the same numbers as the engine
// in Node), time travel (a mark pointed at shows its step; a branch keeps
// the marks before it and has its own); the penalties' and DRY's rows;
// each row explained on hover and on focus; the keyboard; a fast-forward's
// marks drawn at once; no strip and no strip code while no stateful stage
// is on; an element's view "strip".
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { loadEngineNode } from '../../web/src/engine/node.js';
import { DIST, MODELS } from './fixtures.js';
import { lesson, skipWithoutChromium, until, useBrowser } from './harness.js';

const marks = (page, row) => page.locator(`[data-testid="strip-row"][data-row="${row}"] [data-testid="strip-mark"]`);
const tokens = (page) => page.locator('[data-testid="output-token"]');
const stepCount = async (page) => Number(await page.locator('[data-step-count]').first().getAttribute('data-step-count'));

/** The engine's step records in Node for a text: `steps` tokens, forced ones where given. */
async function engineStates({ seed, params, steps, forced = new Map() }) {
  const e = await loadEngineNode('simd');
  const m = e.loadModel(new Uint8Array(fs.readFileSync(path.join(MODELS, 'bigram.bin'))));
  const s = e.createSession(m, null);
  s.start('', seed);
  const out = [];
  for (let i = 0; i < steps; i++) out.push(s.step(params, { force: forced.get(i) ?? -1 }));
  s.free();
  m.free();
  return out;
}

describe.skipIf(skipWithoutChromium)('the strip of the samplers\' state', () => {
  const { h, open } = useBrowser();

  it('Mirostat 2: Play adds a mark per token, μ and the surprise the engine\'s; a branch keeps the marks before it', async () => {
    const page = await open({ hash: '#seed=5&mirostat=2&mirostat_tau=3' });
    // no token yet: no strip (nothing to mark; its code comes with the first token)
    await page.getByTestId('play').waitFor();
    expect(await page.getByTestId('state-strip').count()).toBe(0);
    await page.getByTestId('play').click();
    await until(async () => (await page.getByTestId('state-strip').count()) === 1);
    await until(async () => (await stepCount(page)) >= 20, { timeout: 20000 });
    await page.getByTestId('play').click(); // pause
    await until(async () => (await page.locator('[data-playing="true"]').count()) === 0);
    const n = await stepCount(page);
    expect(n).toBeGreaterThanOrEqual(20);
    await until(async () => (await marks(page, 'mirostat').count()) === n);
    expect(await tokens(page).count()).toBe(n);
    const params = { mirostat: 2, mirostat_tau: 3 };
    const recs = await engineStates({ seed: 5, params, steps: n });
    const bars = await marks(page, 'mirostat').evaluateAll((els) => els.map((el) => [Number(el.dataset.bar), Number(el.dataset.dot)]));
    expect(bars.map(([mu]) => mu)).toEqual(recs.map((r) => r.state.mirostat_mu));
    expect(bars.map(([, s]) => s)).toEqual(recs.map((r) => r.state.surprise_bits));
    expect(bars[0][0]).toBe(6); // 2τ
    expect(new Set(bars.map(([mu]) => mu)).size).toBeGreaterThan(5); // it moves
    // only the rows of the stages on
    expect(await page.locator('[data-testid="strip-row"]').evaluateAll((els) => els.map((el) => el.dataset.row))).toEqual(['mirostat']);

    // pointing at a mark shows its step (the bars' heading) and says its numbers
    // (the mouse itself: Playwright's hover waits for an SVG rect to be "stable" and, on this page, times out)
    const box = await marks(page, 'mirostat').nth(3).boundingBox();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await until(async () => (await page.getByTestId('step-heading').textContent()).startsWith('Step 4'));
    const said = await page.getByTestId('strip-now').textContent();
    expect(said).toContain('Token 4');
    expect(said).toContain(`μ ${recs[3].state.mirostat_mu.toFixed(2)} bits`);

    // rewind: pin step 5 and branch there with another kept token: marks 0..3 stay, the 5th is the branch's own
    await tokens(page).nth(4).click();
    await page.mouse.move(5, 5);
    const token = await tokens(page).nth(4).getAttribute('data-token');
    const alt = page.locator(`[data-testid="prob-bar"][data-kept="true"]:not([data-token="${token}"])`).first();
    const altToken = Number(await alt.getAttribute('data-token'));
    await alt.locator('button').click();
    await until(async () => (await tokens(page).count()) === 5);
    await until(async () => (await marks(page, 'mirostat').count()) === 5);
    const branched = await engineStates({ seed: 5, params, steps: 5, forced: new Map([[4, altToken]]) });
    const after = await marks(page, 'mirostat').evaluateAll((els) => els.map((el) => [Number(el.dataset.bar), Number(el.dataset.dot)]));
    expect(after.slice(0, 4)).toEqual(bars.slice(0, 4));
    expect(after.map(([mu, s]) => [mu, s])).toEqual(branched.map((r) => [r.state.mirostat_mu, r.state.surprise_bits]));
    expect(after[4][1]).not.toBe(bars[4][1]); // another token, another surprise
  });

  it('the penalties\' and DRY\'s rows: the engine\'s counts; each row explained on hover and on focus; ← → from the keyboard', async () => {
    const hash = '#seed=9&steps=15&frequency_penalty=0.3&dry_multiplier=0.8&dry_allowed_length=1';
    const page = await open({ hash });
    await until(async () => (await marks(page, 'dry').count()) === 15);
    const recs = await engineStates({ seed: 9, params: { frequency_penalty: 0.3, dry_multiplier: 0.8, dry_allowed_length: 1 }, steps: 15 });
    const pen = await marks(page, 'penalties').evaluateAll((els) => els.map((el) => [Number(el.dataset.bar), Number(el.dataset.dot)]));
    expect(pen).toEqual(recs.map((r) => [r.state.penalties_n, r.state.penalty_count_token]));
    const dry = await marks(page, 'dry').evaluateAll((els) => els.map((el) => [Number(el.dataset.bar), Number(el.dataset.count), Number(el.dataset.dot)]));
    expect(dry).toEqual(recs.map((r) => [r.state.dry_longest, r.state.dry_n, r.state.dry_length_token]));
    expect(dry.some(([longest]) => longest > 1)).toBe(true);

    // a row's name explains it on hover and on focus
    const term = page.getByTestId('strip-term-dry');
    await term.hover();
    await until(async () => page.getByTestId('strip-tip-dry').isVisible());
    expect(await page.getByTestId('strip-tip-dry').textContent()).toContain('longest repeat');
    await page.mouse.move(5, 5);
    await until(async () => !(await page.getByTestId('strip-tip-dry').isVisible()));
    await page.getByTestId('strip-term-penalties').focus();
    await until(async () => page.getByTestId('strip-tip-penalties').isVisible());
    // the marks from the keyboard: the strip takes the focus, ← steps back (the step pinned, said in words)
    await page.getByTestId('strip-track').focus();
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    await until(async () => (await page.getByTestId('strip-now').textContent()).startsWith('Token 14'));
    expect(await page.getByTestId('strip-track').getAttribute('aria-describedby')).toBe(await page.getByTestId('strip-now').getAttribute('id'));
    expect(await tokens(page).nth(13).getAttribute('class')).toContain('is-focus');
    await page.keyboard.press('Escape');
    await until(async () => (await page.getByTestId('strip-now').textContent()).startsWith('Token 15'));
  });

  it('the watermark\'s row: each drawn token green or red, as the engine says', async () => {
    const page = await open({ hash: '#seed=6&steps=12&watermark_delta=2&watermark_gamma=0.5' });
    await until(async () => (await marks(page, 'watermark').count()) === 12);
    const recs = await engineStates({ seed: 6, params: { watermark_delta: 2, watermark_gamma: 0.5 }, steps: 12 });
    const want = recs.map((r) => (r.state.watermark_green >= 0 ? r.state.watermark_green : NaN));
    expect(await marks(page, 'watermark').evaluateAll((els) => els.map((el) => Number(el.dataset.bar)))).toEqual(want);
    expect(want.filter((g) => g === 1).length).toBeGreaterThan(6); // δ = 2 makes most tokens green
    expect(await page.locator('[data-testid="strip-row"][data-row="watermark"] .spg-states-green').count()).toBe(want.filter((g) => g === 1).length);
  });

  it('a fast-forward\'s marks show their steps\' state at once, none pointed at: the engine\'s μ and surprise', async () => {
    const page = await open({ hash: '#seed=5&mirostat=2&mirostat_tau=3' });
    await page.getByTestId('generate-n').fill('40');
    await page.getByTestId('generate-n').press('Enter');
    await page.getByTestId('generate-done').waitFor();
    await until(async () => (await marks(page, 'mirostat').count()) === 40);
    await until(async () => (await page.locator('[data-row="mirostat"] [data-ran="true"]').count()) === 40);
    const recs = await engineStates({ seed: 5, params: { mirostat: 2, mirostat_tau: 3 }, steps: 40 });
    const got = await marks(page, 'mirostat').evaluateAll((els) => els.map((el) => [Number(el.dataset.bar), Number(el.dataset.dot)]));
    expect(got).toEqual(recs.map((r) => [r.state.mirostat_mu, r.state.surprise_bits]));
    expect(await page.locator('.spg-states-later').count()).toBe(0);
  });

  it('no stateful stage on: no strip, and its code is not fetched', async () => {
    const page = await open({ hash: '#seed=3&steps=5&top_k=10' });
    await until(async () => (await tokens(page).count()) === 5);
    expect(await page.getByTestId('state-strip').count()).toBe(0);
    expect(h.requested.some((u) => /StateStrip/.test(u))).toBe(false);
  });

  it('an element\'s view "strip": Mirostat\'s μ under the text, in the element\'s language', async () => {
    const body = '<sampler-playground model="bigram" seed="4" steps="12" mirostat="2" mirostat-tau="2.5" view="text,strip" lang="de"></sampler-playground>';
    const server = await h.serve(null, { mounts: { '/playground/': DIST }, files: { '/favicon.ico': '', '/lesson.html': lesson(body) } });
    const page = await open({ url: `${server.url}lesson.html`, wait: false });
    const recs = await engineStates({ seed: 4, params: { mirostat: 2, mirostat_tau: 2.5 }, steps: 12 });
    const want = JSON.stringify(recs.map((r) => r.state.mirostat_mu));
    await until(async () => JSON.stringify(await marks(page, 'mirostat').evaluateAll((els) => els.map((el) => Number(el.dataset.bar)))) === want);
    await until(async () => (await page.getByTestId('strip-term-mirostat').textContent()) === 'Mirostat μ');
    expect(await page.getByTestId('strip-now').textContent()).toContain('Bit');
  });
});
