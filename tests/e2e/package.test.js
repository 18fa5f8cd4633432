// The npm package as a lesson author gets it: `npm pack` of build/package/,
// installed from its tarball into a fresh Vite site in a temporary folder
// (Vite itself from the npm registry, or npm's cache), the site of
// docs/lessons.md ("With a bundler") built as the guide writes it, its
// script type-checked against the package's types, the built site served
// at the root and from a sub-folder, and the package's file imported by a
// plain <script type="module"> (from a sub-folder, and from another origin
// with CORS).  In Chromium, each must render the element and give the
// `sampler` command line's exact text for its seed.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { loadEngineNode } from '../../web/src/engine/node.js';
import { GUIDE, VITE_EXAMPLE, guideExample } from '../../package/build.js';
import { MODELS, ROOT } from './fixtures.js';
import { skipWithoutChromium, until, useBrowser } from './harness.js';

const PACKAGE = path.join(ROOT, 'build/package');
const SAMPLER = path.join(ROOT, 'build/sampler');
const VERSION = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;
const TARBALL = `sampler-playground-${VERSION}.tgz`;
/** the Vite the repository uses: npm's cache has it */
const VITE = JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules/vite/package.json'), 'utf8')).version;
/** what the package must hold, and nothing else */
const FILES = ['README.md', 'bible_bigram.bin', 'bible_tiny.bin', 'bigram.bin', 'engine-lite-scalar.wasm', 'engine-lite-simd.wasm', 'engine-scalar.wasm', 'engine-simd.wasm', 'engine.worker.js', 'package.json',
  'sampler-playground.d.ts', 'sampler-playground.js', 'transformer.bin', 'transformer_tokenizer.bin'];

/** the newest modification time under dir (ms) */
function newest(dir) {
  let t = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : fs.statSync(p).mtimeMs);
  }
  return t;
}

/** build/package/ from the current sources (./build.sh has just built it; a bare vitest run may not have) */
function ensurePackage() {
  const main = path.join(PACKAGE, 'sampler-playground.js');
  const sources = Math.max(newest(path.join(ROOT, 'web/src')), newest(path.join(ROOT, 'package')), newest(MODELS),
    fs.statSync(GUIDE).mtimeMs, ...['engine-simd.wasm', 'engine-scalar.wasm', 'engine-lite-simd.wasm', 'engine-lite-scalar.wasm'].map((f) => fs.statSync(path.join(ROOT, 'build', f)).mtimeMs));
  if (fs.existsSync(main) && fs.statSync(main).mtimeMs >= sources) return;
  run('npx', ['vite', 'build', '--mode', 'package', '--logLevel', 'error'], { cwd: ROOT });
}

/** runs a command; its output, or an error with it */
function run(cmd, args, { cwd = ROOT } = {}) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** the CLI's text for a generation (the prompt and the text, without the final newline) */
function cliText(args) {
  const out = execFileSync(SAMPLER, ['generate', ...args], { encoding: 'utf8' });
  return out.endsWith('\n') ? out.slice(0, -1) : out;
}

/** the three likeliest next characters as the guide's lesson.js writes them, computed by the engine in Node */
async function likeliest(prompt, seed, params) {
  const e = await loadEngineNode('simd');
  const m = e.loadModel(new Uint8Array(fs.readFileSync(path.join(MODELS, 'bigram.bin'))));
  const s = e.createSession(m);
  s.start(prompt, seed);
  const rec = s.preview(params);
  const top = [...rec.probs.keys()].sort((a, b) => rec.probs[b] - rec.probs[a] || a - b).slice(0, 3);
  const text = top.map((id) => `${JSON.stringify(m.tokenizer.piece(id))} ${(100 * rec.probs[id]).toFixed(1)}%`).join(', ');
  s.free();
  m.free();
  return text;
}

/** a guide's example file's text (without its fence) */
const exampleText = (name) => guideExample(name).replace(/^```\w*\n/, '').replace(/\n```$/, '\n');

const output = (page, i = 0) => page.locator('sampler-playground').nth(i).locator('[data-testid="output"]').first();
const readyCount = (page) => page.locator('sampler-playground [data-testid="embed"][data-ready="true"]').count();

