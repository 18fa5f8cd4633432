// The playground in Debian's Chromium (playwright-core, never a browser
// download): dist/ served from 127.0.0.1 by tests/e2e/server.js.  Every
// test fails on a console error, a page error, or a request that leaves
// localhost.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { haveTransformer, IN_CI, LLAMA_TOKENIZER, MODELS, needFixture, randomCheckpoint, skipWithoutLlamaTokenizer } from './fixtures.js';
import { engineText as engineGenerated, hashOf, skipWithoutChromium, until, useBrowser } from './harness.js';
import { loadEngineNode } from '../../web/src/engine/node.js';

/** The engine's own text for a setup, the prompt included: what the page must show. */
const engineText = async (setup) => (setup.prompt ?? '') + await engineGenerated(setup);

const bars = (page) => page.locator('[data-testid="prob-bar"]');
const tokens = (page) => page.locator('[data-testid="output-token"]');
const outputText = (page) => page.locator('[data-testid="output"]').textContent();
// (the machine number: the text is grouped for the language, 32,000)
const nucleusSize = async (page) => Number(await page.getByTestId('nucleus-size').getAttribute('data-value'));
const entropy = async (page) => Number(await page.getByTestId('entropy').getAttribute('data-value'));
const slider = (page, label) => page.getByRole('slider', { name: new RegExp(`^${label}`) });
const keptBars = (page) => page.locator('[data-testid="prob-bar"][data-kept="true"]');

/**
 * The engine's first step of the bigram under params, in Node (the page's
 * first distribution: no prompt, any seed), and draws(n, seed) from it.
 * @param {Record<string, number>} params
 */
async function engineFirstStep(params) {
  const e = await loadEngineNode('simd');
  const m = e.loadModel(new Uint8Array(fs.readFileSync(path.join(MODELS, 'bigram.bin'))));
  const s = e.createSession(m, null);
  s.start('', 1);
  const step = s.preview(params);
  const draws = (/** @type {number} */ n, /** @type {number} */ seed) => s.sampleCounts(n, seed);
  return { step, draws, free: () => { s.free(); m.free(); } };
}

