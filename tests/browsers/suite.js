// The suite every browser engine runs (chromium.test.js, firefox.test.js,
// webkit.test.js): one browser per engine, one page, few page loads.
//
// - exactness: the matrix (matrix.js) through the built page's engine
//   Worker, SIMD and scalar (?wasm=scalar): every line byte-identical to the
//   native CLI's `generate --json`, every Worker answer's digest equal to
//   the same run in Node;
// - the scalar fallback on the page itself: ?wasm=scalar loads the scalar
//   build and pinned links still give their pinned texts;
// - journeys: first load, Step and Play, a slider dragged during Play, URL
//   hash restore (every pinned link of tests/golden/links.golden.json),
//   <sampler-playground> on a lesson page from a sub-path, and an offline
//   reload through the service worker.
//
// What each test found goes to build/browsers/ENGINE.json (table.mjs makes
// the README's table of it).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { loadEngineNode } from '../../web/src/engine/node.js';
import { DIST, FIXTURES, IN_CI, MODELS, ROOT } from '../e2e/fixtures.js';
import { serveStatic } from '../e2e/server.js';
import { LINK_CASES } from '../golden/cases.js';
import { launch, missing, until } from './drivers.js';
import { cliLine } from './matrix.js';
import { RUN_CASES as CASES, haveStories, matrixFiles, nativeOutputs, nodeRun } from './reference.js';

const here = path.dirname(fileURLToPath(import.meta.url));
export const RESULTS = path.join(ROOT, 'build', 'browsers');
const GOLDEN = JSON.parse(fs.readFileSync(path.join(ROOT, 'tests/golden/links.golden.json'), 'utf8'));
const EXACT_PAGE = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Exactness matrix</title></head><body><p>The exactness matrix runs here.</p></body></html>';

// ---- in the page (each function is sent as source: no closures) ----------------

/** the page's (or a <sampler-playground>'s) state: ready, outputs' generated texts, token count, hash */
const pageState = (hostSelector) => {
  const root = hostSelector ? document.querySelector(hostSelector)?.shadowRoot : document;
  if (!root) return { ready: false, outputs: [], tokens: 0, hash: location.hash };
  const outputs = [...root.querySelectorAll('[data-testid="output"]')].map((el) => {
    const prompt = el.querySelector('[data-testid="output-prompt"]')?.textContent ?? '';
    return (el.textContent ?? '').slice(prompt.length);
  });
  return {
    ready: !!root.querySelector('[data-ready="true"]'),
    outputs,
    tokens: root.querySelectorAll('[data-testid="output-token"]').length,
    hash: location.hash,
    playing: root.querySelector('[data-testid="play"]')?.getAttribute('aria-pressed') === 'true',
    bars: root.querySelectorAll('[data-testid="prob-bar"]').length,
  };
};

/** an element's box in viewport pixels, scrolled into view first */
const boxOf = (selector, hostSelector) => {
  const root = hostSelector ? document.querySelector(hostSelector).shadowRoot : document;
  const el = root.querySelector(selector);
  if (!el) return null;
  el.scrollIntoView({ block: 'center', inline: 'center' });
  const r = el.getBoundingClientRect();
  return { x: r.left + r.width / 2, y: r.top + r.height / 2, left: r.left, right: r.right, width: r.width, height: r.height, disabled: !!el.disabled };
};

/** sets a range input as a learner's input would (the speed; not under test) */
const setRange = (selector, value) => {
  const el = document.querySelector(selector);
  el.value = String(value);
  el.dispatchEvent(new Event('input', { bubbles: true }));
  return el.value;
};

const rangeValue = (selector) => document.querySelector(selector)?.value ?? null;

/** waits (in the page) until the service worker controls it; its cache's files */
const swControl = async () => {
  if (!('serviceWorker' in navigator)) return { supported: false };
  const controlled = (async () => {
    await navigator.serviceWorker.ready;
    if (!navigator.serviceWorker.controller) {
      await new Promise((r) => navigator.serviceWorker.addEventListener('controllerchange', r, { once: true }));
    }
    return true;
  })();
  if (!await Promise.race([controlled, new Promise((r) => setTimeout(() => r(false), 20000))])) {
    return { supported: true, controlled: false, registrations: (await navigator.serviceWorker.getRegistrations()).length };
  }
  const keys = await caches.keys();
  const files = keys.length ? (await (await caches.open(keys[0])).keys()).map((r) => new URL(r.url).pathname) : [];
  return { supported: true, controlled: true, keys, files };
};

// ---- in Node ---------------------------------------------------------------------

