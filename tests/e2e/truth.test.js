// The page tells the truth, in Debian's Chromium: a link reproduces a
// text whose settings moved during Play; a bar is always drawn at its
// value; speculative text is laid out as the text; defaults that do not
// produce degenerate text; focus and drags on bars; a phone layout with
// Play, the bars and a slider on screen together; and the smaller truths
// (the model menu while loading, the nucleus legend, settings that do not
// apply, whole labels and lines, the embed code, the element's notices).
import { describe, expect, it } from 'vitest';

import { charTokenizer, DIST, haveTransformer, IN_CI, needTransformer, randomCheckpoint, skipWithoutTransformer } from './fixtures.js';
import { generated, hashOf, skipWithoutChromium, lesson, stepTimes, until, useBrowser } from './harness.js';

const CHARS = '\n abcdefghijklmnopqrstuvwxyz';
/** a small character checkpoint and its tokenizer, as files to choose */
const checkpointFiles = () => [
  { name: 'tokenizer.bin', mimeType: 'application/octet-stream', buffer: Buffer.from(charTokenizer(CHARS)) },
  { name: 'chars.bin', mimeType: 'application/octet-stream', buffer: Buffer.from(randomCheckpoint({ vocab: 3 + CHARS.length, seqLen: 128, dim: 16, hidden: 32, layers: 2, scale: 1 })) },
];

const bars = (page) => page.locator('[data-testid="prob-bar"]');
const playing = (page) => page.locator('[data-playing="true"]').count();

/**
 * Every drawn bar against its value: fill and ghost lengths (px) and what
 * the scale says they must be, for a few animation frames in a row.
 * @returns {Promise<number>} the largest difference in px
 */
const worstBarError = (page, frames = 20) => page.evaluate(async (n) => {
  let worst = 0;
  for (let f = 0; f < n; f++) {
    await new Promise((r) => requestAnimationFrame(() => r()));
    const list = document.querySelector('[data-testid="prob-bars"]');
    const scale = list.dataset.scale;
    const rows = [...list.querySelectorAll('[data-testid="prob-bar"]')];
    const vals = rows.flatMap((r) => [Number(r.dataset.prob), Number(r.dataset.raw)]);
    const top = Math.max(...vals);
    const len = (p) => (scale === 'max' ? p / top : scale === 'log' ? (p > 0 ? Math.max(0, 1 + Math.log10(p) / 4) : 0) : p);
    for (const r of rows) {
      const track = r.querySelector('.spg-bar-track').getBoundingClientRect().width;
      const fill = r.querySelector('.spg-bar-fill').getBoundingClientRect().width;
      const ghost = r.querySelector('.spg-bar-ghost').getBoundingClientRect().width;
      worst = Math.max(worst, Math.abs(fill - track * Math.min(1, len(Number(r.dataset.prob)))),
        Math.abs(ghost - track * Math.min(1, len(Number(r.dataset.raw)))));
    }
  }
  return worst;
}, frames);

