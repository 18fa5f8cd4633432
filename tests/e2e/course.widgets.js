// What each chapter's widget is for, used as a learner would use it
// (course.test.js runs each on its chapter's page, in English): the
// control moved, and what the engine shows changing with it.
import { expect } from 'vitest';

import { until } from './harness.js';

/** a playground of the page by its id (its shadow root is pierced by the locators) */
const widget = (page, id) => page.locator(`sampler-playground#${id}`);
/** its bars, as "piece probability" */
const bars = (scope) => scope.locator('[data-testid="prob-bar"]').evaluateAll((bs) => bs.map((b) => ({ piece: b.dataset.piece, p: Number(b.dataset.prob), cut: b.dataset.cut })));
/** its generated text (the output's, after the prompt) */
const textOf = (scope) => scope.locator('[data-testid="output"]').evaluate((el) => {
  const prompt = el.querySelector('[data-testid="output-prompt"]')?.textContent ?? '';
  return (el.textContent ?? '').slice(prompt.length);
});
const tokens = (scope) => scope.locator('[data-testid="output-token"]').count();
/** Clicks Step n times, each once the one before has landed. */
async function step(scope, n) {
  for (let i = 0; i < n; i++) {
    const before = await tokens(scope);
    await scope.getByRole('button', { name: 'Step', exact: true }).click();
    await until(async () => (await tokens(scope)) > before);
  }
}

