// What each chapter's widget is for, used as a learner would use it
// (course.test.js runs each on its chapter's page, in English): the
// control moved, and what the engine shows changing with it.
import { expect } from 'vitest';

import fs from 'node:fs';
import path from 'node:path';

import { loadEngineNode } from '../../web/src/engine/node.js';
import { MODELS } from './fixtures.js';
import { until } from './harness.js';

/** The bigram's step records in Node for a text of `steps` tokens (the engine's state fields: StepRecord.state). */
async function engineStates({ seed, params, steps }) {
  const e = await loadEngineNode('simd');
  const m = e.loadModel(new Uint8Array(fs.readFileSync(path.join(MODELS, 'bigram.bin'))));
  const s = e.createSession(m, null);
  s.start('', seed);
  const out = [];
  for (let i = 0; i < steps; i++) out.push(s.step(params));
  s.free();
  m.free();
  return out;
}

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

/** The engine's value for a question of the page (by its id): the value a wrong answer's feedback names. */
async function engineValue(page, id) {
  const q = page.locator(`#${id}`);
  await q.locator('[data-testid="question-answer"]').fill('-12345');
  await q.locator('[data-testid="question-check"]').click();
  const result = q.locator('[data-testid="question-result"]');
  await until(async () => (await result.getAttribute('data-correct')) === 'false', 10000);
  const value = Number(await result.getAttribute('data-value'));
  // then answered right (so the next check of it says something else)
  await q.locator('[data-testid="question-answer"]').fill(value.toFixed(Number(await q.getAttribute('digits') ?? 2)));
  await q.locator('[data-testid="question-check"]').click();
  await until(async () => (await result.getAttribute('data-correct')) === 'true', 10000);
  return value;
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
    await until(async () => (await bars(w))[0]?.p.toFixed(3) === '0.844'); // (no bars for a moment while they are redrawn)
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
    await until(async () => (await bars(w))[0]?.p.toFixed(3) === '0.867');
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

  // ---- part 3: steering the text
  async repetition(page) {
    const loop = widget(page, 'loop');
    const setter = page.locator('[data-testid="setter"][data-for="loop"]');
    const metric = async (key) => Number(await loop.getByTestId(`metric-${key}`).getAttribute('data-value'));
    // greedy from "the": the text loops, and its longest repeat is long
    await until(async () => (await loop.getByTestId('metrics').getAttribute('data-tokens')) === '150', 20000);
    const looping = await metric('longestRepeat');
    expect(looping).toBeGreaterThan(40);
    // each setting rewrites the text: the loop breaks
    const after = async (testid, value) => {
      await setter.getByTestId(testid).fill(value);
      await until(async () => (await metric('longestRepeat')) < looping / 4, 20000);
    };
    await after('set-repetition-penalty', '1.3');
    await setter.getByTestId('set-repetition-penalty').fill('1');
    await until(async () => (await metric('longestRepeat')) === looping, 20000);
    await after('set-dry-multiplier', '0.8');
    // the hand-made model: a step's word is pushed down by the frequency penalty
    const w = widget(page, 'bars');
    const before = await bars(w);
    expect(before.map((b) => b.p.toFixed(3))).toEqual(['0.665', '0.245', '0.090']);
    await step(w, 1);
    const word = await textOf(w);
    await until(async () => (await bars(w)).find((b) => b.piece === word)?.p < before.find((b) => b.piece === word).p);
  },

  async 'xtc-mirostat'(page) {
    const w = widget(page, 'xtc');
    // threshold 0.1: the two likeliest words go, the third leads
    const shown = async () => (await bars(w)).map((b) => `${b.piece} ${b.p.toFixed(3)}`).sort().join();
    await until(async () => (await shown()) === 'bed 0.267,mat 0.000,moon 0.067,roof 0.167,rug 0.500,sofa 0.000');
    expect((await bars(w)).filter((b) => b.cut === 'xtc').map((b) => b.piece).sort()).toEqual(['mat', 'sofa']);
    // above 0.2 a single word reaches it: nothing is removed
    await w.getByRole('slider', { name: /^XTC threshold/ }).fill('0.3');
    await until(async () => (await shown()) === 'bed 0.080,mat 0.500,moon 0.020,roof 0.050,rug 0.150,sofa 0.200');
    // Mirostat: a lower target keeps fewer tokens a step, a higher one more
    const m = widget(page, 'mirostat');
    const setter = page.locator('[data-testid="setter"][data-for="mirostat"]');
    const nucleus = async () => Number(await m.getByTestId('metric-meanNucleus').getAttribute('data-value'));
    await until(async () => (await m.getByTestId('step-chart').getAttribute('data-steps')) === '150', 20000);
    const at2 = await nucleus();
    await setter.getByTestId('set-mirostat-tau').fill('0.5');
    await until(async () => (await nucleus()) < at2, 20000);
    await setter.getByTestId('set-mirostat-tau').fill('4');
    await until(async () => (await nucleus()) > at2, 20000);
    // under the text, μ and each drawn letter's surprise over the 150 steps: the engine's step records
    const strip = m.locator('[data-testid="strip-row"][data-row="mirostat"] [data-testid="strip-mark"]');
    const drawn = () => strip.evaluateAll((els) => els.map((el) => [Number(el.dataset.bar), Number(el.dataset.dot)]));
    const recs = await engineStates({ seed: 1, params: { mirostat: 2, mirostat_tau: 4 }, steps: 150 });
    const want = recs.map((r) => [r.state.mirostat_mu, r.state.surprise_bits]);
    await until(async () => JSON.stringify(await drawn()) === JSON.stringify(want), 20000);
    expect(want[0][0]).toBe(8); // 2τ
    // Play writes on, a mark a letter
    await m.getByTestId('play').click();
    await until(async () => (await strip.count()) > 152, 20000);
    await m.getByTestId('play').click();
  },

  // ---- chapters 9–14 (parts order, decoding, speed, yours)

  async order(page) {
    const w = widget(page, 'orders');
    const panels = w.getByTestId('compare-panel');
    expect(await panels.count()).toBe(2);
    /** the pieces a panel's bars keep */
    const kept = async (i) => (await bars(panels.nth(i))).filter((b) => b.cut === 'kept').map((b) => b.piece);
    // T = 3, top-p 0.7: Hugging Face's order (A) keeps four, llama.cpp's (B) two
    await until(async () => (await kept(0)).length === 4 && (await kept(1)).length === 2);
    expect(await kept(1)).toEqual(['mat', 'sofa']);
    // B's temperature never changes which words are left, only their shares
    const b0 = (await bars(panels.nth(1)))[0].p;
    await panels.nth(1).getByRole('slider', { name: /^Temperature/ }).fill('1');
    await until(async () => Math.abs((await bars(panels.nth(1)))[0].p - b0) > 0.05);
    expect(await kept(1)).toEqual(['mat', 'sofa']);
    // A's does: at T = 1 the top-p after it keeps two as well
    await panels.nth(0).getByRole('slider', { name: /^Temperature/ }).fill('1');
    await until(async () => (await kept(0)).length === 2);
    // the text's facts and the questions ask the engine in the order they name
    const fact = (name) => page.locator(`.learn-fact[data-fact="${name}"]`).first().textContent();
    expect([await fact('hfKept'), await fact('lcKept')]).toEqual(['4', '2']);
    expect(await engineValue(page, 'q1')).toBe(3); // the default order would keep 4
    // "Open in the playground": compare mode with the hand-made model by its spec, each panel its order
    const link = page.locator('[data-testid="open-playground"][data-for="orders"]');
    await link.hover();
    const href = decodeURIComponent(await link.getAttribute('href'));
    expect(href).toContain('view=compare&model=logits:mat=3,sofa=2,rug=1.5,bed=1,roof=0.5,moon=0&');
    expect(href).toMatch(/panels=[^,]*_ohf,[^,&]*_ollama\.cpp/);
  },

  async 'beam-search'(page) {
    const w = widget(page, 'beams');
    const setter = page.locator('[data-testid="setter"][data-for="beams"]');
    const best = () => w.getByTestId('beam-best').textContent();
    // four growing beams (and those that ended), best first, after the 40 expansions written at load
    await until(async () => (await w.getByTestId('beam').count()) >= 4);
    const four = await best();
    expect(four.startsWith(' unto')).toBe(true);
    // width 1: greedy, which takes "," first
    await setter.getByTestId('set-beams').fill('1');
    await setter.getByTestId('set-beams').dispatchEvent('change');
    await until(async () => (await best()).startsWith(', I will'));
    // width 4 and length penalty 0: the beam that ends soonest wins
    await setter.getByTestId('set-beams').fill('4');
    await setter.getByTestId('set-beams').dispatchEvent('change');
    await setter.getByTestId('set-length-penalty').fill('0');
    await until(async () => (await best()) === ',');
    await setter.getByTestId('set-length-penalty').fill('1');
    await until(async () => (await best()) === four);
  },

  async constrained(page) {
    const w = widget(page, 'names');
    const kept = async () => (await bars(w)).filter((b) => b.cut === 'kept').map((b) => b.piece).sort();
    // [AEIOU][a-z][a-z][a-z]: five capital vowels are left, the rest cut by the constraint
    await until(async () => (await kept()).join() === 'A,E,I,O,U');
    expect((await bars(w)).filter((b) => b.cut !== 'kept').every((b) => b.cut === 'constraint')).toBe(true);
    await step(w, 4);
    expect(await textOf(w)).toMatch(/^[AEIOU][a-z]{3}$/);
    // one of four names: the first letter is A, E, I or O
    const choices = page.locator('[data-testid="choices"][data-for="names"]');
    await choices.getByTestId('choice').nth(1).check();
    await until(async () => (await kept()).join() === 'A,E,I,O');
    await step(w, 2);
    expect(['An', 'Em', 'Id', 'Ot']).toContain(await textOf(w));
    // a pattern of the learner's own
    await choices.getByTestId('choice-own').fill('Z[a-z]');
    await choices.getByTestId('choice-apply').click();
    await until(async () => (await kept()).join() === 'Z');
    // no pattern: nothing is cut by the constraint any more
    await choices.getByTestId('choice').nth(3).check();
    await until(async () => (await kept()).length > 1 && (await bars(w)).every((b) => b.cut !== 'constraint'));
    // the questions ask under the pattern: five letters, holding what the model gave them
    expect(await engineValue(page, 'q1')).toBe(5);
    const mass = await engineValue(page, 'q2');
    expect(mass).toBeGreaterThan(0.05);
    expect(mass).toBeLessThan(0.5);
  },

  async 'kv-cache'(page) {
    const w = widget(page, 'kv');
    const rows = () => w.getByTestId('kv-row').count();
    const value = async (id) => Number(await w.getByTestId(id).getAttribute('data-value'));
    await w.getByTestId('kv-picture').waitFor();
    // after the prompt: one K and one V row per position read so far
    const before = Number(await w.getByTestId('kv-picture').getAttribute('data-positions'));
    expect(before).toBeGreaterThan(5);
    await step(w, 3);
    // one row more per token, the newest marked
    await until(async () => Number(await w.getByTestId('kv-picture').getAttribute('data-positions')) === before + 3);
    expect(await rows()).toBe(before + 3);
    expect(await w.locator('[data-testid="kv-row"][data-new="true"]').count()).toBe(1);
    // the work without the cache is larger, and the ratio grows with every token
    const r1 = await value('kvpic-ratio');
    expect(await value('kvpic-nocache')).toBeGreaterThan(await value('kvpic-flops'));
    await step(w, 3);
    await until(async () => (await value('kvpic-ratio')) > r1);
  },

  async speculative(page) {
    const w = widget(page, 'spec');
    const rounds = () => w.getByTestId('spec-round').count();
    const round = async () => {
      const n = await rounds();
      await w.getByRole('button', { name: 'Step', exact: true }).click();
      await until(async () => (await rounds()) > n);
    };
    const rate = async () => {
      const r = w.getByTestId('spec-rate');
      return { accepted: Number(await r.getAttribute('data-accepted')), drafted: Number(await r.getAttribute('data-drafted')) };
    };
    for (let i = 0; i < 4; i++) await round();
    const tiny = await rate();
    // four drafts a round
    expect(tiny.drafted).toBeGreaterThanOrEqual(4);
    expect(tiny.accepted).toBeLessThanOrEqual(tiny.drafted);
    // the bigram draft: a new text, and fewer of its drafts kept
    await page.locator('[data-testid="choices"][data-for="spec"]').getByTestId('choice').nth(1).check();
    await until(async () => (await rounds()) === 0);
    for (let i = 0; i < 4; i++) await round();
    const bigram = await rate();
    expect(bigram.accepted / bigram.drafted).toBeLessThan(tiny.accepted / tiny.drafted);
  },

  async train(page) {
    const w = widget(page, 'yours');
    const box = page.getByTestId('train-box');
    await box.fill('abab\nbaba\nabba');
    await page.getByTestId('train-go').click();
    // the engine counted three characters (the boundary apart), and the playground shows its model
    await until(async () => (await page.getByTestId('train-done').count()) === 1);
    expect(await page.getByTestId('train-done').getAttribute('data-chars')).toBe('2');
    await until(async () => (await bars(w)).length === 3);
    expect((await bars(w)).map((b) => b.piece).sort()).toEqual(['\n', 'a', 'b']);
    await step(w, 6);
    expect(await textOf(w)).toMatch(/^[ab\n]+$/);
  },
};