/** The bigram's text (without the prompt) when step i runs under paramsAt(i). */
async function textWith({ seed, prompt = '', steps, paramsAt, model = 'bigram' }) {
  const e = await loadEngineNode('simd');
  const m = e.loadModel(new Uint8Array(fs.readFileSync(path.join(MODELS, `${model}.bin`))));
  const s = e.createSession(m, null);
  s.start(prompt, seed);
  let text = '';
  for (let i = 0; i < steps && !s.finished; i++) text += s.step(paramsAt(i)).piece;
  s.free();
  m.free();
  return text;
}

/** where a first difference between two texts is, for a readable failure */
function firstDifference(want, got) {
  const a = want.split('\n'), b = got.split('\n');
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] !== b[i]) return `line ${i + 1}:\n  native:  ${a[i]}\n  browser: ${b[i]}`;
  }
  return 'same lines, other bytes';
}

/**
 * The suite for one engine.
 * @param {'chromium' | 'firefox' | 'webkit'} name
 */
export function engineSuite(name) {
  const absent = missing(name);
  const results = { engine: name, version: null, unavailable: absent || null, exact: {}, scalarPage: null, journeys: {}, offline: null, notes: [] };
  const save = () => {
    fs.mkdirSync(RESULTS, { recursive: true });
    fs.writeFileSync(path.join(RESULTS, `${name}.json`), `${JSON.stringify(results, null, 2)}\n`);
  };
  // under CI=true a browser that is missing fails the run; elsewhere it skips, saying so
  if (absent && IN_CI) throw new Error(`browsers: ${name}: ${absent} (required under CI=true)`);
  if (absent) {
    console.warn(`browsers: ${name} skipped: ${absent}`);
    save();
  }

  describe.skipIf(absent)(`the playground in ${name}`, () => {
    /** @type {import('./drivers.js').Driver} */
    let d;
    let server;
    let files;
    let native;
    let inNode;
    const extra = [];

    /** runs a test body; what it found (or its error) goes into results[area][key] */
    const check = (area, key, body) => async () => {
      const t0 = Date.now();
      const put = (v) => {
        if (key) results[area][key] = v;
        else results[area] = v;
      };
      try {
        const found = (await body()) ?? {};
        put({ status: 'pass', ms: Date.now() - t0, ...found });
      } catch (err) {
        put({ status: 'fail', ms: Date.now() - t0, error: String(err.message).split('\n').slice(0, 6).join('\n') });
        throw err;
      }
    };

    beforeAll(async () => {
      files = matrixFiles();
      native = nativeOutputs(files);
      inNode = await nodeRun(files, 'simd');
      const t0 = Date.now();
      d = await launch(name);
      results.version = d.version;
      console.log(`browsers: ${d.version} up in ${Date.now() - t0} ms`);
      server = await serveStatic(DIST, {
        mounts: { '/__fixtures__/': FIXTURES },
        files: {
          '/__exact__/index.html': EXACT_PAGE,
          '/__exact__/matrix.js': fs.readFileSync(path.join(here, 'matrix.js')),
          '/__exact__/stories-tokenizer.bin': fs.readFileSync(files.paths.storiesTokenizer),
          '/__exact__/matrix.gguf': fs.readFileSync(files.paths.gguf),
          '/favicon.ico': '',
        },
      });
    });

    afterAll(async () => {
      save();
      await d?.close();
      await server?.close();
      for (const s of extra) await s.close();
      if (files) fs.rmSync(files.dir, { recursive: true, force: true });
    });

    afterEach(async () => {
      await d?.collect?.();
      expect(d?.errors() ?? []).toEqual([]);
    });

    const serve = async (root, options) => {
      const s = await serveStatic(root, options);
      extra.push(s);
      return s;
    };

    it('Node and the native CLI agree on the matrix (the reference)', () => {
      if (!haveStories) console.log('browsers: the llama2.c fixture (../shared/fixtures/llama2c) is missing: its cases are left out of the matrix');
      for (const c of CASES) expect([c.name, inNode[c.name].text]).toEqual([c.name, native[c.name]]);
    });

    for (const flavor of /** @type {const} */ (['simd', 'scalar'])) {
      it(`the matrix in the page's engine Worker (${flavor}): byte-identical to the native CLI`, check('exact', flavor, async () => {
        const worker = fs.readdirSync(path.join(DIST, 'assets')).find((f) => /^engine\.worker-[\w-]+\.js$/.test(f));
        await d.goto(`${server.url}__exact__/index.html`);
        // (a string: a function here would have its import() rewritten for Node)
        const json = await d.run('async (w, f, urls, names) => (await import("/__exact__/matrix.js")).runInWorker(w, f, urls, names)',
          `/assets/${worker}`, flavor, { stories: haveStories ? '/__fixtures__/stories260K.bin' : null, storiesTokenizer: '/__exact__/stories-tokenizer.bin', gguf: '/__exact__/matrix.gguf' },
          CASES.map((c) => c.name));
        const out = JSON.parse(json);
        expect(out.backend).toBe(flavor === 'simd' ? 'wasm-simd128' : 'scalar');
        const bad = [];
        let lines = 0;
        for (const r of out.results) {
          const text = r.records.map(cliLine).join('');
          lines += r.records.length;
          if (!Buffer.from(text, 'utf8').equals(Buffer.from(native[r.name], 'utf8'))) bad.push(`${r.name}: ${firstDifference(native[r.name], text)}`);
          else if (r.digest !== inNode[r.name].digest) bad.push(`${r.name}: the Worker's answers differ from Node's (digest ${r.digest}, Node ${inNode[r.name].digest})`);
        }
        expect(out.results.map((r) => r.name)).toEqual(CASES.map((c) => c.name));
        expect(bad).toEqual([]);
        console.log(`browsers: ${name} ${flavor}: ${CASES.length} cases, ${lines} lines identical to the native CLI in ${Math.round(out.ms)} ms`);
        return { backend: out.backend, cases: CASES.length, lines, engineMs: Math.round(out.ms) };
      }));
    }

    /** waits until the page shows `want` (every output's generated text) */
    const showing = async (want, host, timeout = 30000) => {
      let s;
      try {
        return await until(async () => {
          s = await d.run(pageState, host);
          return s.ready && JSON.stringify(s.outputs) === JSON.stringify(want) && s;
        }, timeout, 'the texts');
      } catch {
        throw new Error(`after ${timeout} ms the page shows ${JSON.stringify(s)}, not ${JSON.stringify(want)}`);
      }
    };

    it('first load: a pinned link gives its text, every bar is drawn', check('journeys', 'firstLoad', async () => {
      const c = LINK_CASES.find((l) => l.name === 'bigram defaults');
      const t0 = Date.now();
      await d.goto(server.url + c.hash);
      const s = await showing(GOLDEN[c.name]);
      expect(s.bars).toBe(54); // the bigram: a bar for each of its 54 tokens
      return { msToText: Date.now() - t0 };
    }));

    it('URL-hash restore: every pinned link, by editing the hash in one page', check('journeys', 'hashRestore', async () => {
      await d.goto(server.url + LINK_CASES[0].hash);
      await showing(GOLDEN[LINK_CASES[0].name]);
      for (const c of LINK_CASES.slice(1)) {
        await d.run((h) => { location.hash = h; }, c.hash);
        try {
          await showing(GOLDEN[c.name]);
        } catch (err) {
          throw new Error(`${c.name} (${c.hash}): ${err.message}`);
        }
      }
      return { links: LINK_CASES.length };
    }));

    it('Step adds one token; Play grows the text and Pause stops it; the text is the seed\'s', check('journeys', 'stepPlay', async () => {
      await d.goto(`${server.url}#seed=11`);
      await until(async () => (await d.run(pageState)).ready);
      for (let n = 1; n <= 2; n++) {
        const b = await until(async () => { const x = await d.run(boxOf, '[data-testid="step"]'); return !x.disabled && x; });
        await d.click(b.x, b.y);
        await until(async () => (await d.run(pageState)).tokens === n);
      }
      await d.run(setRange, '[data-testid="speed"]', 30);
      const play = await d.run(boxOf, '[data-testid="play"]');
      await d.click(play.x, play.y);
      await until(async () => (await d.run(pageState)).tokens >= 20);
      await d.click(play.x, play.y);
      await until(async () => !(await d.run(pageState)).playing);
      await new Promise((r) => setTimeout(r, 300));
      const s = await d.run(pageState);
      await new Promise((r) => setTimeout(r, 400));
      expect((await d.run(pageState)).tokens).toBe(s.tokens); // paused
      expect(s.outputs).toEqual([await textWith({ seed: 11, steps: s.tokens, paramsAt: () => ({}) })]);
      return { tokens: s.tokens };
    }));

    it('a slider dragged during Play: the text takes the new setting from that step on', check('journeys', 'sliderDuringPlay', async () => {
      await d.goto(`${server.url}#seed=21&speed=12`);
      await until(async () => (await d.run(pageState)).ready);
      const play = await d.run(boxOf, '[data-testid="play"]');
      await d.click(play.x, play.y);
      await until(async () => (await d.run(pageState)).tokens >= 6);
      // the real pointer: press on the temperature thumb (value 1 of 0..2:
      // the middle), drag it past the track's left end: temperature 0 (every
      // move lands past the end, so no step is taken at a value in between)
      const t = await d.run(boxOf, 'input[type="range"][name="temperature"]');
      const before = (await d.run(pageState)).tokens;
      await d.drag([{ x: t.x, y: t.y }, { x: Math.max(2, t.left - 20), y: t.y }, { x: 1, y: t.y + 2 }]);
      const after = (await d.run(pageState)).tokens;
      expect(await d.run(rangeValue, 'input[type="range"][name="temperature"]')).toBe('0');
      await until(async () => (await d.run(pageState)).tokens >= after + 6); // Play went on
      const pause = await d.run(boxOf, '[data-testid="play"]');
      await d.click(pause.x, pause.y);
      await until(async () => !(await d.run(pageState)).playing);
      await new Promise((r) => setTimeout(r, 300));
      const s = await d.run(pageState);
      expect(s.hash).toContain('temperature=0');
      // the page's text: T 1 up to some step k taken while the thumb moved, T 0 after
      const candidates = [];
      for (let k = before; k <= after + 1; k++) candidates.push(await textWith({ seed: 21, steps: s.tokens, paramsAt: (i) => ({ temperature: i < k ? 1 : 0 }) }));
      expect(candidates).toContain(s.outputs[0]);
      if (s.hash.includes('changes=')) {
        // a link that records where the settings changed gives the same text
        await d.goto(`${server.url}__exact__/index.html`);
        await d.goto(server.url + s.hash);
        await showing(s.outputs);
      }
      return { tokens: s.tokens, dragDuring: [before, after], link: s.hash };
    }));

    it('<sampler-playground> on a lesson page, the playground served from a sub-path', check('journeys', 'embed', async () => {
      const site = await serve(null, {
        mounts: { '/courses/sampling/playground/': DIST },
        files: {
          '/courses/sampling/lessons/temperature.html': `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>A lesson</title>
<script type="module" src="../playground/embed.js"></script></head>
<body><h1>Temperature</h1><p>Press Step.</p>
<sampler-playground id="demo" seed="3" steps="5" controls="temperature" view="text,bars"></sampler-playground>
</body></html>`,
          '/favicon.ico': '',
        },
      });
      await d.goto(`${site.url}courses/sampling/lessons/temperature.html`);
      const want = (steps) => textWith({ seed: 3, steps, paramsAt: () => ({}) });
      await showing([await want(5)], '#demo');
      const b = await d.run(boxOf, '[data-testid="step"]', '#demo');
      await d.click(b.x, b.y);
      await showing([await want(6)], '#demo');
      const workers = site.requests.filter((u) => /engine\.worker-/.test(u));
      expect(workers.every((u) => u.startsWith('/courses/sampling/playground/assets/'))).toBe(true);
      return {};
    }));

    it('?wasm=scalar: the page runs the scalar build and pinned links give their texts', check('scalarPage', null, async () => {
      // a fresh origin: the first .wasm it asks for is the page's own (the
      // offline cache is only filled once the page is ready)
      const site = await serve(DIST);
      const names = ['transformer', 'bigram beam', 'transformer speculative', 'bigram json'];
      const first = LINK_CASES.find((c) => c.name === names[0]);
      await d.goto(`${site.url}?wasm=scalar${first.hash}`);
      await showing(GOLDEN[first.name]);
      const wasm = site.requests.filter((u) => u.endsWith('.wasm'));
      // the playground starts on the lesson engine (the whole one comes with a GGUF file)
      expect(wasm[0]).toMatch(/engine-lite-scalar-[\w-]+\.wasm$/);
      for (const n of names.slice(1)) {
        const c = LINK_CASES.find((l) => l.name === n);
        await d.run((h) => { location.hash = h; }, c.hash);
        await showing(GOLDEN[c.name]);
      }
      return { links: names.length };
    }));

    it('offline: after one visit, a reload with the server gone comes from the service worker', check('offline', null, async () => {
      const site = await serve(null, { mounts: { '/course/dist/': DIST } });
      const base = `${site.url}course/dist/`;
      await d.goto(`${base}#seed=2&steps=3`);
      const want = (steps) => textWith({ seed: 2, steps, paramsAt: () => ({}) });
      await showing([await want(3)]);
      const sw = await d.run(swControl);
      if (!sw.supported) {
        results.notes.push(`${name}: no service worker (navigator.serviceWorker is missing): the page works online, with no offline copy`);
        return { status: 'n/a', reason: 'navigator.serviceWorker is missing' };
      }
      expect(sw).toMatchObject({ controlled: true }); // (a build without the offline cache never gets here)
      expect(sw.files).toContain('/course/dist/index.html');
      await site.close();
      await d.reload();
      await showing([await want(3)]);
      const b = await until(async () => { const x = await d.run(boxOf, '[data-testid="step"]'); return !x.disabled && x; });
      await d.click(b.x, b.y);
      await showing([await want(4)]);
      return { cached: sw.files.length };
    }));
  });
}
