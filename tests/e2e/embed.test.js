// Issue 8 in Chromium: <sampler-playground> on lesson pages.  dist/ is
// served under sub-paths (/playground/, /some/deep/path/), with .wasm as
// application/octet-stream, and from another origin (with CORS); lesson
// pages with hostile CSS; one Worker per model, counted; attributes that
// change, and bad ones; "Copy embed code" round-tripped into a lesson;
// ?embed=1; a model given by URL; the transformer's download progress bar.
// Every test fails on a console error, a page error, or a request that
// leaves localhost (harness.js).
import { describe, expect, it } from 'vitest';

import { charTokenizer, DIST, haveTransformer, IN_CI, needTransformer, randomCheckpoint, skipWithoutTransformer } from './fixtures.js';
import { engineText, generated, skipWithoutChromium, lesson, until, useBrowser } from './harness.js';

const HOSTILE = '* { color: red !important; font-size: 40px } div { display: none } button { background: lime !important } input { width: 2px }';

/** the i-th element of the page (Playwright's CSS pierces open shadow roots) */
const el = (page, i = 0) => page.locator('sampler-playground').nth(i);
const readyCount = (page) => page.locator('sampler-playground [data-testid="embed"][data-ready="true"]').count();
const tokensIn = (scope) => scope.locator('[data-testid="output-token"]');
const probs = (scope) => scope.locator('[data-testid="prob-bar"]').evaluateAll((els) => els.map((e) => Number(e.dataset.prob)));
/** the element's generated text (after its prompt) */
const textIn = (scope) => generated(scope);

