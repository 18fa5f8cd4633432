// Vite builds the playground (web/) into dist/ as static files with
// relative URLs; Vitest runs the JS tests (tests/js, web/src) in Node.
//
// dist/ has two entries: index.html (the page) and embed.js (the
// <sampler-playground> element; a stable, unhashed name lesson pages
// hard-code), which share hashed chunks in dist/assets/; and the course,
// dist/learn/: its index and one page per chapter (coursePages).  After the build,
// the plugin below writes dist/sw.js: the service worker with the list of
// the build's files and a cache name made from their contents.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { availableParallelism } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { defineConfig } from 'vite';

import { isPageWord } from './web/src/i18n/parts.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const SW_TEMPLATE = path.join(here, 'web/src/sw/sw.template.js');
/** model files larger than this (the transformer's checkpoint) are cached on first use, not at install;
 * the page's code is always cached at install (it is loaded before the service worker runs) */
const PRECACHE_MAX = 200 * 1024;

/** every file under dir, as '/'-separated paths relative to it, sorted */
function listFiles(dir, prefix = '') {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory()
    ? listFiles(path.join(dir, e.name), `${prefix}${e.name}/`)
    : [`${prefix}${e.name}`])).sort();
}

/**
 * Writes outDir/sw.js for the files in outDir: the ones to precache, the
 * large ones to cache on first use, and a version (the cache's name) that
 * changes whenever a file, or the list, does.
 * @param {string} outDir
 * @returns {{version: string, precache: string[], lazy: string[]}}
 */
export function writeServiceWorker(outDir) {
  const files = listFiles(outDir).filter((f) => f !== 'sw.js');
  const hash = crypto.createHash('sha256');
  for (const f of files) hash.update(`${f}\0`).update(fs.readFileSync(path.join(outDir, f))).update('\0');
  const size = (f) => fs.statSync(path.join(outDir, f)).size;
  const later = (f) => f.endsWith('.bin') && size(f) > PRECACHE_MAX;
  const build = {
    version: hash.digest('hex').slice(0, 16),
    precache: files.filter((f) => !later(f)),
    lazy: files.filter(later),
  };
  const source = fs.readFileSync(SW_TEMPLATE, 'utf8').replace('self.__SPG_BUILD__', JSON.stringify(build));
  fs.writeFileSync(path.join(outDir, 'sw.js'), source);
  return build;
}

/** The course's chapters: the folders of web/src/learn/chapters/ (each a chapter.js and its words). */
export function courseChapters() {
  const dir = path.join(here, 'web/src/learn/chapters');
  return fs.readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && fs.existsSync(path.join(dir, e.name, 'chapter.js')))
    .map((e) => e.name).sort();
}

/** where a chapter's page would be in web/ (it is made from web/learn/chapter.html) */
const chapterPage = (/** @type {string} */ slug) => path.join(here, 'web/learn', `${slug}.html`);

/**
 * The plugin: one page per chapter, dist/learn/SLUG.html, each the
 * template web/learn/chapter.html with its chapter's name in place of
 * %CHAPTER% (the pages are inputs of the build that exist only here).
 */
function coursePages() {
  const slugs = courseChapters();
  const page = (/** @type {string} */ id) => slugs.find((s) => chapterPage(s) === id || chapterPage(s) === path.join(here, 'web', id));
  return {
    name: 'spg-course-pages',
    resolveId(/** @type {string} */ id) {
      const slug = page(id);
      return slug ? chapterPage(slug) : null;
    },
    load(/** @type {string} */ id) {
      const slug = page(id);
      if (!slug) return null;
      return fs.readFileSync(path.join(here, 'web/learn/chapter.html'), 'utf8').replaceAll('%CHAPTER%', slug);
    },
  };
}

/** the course's inputs: its index and each chapter's page */
function courseInputs() {
  return Object.fromEntries([
    ['learn/index', path.join(here, 'web/learn/index.html')],
    ...courseChapters().map((slug) => [`learn/${slug}`, chapterPage(slug)]),
  ]);
}

/** the words of a catalogue file the build takes: an element's (core) or only the page's (page) */
const CATALOGUE_PART = /[\\/]i18n[\\/]catalogues[\\/][\w-]+\.js\?words=(core|page)$/;

/** index.js's own English in the build: none (it fetches en.js's words as it fetches any language's) */
const NO_ENGLISH = '\0spg-no-english';

/**
 * The plugin: each catalogue cut in two (web/src/i18n/parts.js says
 * which words only the page shows).  i18n/index.js finds the catalogue
 * files, English's too, as `catalogues/CODE.js?words=core` and
 * `?words=page`; here each is the catalogue's keys of that part.  Only in
 * the build: Vitest and the dev server leave the query alone and load
 * the whole file, as plain Node does.  index.js's static import of
 * English is empty here: a page in another language never loads English.
 */