describe.skipIf(skipWithoutChromium)('the playground in Chromium', () => {
  const { h, open } = useBrowser();

  // How fast is measured by ./build.sh bench (timings on a shared 2-core
  // machine are noise, not a test); this test holds what is loaded.
  it('becomes interactive and fetches only what it needs', async () => {
    await (await open()).close(); // a warm-up load (the browser's own start-up is not the page's)
    const times = [];
    let page;
    for (let i = 0; i < 2; i++) {
      h.requested = [];
      page = await open();
      times.push(await page.evaluate(() => performance.getEntriesByName('spg-ready')[0].startTime));
    }
    console.log(`e2e: interactive ${times.map(Math.round).join(' ms, ')} ms after navigation`);
    const wasm = h.requested.filter((u) => u.endsWith('.wasm'));
    expect(wasm).toHaveLength(1);
    // the lesson engine (the whole one comes when a GGUF file is opened: gguf.test.js)
    expect(wasm[0]).toMatch(/engine-lite-simd-[\w-]+\.wasm$/);
    expect(h.requested.filter((u) => u.endsWith('.bin')).map((u) => u.replace(/.*\//, ''))).toEqual([expect.stringMatching(/^bigram-[\w-]+\.bin$/)]);
    // the bigram: a bar for each of its 54 tokens, all kept at the defaults
    await expect.poll(() => bars(page).count()).toBe(54);
    expect(await keptBars(page).count()).toBe(54);
    const probs = await bars(page).evaluateAll((els) => els.map((e) => Number(e.dataset.prob)));
    expect(probs.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 4);
    expect(await nucleusSize(page)).toBe(54);
    expect(await page.getByTestId('prob-bars').getAttribute('data-full')).toBe('true');
    expect(await hashOf(page)).toBe('#model=bigram&temperature=1&top_k=0&top_p=1&seed=42');
  });

  it('re-warps the bars when the temperature slider moves (keyboard and mouse)', async () => {
    const page = await open();
    const t = slider(page, 'Temperature');
    const h0 = await entropy(page);
    await t.focus();
    for (let i = 0; i < 10; i++) await page.keyboard.press('ArrowRight');
    await until(async () => (await page.getByTestId('value-temperature').textContent()) === '1.50');
    await until(async () => (await entropy(page)) > h0 + 0.1);
    await until(async () => (await hashOf(page)).includes('temperature=1.5&'));
    // the text did not move: a slider only re-warps, it never draws
    expect(await tokens(page).count()).toBe(0);

    // the mouse: drag the thumb all the way to the left: greedy
    const box = await t.boundingBox();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x - 40, box.y + box.height / 2, { steps: 8 });
    await page.mouse.up();
    await until(async () => (await page.getByTestId('value-temperature').textContent()) === '0 (greedy)');
    await until(async () => (await nucleusSize(page)) === 1);
    expect(await keptBars(page).count()).toBe(1);
    const cut = await page.locator('[data-testid="prob-bar"][data-kept="false"]').first().getAttribute('data-cut');
    expect(cut).toBe('temperature');
    expect(await entropy(page)).toBe(0);
  });

  it('redraws the bars after every slider move', async () => {
    const page = await open();
    // input events at random moments, as a hand makes them; for each, how
    // many frames began before the new bars were in the DOM (0: the next
    // frame paints them) and how long it took
    const runs = await page.evaluate(async () => {
      const input = /** @type {HTMLInputElement} */ (document.querySelector('input[name="temperature"]'));
      const list = /** @type {HTMLElement} */ (document.querySelector('[data-testid="prob-bars"]'));
      const out = [];
      let v = 0.5;
      for (let i = 0; i < 15; i++) {
        await new Promise((r) => setTimeout(r, 30 + ((i * 7) % 17)));
        let frames = 0;
        let counting = true;
        const count = () => { if (counting) { frames++; requestAnimationFrame(count); } };
        const t0 = performance.now();
        const changed = new Promise((resolve) => {
          const mo = new MutationObserver(() => { mo.disconnect(); counting = false; resolve(null); });
          mo.observe(list, { attributes: true, subtree: true, attributeFilter: ['data-prob'] });
        });
        requestAnimationFrame(count);
        v = v >= 2.5 ? 0.5 : v + 0.15;
        input.value = v.toFixed(2);
        input.dispatchEvent(new Event('input', { bubbles: true }));
        await changed;
        out.push({ ms: performance.now() - t0, frames });
      }
      return out;
    });
    const ms = runs.map((r) => r.ms).sort((a, b) => a - b);
    const frames = runs.map((r) => r.frames).sort((a, b) => a - b);
    console.log(`e2e: slider input -> new bars in the DOM: median ${ms[7].toFixed(1)} ms, max ${ms[14].toFixed(1)} ms; `
      + `painted in the next frame ${frames.filter((f) => f === 0).length}/15 times, one frame later otherwise`);
    // every move re-drew the bars (each run waited for it); how fast is the
    // bench's to measure, not a timed test's
    expect(runs).toHaveLength(15);
  });

  it('top-k = 1 leaves one kept bar; top-k cuts are marked', async () => {
    const page = await open();
    const k = slider(page, 'Top-k');
    await k.focus();
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowRight');
    await until(async () => (await page.getByTestId('value-top_k').textContent()) === '1');
    await until(async () => (await keptBars(page).count()) === 1);
    expect(await nucleusSize(page)).toBe(1);
    const cuts = await page.locator('[data-testid="prob-bar"][data-kept="false"]').evaluateAll((els) => [...new Set(els.map((e) => e.dataset.cut))]);
    expect(cuts).toEqual(['top_k']);
    const kept = await keptBars(page).first();
    expect(Number(await kept.getAttribute('data-prob'))).toBe(1);
    await until(async () => (await hashOf(page)).includes('top_k=1&'));
  });

  it('dragging the p-line sets Top-p and the nucleus shrinks', async () => {
    const page = await open();
    // the teaching texts come at the first move and change the layout:
    // move, wait for them, then measure where the plot is
    await page.mouse.move(5, 5);
    await page.getByTestId('stage-chapter').first().waitFor({ state: 'attached' });
    await page.waitForTimeout(200);
    const plot = page.getByTestId('nucleus-plot');
    const box = await plot.boundingBox();
    const x = box.x + box.width * 0.6;
    await page.mouse.move(x, box.y + 3);
    await page.mouse.down();
    await page.mouse.move(x, box.y + box.height * 0.3, { steps: 5 });
    await page.mouse.move(x, box.y + box.height * 0.5, { steps: 5 });
    await page.mouse.up();
    const topP = slider(page, 'Top-p');
    await until(async () => Math.abs(Number(await topP.inputValue()) - 0.5) <= 0.02);
    const p = Number(await topP.inputValue());
    expect(await page.getByTestId('value-top_p').textContent()).toBe(p.toFixed(2));
    await until(async () => (await nucleusSize(page)) < 54);
    const n = await nucleusSize(page);
    // the engine's nucleus for that top-p, in Node
    const first = await engineFirstStep({ top_p: p });
    first.free();
    expect(n).toBe(first.step.nKept);
    expect(n).toBeGreaterThan(1);
    expect(await keptBars(page).count()).toBe(n);
    const cuts = await page.locator('[data-testid="prob-bar"][data-kept="false"]').evaluateAll((els) => [...new Set(els.map((e) => e.dataset.cut))]);
    expect(cuts).toEqual(['top_p']);
    // the p-line is keyboard-operable too
    await page.getByTestId('p-line').focus();
    await page.keyboard.press('PageDown');
    await until(async () => Math.abs(Number(await topP.inputValue()) - (p - 0.1)) < 1e-9);
    await until(async () => (await nucleusSize(page)) < n);
    await until(async () => (await hashOf(page)).includes(`top_p=${(p - 0.1).toFixed(2).replace(/0$/, '')}`));
  });

  it('the p-line follows a finger (touch)', async () => {
    const page = await open({ width: 390, height: 844, touch: true });
    const context = page.context();
    const plot = page.getByTestId('nucleus-plot');
    await plot.scrollIntoViewIfNeeded();
    const box = await plot.boundingBox();
    const cdp = await context.newCDPSession(page);
    const x = box.x + box.width / 2;
    const touch = (type, y) => cdp.send('Input.dispatchTouchEvent', { type, touchPoints: type === 'touchEnd' ? [] : [{ x, y }] });
    await touch('touchStart', box.y + 4);
    for (let i = 1; i <= 6; i++) await touch('touchMove', box.y + 4 + (box.height * 0.4 - 4) * (i / 6));
    await touch('touchEnd');
    const topP = slider(page, 'Top-p');
    await until(async () => Math.abs(Number(await topP.inputValue()) - 0.6) <= 0.02);
    await until(async () => (await nucleusSize(page)) < 54);
    expect(await page.evaluate(() => window.scrollY > 0)).toBe(true); // scrolled there, and the drag did not scroll
  });

  it('Step adds exactly one token; Play grows the text and Pause stops it; Reset clears it', async () => {
    const page = await open({ hash: '#seed=11' });
    const step = page.getByRole('button', { name: 'Step', exact: true });
    await step.click();
    await until(async () => (await tokens(page).count()) === 1);
    await step.click();
    await until(async () => (await tokens(page).count()) === 2);
    await page.waitForTimeout(200);
    expect(await tokens(page).count()).toBe(2);

    await page.getByTestId('speed').fill('30');
    const play = page.getByTestId('play');
    expect(await play.textContent()).toBe('Play');
    // watch the main thread while playing: no long tasks
    await page.evaluate(() => {
      window.__long = [];
      new PerformanceObserver((list) => window.__long.push(...list.getEntries().map((e) => e.duration))).observe({ type: 'longtask' });
    });
    await play.click();
    expect(await play.textContent()).toBe('Pause');
    expect(await play.getAttribute('aria-pressed')).toBe('true');
    await until(async () => (await tokens(page).count()) >= 25);
    await play.click();
    expect(await play.textContent()).toBe('Play');
    await page.waitForTimeout(150);
    const n = await tokens(page).count();
    await page.waitForTimeout(500);
    expect(await tokens(page).count()).toBe(n);
    const long = await page.evaluate(() => window.__long);
    console.log(`e2e: long tasks on the main thread while playing: ${long.length ? long.map(Math.round).join(', ') + ' ms' : 'none'}`);
    expect(long.filter((d) => d > 200)).toEqual([]); // (a busy machine stretches a few tasks past 50 ms)
    // the text is the seed's: stepping and playing draw the same stream
    expect(await outputText(page)).toBe(await engineText({ seed: 11, params: {}, steps: n }));
    await until(async () => (await hashOf(page)).endsWith(`&steps=${n}&speed=30`)); // the speed is a setting too

    await page.getByRole('button', { name: 'Reset' }).click();
    await until(async () => (await tokens(page).count()) === 0);
    await until(async () => !(await hashOf(page)).includes('steps='));
  });

  it('a link gives its exact text; slider changes update the link', async () => {
    const hash = '#model=bigram&temperature=0.7&top_k=40&top_p=0.9&seed=42&prompt=Ma&steps=60';
    const page = await open({ hash });
    const expected = await engineText({ prompt: 'Ma', seed: 42, params: { temperature: 0.7, top_k: 40, top_p: 0.9 }, steps: 60 });
    expect(await tokens(page).count()).toBe(60);
    expect(await outputText(page)).toBe(expected);
    expect(await slider(page, 'Temperature').inputValue()).toBe('0.7');
    expect(await slider(page, 'Top-k').inputValue()).toBe('40');
    expect(await page.getByLabel('Prompt').inputValue()).toBe('Ma');
    expect(await page.getByLabel('Seed').inputValue()).toBe('42');
    expect(await hashOf(page)).toBe(hash);

    await slider(page, 'Min-p').fill('0.1');
    await until(async () => (await hashOf(page)).includes('min_p=0.1'));
    // the same link in a new page: the same text again
    const again = await open({ hash });
    expect(await outputText(again)).toBe(expected);

    // the link can change under the page (a lesson's next link)
    await again.evaluate(() => { location.hash = '#seed=7&steps=12&temperature=0.5'; });
    await until(async () => (await tokens(again).count()) === 12);
    expect(await slider(again, 'Temperature').inputValue()).toBe('0.5');
    expect(await outputText(again)).toBe(await engineText({ seed: 7, params: { temperature: 0.5 }, steps: 12 }));
  });

  it('a link with bad values falls back to the defaults with a visible notice', async () => {
    const page = await open({ hash: '#temperature=hot&top_p=7&seed=12&steps=5' });
    const notice = page.getByTestId('notice');
    await expect.poll(() => notice.isVisible()).toBe(true);
    const text = await notice.textContent();
    expect(text).toContain('Ignored temperature="hot"');
    expect(text).toContain('Ignored top_p="7"');
    expect(await slider(page, 'Temperature').inputValue()).toBe('1');
    expect(await tokens(page).count()).toBe(5);
    await until(async () => (await hashOf(page)) === '#model=bigram&temperature=1&top_k=0&top_p=1&seed=12&steps=5');
  });

  it('time travel: a past token shows its step; another bar branches the text there', async () => {
    const page = await open({ hash: '#seed=21&steps=12' });
    const original = await outputText(page);
    // hover: a preview of that step
    await tokens(page).nth(1).hover();
    await until(async () => (await page.getByTestId('step-heading').textContent()).startsWith('Step 2'));
    // click: pinned
    const target = tokens(page).nth(4);
    const token = await target.getAttribute('data-token');
    await target.click();
    await page.mouse.move(5, 5);
    await until(async () => (await page.getByTestId('step-heading').textContent()).startsWith('Step 5'));
    const sampled = page.locator('[data-testid="prob-bar"][data-sampled="true"]');
    expect(await sampled.count()).toBe(1);
    expect(await sampled.getAttribute('data-token')).toBe(token);
    expect(Number(await sampled.getAttribute('data-prob'))).toBeCloseTo(Number(await target.getAttribute('data-p')), 6);
    // branch: another kept token at that step
    const alt = page.locator(`[data-testid="prob-bar"][data-kept="true"]:not([data-token="${token}"])`).first();
    const altToken = await alt.getAttribute('data-token');
    await alt.locator('button').click();
    await until(async () => (await tokens(page).count()) === 5);
    expect(await tokens(page).nth(4).getAttribute('data-token')).toBe(altToken);
    const branched = await outputText(page);
    expect(branched.slice(0, -1)).toBe(original.slice(0, branched.length - 1));
    expect(branched).not.toBe(original.slice(0, branched.length));
    await until(async () => (await hashOf(page)).includes(`forced=4.${altToken}`));
    // back at the live step, Step carries on from the branch
    await page.getByRole('button', { name: 'Step', exact: true }).click();
    await until(async () => (await tokens(page).count()) === 6);
    // its link reproduces the branched text
    const link = await until(async () => { const h = await hashOf(page); return h.includes('steps=6') && h; });
    const replay = await open({ hash: link });
    expect(await outputText(replay)).toBe(await outputText(page));
  });

  it('draws 1000 samples: ticks on the bars and the KL divergence', async () => {
    const page = await open({ hash: '#seed=3&top_k=8' });
    expect(await page.getByTestId('sample-tick').count()).toBe(0);
    await page.getByRole('button', { name: 'Draw 1000 samples' }).click();
    await until(async () => (await page.getByTestId('sample-tick').count()) > 0);
    const ticks = await page.getByTestId('sample-tick').count();
    expect(ticks).toBeLessThanOrEqual(8);
    const freqs = await page.getByTestId('sample-tick').evaluateAll((els) => els.map((e) => Number(e.dataset.freq)));
    expect(freqs.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
    // the engine's own 1000 draws of that step, in Node: the first step's
    // distribution under top-k 8, drawn with the page's seed for its first
    // draw at step 0 (1 * 1000003 + 0: panel/core.js sampleArg)
    const first = await engineFirstStep({ top_k: 8 });
    const want = first.draws(1000, 1000003);
    first.free();
    expect([...freqs].sort()).toEqual([...want.counts].filter((c) => c > 0).map((c) => c / 1000).sort());
    const kl = Number(await page.getByTestId('kl').getAttribute('data-value'));
    expect(kl).toBeCloseTo(want.kl, 12);
    expect(kl).toBeLessThan(0.1);
    expect(await page.getByTestId('kl').textContent()).toBe(kl.toFixed(4));
  });

  it('a bad model file shows the engine\'s error and the old model still works', async () => {
    const page = await open({ hash: '#seed=4&steps=3' });
    await page.getByLabel('Model', { exact: true }).selectOption({ label: 'Load a model file…' });
    const good = randomCheckpoint({ vocab: 40, seqLen: 16 });
    expect(await page.getByLabel('Model files').isVisible()).toBe(true);
    await page.getByTestId('model-file').setInputFiles({ name: 'broken.bin', mimeType: 'application/octet-stream', buffer: Buffer.from(good.slice(0, good.length - 64)) });
    const error = page.getByTestId('model-error');
    await expect.poll(() => error.isVisible()).toBe(true);
    expect(await error.textContent()).toMatch(/^broken\.bin: checkpoint: file has \d+ bytes, header implies \d+/);
    expect(await page.getByLabel('Model', { exact: true }).inputValue()).toBe('bigram');
    await page.getByRole('button', { name: 'Step', exact: true }).click();
    await until(async () => (await tokens(page).count()) === 4);
    expect(await bars(page).count()).toBe(54);

    // drag and drop: a good file dropped on the zone is loaded and chosen
    const bytes = [...fs.readFileSync(path.join(MODELS, 'bigram.bin'))];
    const drop = await page.evaluateHandle((data) => {
      const dt = new DataTransfer();
      dt.items.add(new File([new Uint8Array(data)], 'names.bin'));
      return dt;
    }, bytes);
    await page.getByTestId('drop-zone').dispatchEvent('drop', { dataTransfer: drop });
    await until(async () => (await page.getByLabel('Model', { exact: true }).locator('option:checked').textContent()) === 'names.bin');
    expect(await page.getByTestId('model-error').count()).toBe(0);
    await until(async () => (await tokens(page).count()) === 0);
    await until(async () => (await hashOf(page)).startsWith('#model=file&'));
  });

  it.skipIf(skipWithoutLlamaTokenizer)('a 32000-token llama2.c model from files: the top 30 bars and an "other" bar', async () => {
    needFixture(LLAMA_TOKENIZER);
    const page = await open();
    await page.getByLabel('Model', { exact: true }).selectOption({ label: 'Load a model file…' });
    // both files in one choice, the tokenizer first: it is told apart by its name
    await page.getByTestId('model-file').setInputFiles([
      { name: 'tokenizer.bin', mimeType: 'application/octet-stream', buffer: fs.readFileSync(LLAMA_TOKENIZER) },
      { name: 'random32k.bin', mimeType: 'application/octet-stream', buffer: Buffer.from(randomCheckpoint({ vocab: 32000, seqLen: 24, scale: 2 })) },
    ]);
    await until(async () => (await page.getByLabel('Model', { exact: true }).locator('option:checked').textContent()) === 'random32k.bin', 15000);
    await until(async () => (await page.getByTestId('prob-bars').getAttribute('data-full')) === 'false');
    expect(await bars(page).count()).toBe(31);
    const other = page.locator('[data-testid="prob-bar"][data-token="other"]');
    expect(await other.getAttribute('data-count')).toBe('31970');
    const probs = await bars(page).evaluateAll((els) => els.map((e) => Number(e.dataset.prob)));
    expect(probs.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 4);
    expect(await nucleusSize(page)).toBe(32000);
    await slider(page, 'Top-p').fill('0.5');
    await until(async () => (await nucleusSize(page)) < 32000);
    await page.getByRole('button', { name: 'Step', exact: true }).click();
    await until(async () => (await tokens(page).count()) === 1);
    expect(await page.getByTestId('model-info').textContent()).toContain('32,000 tokens');
    // a context of 24: the end is a calm message, not a crash
    await page.getByTestId('speed').fill('60');
    await page.getByTestId('play').click();
    await until(async () => /context is full|ended the text/.test(await page.getByTestId('status').textContent()), 20000);
    expect(await page.getByTestId('play').textContent()).toBe('Play');
    expect(await page.getByRole('button', { name: 'Step', exact: true }).isDisabled()).toBe(true);
  });

  it('the tiny transformer: generates from a link, or says calmly that it is not built', async () => {
    if (!haveTransformer && !IN_CI) {
      h.allowed = [/Failed to load resource.*404/];
      const page = await open({ hash: '#model=transformer&seed=1&steps=4' });
      const notice = page.getByTestId('notice');
      await expect.poll(() => notice.isVisible()).toBe(true);
      expect(await notice.textContent()).toContain('The tiny transformer is not in this build yet');
      expect(await page.getByLabel('Model', { exact: true }).inputValue()).toBe('bigram');
      expect(await tokens(page).count()).toBe(4);
      return;
    }
    const params = { temperature: 0.8, top_k: 20, top_p: 0.95 };
    const page = await open({ hash: '#model=transformer&temperature=0.8&top_k=20&top_p=0.95&seed=42&prompt=And%20God&steps=40' });
    expect(await page.getByLabel('Model', { exact: true }).inputValue()).toBe('transformer');
    expect(await outputText(page)).toBe(await engineText({ model: 'transformer', prompt: 'And God', seed: 42, params, steps: 40 }));
    expect(await page.getByTestId('prob-bars').getAttribute('data-full')).toBe('true');
  });

  it('is usable 360 px wide: no horizontal scroll', async () => {
    const page = await open({ width: 360, height: 740, hash: '#seed=9&steps=80&prompt=Maximiliana' });
    const widths = () => page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
    let [scroll, client] = await widths();
    expect(scroll).toBeLessThanOrEqual(client);
    await page.getByLabel('Model', { exact: true }).selectOption({ label: 'Load a model file…' });
    await tokens(page).nth(10).click();
    await page.getByRole('button', { name: 'Draw 1000 samples' }).click();
    [scroll, client] = await widths();
    expect(scroll).toBeLessThanOrEqual(client);
    // the controls are all reachable and inside the viewport's width
    for (const name of ['Step', 'Play', 'Reset']) {
      const box = await page.getByRole('button', { name, exact: true }).boundingBox();
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(360);
    }
  });

  it('follows the system\'s dark theme and reduced motion', async () => {
    const luminance = (page, sel) => page.locator(sel).first().evaluate((el) => {
      const [r, g, b] = getComputedStyle(el).backgroundColor.match(/\d+(\.\d+)?/g).map(Number);
      return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
    });
    const light = await open();
    expect(await luminance(light, '.spg')).toBeGreaterThan(0.8);
    const dark = await open({ colorScheme: 'dark', reducedMotion: 'reduce' });
    expect(await luminance(dark, '.spg')).toBeLessThan(0.2);
    expect(await luminance(dark, '.spg-card')).toBeLessThan(0.2);
    const color = await dark.locator('.spg h1').evaluate((el) => getComputedStyle(el).color);
    expect(color).not.toBe('rgb(29, 34, 39)');
    const caret = await dark.getByTestId('output').evaluate((el) => getComputedStyle(el, '::after').animationName);
    expect(caret).toBe('none');
    expect(await light.getByTestId('output').evaluate((el) => getComputedStyle(el, '::after').animationName)).toBe('spg-blink');
  });

  it('can be driven from the keyboard alone', async () => {
    const page = await open({ hash: '#seed=5' });
    await page.getByRole('button', { name: 'Step', exact: true }).focus();
    await page.keyboard.press('Enter');
    await until(async () => (await tokens(page).count()) === 1);
    await page.keyboard.press('Space');
    await until(async () => (await tokens(page).count()) === 2);
    const focused = await page.evaluate(() => {
      const el = document.activeElement;
      return [el?.textContent, getComputedStyle(el).outlineStyle];
    });
    expect(focused).toEqual(['Step', 'solid']); // focus is visible
    // time travel from the keyboard: the text, then arrow keys
    await page.getByTestId('output').focus();
    await page.keyboard.press('ArrowLeft');
    await until(async () => (await page.getByTestId('step-heading').textContent()).startsWith('Step 2'));
    await page.keyboard.press('ArrowLeft');
    await until(async () => (await page.getByTestId('step-heading').textContent()).startsWith('Step 1'));
    await page.keyboard.press('Escape');
    await until(async () => (await page.getByTestId('step-heading').textContent()).startsWith('Next token'));
    // the seed's dice
    await page.getByRole('button', { name: 'Roll the dice' }).press('Enter');
    await until(async () => (await page.getByLabel('Seed').inputValue()) !== '5');
    const seed = await page.getByLabel('Seed').inputValue();
    await until(async () => (await hashOf(page)).includes(`seed=${seed}`));
    expect(await tokens(page).count()).toBe(0);
  });
});
