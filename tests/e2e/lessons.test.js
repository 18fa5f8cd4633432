// The three lessons of docs/lessons.md, verbatim, in Chromium: each
// example page is cut out of the guide (the ```html fence after its
// "<!-- example: NAME -->" marker), served next to a copy of dist/ named
// playground/ as the guide says, loaded, and used as a reader would.  What
// each page must do is written here, not in the guide.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { loadEngineNode } from '../../web/src/engine/node.js';
import { DIST, MODELS, needTransformer, ROOT, skipWithoutTransformer } from './fixtures.js';
import { engineText, generated, skipWithoutChromium, until, useBrowser } from './harness.js';

const GUIDE = fs.readFileSync(path.join(ROOT, 'docs/lessons.md'), 'utf8');
const EXAMPLES = Object.fromEntries([...GUIDE.matchAll(/<!-- example: ([\w.-]+) -->\n```html\n([\s\S]*?)\n```/g)].map((m) => [m[1], m[2]]));

/** the engine's next distribution for the bigram after `steps` tokens, computed in Node */
async function nextStep({ seed, params, steps = 0 }) {
  const e = await loadEngineNode('simd');
  const m = e.loadModel(new Uint8Array(fs.readFileSync(path.join(MODELS, 'bigram.bin'))));
  const s = e.createSession(m);
  s.start('', seed);
  for (let i = 0; i < steps; i++) s.step(params);
  const next = s.preview(params);
  s.free();
  m.free();
  return next;
}

/** the engine's nucleus size for the bigram's first token, computed in Node */
const nucleus = async (setup) => (await nextStep(setup)).nKept;

const el = (page, i) => page.locator('sampler-playground').nth(i);
const tokensIn = (scope) => scope.locator('[data-testid="output-token"]');
const probs = (scope) => scope.locator('[data-testid="prob-bar"]').evaluateAll((els) => els.map((e) => Number(e.dataset.prob)));
const topProb = async (scope) => Math.max(...(await probs(scope)));
const step = (scope) => scope.getByRole('button', { name: 'Step', exact: true }).click();

