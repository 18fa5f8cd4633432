// The e2e tests' browser harness (every suite uses it): Debian's Chromium
// via playwright-core, dist/ served from 127.0.0.1, and every test failing
// on a console error, a page error, or a request that leaves localhost.
import fs from 'node:fs';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';

import { DIST, skipWithout } from './fixtures.js';
import { serveStatic } from './server.js';
import { loadEngineNode } from '../../web/src/engine/node.js';

export const CHROMIUM = '/usr/bin/chromium';
export const haveChromium = fs.existsSync(CHROMIUM);
/** Skip the browser suites: Chromium is missing, and not CI (under CI=true they run and fail to launch it). */
export const skipWithoutChromium = skipWithout(haveChromium, `${CHROMIUM} is missing (sudo apt-get install chromium)`);

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--no-first-run', '--disable-sync', '--disable-quic'];

import { until } from '../helpers/until.js';

export { until };
export { engineText } from '../helpers/engine.js';

/**
 * Sets up the browser and the server for a describe block; returns the
 * helpers its tests use.
 */
export function useBrowser() {
  const h = {
    /** @type {import('playwright-core').Browser} */ browser: null,
    server: null,
    problems: [],
    requested: [],
    allowed: [],
    contexts: [],
  };

  beforeAll(async () => {
    const { chromium } = await import('playwright-core');
    h.server = await serveStatic(DIST);
    h.servers = [h.server];
    h.browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  });

  afterAll(async () => {
    await h.browser?.close();
    for (const s of h.servers ?? []) await s.close();
  });

  beforeEach(() => {
    h.problems = [];
    h.allowed = [];
    h.requested = [];
  });

  afterEach(async () => {
    const found = h.problems;
    while (h.contexts.length) await h.contexts.pop().close();
    expect(found).toEqual([]);
  });

  /** Another server (closed after the suite): serveStatic's root and options. */
  h.serve = async (root, options) => {
    const s = await serveStatic(root, options);
    h.servers.push(s);
    return s;
  };
  const ours = (url) => h.servers.some((s) => url.startsWith(s.url));

  /**
   * A fresh browser context whose every request is checked (anything not on
   * one of our servers is refused).  The offline cache (sw.js) is blocked
   * unless asked for: most tests are about the page (offline.test.js tests
   * the cache).
   * @param {{width?: number, height?: number, serviceWorkers?: 'allow' | 'block', colorScheme?: 'light' | 'dark',
   *   reducedMotion?: 'reduce' | 'no-preference', touch?: boolean}} [o]
   */
  async function newContext({ width = 1280, height = 900, serviceWorkers = 'block', colorScheme = 'light', reducedMotion = 'no-preference', touch = false } = {}) {
    const context = await h.browser.newContext({
      viewport: { width, height }, serviceWorkers, colorScheme, reducedMotion, ...(touch ? { hasTouch: true, isMobile: true } : {}),
    });
    h.contexts.push(context);
    await context.route('**/*', (route) => {
      const url = route.request().url();
      h.requested.push(url);
      if (ours(url) || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
      h.problems.push(`request left localhost: ${url}`);
      return route.abort();
    });
    return context;
  }

  /**
   * Fails the test on the page's console errors, page errors and failed
   * requests (but a download cut short while the test itself navigates
   * away, `leaving()`: the browser aborts what the page left, as when a
   * learner leaves).
   * @param {import('playwright-core').Page} page @param {{leaving?: () => boolean}} [o]
   */
  function watch(page, { leaving = () => false } = {}) {
    page.on('console', (msg) => {
      if (msg.type() !== 'error') return;
      const text = `${msg.text()} ${msg.location()?.url ?? ''}`;
      if (!h.allowed.some((re) => re.test(text))) h.problems.push(`console error: ${text}`);
    });
    page.on('pageerror', (err) => h.problems.push(`page error: ${err.message}`));
    page.on('requestfailed', (req) => {
      if (!ours(req.url()) || (leaving() && req.failure()?.errorText === 'net::ERR_ABORTED')) return;
      h.problems.push(`request failed: ${req.url()} ${req.failure()?.errorText}`);
    });
    return page;
  }

  /**
   * A fresh page on the playground (or on `url`), once `ready` is there.
   * @param {{hash?: string, url?: string, width?: number, height?: number, wait?: boolean, ready?: string,
   *   serviceWorkers?: 'allow' | 'block', context?: import('playwright-core').BrowserContext,
   *   colorScheme?: 'light' | 'dark', reducedMotion?: 'reduce' | 'no-preference', touch?: boolean}} [o]
   */
  async function open({ hash = '', url, width = 1280, height = 900, wait = true, ready = '[data-ready="true"]', serviceWorkers = 'block', context, ...look } = {}) {
    const ctx = context ?? await newContext({ width, height, serviceWorkers, ...look });
    const page = watch(await ctx.newPage());
    await page.goto((url ?? h.server.url) + hash);
    if (wait) await page.waitForSelector(ready, { timeout: 15000 });
    return page;
  }

  return { h, open, newContext, watch };
}

// ---- page helpers -----------------------------------------------------------

/** A lesson page: the embed script and some body. */
export const lesson = (body, { src = '/playground/embed.js', style = '' } = {}) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>A lesson</title>${style ? `<style>${style}</style>` : ''}
<script type="module" src="${src}"></script></head>
<body><h1>A lesson</h1><div class="page-text">Some of the lesson's own text.</div>
${body}
</body></html>`;


export const hashOf = (page) => page.evaluate(() => location.hash);
/** the generated text of the single view (the output's text after the prompt) */
export const generated = (scope) => scope.locator('[data-testid="output"]').first().evaluate((el) => {
  const prompt = el.querySelector('[data-testid="output-prompt"]')?.textContent ?? '';
  return (el.textContent ?? '').slice(prompt.length);
});
export const stepButton = (scope) => scope.getByRole('button', { name: 'Step', exact: true });
/**
 * Clicks Step n times, each once the one before has landed: Steps queue in
 * the page, so without the wait the test would read a text (or a view) that
 * later Steps are still changing.  The panel's data-step-count counts the
 * Steps taken; a Step that ends the text disables the button instead.
 */
export const stepTimes = async (page, n, scope = page) => {
  const count = scope.locator('[data-step-count]').first();
  const taken = async () => Number(await count.getAttribute('data-step-count'));
  for (let i = 0; i < n; i++) {
    await until(async () => !(await stepButton(scope).isDisabled()));
    const before = await taken();
    await stepButton(scope).click();
    await until(async () => (await taken()) > before || (await stepButton(scope).isDisabled()));
  }
};

/** Chooses model files with the playground's "Load a model file…". @param {import('playwright-core').Page} page @param {Array<{name: string, bytes: Uint8Array}>} files */
export async function chooseModelFiles(page, files) {
  await page.getByLabel('Model', { exact: true }).selectOption({ label: 'Load a model file…' });
  await page.getByTestId('model-file').setInputFiles(files.map((f) => ({ name: f.name, mimeType: 'application/octet-stream', buffer: Buffer.from(f.bytes) })));
}

/** The engine's own message for a file it refuses as a model (computed in Node). @param {Uint8Array} bytes */
export async function engineRefusal(bytes) {
  const e = await loadEngineNode('simd');
  try {
    e.loadModel(bytes).free();
  } catch (err) {
    return /** @type {Error} */ (err).message;
  }
  throw new Error('the engine took the file');
}