function catalogueParts() {
  const index = path.join(here, 'web/src/i18n/index.js');
  return {
    name: 'spg-catalogue-parts',
    apply: 'build',
    enforce: 'pre',
    resolveId(/** @type {string} */ source, /** @type {string | undefined} */ importer) {
      // index.js's own English: none (English is a chunk fetched like the others)
      if (importer === index && source === './catalogues/en.js') return NO_ENGLISH;
      return null;
    },
    async load(/** @type {string} */ id) {
      if (id === NO_ENGLISH) return 'export default {};\n';
      const m = CATALOGUE_PART.exec(id);
      if (!m) return null;
      const file = id.slice(0, id.indexOf('?'));
      this.addWatchFile(file);
      const all = (await import(`${pathToFileURL(file).href}?at=${fs.statSync(file).mtimeMs}`)).default;
      const page = m[1] === 'page';
      const part = Object.fromEntries(Object.entries(all).filter(([k]) => isPageWord(k) === page));
      return `export default ${JSON.stringify(part)};\n`;
    },
  };
}

/** The plugin: dist/sw.js once the build's files are written. */
function serviceWorker() {
  let outDir = '';
  return {
    name: 'spg-service-worker',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    closeBundle() {
      if (outDir && fs.existsSync(path.join(outDir, 'index.html'))) writeServiceWorker(outDir);
    },
  };
}

/**
 * `vite build --mode package`: the npm package into build/package/ (see
 * package/README.md for what it is).  One module, sampler-playground.js
 * (the elements and the scripting API, with Preact inside), the engine
 * Worker, the two .wasm builds and the shipped models, all under their own
 * names, and the package's package.json, README.md and types
 * (package/build.js).  Every file the module needs is written as
 * `new URL("./name", import.meta.url)`: a lesson's bundler follows that
 * form and copies the file; without a bundler the module finds it next to
 * itself.
 */
function packageConfig() {
  return {
    root: here,
    base: './',
    publicDir: false,
    oxc: {
      jsx: { runtime: 'automatic', importSource: 'preact' },
    },
    plugins: [packageFiles(), packageEnglish()],
    build: {
      outDir: 'build/package',
      emptyOutDir: true,
      target: 'es2022',
      assetsInlineLimit: 0,
      modulePreload: false,
      reportCompressedSize: false,
      rolldownOptions: {
        input: { 'sampler-playground': path.join(here, 'package/src/sampler-playground.js') },
        preserveEntrySignatures: 'strict',
        output: {
          entryFileNames: '[name].js',
          assetFileNames: '[name][extname]',
          codeSplitting: false,
        },
      },
    },
    worker: {
      format: 'es',
      // one file: a lesson's bundler copies the Worker as an asset, without
      // chunks it would import (beam search and speculative decoding inlined)
      rolldownOptions: { output: { entryFileNames: '[name].js', assetFileNames: '[name][extname]', codeSplitting: false } },
    },
    experimental: {
      renderBuiltUrl: (/** @type {string} */ file, /** @type {{hostType: string}} */ { hostType }) => (hostType === 'js'
        ? { runtime: `new URL(${JSON.stringify(`./${file}`)}, import.meta.url).href` }
        : undefined),
    },
  };
}

/** The plugin: the package's one module has English once (index.js's loader of it is the module it imports). */
function packageEnglish() {
  const index = path.join(here, 'web/src/i18n/index.js');
  return {
    name: 'spg-package-english',
    enforce: 'pre',
    resolveId(/** @type {string} */ source, /** @type {string | undefined} */ importer) {
      return importer === index && source === './catalogues/en.js?words=core' ? path.join(here, 'web/src/i18n/catalogues/en.js') : null;
    },
  };
}

/** The plugin: the package's package.json, README.md and .d.ts beside the module. */
function packageFiles() {
  return {
    name: 'spg-package-files',
    apply: 'build',
    async generateBundle(_, bundle) {
      const { packageTexts } = await import('./package/build.js');
      for (const [fileName, source] of Object.entries(packageTexts(Object.keys(bundle)))) this.emitFile({ type: 'asset', fileName, source });
    },
  };
}

/** a module's path inside web/src/, '' outside it */
const inSrc = (/** @type {string} */ id) => {
  const rel = path.relative(path.join(here, 'web/src'), id.split('?')[0]).split(path.sep).join('/');
  return rel.startsWith('..') ? '' : rel;
};

