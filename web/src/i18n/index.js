// @ts-check
/**
 * i18n — every word the playground shows, in the learner's language.
 *
 * One catalogue per language (en.js is the source; es.js, de.js, zh.js
 * hold the same keys), flat keys grouped by component ("bars.other"), each
 * a string with named placeholders ("{count} tokens") and simple tags
 * (<em>, <strong>, <code>, <sup>) for the few rich texts, or an object of
 * plural forms by the language's plural categories (Intl.PluralRules: one,
 * other, …) chosen by the `count` value.  The engine's registry (every
 * sampler parameter and stage, c/engine/sampler/params.c) is the English
 * source of the keys param.NAME.label / .doc / .special and
 * stage.NAME.label / .doc; the other catalogues translate them by key.
 *
 * Every catalogue, English's too, is a chunk of its own loaded when its
 * language is chosen (loadLanguage): a page in Spanish fetches Spanish
 * only.  (The build gives index.js an empty English, vite.config.js
 * catalogueParts; Vitest and plain Node have the whole file at hand.)  The build
 * cuts each catalogue in two (parts.js): the words an element shows, and
 * those only the playground page shows, which the page fetches with its
 * language (withPageWords) and an element never needs.  The
 * pseudo-locale en-XA is made from English at run time (pseudo.js): every
 * letter accented, every text about 40 % longer and in brackets, the page
 * right to left — what a layout must survive.
 *
 * Numbers are written for the language (Intl: the decimal sign, grouping,
 * the percent sign's place), with the digits of the fixed-point form the
 * page always used (toFixed), so a value reads the same number in every
 * language.  Nothing here changes what a link, the CLI, the generated text
 * or a data-* attribute holds.
 *
 * The app layer says what happened as a Msg (a key, its values, and the
 * engine's or the Worker's own English message when there is one);
 * components say it in the language on hand (I18n.text), so a notice or
 * an error follows a change of language.
 */
import { signal } from '@preact/signals';

import registry from '../shared/registry.gen.js';
import EN from './catalogues/en.js';
import { pseudoCatalogue } from './pseudo.js';

/** @typedef {string | Record<string, string>} Entry  a text, or its plural forms by category */
/** @typedef {Record<string, Entry>} Catalogue */

/** the catalogue every other one translates */
export const SOURCE = 'en';
/** the pseudo-locale: accented, longer, right to left */
export const PSEUDO = 'en-XA';

/**
 * The catalogues besides English: one file each in catalogues/, named by
 * its language's code (es.js), fetched when that language is chosen (one
 * chunk each).  Adding a language is adding its file (docs/lessons.md).
 * @type {Record<string, () => Promise<{default: Catalogue}>>}
 */
const LOADERS = Object.fromEntries(Object.entries(catalogueFiles())
  .map(([file, load]) => [file.replace(/^.*\/|\.js$/g, ''), /** @type {() => Promise<{default: Catalogue}>} */ (load)]));

/** The catalogue files, as Vite (the page, the package, Vitest) finds them; plain Node (a build script reading attrs.js) has English only. */
function catalogueFiles() {
  try {
    return import.meta.glob('./catalogues/*.js', { query: '?words=core' });
  } catch {
    return {};
  }
}

/**
 * The words only the page shows, English's too, one chunk per language
 * (in the build; elsewhere the whole catalogue again, which changes
 * nothing).
 * @type {Record<string, () => Promise<{default: Catalogue}>>}
 */
const PAGE_LOADERS = Object.fromEntries(Object.entries(pageWordFiles())
  .map(([file, load]) => [file.replace(/^.*\/|\.js$/g, ''), /** @type {() => Promise<{default: Catalogue}>} */ (load)]));

function pageWordFiles() {
  try {
    return import.meta.glob('./catalogues/*.js', { query: '?words=page' });
  } catch {
    return {};
  }
}