describe.skipIf(skipWithoutChromium)('the page tells the truth', () => {
  const { h, open } = useBrowser();

  it('a slider moved during Play: the link gives the same text, byte for byte', async () => {
    const page = await open({ hash: '#seed=42&speed=20' });
    await page.getByTestId('play').click();
    await until(async () => (await page.locator('[data-testid="output-token"]').count()) >= 8);
    await page.getByRole('slider', { name: /^Temperature/ }).fill('1.8'); // a drag, mid-text
    await until(async () => (await page.locator('[data-testid="output-token"]').count()) >= 20);
    await page.getByRole('slider', { name: /^Top-k/ }).fill('5');
    await until(async () => (await page.locator('[data-testid="output-token"]').count()) >= 30);
    await page.getByTestId('play').click();
    await until(async () => (await playing(page)) === 0);
    // while Play runs the link is written once a second; Pause brings the
    // pending write forward (150 ms), so the link has the last step
    await page.waitForTimeout(300);
    const text = await generated(page);
    const hash = await hashOf(page);
    expect(hash).toMatch(new RegExp(`[#&]steps=${await page.locator('[data-testid="output-token"]').count()}(&|$)`));
    expect(hash).toMatch(/changes=0_t1_k0,\d+_k0,\d+&/);
    const again = await open({ hash });
    expect(await generated(again)).toBe(text);
    // without the per-step settings the same link gives another text: the
    // changes are what makes it exact
    const plain = await open({ hash: hash.replace(/&changes=[^&]*/, '') });
    expect(await generated(plain)).not.toBe(text);
  });

  it('"Copy link" says whether the link gives this text: yes, or not with a model from a file', async () => {
    const page = await open({ hash: '#seed=3&steps=12' });
    await page.getByTestId('copy-link').click();
    await until(() => page.getByTestId('link-copied').textContent());
    expect(await page.getByTestId('link').inputValue()).toContain('#model=bigram&temperature=1&top_k=0&top_p=1&seed=3&steps=12');
    expect(await page.getByTestId('link-exact').textContent()).toContain('It gives this text exactly');
    await page.getByLabel('Model', { exact: true }).selectOption({ label: 'Load a model file…' });
    await page.getByTestId('model-file').setInputFiles(checkpointFiles());
    await until(async () => (await page.getByTestId('model-info').textContent()).includes('transformer'));
    await page.getByTestId('copy-link').click();
    await until(async () => (await page.getByTestId('link-caveat').count()) === 1);
    expect(await page.getByTestId('link-caveat').textContent()).toContain('loaded from a file');
    expect(await page.getByTestId('link-exact').count()).toBe(0);
  });

  it('bars are drawn at their values at speed 60 (no animation), on each scale; sample ticks follow the scale', async () => {
    const page = await open({ hash: '#seed=5&speed=60' });
    expect(await worstBarError(page, 3)).toBeLessThanOrEqual(1);
    await page.getByTestId('play').click();
    await until(async () => (await page.locator('[data-testid="output-token"]').count()) >= 5);
    expect(await worstBarError(page)).toBeLessThanOrEqual(1);
    for (const scale of ['max', 'log']) {
      await page.getByTestId(`scale-${scale}`).check();
      await until(async () => (await page.getByTestId('prob-bars').getAttribute('data-scale')) === scale);
      expect(await worstBarError(page)).toBeLessThanOrEqual(1);
    }
    await page.getByTestId('play').click();
    await until(async () => (await playing(page)) === 0);
    // the address bar's link is written once a second during Play, and at once after it
    await until(async () => (await hashOf(page)).includes('scale=log'));
    // the largest bar fills its track on the "× largest" scale, and the ticks go with the bars
    await page.getByTestId('scale-max').check();
    await page.getByRole('button', { name: 'Draw 1000 samples' }).click();
    await until(async () => (await page.getByTestId('sample-tick').count()) > 5);
    const ticks = await page.locator('[data-testid="prob-bar"]').evaluateAll((rows) => {
      const top = Math.max(...rows.flatMap((r) => [Number(r.dataset.prob), Number(r.dataset.raw)]));
      return rows.filter((r) => r.querySelector('[data-testid="sample-tick"]')).map((r) => {
        const tick = r.querySelector('[data-testid="sample-tick"]');
        const track = r.querySelector('.spg-bar-track').getBoundingClientRect();
        const at = tick.getBoundingClientRect().left + tick.getBoundingClientRect().width / 2 - track.left;
        return Math.abs(at - track.width * Math.min(1, Number(tick.dataset.freq) / top));
      });
    });
    expect(Math.max(...ticks)).toBeLessThanOrEqual(1.5);
    expect(await page.getByTestId('prob-bars').evaluate((el) => getComputedStyle(el.querySelector('.spg-bar-fill')).transitionDuration)).toBe('0s');
  });

  it('while Play runs the bars draw the rows their list shows (a spacer holds the others\' place); scrolled, the rows further down; all rows when it stops', async () => {
    const page = await open({ hash: '#seed=5&speed=60' });
    const list = page.getByTestId('prob-bars');
    const paused = await list.evaluate((el) => ({ height: el.scrollHeight, rows: el.querySelectorAll('[data-testid="prob-bar"]').length }));
    expect(paused.rows).toBe(54);
    await page.getByTestId('play').click();
    await until(async () => (await page.locator('[data-testid="output-token"]').count()) >= 5);
    const rest = page.getByTestId('prob-bars-rest');
    await until(async () => (await rest.count()) === 1);
    const playingView = await list.evaluate((el) => ({
      height: el.scrollHeight,
      client: el.clientHeight,
      rows: el.querySelectorAll('[data-testid="prob-bar"]').length,
      rest: Number(el.querySelector('[data-testid="prob-bars-rest"]').dataset.count),
    }));
    // fewer rows drawn, none lost, the scroll bar as long as before (a row is 24-26 px)
    expect(playingView.rows).toBeLessThan(54);
    expect(playingView.rows + playingView.rest).toBe(54);
    expect(playingView.rows * 24).toBeGreaterThanOrEqual(playingView.client);
    expect(Math.abs(playingView.height - paused.height)).toBeLessThanOrEqual(0.05 * paused.height);
    // scrolled to the end while playing: the rows there are drawn
    await list.evaluate((el) => { el.scrollTop = el.scrollHeight; });
    await until(async () => (await rest.count()) === 0 && (await bars(page).count()) === 54);
    expect(await playing(page)).toBe(1);
    await list.evaluate((el) => { el.scrollTop = 0; });
    await until(async () => (await rest.count()) === 1);
    // the keys walk the bars while they are redrawn: the focus stays on a bar
    // (its token's row is kept drawn) and is never dropped to the page
    await bars(page).first().locator('button').focus();
    const focusedBar = () => page.evaluate(() => !!document.activeElement?.closest('[data-testid="prob-bar"]'));
    for (let i = 0; i < 40; i++) {
      await page.keyboard.press('ArrowDown');
      await page.waitForTimeout(25);
      expect(await focusedBar()).toBe(true);
    }
    expect(await playing(page)).toBe(1);
    await page.getByTestId('play').click();
    await until(async () => (await playing(page)) === 0);
    await until(async () => (await bars(page).count()) === 54 && (await rest.count()) === 0);
    const sum = await bars(page).evaluateAll((els) => els.reduce((a, e) => a + Number(e.dataset.prob), 0));
    expect(Math.abs(sum - 1)).toBeLessThan(1e-3);
  });

  it.skipIf(skipWithoutTransformer)('speculative text is laid out as the same text written plainly: rejected drafts stay in the rounds', async () => {
    needTransformer();
    const page = await open({ hash: '#model=transformer&prompt=And%20God%20said&seed=11&strategy=speculative&draft=bigram&speculate=4&steps=12' });
    await until(async () => (await page.getByTestId('spec-round').count()) > 0);
    expect(await page.locator('[data-testid="spec-token"][data-rejected]').count()).toBeGreaterThan(0);
    const same = await page.getByTestId('output').evaluate((out) => {
      // the same characters in a plain copy of the box: same lines, same size
      const copy = out.cloneNode(false);
      copy.classList.remove('is-live');
      const live = out.classList.contains('is-live');
      out.classList.remove('is-live');
      copy.textContent = out.textContent;
      out.parentNode.appendChild(copy);
      const lines = (el) => {
        const r = document.createRange();
        r.selectNodeContents(el);
        return new Set([...r.getClientRects()].map((b) => Math.round(b.top - el.getBoundingClientRect().top + el.scrollTop))).size;
      };
      const result = { text: out.textContent === copy.textContent, height: out.scrollHeight === copy.scrollHeight, lines: [lines(out), lines(copy)] };
      copy.remove();
      if (live) out.classList.add('is-live');
      return result;
    });
    expect(same.text).toBe(true);
    expect(same.height).toBe(true);
    expect(same.lines[0]).toBe(same.lines[1]);
    expect(await page.locator('.spg-rounds .spg-draft.is-rejected').count()).toBeGreaterThan(0);
  });

  it.skipIf(skipWithoutTransformer)('beam search by default writes more than the prompt and a comma; the length penalty is explained', async () => {
    needTransformer();
    const page = await open({ hash: '#model=transformer&prompt=And%20God%20said' });
    await page.getByTestId('strategy-beam').check();
    await until(async () => (await page.getByTestId('length-penalty').inputValue()) === '1');
    await stepTimes(page, 30);
    await until(async () => (await page.getByTestId('beam-summary').textContent()).includes('30 steps'));
    const text = await generated(page);
    expect(text.length).toBeGreaterThan(20);
    expect(text).not.toBe(',');
    expect(await page.getByTestId('length-penalty-hint').textContent()).toContain('short texts');
    await until(async () => (await hashOf(page)).includes('length_penalty=1'));
    // an old link (no length_penalty: it meant 0) keeps its text
    const old = await open({ hash: '#model=transformer&prompt=And%20God%20said&strategy=beam&beams=4&steps=30' });
    await until(async () => (await generated(old)) === ',', 15000);
    expect(await old.getByTestId('length-penalty').inputValue()).toBe('0');
  });

  it.skipIf(skipWithoutTransformer)('"JSON object" is the first JSON choice, and its text parses to an object', async () => {
    needTransformer();
    const page = await open({ hash: '#model=transformer&seed=4&speed=60' });
    const kinds = await page.locator('.spg-constraint .spg-seg-opt').allTextContents();
    expect(kinds).toEqual(['None', 'Regex', 'JSON object', 'Any JSON']);
    await page.getByTestId('constraint-json_object').check();
    await until(async () => (await page.getByTestId('json-note').count()) === 1);
    await until(async () => (await hashOf(page)).includes('grammar=json_object'));
    await page.getByTestId('play').click();
    await until(async () => /finished|matches|complete/i.test(await page.getByTestId('status').textContent()), 30000);
    const text = await generated(page);
    const value = JSON.parse(text);
    expect(typeof value).toBe('object');
    expect(Array.isArray(value)).toBe(false);
    expect(value).not.toBe(null);
  });

  it('Enter on a focused bar bans it and keeps the focus on the bar; a press-and-drag on a bar is not a click', async () => {
    const page = await open({ hash: '#seed=8' });
    const first = bars(page).first();
    const token = await first.getAttribute('data-token');
    await first.locator('button').focus();
    await page.keyboard.press('Enter');
    await until(async () => (await hashOf(page)).includes(`ban=${token}`));
    await page.waitForTimeout(200); // the bars redraw with the ban
    const focused = await page.evaluate(() => document.activeElement?.closest('[data-testid="prob-bar"]')?.dataset.token ?? document.activeElement?.tagName);
    expect(focused).toBe(token);
    // the arrow keys go on from there
    await page.keyboard.press('ArrowDown');
    expect(await page.evaluate(() => !!document.activeElement?.closest('[data-testid="prob-bars"]'))).toBe(true);
    // a drag across a bar: no ban, no pick
    const other = bars(page).nth(3);
    const box = await other.boundingBox();
    const before = await hashOf(page);
    await page.mouse.move(box.x + 20, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + 120, box.y + box.height / 2, { steps: 5 });
    await page.mouse.up();
    await page.waitForTimeout(300);
    expect(await hashOf(page)).toBe(before);
    expect(await page.locator('[data-testid="output-token"]').count()).toBe(0);
    // a plain click still bans
    await other.click();
    await until(async () => (await hashOf(page)) !== before);
  });

  it('a phone (390 × 844): Play, the first bar and a slider are on screen together, and the slider moves the bars while playing', async () => {
    const page = await open({ hash: '#seed=9&steps=20', width: 390, height: 844 });
    // in the viewport, and seen: not under the sticky strip (nor anything else)
    const inView = async (loc) => {
      const b = await loc.boundingBox();
      const seen = await loc.evaluate((el) => {
        const r = el.getBoundingClientRect();
        const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
        return !!hit && (el === hit || el.contains(hit));
      });
      return !!b && seen && b.y >= 0 && b.y + b.height <= 844 && b.x >= 0 && b.x + b.width <= 390;
    };
    expect(await inView(page.getByTestId('play'))).toBe(true);
    // the text and the first bars (the fifth too) above the strip
    expect(await inView(page.getByTestId('output'))).toBe(true);
    expect(await inView(bars(page).first())).toBe(true);
    expect(await inView(bars(page).nth(4))).toBe(true);
    const quick = page.getByTestId('quick-slider');
    expect(await inView(quick)).toBe(true);
    expect(await quick.getAttribute('aria-label')).toBe('Quick setting: Temperature');
    await page.getByTestId('play').click();
    const entropy = await page.getByTestId('entropy').getAttribute('data-value');
    await quick.fill('0.3');
    await until(async () => (await page.getByTestId('entropy').getAttribute('data-value')) !== entropy);
    expect(await page.getByRole('slider', { name: /^Temperature/ }).inputValue()).toBe('0.3');
    await page.getByTestId('play').click();
    // after scrolling down the page, the strip is still there
    await page.mouse.wheel(0, 1500);
    await page.waitForTimeout(200);
    expect(await inView(page.getByTestId('play'))).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= 390)).toBe(true);
  });

  it('smaller truths: the model menu while loading, the nucleus legend, settings beam search does not use', async () => {
    const page = await open({ hash: '#seed=2&top_k=5' });
    // a slow model file: the menu names the model on its way, not the old one
    await page.route('**/transformer*.bin', async (route) => {
      await new Promise((r) => setTimeout(r, 800));
      await route.continue();
    });
    if (haveTransformer || IN_CI) {
      needTransformer();
      await page.getByLabel('Model', { exact: true }).selectOption('transformer');
      expect(await page.getByTestId('model-select').inputValue()).toBe('transformer');
      expect(await page.getByTestId('model-info').textContent()).toBe('Loading Tiny transformer…');
      await until(async () => (await page.getByTestId('model-info').textContent()).includes('transformer ·'), 15000);
      expect(await page.getByTestId('model-select').inputValue()).toBe('transformer');
    }
    // top-k cuts bars in the nucleus view: the legend says so
    await until(async () => (await page.getByTestId('nucleus-legend-cut').count()) === 1);
    expect(await page.getByTestId('nucleus-legend-cut').textContent()).toContain('top-k');
    // beam search: temperature and truncation do not apply, and say why
    await page.getByTestId('strategy-beam').check();
    // (the penalties' stage is closed while it is off: open it)
    await page.locator('[data-stage="penalties"] [data-testid="stage-more"]').click();
    await until(async () => (await page.getByRole('slider', { name: /^Temperature/ }).isDisabled()));
    expect(await page.getByRole('slider', { name: /^Top-p/ }).isDisabled()).toBe(true);
    expect(await page.getByRole('slider', { name: /^Repetition penalty/ }).isDisabled()).toBe(false);
    expect(await page.getByTestId('why-temperature').textContent()).toContain('Not used by beam search');
  });

  it('smaller truths: whole labels, whole lines in the text box', async () => {
    const constrained = await open({ hash: '#seed=6&steps=3&regex=[A-Z][a-z]{2,40}' });
    // "constraint" is written out on the bars it cut
    await until(async () => (await constrained.locator('[data-cut="constraint"]').count()) > 0);
    const cut = await constrained.locator('[data-cut="constraint"] .spg-bar-cut').first().evaluate((el) => [el.textContent, el.scrollWidth <= el.clientWidth]);
    expect(cut).toEqual(['constraint', true]);
    // a long text: the box shows whole lines when it follows the end
    const page = await open({ hash: '#seed=6&steps=200' });
    const lines = await page.getByTestId('output').evaluate((el) => {
      const lh = parseFloat(getComputedStyle(el).lineHeight);
      return { over: el.scrollHeight > el.clientHeight, top: el.scrollTop / lh, height: el.clientHeight / lh };
    });
    expect(lines.over).toBe(true);
    expect(lines.top % 1).toBeCloseTo(0, 5);
    expect(lines.height % 1).toBeCloseTo(0, 5);
    // compare mode: the preset menu shows whole names, the settings are written out beside
    await page.getByTestId('view-compare').click();
    await page.waitForSelector('[data-testid="compare"][data-ready="true"]');
    const fits = await page.getByTestId('preset-select').evaluateAll((els) => els.map((s) => {
      const span = document.createElement('span');
      span.style.font = getComputedStyle(s).font;
      span.textContent = s.selectedOptions[0].textContent;
      document.body.appendChild(span);
      const w = span.getBoundingClientRect().width;
      span.remove();
      return w + 24 <= s.clientWidth; // the text and the arrow
    }));
    expect(fits).toEqual([true, true, true]);
    expect(await page.getByTestId('panel-settings').first().textContent()).toBe('Greedy: T 0');
  });

  it('"Copy embed code" gives site paths and the page\'s controls; an element\'s view notice says what it shows', async () => {
    const page = await open({ hash: '#seed=4&temperature=0.8' });
    await page.getByTestId('copy-embed').click();
    const code = await page.getByTestId('embed-code').inputValue();
    expect(code).not.toContain('http');
    expect(code).toContain('src="/embed.js"');
    expect(code).toContain('controls="temperature,top-k,top-p,prompt,seed"');
    expect(await page.getByTestId('embed-iframe').inputValue()).toContain('src="/?embed=1#model=bigram');
    // the code, pasted into a lesson page: the element has the sliders
    const server = await h.serve(DIST, { files: { '/lesson.html': lesson(code.split('\n')[1], { src: '/embed.js' }) } });
    const el = await open({ url: `${server.url}lesson.html`, ready: 'sampler-playground [data-ready="true"]' });
    expect(await el.locator('sampler-playground').getByRole('slider', { name: /^Temperature/ }).inputValue()).toBe('0.8');
    // view="text,graph": the notice says what is shown, and that is what is shown
    const bad = await h.serve(DIST, { files: { '/bad.html': lesson('<sampler-playground view="text,graph"></sampler-playground>', { src: '/embed.js' }) } });
    const p2 = await open({ url: `${bad.url}bad.html`, ready: 'sampler-playground [data-ready="true"]' });
    const notice = await p2.locator('sampler-playground').getByTestId('notice').textContent();
    expect(notice).toContain('Ignored "graph" in view="text,graph"');
    expect(notice).toContain('showing text.');
    expect(await p2.locator('sampler-playground').getByTestId('prob-bars').count()).toBe(0);
  });
});
