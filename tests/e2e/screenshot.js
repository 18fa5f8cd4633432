#!/usr/bin/env node
// Takes the README's screenshots: the built playground (dist/) at 1200x800
// in Debian's Chromium, saved as docs/screenshot.png (and, in another
// language, docs/screenshot-zh.png).
//   node tests/e2e/screenshot.js [out.png] [--dark] [--lang=zh]
import path from 'node:path';

import { chromium } from 'playwright-core';

import { DIST, haveTransformer, ROOT } from './fixtures.js';
import { serveStatic } from './server.js';

const args = process.argv.slice(2);
const out = path.resolve(args.find((a) => !a.startsWith('--')) ?? path.join(ROOT, 'docs/screenshot.png'));
const dark = args.includes('--dark');
const lang = args.find((a) => a.startsWith('--lang='))?.slice('--lang='.length) ?? '';
const hash = (haveTransformer
  ? '#model=transformer&temperature=0.8&top_k=0&top_p=0.8&seed=42&prompt=And%20God%20said&steps=25'
  : '#model=bigram&temperature=0.8&top_k=0&top_p=0.8&seed=42&steps=45') + (lang ? `&lang=${lang}` : '');

const server = await serveStatic(DIST);
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
    '--no-first-run', '--disable-sync', '--disable-quic', '--hide-scrollbars'],
});
try {
  const page = await browser.newPage({ viewport: { width: 1200, height: 800 }, colorScheme: dark ? 'dark' : 'light', reducedMotion: 'reduce' });
  await page.goto(server.url + hash);
  await page.waitForSelector('[data-ready="true"]');
  await page.getByTestId('draw-samples').click();
  await page.getByTestId('kl').waitFor();
  await page.mouse.move(0, 0);
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: out });
  console.log(`wrote ${path.relative(process.cwd(), out)}`);
} finally {
  await browser.close();
  await server.close();
}