/** languages written right to left (where Intl cannot say: Intl.Locale's textInfo) */
const RTL = new Set(['ar', 'dv', 'fa', 'he', 'ks', 'ku', 'ps', 'sd', 'ug', 'ur', 'yi']);

/**
 * A language: its code (the catalogue's file name, and lang=), its own
 * name (Intl.DisplayNames, in that language), the locale numbers and
 * plurals follow, and its writing direction.
 * @typedef {{code: string, name: string, locale: string, dir: 'ltr' | 'rtl'}} Language
 */

/** @param {string} code @returns {Language} */
function languageOf(code) {
  let name = code;
  try {
    const own = new Intl.DisplayNames([code], { type: 'language' }).of(code) ?? code;
    name = own.charAt(0).toLocaleUpperCase(code) + own.slice(1);
  } catch { /* an engine without Intl.DisplayNames: the code */ }
  /** @type {any} */
  const info = new Intl.Locale(code);
  const direction = (info.getTextInfo?.() ?? info.textInfo)?.direction;
  return { code, name, locale: code, dir: direction === 'rtl' || (!direction && RTL.has(code.split('-')[0])) ? 'rtl' : 'ltr' };
}

/** The languages on offer: English, then the catalogues' by their codes. */
export const LANGUAGES = [SOURCE, ...Object.keys(LOADERS).filter((c) => c !== SOURCE).sort()].map(languageOf);
/** @type {Language} */
const PSEUDO_LANGUAGE = { code: PSEUDO, name: 'Pseudo (en-XA)', locale: 'en', dir: 'rtl' };

/**
 * A registry parameter's special value and its word, from its doc
 * ("...; 0 = greedy"): what its slider says at that value.
 * @param {{doc: string}} p
 * @returns {{value: number, word: string} | null}
 */
export function specialOf(p) {
  const m = /;\s*(-?[\d.]+) = ([^;]+)$/.exec(p.doc);
  return m ? { value: Number(m[1]), word: m[2] } : null;
}

/**
 * The keys the engine's registry gives, with their English (the registry's
 * own words).
 * @returns {Catalogue}
 */
export function registryCatalogue() {
  /** @type {Catalogue} */
  const out = {};
  for (const p of registry.params) {
    out[`param.${p.name}.label`] = p.label;
    out[`param.${p.name}.doc`] = p.doc;
    const special = specialOf(p);
    if (special) out[`param.${p.name}.special`] = special.word;
  }
  for (const s of [...registry.stages, ...registry.terminal]) {
    out[`stage.${s.name}.label`] = s.label;
    out[`stage.${s.name}.doc`] = s.doc;
  }
  return out;
}

/** English: en.js and the registry's words (in the build, en.js's once loadLanguage has fetched them: until then the registry's) */
export const ENGLISH = /** @type {Catalogue} */ ({ ...EN, ...registryCatalogue() });
/** whether en.js's words are here */
let englishHere = Object.keys(EN).length > 0;

/** @type {Map<string, Catalogue>} */
const catalogues = new Map([[SOURCE, ENGLISH]]);
/** @type {Map<string, Promise<Catalogue>>} */
const loading = new Map();

/** the page's own words, by language, once here */
/** @type {Map<string, Catalogue>} */
const pageWords = new Map();
/** @type {Map<string, Promise<void>>} */
const pageLoading = new Map();
/** whether this page shows its own words (the playground page does: withPageWords) */
let withPage = false;
/** how many languages' page words have come: what reads a word that was missing re-renders when they do */
const pageWordsCame = signal(0);

/**
 * The playground page shows its own words too: each language's are
 * fetched with its catalogue (loadLanguage) from now on.
 */
export function withPageWords() {
  withPage = true;
}

/**
 * Fetches a language's page words (once).
 * @param {string} code
 * @returns {Promise<void>}
 */
function loadPageWords(code) {
  let p = pageLoading.get(code);
  if (!p) {
    const loader = PAGE_LOADERS[code];
    p = loader ? loader().then((m) => {
      pageWords.set(code, m.default);
      pageWordsCame.value++;
    }) : Promise.resolve();
    p.catch(() => pageLoading.delete(code)); // offline: try again next time
    pageLoading.set(code, p);
  }
  return p;
}

