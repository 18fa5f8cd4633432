#!/usr/bin/env node
// Takes the README's second screenshot: the worked-examples lesson of
// docs/lessons.md (questions answered, a hand-made model's bars with their
// handles, mid-drag) in Debian's Chromium, saved as docs/screenshot-lessons.png.
//   node tests/e2e/screenshot-lessons.js [out.png]
import fs from 'node:fs';
import path from 'node:path';

import { chromium } from 'playwright-core';

import { DIST, ROOT } from './fixtures.js';
import { serveStatic } from './server.js';

const out = path.resolve(process.argv[2] ?? path.join(ROOT, 'docs/screenshot-lessons.png'));
const guide = fs.readFileSync(path.join(ROOT, 'docs/lessons.md'), 'utf8');
const html = /<!-- example: worked-examples.html -->\n```html\n([\s\S]*?)\n```/.exec(guide)?.[1] ?? '';
const server = await serveStatic(null, { mounts: { '/lessons/playground/': DIST }, files: { '/favicon.ico': '', '/lessons/worked-examples.html': html } });
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
    '--no-first-run', '--disable-sync', '--disable-quic', '--hide-scrollbars'],
});
try {
  const page = await browser.newPage({ viewport: { width: 1000, height: 1080 }, reducedMotion: 'reduce' });
  await page.goto(`${server.url}lessons/worked-examples.html`);
  await page.locator('#temperature-demo [data-testid="embed"][data-ready="true"]').waitFor();
  const q = (i) => page.locator('sampler-question').nth(i);
  for (const [i, a] of [[0, '0.665'], [1, '0.1'], [2, '0.867']]) {
    await q(i).getByTestId('question-answer').fill(a);
    await q(i).getByTestId('question-check').click();
    await page.waitForFunction((n) => document.querySelectorAll('sampler-question')[n].shadowRoot.querySelector('[data-correct]'), i);
  }
  // a drag in progress on the third bar's handle
  const bar = page.locator('#temperature-demo [data-testid="prob-bar"][data-token="2"]');
  const box = await bar.getByTestId('bar-handle').boundingBox();
  const track = await bar.locator('.spg-bar-track').boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(track.x + track.width * 0.4, box.y + box.height / 2, { steps: 8 });
  await page.screenshot({ path: out });
  await page.mouse.up();
  console.log(`wrote ${path.relative(process.cwd(), out)}`);
} finally {
  await browser.close();
  await server.close();
}
