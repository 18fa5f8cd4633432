// Issue 8 in Chromium: the offline cache (dist/sw.js) and the page's
// weight.  A copy of dist/ is served; once the service worker controls the
// page, the browser goes offline and the page reloads and generates (the
// page, ?embed=1, and the transformer cached on first use); a new build
// (another file list) gets a new cache and the old one goes.  The page's
// HTML + JS + CSS + the .wasm it needs weigh at most 200 KiB gzipped, and
// the first paint comes within a second.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';

import { writeServiceWorker } from '../../vite.config.js';
import { DIST, haveTransformer, IN_CI, needTransformer } from './fixtures.js';

/** the shipped transformer's checks run (under CI=true they must: needTransformer) */
const withTransformer = haveTransformer || IN_CI;
import { engineText, generated, skipWithoutChromium, lesson, until, useBrowser } from './harness.js';

const tokens = (page) => page.locator('[data-testid="output-token"]');
const gz = (file) => zlib.gzipSync(fs.readFileSync(file), { level: 9 }).length;
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;

/** Waits until a service worker controls the page; its cache's name and files. */
async function controlled(page) {
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
    if (!navigator.serviceWorker.controller) {
      await new Promise((r) => navigator.serviceWorker.addEventListener('controllerchange', r, { once: true }));
    }
  });
  return page.evaluate(async () => {
    const keys = await caches.keys();
    const files = keys.length ? (await (await caches.open(keys[0])).keys()).map((r) => new URL(r.url).pathname) : [];
    return { keys, files };
  });
}