/**
 * A key no loaded words have: if it may be one of the page's words not
 * yet here (an element naming one), fetch them; what reads it re-renders
 * when they come (it reads the signal).
 * @param {string} code
 */
function missing(code) {
  void pageWordsCame.value;
  for (const c of new Set([code, SOURCE])) if (!pageLoading.has(c)) loadPageWords(c).catch(() => {});
}

/**
 * The language code a tag names, or '' when it is none of ours: "es-MX"
 * is Spanish, "zh-Hans-CN" and "zh-TW" Chinese (the simplified
 * catalogue), "pseudo" and "en-XA" the pseudo-locale.
 * @param {string | null | undefined} tag
 */
export function normalizeLang(tag) {
  const t = String(tag ?? '').trim().toLowerCase().replaceAll('_', '-');
  if (!t) return '';
  if (t === 'pseudo' || t === PSEUDO.toLowerCase()) return PSEUDO;
  const base = t.split('-')[0];
  return LANGUAGES.some((l) => l.code === base) ? base : '';
}

/**
 * The browser's language among ours (its preference order), else English.
 * @param {readonly string[]} [tags] navigator.languages
 */
export function browserLanguage(tags = typeof navigator !== 'undefined' ? navigator.languages ?? [navigator.language] : []) {
  for (const tag of tags) {
    const code = normalizeLang(tag);
    if (code && code !== PSEUDO) return code;
  }
  return SOURCE;
}

/** Whether a language's catalogue is here (English and the pseudo-locale always are). @param {string} code */
export function isLoaded(code) {
  return code === PSEUDO || code === SOURCE ? englishHere : catalogues.has(code);
}

/** Whether a language's catalogue is on its way (asked for, not here yet): words shown in English now change soon. */
export function languageComing() {
  for (const code of loading.keys()) if (!isLoaded(code)) return true;
  return false;
}

/**
 * Fetches a language's catalogue (once); English and the pseudo-locale
 * need nothing.
 * @param {string} code
 * @returns {Promise<Catalogue>}
 */
export function loadLanguage(code) {
  const own = ownCatalogue(code);
  if (!withPage) return own;
  return Promise.all([own, loadPageWords(code === PSEUDO ? SOURCE : code)]).then(([c]) => c);
}

/** @param {string} code @returns {Promise<Catalogue>} */
function ownCatalogue(code) {
  if (code === PSEUDO) return ownCatalogue(SOURCE).then(pseudoOnce);
  const have = catalogues.get(code);
  if (have && isLoaded(code)) return Promise.resolve(have);
  const loader = LOADERS[code];
  if (!loader) return Promise.reject(new RangeError(`no catalogue for the language "${code}"`));
  let p = loading.get(code);
  if (!p) {
    p = loader().then((m) => {
      if (code !== SOURCE) {
        catalogues.set(code, m.default);
        return m.default;
      }
      Object.assign(ENGLISH, m.default, registryCatalogue());
      englishHere = true;
      return ENGLISH;
    });
    p.catch(() => loading.delete(code)); // offline: try again next time
    loading.set(code, p);
  }
  return p;
}

/** @type {Catalogue | null} */
let pseudoCat = null;
function pseudoOnce() {
  if (!pseudoCat) pseudoCat = pseudoCatalogue(ENGLISH);
  return pseudoCat;
}

// ---------------------------------------------------------------- messages

/**
 * Something to say, in whatever language is on hand: a key and its values
 * (numbers, texts, or other messages); `detail` is the English message the
 * engine or the Worker wrote, when there is one — English shows it as it
 * is, every other language its own words with the detail beneath.
 * @typedef {{key: string, vars: Record<string, unknown>, detail: string, toString: () => string}} Msg
 */

