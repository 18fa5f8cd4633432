// The lesson widgets in Chromium: hand-made models (the worked examples'
// numbers on the bars, the presets), dragging a bar's handle with the mouse
// and with the keyboard (and a click still bans), a link carrying the edits
// reloading identically, the bigram's edits and Reset model, a bigram
// trained on pasted text, and the KV-cache picture stepped before any
// generation.
import fs from 'node:fs';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

import { MODELS, needTransformer, skipWithoutTransformer } from './fixtures.js';
import { generated, hashOf, skipWithoutChromium, until, useBrowser } from './harness.js';
import { textProblems } from './layout.js';
import { loadEngineNode } from '../../web/src/engine/node.js';

const bar = (page, token) => page.locator(`[data-testid="prob-bar"][data-token="${token}"]`).first();
const raw = async (page, token) => Number(await bar(page, token).getAttribute('data-raw'));
const prob = async (page, token) => Number(await bar(page, token).getAttribute('data-prob'));

describe.skipIf(skipWithoutChromium)('lesson widgets', () => {
  const { open } = useBrowser();

  it('a hand-made model from the link shows the worked examples\' numbers', async () => {
    const page = await open({ hash: '#model=logits:2,1,0&temperature=1' });
    expect([await prob(page, 0), await prob(page, 1), await prob(page, 2)].map((p) => p.toFixed(3))).toEqual(['0.665', '0.245', '0.090']);
    const page2 = await open({ hash: '#model=logits:2,1,0&temperature=0.5' });
    expect([await prob(page2, 0), await prob(page2, 1), await prob(page2, 2)].map((p) => p.toFixed(3))).toEqual(['0.867', '0.117', '0.016']);
    const page3 = await open({ hash: '#model=probs:0.50,0.20,0.15,0.08,0.05,0.02&top_p=0.9' });
    expect(await page3.getByTestId('nucleus-size').first().textContent()).toBe('4');
    // the table shows the engine's logits and probabilities
    expect(await page.getByTestId('handmade-row').count()).toBe(3);
    expect(Number(await page.getByTestId('handmade-p').nth(0).getAttribute('data-value')).toFixed(3)).toBe('0.665');
  });

  it('the presets are shown whole at 1280 and 390 px, in English and German ("Worked example: logits 2, 1, (" was cut)', async () => {
    for (const width of [1280, 390]) {
      for (const lang of ['en', 'de']) {
        const page = await open({ width, height: 844, hash: `#model=logits:2,1,0&lang=${lang}` });
        const presets = page.getByTestId('handmade-preset').getByRole('radio');
        expect(await presets.count()).toBe(4);
        expect(await page.getByTestId('handmade-preset-worked-t').isChecked()).toBe(true);
        // each entry's whole text on screen, inside its box, over nothing else
        expect(await page.evaluate(textProblems, { root: '[data-testid="handmade"]' }), `${lang} ${width}`).toEqual([]);
        const names = await page.getByTestId('handmade-preset').locator('.spg-seg-opt').allTextContents();
        expect(names[0], `${lang} ${width}`).toMatch(/: Logits 2, 1, 0$/i);
        expect(names[1], `${lang} ${width}`).toMatch(/0[.,]02$/);
      }
    }
  });

  it('switches presets: confident, then long-tailed', async () => {
    const page = await open({ hash: '#model=logits:2,1,0' });
    await page.getByTestId('handmade-preset-confident').check();
    await until(async () => (await page.locator('[data-testid="prob-bar"]').count()) === 8);
    const top = await prob(page, 0);
    expect(top).toBeGreaterThan(0.9);
    await page.getByTestId('handmade-preset-long-tailed').check();
    await until(async () => (await page.locator('[data-testid="prob-bar"]').count()) === 24);
    expect(await prob(page, 0)).toBeLessThan(0.3);
    // the link is written a moment after the change
    await until(async () => decodeURIComponent(await hashOf(page)).includes('model=logits:a=0.00,b=-0.42'));
  });

  it('drags a bar\'s handle with the mouse: the model\'s probability is set, the others rescale, the link carries it', async () => {
    const page = await open({ hash: '#model=logits:2,1,0&steps=5' });
    const text = await generated(page);
    const handle = bar(page, 2).getByTestId('bar-handle');
    const track = await bar(page, 2).locator('.spg-bar-track').boundingBox();
    const box = await handle.boundingBox();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(track.x + track.width * 0.3, box.y + box.height / 2, { steps: 5 });
    await page.mouse.move(track.x + track.width * 0.5, box.y + box.height / 2, { steps: 5 });
    expect(await page.getByTestId('bar-drag-value').textContent()).toMatch(/50\.0 ?%/);
    await page.mouse.up();
    await until(async () => Math.abs((await raw(page, 2)) - 0.5) < 0.006);
    // the others keep their ratio e : 1
    expect((await raw(page, 0)) / (await raw(page, 1))).toBeCloseTo(Math.E, 3);
    await page.getByTestId('edited').waitFor();
    // not a ban: the bar is kept
    expect(await bar(page, 2).getAttribute('data-cut')).toBe('kept');
    // the table's logit of c is the engine's new one
    expect(Number(await page.getByTestId('handmade-value').nth(2).inputValue())).toBeCloseTo(Math.log(Math.E ** 2 + Math.E), 3);
    await until(async () => /edits=0_2_0\.\d+/.test(await hashOf(page)));
    const hash = await hashOf(page);
    expect(hash).toContain('steps=5');
    // the link reloads identically
    const again = await open({ hash });
    await until(async () => (await generated(again)).length === text.length || (await generated(again)) === (await generated(page)));
    expect(await generated(again)).toBe(await generated(page));
    for (const t of [0, 1, 2]) expect(await raw(again, t)).toBe(await raw(page, t));
    await again.getByTestId('edited').waitFor();
  });

  it('edits with the keyboard on a focused bar (+ / -); Enter still bans', async () => {
    const page = await open({ hash: '#model=logits:2,1,0' });
    expect(await page.getByTestId('edit-hint').textContent()).toContain('press + / −');
    const before = await raw(page, 1);
    await bar(page, 1).locator('button.spg-bar-btn').focus();
    await page.keyboard.press('+');
    await until(async () => Math.abs((await raw(page, 1)) - (Math.round((before + 0.01) * 1000) / 1000)) < 1e-5);
    await page.keyboard.press('PageDown');
    await until(async () => (await raw(page, 1)) < before - 0.05);
    // one edit for the one token in the link, not one per key press
    await until(async () => /edits=0_1_0\.155(&|$)/.test(decodeURIComponent(await hashOf(page))));
    expect(decodeURIComponent(await hashOf(page))).not.toContain('0_1_0.255');
    // focus stayed on the bar; Enter bans its token as before
    await page.keyboard.press('Enter');
    await until(async () => (await bar(page, 1).getAttribute('data-cut')) === 'bias');
  });

  it('edits the bigram\'s current row on a copy, with Reset model', async () => {
    const page = await open({ hash: '#model=bigram&seed=3' });
    const token = await page.locator('[data-testid="prob-bar"]').nth(3).getAttribute('data-token');
    const was = await raw(page, token);
    await bar(page, token).locator('button.spg-bar-btn').focus();
    await page.keyboard.press('PageUp');
    await until(async () => Math.abs((await raw(page, token)) - (Math.round((was + 0.1) * 1000) / 1000)) < 1e-5);
    await page.getByTestId('edited').waitFor();
    await until(async () => new RegExp(`edits=0_${token}_`).test(await hashOf(page)));
    await page.getByTestId('reset-model').click();
    await until(async () => (await page.getByTestId('edited').count()) === 0);
    await until(async () => !(await hashOf(page)).includes('edits='));
    expect(await raw(page, token)).toBe(was);
  });

  it('trains a bigram on pasted text and samples from it at once', async () => {
    const page = await open();
    await page.getByTestId('train').locator('summary').click();
    await page.getByTestId('train-text').fill('banana\nbandana\ncabana\nanna\n');
    await page.getByTestId('train-go').click();
    await until(async () => (await page.getByTestId('train-info').count()) === 1);
    expect(await page.getByTestId('train-info').getAttribute('data-chars')).toBe('5');
    expect(await page.getByTestId('model-info').textContent()).toContain('bigram · 6 tokens');
    await page.getByRole('button', { name: 'Step', exact: true }).click();
    await page.getByRole('button', { name: 'Step', exact: true }).click();
    await until(async () => (await generated(page)).length >= 2);
    expect(await generated(page)).toMatch(/^[abcdn\n]+$/);
    await until(async () => (await hashOf(page)).includes('model=text'));
    // bad text: the engine's message, and the model stays
    await page.getByTestId('train-text').fill('   \n\n');
    await page.getByTestId('train-go').click();
    await until(async () => (await page.getByTestId('model-error').count()) === 1);
    expect(await page.getByTestId('model-error').textContent()).toContain('the text is empty');
  });

  it.skipIf(skipWithoutTransformer)('steps the KV-cache picture from before any generation', async () => {
    needTransformer();
    const page = await open({ hash: '#model=transformer&prompt=And' });
    const pic = page.getByTestId('kv-picture');
    await until(async () => Number(await pic.getAttribute('data-positions')) > 0);
    const p0 = Number(await pic.getAttribute('data-positions'));
    await page.getByTestId('kv-next').click();
    await until(async () => Number(await pic.getAttribute('data-positions')) === p0 + 1);
    expect(await page.locator('[data-testid="kv-row"][data-new="true"]').count()).toBe(1);
    await page.getByTestId('kv-next').click();
    await until(async () => Number(await pic.getAttribute('data-positions')) === p0 + 2);
    const ratio = Number(await page.getByTestId('kvpic-ratio').getAttribute('data-value'));
    // the engine's counters for that many positions, in Node
    const e = await loadEngineNode('simd');
    const m = e.loadModel(new Uint8Array(fs.readFileSync(path.join(MODELS, 'transformer.bin'))));
    const c = m.cost(p0 + 2);
    expect(ratio).toBeCloseTo(c.flopsNoCache / c.flops, 9);
    expect(ratio).toBeGreaterThan(1);
    // back: the picture and the numbers of the step before
    await page.getByTestId('kv-back').click();
    expect(Number(await pic.getAttribute('data-positions'))).toBe(p0 + 1);
    expect(Number(await page.getByTestId('kvpic-ratio').getAttribute('data-value'))).toBeLessThan(ratio);
    expect(await page.getByTestId('kv-growth').textContent()).toContain('(T + 1) / 2');
  });
});