describe.skipIf(skipWithoutChromium)('offline, weight and first paint', () => {
  const { h, open, newContext } = useBrowser();
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'spg-dist-'));
  afterAll(() => fs.rmSync(copy, { recursive: true, force: true }));

  it('works offline after the first visit: reloads and generates; a new build gets a new cache', async () => {
    fs.cpSync(DIST, copy, { recursive: true });
    const version = /"version":"(\w+)"/.exec(fs.readFileSync(path.join(copy, 'sw.js'), 'utf8'))[1];
    const site = await h.serve(null, { mounts: { '/course/dist/': copy } });
    const base = `${site.url}course/dist/`;
    const context = await newContext({ serviceWorkers: 'allow' });
    const page = await open({ context, url: base, hash: '#seed=2&steps=3' });
    const first = await controlled(page);
    expect(first.keys).toEqual([`spg:/course/dist/:${version}`]);
    for (const f of ['/course/dist/index.html', '/course/dist/embed.js', '/course/dist/sw.js']) {
      if (f.endsWith('sw.js')) expect(first.files).not.toContain(f);
      else expect(first.files).toContain(f);
    }
    // the engine's two builds and the lesson engine's (course chapters, embeds)
    expect(first.files.filter((f) => f.endsWith('.wasm'))).toHaveLength(4);
    if (withTransformer) {
      needTransformer();
      // the transformer is cached when it is first used
      await page.getByLabel('Model', { exact: true }).selectOption('transformer');
      await until(async () => (await page.getByTestId('model-info').textContent()).startsWith('transformer'), 15000);
      await until(async () => (await controlled(page)).files.some((f) => /transformer-[\w-]+\.bin$/.test(f)));
    }

    await context.setOffline(true);
    await page.goto(`${base}#seed=2&steps=3`);
    await page.reload();
    await page.waitForSelector('[data-ready="true"]', { timeout: 15000 });
    // (the link's three tokens are written once the engine is ready: a moment later on a busy machine)
    const three = await engineText({ seed: 2, steps: 3 });
    await until(async () => (await generated(page)) === three, 15000);
    await page.getByRole('button', { name: 'Step', exact: true }).click();
    await until(async () => (await tokens(page).count()) === 4);
    expect(await generated(page)).toBe(await engineText({ seed: 2, steps: 4 }));
    // another language's catalogue (a chunk of its own) came with the cache
    expect(first.files.some((f) => /\/assets\/de-[\w-]+\.js$/.test(f))).toBe(true);
    await page.getByTestId('lang-select').selectOption('de');
    await page.getByRole('button', { name: 'Schritt', exact: true }).waitFor();
    // ?embed=1 and the transformer, offline
    await page.goto(`${base}index.html?embed=1#seed=2&steps=2${withTransformer ? '&model=transformer&prompt=And' : ''}`);
    await page.waitForSelector('[data-ready="true"]', { timeout: 15000 });
    expect(await page.locator('h1').count()).toBe(0);
    const two = await engineText({ seed: 2, steps: 2, ...(withTransformer ? { model: 'transformer', prompt: 'And' } : {}) });
    await until(async () => (await generated(page)) === two, 15000);
    await context.setOffline(false);

    // a new build: another file list, so another cache name; the old cache goes
    fs.writeFileSync(path.join(copy, 'assets', 'added-by-a-new-build.js'), 'export {};\n');
    const next = writeServiceWorker(copy);
    expect(next.version).not.toBe(version);
    expect(next.precache).toContain('assets/added-by-a-new-build.js');
    await page.evaluate(async () => (await navigator.serviceWorker.getRegistration()).update());
    await until(async () => {
      const keys = await page.evaluate(() => caches.keys());
      return keys.length === 1 && keys[0] === `spg:/course/dist/:${next.version}`;
    }, 15000);
    expect((await controlled(page)).files).toContain('/course/dist/assets/added-by-a-new-build.js');
    await page.goto(`${base}#seed=2&steps=1`);
    await page.waitForSelector('[data-ready="true"]', { timeout: 15000 });
    const one = await engineText({ seed: 2, steps: 1 });
    await until(async () => (await generated(page)) === one, 15000);
  });

  it('the page weighs at most 200 KiB gzipped (HTML, JS, CSS, the .wasm it needs) and paints', async () => {
    await (await open()).close(); // a warm-up load (the browser's own start-up is not the page's)
    const paints = [];
    for (let i = 0; i < 2; i++) {
      h.requested = [];
      const page = await open();
      paints.push(await until(() => page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime)));
    }
    const files = [...new Set(h.requested.filter((u) => u.startsWith(h.server.url)))]
      .map((u) => decodeURIComponent(new URL(u).pathname))
      .map((p) => (p.endsWith('/') ? `${p}index.html` : p))
      .filter((p) => !p.endsWith('.bin')); // the models load separately
    const sizes = files.map((f) => [f, gz(path.join(DIST, f))]);
    const total = sizes.reduce((a, [, n]) => a + n, 0);
    console.log(`e2e: page weight ${kib(total)} gzipped: ${sizes.map(([f, n]) => `${f} ${kib(n)}`).join(', ')}`);
    console.log(`e2e: first contentful paint ${paints.map(Math.round).join(' ms, ')} ms`);
    expect(files.some((f) => f.endsWith('.wasm'))).toBe(true);
    expect(files.some((f) => f.endsWith('.css'))).toBe(true);
    // English is in the page; no other language's catalogue is fetched; the
    // words only the page shows come with it (i18n/parts.js)
    expect(files.filter((f) => /\/assets\/(es|de|zh)-[\w-]+\.js$/.test(f))).toEqual([]);
    expect(files.filter((f) => /\/assets\/page-words-/.test(f)).map((f) => f.replace(/^.*\/|-[\w-]{8}\.js$/g, ''))).toEqual(['page-words-en']);
    expect(total).toBeLessThanOrEqual(200 * 1024);
    expect(paints.every((t) => t > 0)).toBe(true); // painted (how fast: ./build.sh bench)

    // the element's share: embed.js, its chunks, the Worker, the .wasm
    const site = await h.serve(null, { mounts: { '/dist/': DIST }, files: { '/favicon.ico': '', '/l.html': lesson('<sampler-playground></sampler-playground>', { src: '/dist/embed.js' }) } });
    h.requested = [];
    await open({ url: `${site.url}l.html`, ready: 'sampler-playground [data-ready="true"]' });
    const embedFiles = [...new Set(h.requested.filter((u) => u.startsWith(`${site.url}dist/`) && !u.endsWith('.bin')))]
      .map((u) => new URL(u).pathname.slice('/dist'.length));
    const embedTotal = embedFiles.reduce((a, f) => a + gz(path.join(DIST, f)), 0);
    console.log(`e2e: the element's weight ${kib(embedTotal)} gzipped (${embedFiles.join(', ')})`);
    // an element loads neither the page's code nor the words only the page shows
    expect(embedFiles.filter((f) => /\/assets\/(page|page-words-\w+)-[\w-]+\.(js|css)$/.test(f))).toEqual([]);
    expect(embedTotal).toBeLessThanOrEqual(200 * 1024);
  });
});