/**
 * A message.  Its String() is English (logs, tests).
 * @param {string} key @param {Record<string, unknown>} [vars] @param {string} [detail]
 * @returns {Msg}
 */
export function msg(key, vars = {}, detail = '') {
  return {
    key, vars, detail,
    toString() {
      return english().text(this);
    },
  };
}

/** Whether a value is a message (msg()). @param {unknown} x @returns {x is Msg} */
export function isMsg(x) {
  return !!x && typeof x === 'object' && typeof /** @type {any} */ (x).key === 'string' && 'vars' in /** @type {any} */ (x);
}

/** @typedef {string | Msg} Text  a text as it is, or a message to say */

// ---------------------------------------------------------------- numbers

/**
 * The number symbols of a locale: decimal sign, minus, percent pattern,
 * and an integer formatter (grouping as the locale groups).
 * @param {string} locale
 */
function numberSymbols(locale) {
  const parts = new Intl.NumberFormat(locale, { minimumFractionDigits: 1 }).formatToParts(-1.5);
  const decimal = parts.find((p) => p.type === 'decimal')?.value ?? '.';
  const minus = parts.find((p) => p.type === 'minusSign')?.value ?? '-';
  const percent = new Intl.NumberFormat(locale, { style: 'percent' }).formatToParts(0.5)
    .map((p) => (p.type === 'integer' ? '{n}' : p.value)).join('');
  const integer = new Intl.NumberFormat(locale, { maximumFractionDigits: 0 });
  return { decimal, minus, percent, integer };
}

// ---------------------------------------------------------------- I18n

/**
 * The playground's words and numbers in one language.
 * @typedef {Object} I18n
 * @property {string} lang   the language's code (en, es, de, zh, en-XA)
 * @property {string} locale what numbers and plurals follow (Intl)
 * @property {'ltr' | 'rtl'} dir
 * @property {(key: string, vars?: Record<string, unknown>) => string} t  a key's text with its values
 * @property {(key: string, count?: number) => string} template  a key's raw text (the plural form for count)
 * @property {(key: string) => boolean} has
 * @property {(x: Text | null | undefined) => string} text  a text, or a message in this language
 * @property {(x: Text | null | undefined) => string[]} details  the English details a message carries (not shown in English)
 * @property {(v: unknown) => string} value  a placeholder's value as shown
 * @property {(n: number) => string} int  a whole number, grouped
 * @property {(n: number, digits: number) => string} fixed  a number with `digits` decimals (toFixed's digits)
 * @property {(n: number) => string} num  a number as JavaScript writes it, in the locale's signs
 * @property {(p: number) => string} pct  a probability as a percentage with sensible precision
 * @property {(items: string[]) => string} list  "a, b and c"
 * @property {(name: string) => string} inSentence  a name as it reads inside a sentence ("Top-p" -> "top-p" in English)
 */

/** @type {Map<string, I18n>} */
const made = new Map();

/**
 * The I18n of a language (its catalogue must be loaded: else English).
 * @param {string} code
 * @returns {I18n}
 */