describe.skipIf(skipWithoutChromium)('<sampler-playground> on lesson pages', () => {
  const { h, open, newContext, watch } = useBrowser();
  /** dist/ under /playground/ and /some/deep/path/ (and slowly under /slow/), lesson pages by path */
  let site;
  const pages = { '/favicon.ico': '' };

  it('a page with hostile CSS: each element in its shadow root, intact; one Worker per model; attributes update it', async () => {
    site = await h.serve(null, {
      mounts: { '/playground/': DIST, '/some/deep/path/': DIST, '/slow/': DIST },
      files: pages,
      throttle: { match: /^\/slow\/assets\/transformer-[\w-]+\.bin$/, chunk: 128 * 1024, ms: 30 },
    });
    pages['/lessons/hostile.html'] = lesson(`
<sampler-playground id="a" temperature="0.5" controls="temperature" view="bars"></sampler-playground>
<sampler-playground id="b" seed="3" steps="5" view="text" controls="temperature,seed"></sampler-playground>
<sampler-playground id="c" model="transformer" prompt="And God" seed="2" steps="8" view="text" controls=""></sampler-playground>
<sampler-playground id="d" temperature="hot" top-p="7" view="pie" controls="all"></sampler-playground>`, { style: HOSTILE });
    const context = await newContext();
    const page = watch(await context.newPage());
    const workers = [];
    const closed = [];
    page.on('worker', (w) => {
      workers.push(w.url());
      w.on('close', () => closed.push(w.url()));
    });
    const t0 = Date.now();
    await page.goto(`${site.url}lessons/hostile.html`);
    await until(async () => (await readyCount(page)) === 4, 15000);
    console.log(`e2e: four elements ready ${Date.now() - t0} ms after navigation`);
    // the bigram's elements share one Worker; the transformer has its own
    expect(workers).toHaveLength(2);
    expect(workers.every((u) => u.startsWith(`${site.url}playground/assets/engine.worker-`))).toBe(true);

    // the page's CSS hides its own divs and reddens its text, not the elements'
    expect(await page.locator('.page-text').isVisible()).toBe(false);
    for (let i = 0; i < 4; i++) {
      const box = await el(page, i).locator('[data-testid="embed"]').boundingBox();
      expect(box.height).toBeGreaterThan(60);
    }
    const look = await el(page, 0).evaluate((host) => {
      const root = host.shadowRoot;
      const style = (sel) => getComputedStyle(root.querySelector(sel));
      return {
        barColor: style('[data-testid="prob-bar"] .spg-bar-tok').color,
        barFont: parseFloat(style('[data-testid="prob-bar"] .spg-bar-tok').fontSize),
        labelFont: parseFloat(style('.spg-slider label').fontSize),
        button: style('[data-testid="step"]').backgroundColor,
        slider: parseFloat(style('input[type="range"]').width),
        barsShown: style('[data-testid="prob-bars"]').display,
      };
    });
    expect(look.barColor).not.toBe('rgb(255, 0, 0)');
    expect(look.barFont).toBeLessThan(20);
    expect(look.labelFont).toBeLessThan(20);
    expect(look.button).not.toBe('rgb(0, 255, 0)');
    expect(look.slider).toBeGreaterThan(100);
    expect(look.barsShown).not.toBe('none');

    // a: the bars of the bigram at T 0.5, and just the temperature slider
    const a = el(page, 0);
    expect(await a.locator('[data-testid="prob-bar"]').count()).toBe(54);
    expect((await probs(a)).reduce((x, y) => x + y, 0)).toBeCloseTo(1, 4);
    expect(await a.getByRole('slider').count()).toBe(2); // temperature and Play's speed
    expect(await a.getByTestId('value-temperature').textContent()).toBe('0.50');
    expect(await a.locator('[data-testid="output"]').count()).toBe(0); // view="bars": no text
    // b: its text is the engine's for its seed
    const b = el(page, 1);
    expect(await tokensIn(b).count()).toBe(5);
    expect(await textIn(b)).toBe(await engineText({ seed: 3, steps: 5 }));
    // c: the transformer (or, outside CI when it is not built, a calm notice and the bigram)
    const c = el(page, 2);
    expect(await c.getByRole('button', { name: 'Step', exact: true }).count()).toBe(0); // controls=""
    if (haveTransformer || IN_CI) {
      needTransformer();
      expect(await textIn(c)).toBe(await engineText({ model: 'transformer', prompt: 'And God', seed: 2, steps: 8 }));
    } else {
      expect(await c.getByTestId('notice').textContent()).toContain('not in this build');
    }
    // d: bad attributes are ignored (the default, the range named), with a calm notice in the element
    const notice = await el(page, 3).getByTestId('notice').textContent();
    expect(notice).toContain('Ignored temperature="hot": Temperature must be a number; using 1.');
    expect(notice).toContain('Ignored top-p="7": Top-p must be in (0, 1]; using 1.');
    expect(notice).toContain('Ignored view="pie"');
    expect(await el(page, 3).getByRole('slider', { name: /^Top-p/ }).inputValue()).toBe('1');

    // an attribute changes: the element follows (the bars re-warp; b's text stays)
    const top0 = Math.max(...(await probs(a)));
    await page.evaluate(() => document.getElementById('a').setAttribute('temperature', '0.1'));
    await until(async () => (await a.getByTestId('value-temperature').textContent()) === '0.10');
    await until(async () => Math.max(...(await probs(a))) > top0 + 0.2);
    await page.evaluate(() => document.getElementById('b').setAttribute('temperature', '2'));
    await until(async () => (await b.getByTestId('value-temperature').textContent()) === '2.00');
    expect(await tokensIn(b).count()).toBe(5);
    // a new seed regenerates b's text; a Step in b leaves a alone
    await page.evaluate(() => document.getElementById('b').setAttribute('seed', '11'));
    await until(async () => (await b.getByLabel('Seed').inputValue()) === '11');
    // (the old text has 5 tokens too: wait for the new one)
    const want = await engineText({ seed: 11, params: { temperature: 2 }, steps: 5 });
    await until(async () => (await textIn(b)) === want);
    expect(await tokensIn(b).count()).toBe(5);
    await b.getByRole('button', { name: 'Step', exact: true }).click();
    await until(async () => (await tokensIn(b).count()) === 6);
    expect(await tokensIn(a).count()).toBe(0);
    // moving an element keeps it; removing the bigram's elements stops their Worker
    await page.evaluate(() => document.body.prepend(document.getElementById('b')));
    await page.waitForTimeout(100);
    expect(await tokensIn(el(page, 0)).count()).toBe(6);
    expect(workers).toHaveLength(2);
    await page.evaluate(() => ['a', 'b', 'd'].forEach((id) => document.getElementById(id).remove()));
    await until(async () => closed.length === 1);
    expect(closed[0]).toBe(workers[0]);
    // a new element for the bigram starts a Worker again, and works
    await page.evaluate(() => document.body.insertAdjacentHTML('beforeend', '<sampler-playground id="e" seed="4" steps="3" view="text"></sampler-playground>'));
    await until(async () => (await readyCount(page)) === 2);
    expect(workers).toHaveLength(3);
    expect(await textIn(el(page, 1))).toBe(await engineText({ seed: 4, steps: 3 }));
  });

  it('dist/ under a deep sub-path: the page, ?embed=1 and the element resolve everything there', async () => {
    pages['/elsewhere/lesson.html'] = lesson('<sampler-playground seed="8" steps="6" view="text,bars"></sampler-playground>', { src: '/some/deep/path/embed.js' });
    const base = `${site.url}some/deep/path/`;
    const page = await open({ url: base, hash: '#seed=3&steps=5' });
    expect(await page.locator('[data-testid="output-token"]').count()).toBe(5);
    expect(await page.locator('h1').textContent()).toBe('Sampler playground');
    // ?embed=1: the playground without the page's header and footer
    const bare = await open({ url: `${base}index.html?embed=1`, hash: '#seed=3&steps=5&temperature=0.5' });
    expect(await bare.locator('h1').count()).toBe(0);
    expect(await bare.locator('.spg-footer').count()).toBe(0);
    expect(await bare.getByTestId('copy-embed').count()).toBe(0);
    expect(await bare.locator('[data-testid="output-token"]').count()).toBe(5);
    expect(await bare.getByRole('slider', { name: /^Temperature/ }).inputValue()).toBe('0.5');
    // the element on a page elsewhere: Worker, .wasm and model come from the sub-path
    h.requested = [];
    const lessonPage = await open({ url: `${site.url}elsewhere/lesson.html`, ready: 'sampler-playground [data-ready="true"]' });
    expect(await textIn(el(lessonPage))).toBe(await engineText({ seed: 8, steps: 6 }));
    const assets = h.requested.filter((u) => /\.(js|wasm|bin)$/.test(u));
    expect(assets.length).toBeGreaterThanOrEqual(4);
    for (const u of assets) expect(u.startsWith(base)).toBe(true);
    expect(assets.filter((u) => u.endsWith('.wasm'))).toHaveLength(1);
  });

  it('a host that serves .wasm as application/octet-stream: the page and the element still work, no console error', async () => {
    const files = {
      '/favicon.ico': '',
      '/lesson.html': lesson('<sampler-playground seed="5" steps="4" view="text"></sampler-playground>', { src: './embed.js' }),
    };
    const wrong = await h.serve(DIST, { types: { '.wasm': 'application/octet-stream' }, files });
    const context = await newContext();
    const page = watch(await context.newPage());
    const types = [];
    page.on('response', (r) => { if (r.url().endsWith('.wasm')) types.push(r.headers()['content-type']); });
    await page.goto(`${wrong.url}#seed=5&steps=4`);
    await page.waitForSelector('[data-ready="true"]', { timeout: 15000 });
    expect(types).toEqual(['application/octet-stream']);
    expect(await generated(page)).toBe(await engineText({ seed: 5, steps: 4 }));
    await page.getByRole('button', { name: 'Step', exact: true }).click();
    await until(async () => (await page.locator('[data-testid="output-token"]').count()) === 5);
    const lessonPage = await open({ url: `${wrong.url}lesson.html`, ready: 'sampler-playground [data-ready="true"]' });
    expect(await textIn(el(lessonPage))).toBe(await engineText({ seed: 5, steps: 4 }));
  });

  it('a lesson on another origin: embed.js from a host that allows CORS, its Worker started from a same-origin Blob', async () => {
    const dist = await h.serve(DIST, { cors: true });
    const other = await h.serve(null, {
      files: {
        '/favicon.ico': '',
        '/lesson.html': lesson('<sampler-playground seed="6" steps="7" view="text,bars" controls="temperature"></sampler-playground>', { src: `${dist.url}embed.js` }),
      },
    });
    expect(new URL(dist.url).origin).not.toBe(new URL(other.url).origin);
    const context = await newContext();
    const page = watch(await context.newPage());
    const workers = [];
    page.on('worker', (w) => workers.push(w.url()));
    await page.goto(`${other.url}lesson.html`);
    await page.waitForSelector('sampler-playground [data-ready="true"]', { timeout: 15000 });
    expect(workers).toHaveLength(1);
    expect(workers[0]).toMatch(/^blob:/);
    expect(await textIn(el(page))).toBe(await engineText({ seed: 6, steps: 7 }));
    await el(page).getByRole('button', { name: 'Step', exact: true }).click();
    await until(async () => (await tokensIn(el(page)).count()) === 8);
    expect(h.requested.filter((u) => u.endsWith('.wasm'))[0].startsWith(dist.url)).toBe(true);
  });

  it('"Copy embed code" gives the element for the page\'s setup: in a lesson, the same text', async () => {
    const hash = '#model=bigram&temperature=0.6&top_k=20&top_p=0.9&seed=9&prompt=Ma&steps=15&ban=3';
    const page = await open({ url: `${site.url}playground/`, hash });
    await page.getByTestId('copy-embed').click();
    const code = await page.getByTestId('embed-code').inputValue();
    // paths on the site (a lesson anywhere on it can use them), and the page's controls
    expect(code).toBe('<script type="module" src="/playground/embed.js"></script>\n'
      + '<sampler-playground model="bigram" temperature="0.6" top-k="20" top-p="0.9" seed="9" prompt="Ma" steps="15" ban="3"'
      + ' controls="temperature,top-k,top-p,prompt,seed"></sampler-playground>');
    expect(await page.getByTestId('embed-iframe').inputValue()).toContain(`src="/playground/?embed=1${hash.replaceAll('&', '&amp;')}"`);
    const text = await generated(page);
    pages['/lessons/copied.html'] = `<!doctype html><html><head><meta charset="utf-8"><title>Copied</title></head><body>\n${code}\n</body></html>`;
    const copied = await open({ url: `${site.url}lessons/copied.html`, ready: 'sampler-playground [data-ready="true"]' });
    const prompt = await el(copied).getByTestId('output-prompt').textContent();
    expect(prompt).toBe('Ma');
    expect(await textIn(el(copied))).toBe(text); // (both without the prompt)
    expect(await el(copied).locator('[data-testid="prob-bar"][data-token="3"]').getAttribute('data-cut')).toBe('bias');
  });

  it('a click on a bar does nothing unless the author asks: click="ban" bans, click="force" picks, a line says so with Undo; a legend names the bars', async () => {
    const s = await h.serve(null, {
      mounts: { '/playground/': DIST },
      files: {
        '/favicon.ico': '',
        '/clicks.html': lesson(`
<sampler-playground seed="4" steps="3" view="text,bars"></sampler-playground>
<sampler-playground seed="4" steps="3" view="text,bars" click="ban"></sampler-playground>
<sampler-playground seed="4" steps="3" view="text,bars" click="force"></sampler-playground>`),
      },
    });
    const page = await open({ url: `${s.url}clicks.html`, wait: false });
    await until(async () => (await readyCount(page)) === 3, 15000);
    const text = await engineText({ seed: 4, steps: 3 });
    /** the second most likely token's bar (kept) */
    const second = (scope) => scope.locator('[data-testid="prob-bar"][data-kept="true"]').nth(1);
    const barOf = (scope, token) => scope.locator(`[data-testid="prob-bar"][data-token="${token}"]`);
    for (let i = 0; i < 3; i++) {
      expect(await el(page, i).getByTestId('bars-legend').textContent()).toMatch(/model.*final/);
    }

    // no click attribute: nothing happens, and the bars say no click does anything
    const none = el(page, 0);
    const tn = await second(none).getAttribute('data-token');
    await second(none).locator('button').click();
    await page.waitForTimeout(400);
    expect(await barOf(none, tn).getAttribute('data-cut')).toBe('kept');
    expect(await none.getByTestId('click-note').count()).toBe(0);
    expect(await textIn(none)).toBe(text);
    expect(await barOf(none, tn).locator('button').getAttribute('title')).not.toMatch(/click/i);

    // click="ban": the token is banned, a line says so; Undo lifts the ban
    const ban = el(page, 1);
    const tb = await second(ban).getAttribute('data-token');
    await second(ban).locator('button').click();
    await until(async () => (await barOf(ban, tb).getAttribute('data-cut')) === 'bias');
    expect(await ban.getByTestId('click-note').getAttribute('data-did')).toBe('ban');
    expect(await ban.getByTestId('click-note').textContent()).toMatch(/^Banned ".*": the sampler will not pick it\. Undo$/);
    await ban.getByTestId('click-undo').click();
    await until(async () => (await barOf(ban, tb).getAttribute('data-cut')) === 'kept');
    expect(await ban.getByTestId('click-note').count()).toBe(0);
    expect(await textIn(ban)).toBe(text);

    // click="force": the token is the next one, a line says so; Undo writes the text as it was
    const force = el(page, 2);
    const tf = await second(force).getAttribute('data-token');
    await second(force).locator('button').click();
    await until(async () => (await tokensIn(force).count()) === 4);
    expect(await tokensIn(force).nth(3).getAttribute('data-token')).toBe(tf);
    expect(await force.getByTestId('click-note').textContent()).toMatch(/^Picked ".*" as token 4\. Undo$/);
    await force.getByTestId('click-undo').click();
    await until(async () => (await tokensIn(force).count()) === 3);
    expect(await textIn(force)).toBe(text);
    expect(await force.getByTestId('click-note').count()).toBe(0);
  });

  it('the bars in dark mode: the model\'s grey bar stands out from the track (3 : 1); drag handles show on hover and focus only', async () => {
    const s = await h.serve(null, {
      mounts: { '/playground/': DIST },
      files: { '/favicon.ico': '', '/dark.html': lesson('<sampler-playground theme="dark" model="logits:2,1,0,-3" view="bars"></sampler-playground>') },
    });
    const page = await open({ url: `${s.url}dark.html`, ready: 'sampler-playground [data-ready="true"]' });
    const look = () => el(page).evaluate((host) => {
      const root = host.shadowRoot;
      const rgb = (c) => c.match(/[\d.]+/g).slice(0, 3).map(Number);
      const lum = ([r, g, b]) => [r, g, b].map((v) => { const x = v / 255; return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4; })
        .reduce((a, v, i) => a + v * [0.2126, 0.7152, 0.0722][i], 0);
      const ghost = lum(rgb(getComputedStyle(root.querySelector('.spg-bar-ghost')).backgroundColor));
      const track = lum(rgb(getComputedStyle(root.querySelector('.spg-bar-track')).backgroundColor));
      return {
        contrast: (Math.max(ghost, track) + 0.05) / (Math.min(ghost, track) + 0.05),
        handles: [...root.querySelectorAll('[data-testid="bar-handle"]')].map((x) => getComputedStyle(x).opacity),
      };
    });
    const before = await look();
    expect(before.contrast).toBeGreaterThanOrEqual(3);
    expect(before.handles.length).toBe(4);
    expect(before.handles.every((o) => o === '0')).toBe(true);
    // hovered: that bar's handle shows
    await el(page).locator('[data-testid="prob-bar"]').nth(3).hover();
    await until(async () => (await look()).handles[3] === '1');
    expect((await look()).handles.filter((o) => o === '1')).toHaveLength(1);
  });

  it('"Copy embed code" opens inside the page at 1024 and 1280 px, over nothing: the text card moves down', async () => {
    for (const width of [1024, 1280]) {
      const page = await open({ hash: '#seed=3&steps=2', width, height: 800 });
      await page.getByTestId('copy-embed').click();
      await page.getByTestId('embed-code').waitFor();
      const box = await page.locator('.spg-embedcode-box').boundingBox();
      const text = await page.locator('.spg-text').first().boundingBox();
      expect(box.x, `${width}`).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width, `${width}`).toBeLessThanOrEqual(width);
      expect(box.y + box.height, `${width}`).toBeLessThanOrEqual(text.y);
    }
  });

  it('<sampler-question> with a hand-made model the engine refuses says so on load, before Check', async () => {
    const s = await h.serve(null, {
      mounts: { '/playground/': DIST },
      files: { '/favicon.ico': '', '/q.html': lesson('<sampler-question logits="2,1,x" ask="p1">The first token?</sampler-question>') },
    });
    const page = await open({ url: `${s.url}q.html`, wait: false });
    const error = page.locator('sampler-question [data-testid="question-error"]');
    await until(async () => (await error.isVisible()) && /x/.test(await error.textContent()), 15000);
    expect(await page.locator('sampler-question [data-testid="question-result"]').textContent()).toBe('');
  });

  it('model="URL" loads that llama2.c file (with its tokenizer); a missing one says so calmly and uses the bigram', async () => {
    pages['/files/tiny.bin'] = Buffer.from(randomCheckpoint({ vocab: 33, seqLen: 64 }));
    pages['/files/tok.bin'] = Buffer.from(charTokenizer());
    pages['/lessons/url.html'] = lesson(`
<sampler-playground model="../files/tiny.bin" tokenizer="/files/tok.bin" seed="1" steps="5" view="text,bars"></sampler-playground>
<sampler-playground model="/files/missing.bin" tokenizer="/files/tok.bin" seed="1" steps="2" view="text"></sampler-playground>`);
    h.allowed = [/Failed to load resource: the server responded with a status of 404/];
    const context = await newContext();
    const page = watch(await context.newPage());
    const workers = [];
    page.on('worker', (w) => workers.push(w.url()));
    await page.goto(`${site.url}lessons/url.html`);
    await until(async () => (await readyCount(page)) === 2, 15000);
    expect(workers).toHaveLength(2); // one per model (the missing one's Worker uses the bigram instead)
    expect(await el(page, 0).locator('[data-testid="prob-bar"]').count()).toBe(33);
    expect(await tokensIn(el(page, 0)).count()).toBe(5);
    expect(await el(page, 0).getByTestId('notice').count()).toBe(0);
    const notice = await el(page, 1).getByTestId('notice').textContent();
    expect(notice).toContain('missing.bin could not be fetched (HTTP 404)');
    expect(notice).toContain('Using Bigram names instead.');
    expect(await textIn(el(page, 1))).toBe(await engineText({ seed: 1, steps: 2 }));
  });

  it.skipIf(skipWithoutTransformer)('the transformer (3.2 MB) shows an accessible progress bar while it downloads', async () => {
    needTransformer();
    pages['/lessons/progress.html'] = lesson('<sampler-playground model="transformer" prompt="And" seed="1" view="text"></sampler-playground>', { src: '/slow/embed.js' });
    const page = await open({ url: `${site.url}lessons/progress.html`, wait: false });
    const bar = el(page).getByRole('progressbar');
    await bar.waitFor({ timeout: 10000 });
    expect(await bar.getAttribute('aria-label')).toBe('Loading Tiny transformer');
    const seen = [];
    while (await bar.count()) {
      const v = await bar.getAttribute('aria-valuenow').catch(() => null);
      if (v !== null) seen.push(Number(v));
      await page.waitForTimeout(40);
    }
    console.log(`e2e: progress seen ${seen.join(', ')}`);
    expect(seen.length).toBeGreaterThan(2);
    expect(seen.some((v) => v > 0 && v < 100)).toBe(true);
    expect([...seen].sort((x, y) => x - y)).toEqual(seen);
    await page.waitForSelector('sampler-playground [data-ready="true"]', { timeout: 15000 });
    // the page's model picker shows it too
    const main = await open({ url: `${site.url}slow/` });
    await main.getByLabel('Model', { exact: true }).selectOption('transformer');
    const pageBar = main.getByRole('progressbar', { name: 'Loading Tiny transformer' });
    await pageBar.waitFor({ timeout: 10000 });
    expect(Number(await pageBar.getAttribute('aria-valuenow'))).toBeGreaterThanOrEqual(0);
    await until(async () => (await main.getByTestId('model-info').textContent()).startsWith('transformer'), 15000);
    expect(await pageBar.count()).toBe(0);
  });
});