/** @type {Record<string, (page: import('playwright-core').Page) => Promise<void>>} */
export const USE = {
  async distribution(page) {
    const w = widget(page, 'softmax');
    expect((await bars(w)).map((b) => b.p.toFixed(3))).toEqual(['0.665', '0.245', '0.090']);
    // the first logit from 2 to 3: the engine's softmax of 3, 1, 0
    const slider = page.getByTestId('logit-slider').first();
    await slider.focus();
    await slider.press('ArrowRight');
    await slider.press('ArrowRight');
    expect(await page.getByTestId('logit-value').first().textContent()).toBe('3.0');
    await until(async () => (await bars(w))[0].p.toFixed(3) === '0.844');
    // all three up by the same: the bars stay
    const before = (await bars(w)).map((b) => b.p.toFixed(4));
    for (const s of await page.getByTestId('logit-slider').all()) {
      await s.focus();
      await s.press('ArrowRight');
    }
    await page.waitForTimeout(300);
    expect((await bars(w)).map((b) => b.p.toFixed(4))).toEqual(before);
  },

  async sampling(page) {
    const draws = widget(page, 'draws');
    await step(draws, 3);
    expect((await textOf(draws)).trim().split(/\s+/)).toHaveLength(3);
    await draws.getByTestId('draw-samples').click();
    await draws.getByTestId('kl').waitFor();
    const kl = Number(await draws.getByTestId('kl').getAttribute('data-value'));
    expect(kl).toBeGreaterThan(0);
    expect(kl).toBeLessThan(0.01);
    expect(await draws.getByTestId('sample-tick').count()).toBe(3);
    // the names: another seed, another text; the same seed, the same text
    const names = widget(page, 'names');
    const setter = page.locator('[data-testid="setter"][data-for="names"]');
    const first = await textOf(names);
    expect(first.length).toBeGreaterThan(20);
    // the tokens the element writes (it rewrites its 40 on each change)
    await page.evaluate(() => {
      window.namesTokens = 0;
      document.getElementById('names').addEventListener('sampler-token', () => { window.namesTokens++; });
    });
    const rewritten = async (fn) => {
      await page.evaluate(() => { window.namesTokens = 0; });
      await fn();
      await until(() => page.evaluate(() => window.namesTokens === 40));
      return textOf(names);
    };
    const other = await rewritten(() => setter.getByTestId('more-seed').click());
    expect(other).not.toBe(first);
    expect(await rewritten(() => setter.getByTestId('less-seed').click())).toBe(first);
    // temperature 0: greedy, the same text for every seed
    const greedy = await rewritten(() => setter.getByTestId('set-temperature').fill('0'));
    expect(greedy).not.toBe(first);
    expect(await rewritten(() => setter.getByTestId('more-seed').click())).toBe(greedy);
    expect(await names.getAttribute('seed')).toBe('43');
  },

  async temperature(page) {
    const w = widget(page, 'bars');
    await w.getByRole('slider', { name: /^Temperature/ }).fill('0.5');
    await until(async () => (await bars(w))[0].p.toFixed(3) === '0.867');
    await w.getByRole('slider', { name: /^Temperature/ }).fill('2');
    await until(async () => (await bars(w)).map((b) => b.p.toFixed(3)).join() === '0.506,0.307,0.186');
    // the order never changes
    expect((await bars(w)).map((b) => b.piece)).toEqual(['mat', 'sofa', 'rug']);
    await w.getByRole('slider', { name: /^Temperature/ }).fill('0');
    await until(async () => (await bars(w)).filter((b) => b.p > 0).length === 1);
  },

  // ---- part 2: cutting the tail
  async 'top-k'(page) {
    const w = widget(page, 'bars');
    const kept = async () => (await bars(w)).filter((b) => b.p > 0);
    const k = w.getByRole('slider', { name: /^Top-k/ });
    await until(async () => (await kept()).map((b) => b.p.toFixed(3)).join() === '0.588,0.235,0.176');
    await k.fill('1');
    await until(async () => (await kept()).length === 1 && (await kept())[0].p === 1);
    await k.fill('2');
    await until(async () => (await kept()).map((b) => b.p.toFixed(3)).join() === '0.714,0.286');
    // the bars past the k-th are cut by top-k
    expect((await bars(w)).slice(2).map((b) => b.cut)).toEqual(['top_k', 'top_k', 'top_k', 'top_k']);
    // the names: k = 1 writes one name again and again
    const names = widget(page, 'names');
    await names.getByRole('slider', { name: /^Top-k/ }).fill('1');
    await step(names, 12);
    expect(new Set((await textOf(names)).split('\n').filter(Boolean).slice(0, -1)).size).toBe(1);
  },

  async 'top-p'(page) {
    const w = widget(page, 'nucleus');
    const kept = async (scope) => (await bars(scope)).filter((b) => b.p > 0).length;
    await until(async () => (await kept(w)) === 4);
    // the p-line is there to drag; the slider moves it
    await w.getByTestId('p-line').waitFor();
    await w.getByRole('slider', { name: /^Top-p/ }).fill('0.75');
    await until(async () => (await kept(w)) === 3);
    expect((await bars(w)).slice(3).map((b) => b.cut)).toEqual(['top_p', 'top_p', 'top_p']);
    // one p on both steps: few kept when the model is sure, many on the flat step
    const confident = widget(page, 'confident');
    const flat = widget(page, 'flat');
    await until(async () => (await kept(confident)) === 3 && (await kept(flat)) === 9);
    await page.getByTestId('cutoff-value').fill('0.5');
    await until(async () => (await kept(confident)) === 1 && (await kept(flat)) === 4);
    expect(await confident.getAttribute('top-p')).toBe('0.5');
  },

  async 'beyond-top-p'(page) {
    const kept = async (id) => (await bars(widget(page, id))).filter((b) => b.p > 0).length;
    const both = async () => [await kept('confident'), await kept('flat')].join();
    // min-p 0.1: the favourite alone when the model is sure; the six words, not the tail, on the flat step
    await until(async () => (await both()) === '1,6');
    const method = (attr) => page.locator(`[data-testid="cutoff-method"][value="${attr}"]`).check();
    await method('top-p');
    await until(async () => (await both()) === '3,9');
    expect(await widget(page, 'flat').getAttribute('min-p')).toBe('0');
    await method('top-a');
    await until(async () => (await both()) === '1,16');
    await method('top-n-sigma');
    await until(async () => (await both()) === '1,6');
    // two standard deviations: more of the confident step's words, still none of the flat step's tail
    await page.getByTestId('cutoff-value').fill('2');
    await until(async () => (await both()) === '3,6');
    expect((await bars(widget(page, 'flat'))).filter((b) => b.cut === 'top_n_sigma').length).toBe(10);
  },
};