export function createI18n(code) {
  const lang = code === PSEUDO ? (englishHere ? code : SOURCE) : catalogues.has(code) ? code : SOURCE;
  const have = made.get(lang);
  if (have) return have;
  const info = lang === PSEUDO ? PSEUDO_LANGUAGE : LANGUAGES.find((l) => l.code === lang) ?? LANGUAGES[0];
  const cat = lang === PSEUDO ? pseudoOnce() : /** @type {Catalogue} */ (catalogues.get(lang));
  const rules = new Intl.PluralRules(info.locale);
  const sym = numberSymbols(info.locale);
  const listFormat = new Intl.ListFormat(info.locale, { type: 'conjunction' });
  // does the language write a name inside a sentence in lower case ("top-p 0.9")? German keeps its capitals
  const lowerNames = (Object.hasOwn(cat, 'lang.namesInLowerCase') ? cat : ENGLISH)['lang.namesInLowerCase'] !== 'no';

  /** "-1234.50" (toFixed or String) in the locale's signs */
  const localize = (/** @type {string} */ s) => {
    const m = /^(-?)(\d+)(?:\.(\d+))?(e[+-]?\d+)?$/.exec(s);
    if (!m) return s; // Infinity, NaN
    const int = sym.integer.format(Number(m[2]));
    return `${m[1] ? sym.minus : ''}${int}${m[3] ? sym.decimal + m[3] : ''}${m[4] ?? ''}`;
  };

  /** where this language's page words are (the pseudo-locale's are English's, made strange) */
  const pageCode = lang === PSEUDO ? SOURCE : lang;
  /**
   * A key's entry: this language's, its page words' (once here), else
   * English's.
   * @param {string} key @returns {Entry | undefined}
   */
  const entryOf = (key) => {
    if (Object.hasOwn(cat, key)) return cat[key];
    const page = pageWords.get(pageCode);
    if (page && Object.hasOwn(page, key)) return lang === PSEUDO ? pseudoCatalogue({ [key]: page[key] })[key] : page[key];
    if (Object.hasOwn(ENGLISH, key)) return ENGLISH[key];
    const english = pageWords.get(SOURCE);
    return english && Object.hasOwn(english, key) ? english[key] : undefined;
  };

  /** @type {I18n} */
  const self = {
    lang,
    locale: info.locale,
    dir: info.dir,
    has: (key) => entryOf(key) !== undefined,
    template(key, count) {
      const entry = entryOf(key);
      if (entry === undefined) {
        missing(pageCode);
        return key;
      }
      if (typeof entry === 'string') return entry;
      const form = count === undefined ? 'other' : rules.select(count);
      return entry[form] ?? entry.other ?? Object.values(entry)[0] ?? key;
    },
    t(key, vars = {}) {
      const count = typeof vars.count === 'number' ? vars.count : undefined;
      return self.template(key, count).replace(/\{(\w+)\}/g, (all, name) => (Object.hasOwn(vars, name) ? self.value(vars[name]) : all));
    },
    value(v) {
      if (typeof v === 'number') return self.num(v);
      if (isMsg(v)) return self.text(v);
      return String(v ?? '');
    },
    text(x) {
      if (x === null || x === undefined) return '';
      if (typeof x === 'string') return x;
      if (lang === SOURCE && x.detail) return x.detail;
      return self.t(x.key, x.vars);
    },
    details(x) {
      if (!x || typeof x === 'string' || lang === SOURCE) return [];
      const out = x.detail ? [x.detail] : [];
      for (const v of Object.values(x.vars)) if (isMsg(v)) out.push(...self.details(v));
      return out;
    },
    int: (n) => (Number.isFinite(n) ? sym.integer.format(Math.round(n)) : '–'),
    fixed: (n, digits) => (Number.isFinite(n) ? localize(n.toFixed(digits)) : '–'),
    num: (n) => (Number.isInteger(n) ? sym.integer.format(n) : localize(String(n))),
    pct(p) {
      if (!Number.isFinite(p)) return '–';
      const v = p * 100;
      const n = p === 0 ? '0' : v >= 10 ? v.toFixed(1) : v >= 1 ? v.toFixed(2) : v >= 0.01 ? v.toFixed(3) : '0.01';
      const shown = sym.percent.replace('{n}', localize(n));
      return p !== 0 && v < 0.01 ? `<${shown}` : shown;
    },
    list: (items) => listFormat.format(items),
    inSentence: (name) => (lowerNames ? name.toLocaleLowerCase(info.locale) : name),
  };
  made.set(lang, self);
  return self;
}

/** English, always at hand (the default of every component). */
export function english() {
  return createI18n(SOURCE);
}

/** The language's own name, for the switcher. @param {string} code */
export function languageName(code) {
  return (code === PSEUDO ? PSEUDO_LANGUAGE : LANGUAGES.find((l) => l.code === code))?.name ?? code;
}
