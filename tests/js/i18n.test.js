// The catalogues (web/src/i18n/): every language has every key of
// English (en.js and the engine's registry) and no other; the same named
// values and tags in each text; the plural forms its language uses
// (Intl.PluralRules); every key of en.js is used somewhere in the page's
// code and every key the code names is in en.js; and the words, numbers
// and messages come out as a learner reads them.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import registry from '../../web/src/shared/registry.gen.js';
import {
  ENGLISH, LANGUAGES, PSEUDO, SOURCE, browserLanguage, createI18n, english, loadLanguage, msg, normalizeLang, specialOf,
} from '../../web/src/i18n/index.js';
import { pseudoText } from '../../web/src/i18n/pseudo.js';
import { PAGE_WORDS, isPageWord } from '../../web/src/i18n/parts.js';
import { PAGE_ONLY } from '../../vite.config.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const OTHERS = LANGUAGES.map((l) => l.code).filter((c) => c !== SOURCE);

/** @param {string} code */
const catalogue = async (code) => (await import(`../../web/src/i18n/catalogues/${code}.js`)).default;
/** the named values of an entry (all its forms) */
const placeholders = (entry) => [...new Set((typeof entry === 'string' ? [entry] : Object.values(entry)).flatMap((t) => [...t.matchAll(/\{(\w+)\}/g)].map((m) => m[1])))].sort();
/** the tags of an entry's first form, in order */
const tags = (entry) => [...(typeof entry === 'string' ? entry : entry.other).matchAll(/<\/?\w+>/g)].map((m) => m[0]);
/** the plural categories a language uses for whole numbers */
function categories(locale) {
  const rules = new Intl.PluralRules(locale);
  const out = new Set();
  for (let n = 0; n <= 10000; n++) out.add(rules.select(n));
  return [...out].sort();
}

/** every source file of the page (not the tests) */
function sources(dir = path.join(ROOT, 'web/src')) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const f = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'catalogues' ? [] : sources(f);
    return /\.(js|jsx)$/.test(e.name) && !/\.test\./.test(e.name) && !e.name.endsWith('.gen.js') ? [f] : [];
  });
}