describe.skipIf(skipWithoutChromium)('the lesson examples of docs/lessons.md', () => {
  const { h, newContext, watch } = useBrowser();
  let site;

  /** Opens an example page; resolves once its elements are ready, with the Workers it started. */
  async function lessonPage(name) {
    site ??= await h.serve(null, { mounts: { '/lessons/playground/': DIST }, files: { '/favicon.ico': '', ...Object.fromEntries(Object.entries(EXAMPLES).map(([n, html]) => [`/lessons/${n}`, html])) } });
    const page = watch(await (await newContext({ width: 1100 })).newPage());
    const workers = [];
    page.on('worker', (w) => workers.push(w.url()));
    await page.goto(`${site.url}lessons/${name}`);
    const n = await page.locator('sampler-playground').count();
    await until(async () => (await page.locator('sampler-playground [data-testid="embed"][data-ready="true"]').count()) === n, 20000);
    return { page, workers };
  }

  it('the guide has the three examples, each a complete page with the embed script', () => {
    expect(Object.keys(EXAMPLES)).toEqual(['temperature.html', 'top-k-top-p.html', 'repetition-penalty.html', 'worked-examples.html']);
    for (const html of Object.values(EXAMPLES)) {
      expect(html).toMatch(/^<!doctype html>/);
      expect(html).toContain('<script type="module" src="playground/embed.js"></script>');
      expect(html.trim().endsWith('</html>')).toBe(true);
    }
  });

  it('temperature: the slider reshapes the bars, Step draws with it; temperature 0 is greedy', async () => {
    const { page, workers } = await lessonPage('temperature.html');
    expect(workers).toHaveLength(1); // two bigram elements, one Worker
    const a = el(page, 0);
    expect(await a.getByTestId('output-prompt').textContent()).toBe('Ma');
    expect(await tokensIn(a).count()).toBe(0);
    expect(await a.locator('[data-testid="prob-bar"]').count()).toBe(54);
    expect(await a.getByRole('slider').count()).toBe(2); // temperature, and Play's speed
    const t = a.getByRole('slider', { name: /^Temperature/ });
    const p1 = await topProb(a);
    await t.focus();
    for (let i = 0; i < 10; i++) await page.keyboard.press('ArrowLeft');
    await until(async () => (await a.getByTestId('value-temperature').textContent()) === '0.50');
    await until(async () => (await topProb(a)) > p1 + 0.1); // colder: the favourite gains
    for (let i = 0; i < 30; i++) await page.keyboard.press('ArrowRight');
    await until(async () => (await a.getByTestId('value-temperature').textContent()) === '2.00');
    await until(async () => (await topProb(a)) < p1 - 0.05); // hotter: it loses
    await step(a);
    await until(async () => (await tokensIn(a).count()) === 1);
    expect(await generated(a)).toBe(await engineText({ prompt: 'Ma', seed: 7, params: { temperature: 2 }, steps: 1 }));
    const b = el(page, 1);
    expect(await b.getByRole('button').count()).toBe(0); // controls=""
    expect(await b.getByRole('slider').count()).toBe(0);
    expect(await tokensIn(b).count()).toBe(12);
    expect(await generated(b)).toBe(await engineText({ prompt: 'Ma', seed: 7, params: { temperature: 0 }, steps: 12 }));
  });

  it('top-k versus top-p: the sliders cut the bars and the nucleus; the compare panels write their texts in lockstep', async () => {
    const { page } = await lessonPage('top-k-top-p.html');
    const a = el(page, 0);
    const kept = () => a.locator('[data-testid="prob-bar"][data-kept="true"]').count();
    expect(await kept()).toBe(5);
    expect(await a.getByTestId('nucleus-size').textContent()).toBe('5');
    expect(await a.getByTestId('nucleus-plot').isVisible()).toBe(true);
    expect(await a.getByRole('slider').count()).toBe(4); // top-k, top-p, the nucleus view's p-line, Play's speed
    await a.getByRole('slider', { name: /^Top-p/ }).fill('0.3');
    const n = await nucleus({ seed: 3, params: { top_k: 5, top_p: 0.3 } });
    expect(n).toBeLessThan(5);
    await until(async () => (await kept()) === n);
    expect(await a.getByTestId('nucleus-size').textContent()).toBe(String(n));
    expect(await a.locator('[data-testid="prob-bar"][data-cut="top_p"]').count()).toBe(5 - n);
    const b = el(page, 1);
    const panels = b.getByTestId('compare-panel');
    expect(await panels.count()).toBe(2);
    const texts = async () => Promise.all([0, 1].map((i) => generated(panels.nth(i))));
    expect(await texts()).toEqual([
      await engineText({ seed: 3, params: { top_k: 5 }, steps: 20 }),
      await engineText({ seed: 3, params: { top_p: 0.6 }, steps: 20 }),
    ]);
    await step(b);
    await until(async () => (await tokensIn(panels.nth(0)).count()) === 21 && (await tokensIn(panels.nth(1)).count()) === 21);
    await panels.nth(1).getByText('Next token').click();
    // as many bars cut by top-p as the engine cuts at that step
    const next = await nextStep({ seed: 3, params: { top_p: 0.6 }, steps: 21 });
    const cut = next.cuts.find((c) => c.stage === 'top_p')?.cut ?? 0;
    expect(cut).toBeGreaterThan(0);
    expect(await panels.nth(1).locator('[data-testid="prob-bar"][data-cut="top_p"]').count()).toBe(cut);
  });

  it.skipIf(skipWithoutTransformer)('repetition penalty: greedy loops, the penalty does not; the slider marks the penalized bars', async () => {
    needTransformer();
    const { page, workers } = await lessonPage('repetition-penalty.html');
    expect(workers).toHaveLength(1); // both show the transformer
    const panels = el(page, 0).getByTestId('compare-panel');
    const [greedy, penalized] = await Promise.all([0, 1].map((i) => generated(panels.nth(i))));
    const opts = { model: 'transformer', prompt: 'And God said', seed: 5, steps: 120 };
    expect(greedy).toBe(await engineText({ ...opts, params: { temperature: 0 } }));
    expect(penalized).toBe(await engineText({ ...opts, params: { temperature: 0, repetition_penalty: 1.3 } }));
    expect(greedy).toMatch(/(.{20,})\1/); // a loop: "the son of Jerusalem, and the son of Jerusalem, and"
    expect(penalized).not.toMatch(/(.{20,})\1/);
    expect(penalized).not.toBe(greedy);
    const b = el(page, 1);
    expect(await generated(b)).toBe(await engineText({ ...opts, steps: 40, params: { temperature: 0.5 } }));
    expect(await b.locator('.spg-bar.is-penalized').count()).toBe(0);
    const before = await probs(b);
    await b.getByRole('slider', { name: /^Repetition penalty/ }).fill('1.5');
    await until(async () => (await b.getByTestId('value-repetition_penalty').textContent()) === '1.50');
    await until(async () => (await b.locator('.spg-bar.is-penalized').count()) > 5);
    expect(await probs(b)).not.toEqual(before);
    await step(b);
    await until(async () => (await tokensIn(b).count()) === 41);
  });
});

/** The worked-examples lesson from docs/lessons.md, served beside the
 * playground, with its questions' answers recorded in window.answered:
 * q(i) is its i-th question, answer(i, text) types and checks an answer
 * and gives the result once graded. */
async function openExamples(h, newContext, watch) {
  const site = await h.serve(null, { mounts: { '/lessons/playground/': DIST }, files: { '/favicon.ico': '', '/lessons/worked-examples.html': EXAMPLES['worked-examples.html'] } });
  const page = watch(await (await newContext({ width: 1100 })).newPage());
  await page.goto(`${site.url}lessons/worked-examples.html`);
  await page.evaluate(() => {
    window.answered = [];
    document.addEventListener('sampler-question-answered', (e) => window.answered.push(e.detail));
  });
  const q = (i) => page.locator('sampler-question').nth(i);
  const answer = async (i, text) => {
    await q(i).getByTestId('question-answer').fill(text);
    await q(i).getByTestId('question-check').click();
    await until(async () => ['true', 'false'].includes(await q(i).getByTestId('question-result').getAttribute('data-correct')), 20000);
    return q(i).getByTestId('question-result');
  };
  return { page, q, answer };
}

