// Generate N (the fast-forward) in Debian's Chromium: the text the engine
// writes step by step, byte for byte, with the progress bar and Stop while
// it runs; a fast-forwarded token's step, hovered or clicked, has the bars
// the same step has when stepped; the link reproduces the text.  Every
// test fails on a console error or a request that leaves localhost.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { loadEngineNode } from '../../web/src/engine/node.js';
import { charTokenizer, randomCheckpoint } from './fixtures.js';
import { engineText, generated, hashOf, skipWithoutChromium, stepTimes, until, useBrowser } from './harness.js';

const bars = (page) => page.getByTestId('prob-bar').evaluateAll((els) => els.map((el) => [el.dataset.token, el.dataset.prob, el.dataset.cut]));

describe.skipIf(skipWithoutChromium)('Generate N in Chromium', () => {
  const { open } = useBrowser();

  it('writes the text Step writes, shows each token\'s step on demand, and its link gives the same text', async () => {
    const params = { temperature: 1.1, top_k: 30, top_p: 0.95, repetition_penalty: 1.2 };
    const page = await open({ hash: '#model=bigram&temperature=1.1&top_k=30&top_p=0.95&repetition_penalty=1.2&seed=21&prompt=Li' });
    await stepTimes(page, 2);
    await page.getByTestId('generate-n').fill('300');
    await expect(page.getByTestId('generate').textContent()).resolves.toBe('Generate 300');
    await page.getByTestId('generate-n').press('Enter');
    await page.getByTestId('generate-done').waitFor();
    expect(await page.getByTestId('generate-done').getAttribute('data-count')).toBe('300');
    expect(await page.getByTestId('output-token').count()).toBe(302);
    const text = await generated(page);
    expect(text).toBe(await engineText({ prompt: 'Li', seed: 21, params, steps: 302 }));
    // the metrics are the whole text's
    expect(await page.getByTestId('metrics').getAttribute('data-tokens')).toBe('302');
    // a fast-forwarded token: clicked, its step's bars come from the engine
    const k = 150;
    await page.getByTestId('output-token').nth(k).click();
    await until(async () => /Step 151: fast-forwarded/.test(await page.getByTestId('step-heading').textContent()));
    await until(async () => (await page.getByTestId('prob-bar').count()) > 0);
    const fast = await bars(page);
    const p = await page.getByTestId('output-token').nth(k).getAttribute('data-p');
    // the link: the same text, and the same step stepped (its own record)
    const hash = await hashOf(page);
    expect(hash).toContain('steps=302');
    const again = await open({ hash });
    expect(await generated(again)).toBe(text);
    await again.getByTestId('output-token').nth(k).click();
    await until(async () => /Step 151: sampled/.test(await again.getByTestId('step-heading').textContent()));
    expect(await bars(again)).toEqual(fast);
    expect(await again.getByTestId('output-token').nth(k).getAttribute('data-p')).toBe(p);
    // Step goes on from the fast-forwarded text as it would have
    await page.getByTestId('back-live').click();
    await stepTimes(page, 1);
    expect(await generated(page)).toBe(await engineText({ prompt: 'Li', seed: 21, params, steps: 303 }));
  });

  it('shows a progress bar and Stop while it runs; Stop keeps the tokens so far, the same as stepping', async () => {
    // a random checkpoint large enough to take seconds for 1900 tokens, its
    // end-of-text token banned so the text goes on
    const chars = '\n abcdefghijklmnopqrstuvwxyz.,';
    const model = randomCheckpoint({ vocab: 3 + chars.length, seqLen: 2048, dim: 288, hidden: 768, layers: 6, heads: 6, kvHeads: 6, scale: 0.2 });
    const tokenizer = charTokenizer(chars);
    const page = await open({ hash: '#model=bigram&seed=5&ban=1,2' });
    // as files on disk: 21 MB sent as a buffer crawls through the protocol
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spg-generate-'));
    fs.writeFileSync(path.join(dir, 'tokenizer.bin'), tokenizer);
    fs.writeFileSync(path.join(dir, 'slow.bin'), model);
    await page.getByTestId('model-file').setInputFiles([path.join(dir, 'tokenizer.bin'), path.join(dir, 'slow.bin')]);
    await until(async () => /transformer · 33 tokens/.test(await page.getByTestId('model-info').textContent()), 30000);
    fs.rmSync(dir, { recursive: true, force: true }); // read: the page has the model
    await until(async () => !(await page.getByTestId('generate').isDisabled()));
    await page.getByTestId('generate-n').fill('1900');
    await page.getByTestId('generate').click();
    const progress = page.getByTestId('generate-progress');
    await progress.waitFor();
    expect(await progress.getAttribute('role')).toBe('progressbar');
    expect(await progress.getAttribute('aria-valuemax')).toBe('1900');
    expect(await page.getByTestId('step').isDisabled()).toBe(true);
    expect(await page.getByTestId('play').isDisabled()).toBe(true);
    await until(async () => Number(await progress.getAttribute('aria-valuenow')) > 0);
    await page.getByTestId('generate-stop').click();
    await page.getByTestId('generate-done').waitFor();
    expect(await page.getByTestId('generate-done').getAttribute('data-stopped')).toBe('true');
    const count = Number(await page.getByTestId('generate-done').getAttribute('data-count'));
    expect(count).toBeGreaterThan(0);
    expect(count).toBeLessThan(1900);
    expect(await page.getByTestId('output-token').count()).toBe(count);
    expect(await page.getByTestId('step').isDisabled()).toBe(false);
    // the same text as the engine's steps, in Node
    const e = await loadEngineNode('simd');
    const m = e.loadModel(model);
    const t = e.loadTokenizer(tokenizer);
    const session = e.createSession(m, t);
    session.start('', 5);
    let want = '';
    for (let i = 0; i < count; i++) want += session.step({ logit_bias: [[1, -Infinity], [2, -Infinity]] }).piece;
    expect(await generated(page)).toBe(want);
  });
});