describe('the catalogues', () => {
  it('English has the registry\'s keys: every parameter and stage, in its own words', () => {
    for (const p of registry.params) {
      expect(ENGLISH[`param.${p.name}.label`]).toBe(p.label);
      expect(ENGLISH[`param.${p.name}.doc`]).toBe(p.doc);
      expect(ENGLISH[`param.${p.name}.special`]).toBe(specialOf(p)?.word);
    }
    for (const s of registry.stages) {
      expect(ENGLISH[`stage.${s.name}.label`]).toBe(s.label);
      expect(ENGLISH[`stage.${s.name}.doc`]).toBe(s.doc);
    }
    expect(ENGLISH['param.temperature.special']).toBe('greedy');
  });

  for (const code of OTHERS) {
    describe(code, () => {
      it('has every key of English and no other, every registry entry included', async () => {
        const cat = await catalogue(code);
        const missing = Object.keys(ENGLISH).filter((k) => !Object.hasOwn(cat, k));
        const unknown = Object.keys(cat).filter((k) => !Object.hasOwn(ENGLISH, k));
        expect(missing, `${code}: missing`).toEqual([]);
        expect(unknown, `${code}: not in English`).toEqual([]);
        for (const p of registry.params) expect(cat[`param.${p.name}.label`], p.name).toBeTruthy();
        for (const s of registry.stages) expect(cat[`stage.${s.name}.doc`], s.name).toBeTruthy();
      });

      it('says the same values and tags as English in every text, in its own plural forms', async () => {
        const cat = await catalogue(code);
        const locale = LANGUAGES.find((l) => l.code === code).locale;
        const forms = categories(locale);
        const bad = [];
        for (const [key, en] of Object.entries(ENGLISH)) {
          const tr = cat[key];
          if (tr === undefined) continue;
          if (JSON.stringify(placeholders(tr)) !== JSON.stringify(placeholders(en))) bad.push(`${key}: values ${placeholders(tr)} ≠ ${placeholders(en)}`);
          if (JSON.stringify(tags(tr)) !== JSON.stringify(tags(en))) bad.push(`${key}: tags ${tags(tr)} ≠ ${tags(en)}`);
          if ((typeof en === 'string') !== (typeof tr === 'string')) bad.push(`${key}: ${typeof en === 'string' ? 'a text' : 'plural forms'} in English`);
          else if (typeof tr !== 'string' && JSON.stringify(Object.keys(tr).sort()) !== JSON.stringify(forms)) {
            bad.push(`${key}: forms ${Object.keys(tr).sort()} ≠ ${forms}`);
          }
          for (const t of typeof tr === 'string' ? [tr] : Object.values(tr)) {
            if (!t.trim()) bad.push(`${key}: empty`);
            if (/\{(?!\w+\})|(?<!\{\w+)\}/.test(t.replace(/\{m,n\}|\{ … \}/g, ''))) bad.push(`${key}: a stray brace`);
          }
        }
        expect(bad).toEqual([]);
      });

      it('is a translation: few texts are the English ones', async () => {
        const cat = await catalogue(code);
        const texts = Object.keys(ENGLISH).filter((k) => typeof ENGLISH[k] === 'string' && ENGLISH[k].length > 12);
        const same = texts.filter((k) => cat[k] === ENGLISH[k]);
        expect(same.length / texts.length, same.join(', ')).toBeLessThan(0.05);
      });
    });
  }

  it('every key of en.js is used by the page, and every key the page names is there', () => {
    const KEY = /(['"`])([a-z][A-Za-z0-9]*(?:\.[a-z][A-Za-z0-9]*)+)\1/g;
    const groups = new Set(Object.keys(ENGLISH).map((k) => k.split('.')[0]));
    const named = new Set();
    // (models/manifest.json names each shipped model's key: "catalogue")
    for (const f of [...sources(), path.join(ROOT, 'models/manifest.json')]) {
      for (const m of fs.readFileSync(f, 'utf8').matchAll(KEY)) {
        const k = m[2];
        // (file names and "llama.cpp" are no keys)
        if (Object.hasOwn(ENGLISH, k) || (groups.has(k.split('.')[0]) && !/\.(bin|js|jsx|css|wasm|json|html|cpp)$/.test(k))) named.add(k);
      }
    }
    const fromRegistry = (k) => /^(param|stage)\./.test(k);
    const unused = Object.keys(ENGLISH).filter((k) => !fromRegistry(k) && !named.has(k));
    const missing = [...named].filter((k) => !Object.hasOwn(ENGLISH, k));
    expect(unused, 'keys no code uses').toEqual([]);
    expect(missing, 'keys the code uses that en.js lacks').toEqual([]);
  });

  it('the words only the page shows (i18n/parts.js): no code an element or a chapter runs names one', () => {
    // the page's own modules (vite.config.js PAGE_ONLY) and compare mode's view (the page's only)
    const pageFile = (f) => {
      const rel = path.relative(path.join(ROOT, 'web/src'), f).split(path.sep).join('/');
      return PAGE_ONLY.test(rel) || rel === 'components/CompareView.jsx' || rel === 'i18n/parts.js';
    };
    const pageKeys = Object.keys(ENGLISH).filter(isPageWord);
    expect(pageKeys.length).toBeGreaterThan(50);
    const found = [];
    for (const f of sources().filter((x) => !pageFile(x))) {
      const text = fs.readFileSync(f, 'utf8');
      for (const k of pageKeys) if (new RegExp(`['"\`]${k.replace('.', '\\.')}['"\`]`).test(text)) found.push(`${path.relative(ROOT, f)}: ${k}`);
      // a key made from a group's name ('chain.' + x, `link.${x}`)
      for (const g of PAGE_WORDS.groups) if (new RegExp(`['"\`]${g}\\.(['"\`]|\\$\\{)`).test(text)) found.push(`${path.relative(ROOT, f)}: ${g}.…`);
    }
    expect(found).toEqual([]);
  });
});

describe('the words, numbers and messages', () => {
  it('picks a plural form by the count, and fills in named values', () => {
    const en = english();
    expect(en.t('chain.cutHere', { count: 1 })).toBe('At this step it cut 1 token.');
    expect(en.t('chain.cutHere', { count: 1234 })).toBe('At this step it cut 1,234 tokens.');
    expect(en.t('no.such.key')).toBe('no.such.key');
  });

  it('writes numbers in the locale\'s signs with the digits of toFixed', async () => {
    await Promise.all(OTHERS.map(loadLanguage));
    const [en, de, es, zh] = ['en', 'de', 'es', 'zh'].map(createI18n);
    expect([en.pct(0.1234), de.pct(0.1234), es.pct(0.1234), zh.pct(0.1234)]).toEqual(['12.3%', '12,3\u00a0%', '12,3\u00a0%', '12.3%']);
    expect([en.pct(0.00001), de.pct(0), en.pct(0.05678)]).toEqual(['<0.01%', '0\u00a0%', '5.68%']);
    expect([en.fixed(1.005, 2), de.fixed(1.005, 2)]).toEqual([(1.005).toFixed(2), (1.005).toFixed(2).replace('.', ',')]);
    expect([en.int(32000), de.int(32000), es.int(32000), zh.int(32000)]).toEqual(['32,000', '32.000', '32.000', '32,000']);
    expect([de.fixed(-0.5, 1), de.num(0.05), en.fixed(NaN, 2)]).toEqual(['-0,5', '0,05', '–']);
  });

  it('knows the languages by their tags, and the browser\'s first one it has', () => {
    expect(['es-MX', 'DE', 'zh-Hans-CN', 'zh-TW', 'fr', 'pseudo', 'en-xa', ''].map(normalizeLang)).toEqual(['es', 'de', 'zh', 'zh', '', PSEUDO, PSEUDO, '']);
    expect(browserLanguage(['fr-FR', 'de-AT', 'en'])).toBe('de');
    expect(browserLanguage(['fr'])).toBe('en');
  });

  it('says a message in each language; the engine\'s English line is the detail, shown as it is only in English', async () => {
    await Promise.all(OTHERS.map(loadLanguage));
    const m = msg('notice.constraint', { error: msg('error.regex', {}, "regex: missing ')' at offset 5") });
    expect(String(m)).toBe("The link's constraint was not applied: regex: missing ')' at offset 5");
    expect(english().details(m)).toEqual([]);
    for (const code of OTHERS) {
      const i18n = createI18n(code);
      expect(i18n.text(m)).not.toContain('missing');
      expect(i18n.details(m)).toEqual(["regex: missing ')' at offset 5"]);
    }
  });

  it('the pseudo-locale: accented, about 40 % longer, right to left, values and tags kept', () => {
    const p = createI18n(PSEUDO);
    expect(p.dir).toBe('rtl');
    expect(pseudoText('Step {n} of <em>{count}</em>')).toMatch(/^\[Šţéþ \{n\} öƒ <em>\{count\}<\/em> .+\]$/);
    for (const [key, en] of Object.entries(ENGLISH)) {
      const text = p.template(key, 2);
      const source = typeof en === 'string' ? en : en.other;
      const visible = (/** @type {string} */ x) => x.replace(/\{\w+\}|<\/?\w+>/g, '').length;
      if (visible(source) > 8) expect(visible(text), key).toBeGreaterThanOrEqual(visible(source) * 1.3);
      expect(placeholders(text), key).toEqual(placeholders(source));
    }
    expect(p.t('transport.play')).not.toMatch(/[A-Za-z]/);
  });
});