describe.skipIf(skipWithoutChromium)('the worked-examples lesson: questions the engine answers', () => {
  const { h, newContext, watch } = useBrowser();

  it('answers right and wrong with the engine\'s value, sends the event, and "Show me" sets up the playground', async () => {
    const { page, q, answer } = await openExamples(h, newContext, watch);
    // the worked examples' printed digits
    let r = await answer(0, '0.665');
    expect(await r.getAttribute('data-correct')).toBe('true');
    expect(await r.textContent()).toBe('Right: the engine computes 0.665.');
    r = await answer(1, '0.1');
    expect(await r.getAttribute('data-correct')).toBe('false');
    expect(await r.textContent()).toBe('Not quite: the engine computes 0.090.');
    expect(await (await answer(2, '86.7%')).getAttribute('data-correct')).toBe('true');
    // the token question takes the token
    expect(await (await answer(4, 'maybe')).textContent()).toBe('Not quite: the engine computes “no”.');
    expect(await (await answer(4, 'no')).getAttribute('data-correct')).toBe('true');
    // "how many" takes a whole number: a fraction is told so, not graded
    await q(5).getByTestId('question-answer').fill('3.5');
    await q(5).getByTestId('question-check').click();
    await until(async () => (await q(5).getByTestId('question-result').getAttribute('data-invalid')) === 'notWhole');
    expect(await q(5).getByTestId('question-answer').getAttribute('placeholder')).toBe('a whole number');
    expect(await (await answer(5, '4')).getAttribute('data-correct')).toBe('true');
    expect(await (await answer(6, '0.93')).getAttribute('data-correct')).toBe('true');
    expect(await (await answer(7, '2')).getAttribute('data-correct')).toBe('true');
    const events = await page.evaluate(() => window.answered);
    expect(events[0]).toMatchObject({ ask: 'p1', answer: 0.665, correct: true, digits: 3 });
    expect(events[0].value).toBeCloseTo(0.66524, 4);
    expect(events[1]).toMatchObject({ ask: 'p3', correct: false });
    // "Show me": the top-p playground gets the question's setup
    const demo = page.locator('#top-p-demo');
    await q(5).getByTestId('question-show').click();
    expect(await demo.getAttribute('model')).toBe('probs:0.50,0.20,0.15,0.08,0.05,0.02');
    expect(await demo.getAttribute('top-p')).toBe('0.9');
    await until(async () => (await demo.locator('[data-testid="nucleus-size"]').first().textContent()) === '4', 20000);
    // the temperature question shows itself in the first playground (the next one on the page)
    await q(2).getByTestId('question-show').click();
    const t = page.locator('#temperature-demo');
    expect(await t.getAttribute('temperature')).toBe('0.5');
    await until(async () => Number(await t.locator('[data-testid="prob-bar"][data-token="0"]').first().getAttribute('data-prob')).toFixed(3) === '0.867', 20000);
  });

  it.skipIf(skipWithoutTransformer)('the KV question grades the number its "Show me" shows: 64 tokens read, the author\'s prompt kept', async () => {
    needTransformer();
    const { page, q, answer } = await openExamples(h, newContext, watch);
    // the KV question: 64 tokens read (the prompt's too); "Show me" keeps
    // the author's prompt and its KV view shows the very number graded
    const r = await answer(8, '32.1');
    expect(await r.getAttribute('data-correct')).toBe('true');
    expect(await r.textContent()).toBe('Right: the engine computes 32.1.');
    const graded = (await page.evaluate(() => window.answered)).at(-1).value;
    expect(graded).toBeCloseTo(32.0802, 4);
    const kv = page.locator('sampler-playground').last();
    await q(8).getByTestId('question-show').click();
    expect(await kv.getAttribute('prompt')).toBe('And');
    expect(await kv.getAttribute('view')).toBe('text,kv');
    // the tokens that end a text (BOS and EOS) banned, so it does not end
    // before: set once the engine has said which they are (an await in
    // "Show me", after the prompt is set)
    await until(async () => (await kv.getAttribute('ban')) !== null, 20000);
    expect(await kv.getAttribute('ban')).toBe('1,2');
    const pic = kv.getByTestId('kv-picture');
    await until(async () => (await pic.getAttribute('data-positions')) === '64', 30000);
    expect(Number(await pic.getByTestId('kvpic-ratio').getAttribute('data-value'))).toBe(graded);
    expect(await pic.getByTestId('kvpic-ratio').textContent()).toBe('32.08 ×');
    expect(await kv.getByTestId('output-prompt').textContent()).toBe('And');
  });
});