/** what only the playground page shows (an element and a chapter never load it) */
export const PAGE_ONLY = /^(main\.jsx|components\/(Playground|ChainEditor|LabControls|ModelPicker|ModelMaker|CopyLink|EmbedCode)\.jsx)$/;
/** fetched when first shown (components/lazy.js), by the page and an element alike */
/**
 * The engine Worker's chunks: everything its entry imports in one chunk
 * (engine.host) beside the entry, and the code fetched on first use (beam
 * search, speculative decoding) in chunks of its own.  Left to itself the
 * bundler puts what those lazy chunks share with the entry into the entry,
 * and a lazy chunk importing it would run the Worker's entry a second time
 * under another URL — without its ?engine=lite, so a course chapter would
 * fetch the whole engine too (and a second host answer the page).
 */
const WORKER_CHUNKS = [
  {
    name: 'engine.host',
    test: (/** @type {string} */ id) => !/^(worker\/(engine\.worker|beam|speculative|watermark)|engine\/watermark)\.js$/.test(inSrc(id)),
    priority: 1,
  },
];

const ON_DEMAND = /^components\/((CompareView|Decoders|Tour|Words|Watermark|Cfg)\.jsx|(words\.texts|watermarkTexts|cfg\.texts)\.js)$/;

/**
 * The page's code in a few chunks, each loaded whole: the words and
 * Preact (which the course's index loads too), what the page and an
 * element share (the app layer and the components), and the page's own.
 * Left to itself the bundler cuts the shared code into many small chunks
 * by which of the 17 entries uses each module, and many small chunks
 * compress worse than a few large ones: each page's weight is budgeted
 * (200 KiB gzipped, tests/e2e/offline.test.js and course.test.js).
 */
const CHUNKS = [
  // the engine Worker's client and what boot.js needs to load the page's
  // code: boot.js starts the Worker before that code loads (the engine's
  // download and compilation then run beside it), which it cannot do while
  // its imports wait for the app's chunk
  {
    name: 'client',
    test: (/** @type {string} */ id) => /^worker\/(client|switch|models|protocol)\.js$/.test(inSrc(id)) || id.includes('vite/preload-helper'),
    priority: 7,
  },
  // (the offline cache's registration: the course's pages too)
  { name: 'register', test: (/** @type {string} */ id) => inSrc(id) === 'sw/register.js', priority: 5 },
  { name: 'preact', test: /node_modules[\\/](preact|@preact)[\\/]/, priority: 4 },
  { name: 'i18n', test: (/** @type {string} */ id) => !id.endsWith('?words=page') && /^(i18n\/(index|pseudo|language)\.js|shared\/registry\.gen\.js)$/.test(inSrc(id)), priority: 3 },
  {
    name: 'app',
    test: (/** @type {string} */ id) => /^(app|components|shared)\//.test(inSrc(id))
      && !ON_DEMAND.test(inSrc(id)) && !PAGE_ONLY.test(inSrc(id)),
    priority: 2,
  },
  { name: 'page', test: (/** @type {string} */ id) => PAGE_ONLY.test(inSrc(id)), priority: 1 },
  // English's words (an element's and a chapter's), fetched like any language's: a page in another language never loads them
  { name: 'catalogue-en', test: (/** @type {string} */ id) => id.endsWith('?words=core') && inSrc(id) === 'i18n/catalogues/en.js', priority: 6 },
  // each language's words only the page shows (catalogueParts): page-words-CODE-HASH.js
  { name: (/** @type {string} */ id) => (id.endsWith('?words=page') ? `page-words-${path.basename(id.split('?')[0], '.js')}` : null), priority: 6 },
];

const appConfig = {
  root: 'web',
  base: './',
  publicDir: false,
  oxc: {
    jsx: { runtime: 'automatic', importSource: 'preact' },
  },
  plugins: [coursePages(), catalogueParts(), serviceWorker()],
  build: {
    outDir: '../dist',
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: 0,
    rolldownOptions: {
      input: {
        index: path.join(here, 'web/index.html'),
        embed: path.join(here, 'web/src/embed/embed.jsx'),
        ...courseInputs(),
      },
      output: {
        entryFileNames: (chunk) => (chunk.name === 'embed' ? 'embed.js' : 'assets/[name]-[hash].js'),
        codeSplitting: { groups: CHUNKS },
      },
    },
  },
  server: {
    host: '127.0.0.1',
    fs: { allow: ['..'] },
  },
  worker: { format: 'es', rolldownOptions: { output: { codeSplitting: { groups: WORKER_CHUNKS } } } },
  test: {
    root: '.',
    include: ['tests/js/**/*.test.js', 'web/src/**/*.test.{js,jsx}'],
    // a test file on each core (Vitest's default leaves one core to itself:
    // on 2 cores, one file at a time; the files share nothing but temporary
    // folders of their own)
    maxWorkers: availableParallelism(),
    testTimeout: 60000,
    hookTimeout: 60000,
  },
};

export default defineConfig(({ mode }) => (mode === 'package' ? packageConfig() : appConfig));