describe.skipIf(skipWithoutChromium)('the npm package', () => {
  const { h, newContext, watch } = useBrowser();
  let work;
  let site;
  let packed;

  beforeAll(async () => {
    ensurePackage();
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'spg-package-'));
    [packed] = JSON.parse(run('npm', ['pack', PACKAGE, '--pack-destination', work, '--json', '--loglevel=error']));
    // the guide's lesson site, in a fresh folder
    site = path.join(work, 'lesson-site');
    fs.mkdirSync(site);
    fs.writeFileSync(path.join(site, 'package.json'), `${JSON.stringify({ name: 'lesson-site', private: true, type: 'module' }, null, 2)}\n`);
    for (const f of VITE_EXAMPLE) fs.writeFileSync(path.join(site, f), exampleText(f));
    run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', '--save-dev', `vite@${VITE}`], { cwd: site });
    run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', path.join(work, packed.filename)], { cwd: site });
    run(process.execPath, [path.join(site, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'error'], { cwd: site });
  }, 300000);

  afterAll(() => {
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it('npm pack: the tarball named for the project holds only what the package needs; the READMEs give its size', () => {
    expect(packed.filename).toBe(TARBALL);
    expect(packed.files.map((f) => f.path).sort()).toEqual(FILES);
    expect(packed.entryCount).toBe(FILES.length);
    const pkg = JSON.parse(fs.readFileSync(path.join(site, 'node_modules/sampler-playground/package.json'), 'utf8'));
    expect(pkg.name).toBe('sampler-playground');
    expect(pkg.version).toBe(VERSION);
    expect(pkg.exports).toEqual({ '.': { types: './sampler-playground.d.ts', default: './sampler-playground.js' }, './package.json': './package.json' });
    expect(pkg.sideEffects).toEqual(['./sampler-playground.js']);
    expect(pkg.dependencies).toBeUndefined(); // Preact is inside the module
    expect(fs.readdirSync(path.join(site, 'node_modules/sampler-playground')).sort()).toEqual(FILES);
    // the size the READMEs state, within 5 %
    for (const file of ['README.md', 'package/README.md']) {
      const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
      const m = text.match(/tarball is\s+about\s+(\d+(?:\.\d+)?) MB,\s+(\d+(?:\.\d+)?) MB\s+unpacked/);
      expect(m, `${file} states the tarball's size`).toBeTruthy();
      expect(Math.abs(Number(m[1]) * 1e6 - packed.size) / packed.size).toBeLessThan(0.05);
      expect(Math.abs(Number(m[2]) * 1e6 - packed.unpackedSize) / packed.unpackedSize).toBeLessThan(0.05);
      expect(text).toContain(TARBALL);
    }
    expect(fs.readFileSync(GUIDE, 'utf8')).toContain(`build/${TARBALL}`);
  });

  it('the package\'s types check the guide\'s lesson.js, and catch a wrong one', () => {
    const wrong = exampleText('lesson.js')
      .replace('const { index, piece, p } = event.detail;', 'const { index, peice: piece, p } = event.detail;')
      .replace('session.generate(30)', 'session.generate(\'30\')');
    fs.writeFileSync(path.join(site, 'wrong.js'), wrong);
    // one program: the guide's file must have no error, the wrong one these two
    const r = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '--noEmit', '--allowJs', '--checkJs',
      '--strict', '--target', 'es2022', '--module', 'esnext', '--moduleResolution', 'bundler', '--lib', 'es2022,dom,dom.iterable',
      'lesson.js', 'wrong.js'], { cwd: site, encoding: 'utf8' });
    const errors = r.stdout.split('\n').filter((l) => /error TS/.test(l));
    expect(r.status).not.toBe(0);
    expect(errors.map((l) => l.replace(/^(\S+)\(\d+,\d+\): error (TS\d+).*$/, '$1 $2'))).toEqual(['wrong.js TS2339', 'wrong.js TS2345']);
    expect(errors[0]).toContain('Property \'peice\' does not exist on type \'SamplerTokenDetail\'');
    expect(errors[1]).toContain('Argument of type \'string\' is not assignable to parameter of type \'number\'');
  });

  /** The built site at a URL: the element's text, the script's text and numbers, the events. */
  async function checkSite(url, prefix) {
    const page = watch(await (await newContext({ width: 1100 })).newPage());
    const workers = [];
    page.on('worker', (w) => workers.push(w.url()));
    await page.goto(url);
    await until(async () => (await readyCount(page)) === 1 && (await page.locator('#scripted').textContent()) !== '', 20000);
    const want = cliText(['--model', 'bigram', '--prompt', 'Ma', '--seed', '7', '--steps', '30', '--temperature', '0.8']);
    expect(await output(page).textContent()).toBe(want);
    expect(await page.locator('#scripted').textContent()).toBe(want);
    expect(await page.locator('#likeliest').textContent()).toBe(await likeliest('Ma', 7, { temperature: 0.8 }));
    // the last token the element drew, heard by the lesson's script
    const last = JSON.stringify(want.slice(-1));
    expect(await page.locator('#heard').textContent()).toMatch(new RegExp(`^Token 30: ${last.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')} \\(p = 0\\.\\d{3}\\)$`));
    // Step draws token 31: the CLI's 31st character
    await page.locator('sampler-playground').getByRole('button', { name: 'Step', exact: true }).click();
    const next = cliText(['--model', 'bigram', '--prompt', 'Ma', '--seed', '7', '--steps', '31', '--temperature', '0.8']);
    await until(async () => (await page.locator('#heard').textContent()).startsWith('Token 31:'));
    expect(await page.locator('#heard').textContent()).toContain(`Token 31: ${JSON.stringify(next.slice(-1))}`);
    // the slider: a settings event
    const slider = page.locator('sampler-playground').getByRole('slider', { name: /^Temperature/ });
    await slider.focus();
    await page.keyboard.press('ArrowLeft');
    await until(async () => (await page.locator('#heard').textContent()) === 'Temperature 0.75');
    // one Worker, from the site's own files under its folder
    expect(workers).toHaveLength(1);
    expect(workers[0].startsWith(new URL(`${prefix}assets/`, url).href)).toBe(true);
    await page.close();
  }

  it('the Vite site from the package: the element and the script give the CLI\'s text, at the root and from a sub-folder', async () => {
    const dist = path.join(site, 'dist');
    const root = await h.serve(dist, { files: { '/favicon.ico': '' } });
    await checkSite(root.url, '/');
    const deep = await h.serve(null, { mounts: { '/courses/llm/week-2/': dist }, files: { '/favicon.ico': '' } });
    await checkSite(`${deep.url}courses/llm/week-2/`, '/courses/llm/week-2/');
    expect(deep.requests.filter((u) => !u.startsWith('/courses/llm/week-2/') && u !== '/favicon.ico')).toEqual([]);
    // what the bundler copied: the Worker, one engine build each reader needs, the models
    // (the transformer's drafts among them: a page fetches them only to draft)
    const assets = fs.readdirSync(path.join(dist, 'assets')).map((f) => f.replace(/-[\w-]{8}\./, '.')).sort();
    expect(assets).toEqual(['bible_bigram.bin', 'bible_tiny.bin', 'bigram.bin', 'engine-lite-scalar.wasm', 'engine-lite-simd.wasm', 'engine-scalar.wasm', 'engine-simd.wasm', 'engine.worker.js', 'index.js', 'transformer.bin']);
  });

  it('a plain <script type="module"> of the package\'s file: from a sub-folder, and from another origin (CORS)', async () => {
    const installed = path.join(site, 'node_modules/sampler-playground');
    const page = (src) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>A lesson</title>
<script type="module" src="${src}"></script></head>
<body>
<sampler-playground model="bigram" prompt="Ma" seed="7" temperature="0.8" steps="30"></sampler-playground>
<sampler-playground model="transformer" prompt="And God said" seed="5" steps="40" temperature="0.5"></sampler-playground>
</body></html>`;
    const cdn = await h.serve(null, { cors: true, mounts: { '/npm/sampler-playground/': installed } });
    const lessons = await h.serve(null, {
      mounts: { '/lessons/week-1/node_modules/sampler-playground/': installed },
      files: {
        '/favicon.ico': '',
        '/lessons/week-1/plain.html': page('node_modules/sampler-playground/sampler-playground.js'),
        '/lessons/week-1/cdn.html': page(`${cdn.url}npm/sampler-playground/sampler-playground.js`),
        // a script alone: it loads the transformer itself, with progress
        '/lessons/week-1/script.html': `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A script</title></head><body>
<script type="module">
import { createSession } from './node_modules/sampler-playground/sampler-playground.js';
const progress = [];
const s = await createSession({ model: 'transformer', prompt: 'And God said', seed: 5, params: { temperature: 0.5 },
  onProgress: (loaded, total) => progress.push([loaded, total]) });
await s.generate(40);
document.body.dataset.text = s.prompt + s.text;
document.body.dataset.progress = JSON.stringify(progress.at(-1));
</script></body></html>`,
      },
    });
    const bigram = cliText(['--model', 'bigram', '--prompt', 'Ma', '--seed', '7', '--steps', '30', '--temperature', '0.8']);
    const transformer = cliText(['--model', 'transformer', '--prompt', 'And God said', '--seed', '5', '--steps', '40', '--temperature', '0.5']);
    for (const name of ['plain.html', 'cdn.html']) {
      const p = watch(await (await newContext()).newPage());
      await p.goto(`${lessons.url}lessons/week-1/${name}`);
      await until(async () => (await readyCount(p)) === 2, 20000);
      expect([name, await output(p, 0).textContent()]).toEqual([name, bigram]);
      expect([name, await output(p, 1).textContent()]).toEqual([name, transformer]);
      await p.close();
    }
    const p = watch(await (await newContext()).newPage());
    await p.goto(`${lessons.url}lessons/week-1/script.html`);
    await until(async () => (await p.locator('body[data-text]').count()) === 1, 20000);
    expect(await p.locator('body').getAttribute('data-text')).toBe(transformer);
    const size = fs.statSync(path.join(installed, 'transformer.bin')).size;
    expect(JSON.parse(await p.locator('body').getAttribute('data-progress'))).toEqual([size, size]);
    await p.close();
    // the other origin served the module, its Worker, one engine build and the models
    const fromCdn = new Set(cdn.requests.map((u) => u.replace('/npm/sampler-playground/', '')));
    // the shipped models' elements run the lesson engine (engine/browser.js)
    expect([...fromCdn].sort()).toEqual(['bigram.bin', 'engine-lite-simd.wasm', 'engine.worker.js?engine=lite', 'sampler-playground.js', 'transformer.bin', 'transformer_tokenizer.bin']);
  });
});
