// Runs the golden cases: the CLI's arguments for a case, and the texts the
// built page (dist/) shows for links, read in Chromium.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { serveStatic } from '../e2e/server.js';

const here = path.dirname(fileURLToPath(import.meta.url));
export const FIXTURES = process.env.LLAMA2C_FIXTURES || path.resolve(here, '../../../shared/fixtures/llama2c');

/** A case's arguments, with @FIXTURES replaced by the fixtures' folder. */
export const cliArgs = (c) => c.args.map((a) => a.replace('@FIXTURES', FIXTURES));

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--no-first-run', '--disable-sync', '--disable-quic'];

/** Every output's generated text (after its prompt), in page order. */
function outputsOf(page) {
  return page.locator('[data-testid="output"]').evaluateAll((els) => els.map((el) => {
    const prompt = el.querySelector('[data-testid="output-prompt"]')?.textContent ?? '';
    return (el.textContent ?? '').slice(prompt.length);
  }));
}

/**
 * Opens each link on the built page and returns {name: [texts]} once the
 * texts have stopped changing for a second.
 * @param {{name: string, hash: string}[]} cases
 * @param {import('playwright-core').Browser} [browser] one to use (else launched here)
 * @param {string} [base] a server's URL (else dist/ is served here)
 */
export async function pageTexts(cases, browser, base) {
  const { chromium } = await import('playwright-core');
  const ownBrowser = !browser;
  browser ??= await chromium.launch({ executablePath: '/usr/bin/chromium', args: ARGS });
  const server = base ? null : await serveStatic(path.resolve(here, '../../dist'));
  const url = base ?? server.url;
  const out = {};
  try {
    for (const c of cases) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, serviceWorkers: 'block' });
      const page = await context.newPage();
      await page.goto(url + c.hash);
      await page.waitForSelector('[data-ready="true"]', { timeout: 20000 });
      let last = '', stableSince = Date.now();
      const t0 = Date.now();
      for (;;) {
        const now = JSON.stringify(await outputsOf(page));
        if (now !== last) { last = now; stableSince = Date.now(); }
        if (Date.now() - stableSince > 1000 || Date.now() - t0 > 30000) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      out[c.name] = JSON.parse(last);
      await context.close();
    }
  } finally {
    await server?.close();
    if (ownBrowser) await browser.close();
  }
  return out;
}
