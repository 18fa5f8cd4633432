// @ts-check
/**
 * The language in the components: a context with the I18n of the page or
 * of an element (each element has its own), rich texts (a catalogue text
 * with <em>, <strong>, <code>, <sup> and placeholders that may be
 * elements), and a message with its technical detail.
 */
import { createContext, h } from 'preact';
import { useContext } from 'preact/hooks';

import { LANGUAGES, english, languageName } from '../i18n/index.js';
import { modelLabel } from '../app/models.js';

export const I18nContext = createContext(english());

/** The I18n of the page or element being drawn. */
export function useI18n() {
  return useContext(I18nContext);
}

const TAGS = new Set(['em', 'strong', 'code', 'sup']);

/**
 * A catalogue text as elements: its tags made elements, its placeholders
 * filled (a value may be an element).
 * @param {import('../i18n/index.js').I18n} i18n @param {string} key
 * @param {Record<string, unknown>} [vars]
 * @returns {import('preact').ComponentChildren[]}
 */
export function rich(i18n, key, vars = {}) {
  const count = typeof vars.count === 'number' ? vars.count : undefined;
  const text = i18n.template(key, count);
  /** @type {Array<{tag: string, children: any[]}>} */
  const stack = [{ tag: '', children: [] }];
  for (const part of text.split(/(<\/?\w+>|\{\w+\})/)) {
    if (!part) continue;
    const top = stack[stack.length - 1];
    let m;
    if ((m = /^<(\w+)>$/.exec(part)) && TAGS.has(m[1])) stack.push({ tag: m[1], children: [] });
    else if ((m = /^<\/(\w+)>$/.exec(part)) && TAGS.has(m[1]) && stack.length > 1) {
      const done = /** @type {{tag: string, children: any[]}} */ (stack.pop());
      stack[stack.length - 1].children.push(h(done.tag, null, ...done.children));
    } else if ((m = /^\{(\w+)\}$/.exec(part)) && Object.hasOwn(vars, m[1])) {
      const v = vars[m[1]];
      top.children.push(v !== null && typeof v === 'object' && 'type' in v ? v : i18n.value(v));
    } else top.children.push(part);
  }
  while (stack.length > 1) {
    const done = /** @type {{tag: string, children: any[]}} */ (stack.pop());
    stack[stack.length - 1].children.push(h(done.tag, null, ...done.children));
  }
  return stack[0].children;
}

/**
 * A rich catalogue text (rich()).
 * @param {{k: string, vars?: Record<string, unknown>}} props
 */
export function Rich({ k, vars }) {
  return <>{rich(useI18n(), k, vars)}</>;
}

/**
 * A message (or a text) in the language on hand; in a language other than
 * English, the English detail the engine gave (its own diagnosis) follows
 * as a technical detail.
 * @param {{m: import('../i18n/index.js').Text | null | undefined, suffix?: import('preact').ComponentChildren}} props
 *   suffix: what follows the message's own words (before the detail)
 */
export function Say({ m, suffix = null }) {
  const i18n = useI18n();
  const details = i18n.details(m);
  return (
    <>
      {i18n.text(m)}
      {suffix}
      {details.map((d) => (
        <small key={d} class="spg-detail" data-testid="error-detail">
          {i18n.t('error.detail')} <span lang="en" dir="ltr">{d}</span>
        </small>
      ))}
    </>
  );
}

/**
 * A language's BCP 47 tag for lang= (Chinese: the simplified script).
 * @param {import('../i18n/index.js').I18n} i18n
 */
export function langTag(i18n) {
  return i18n.lang === 'zh' ? 'zh-Hans' : i18n.lang;
}

/**
 * The language switch: each language by its own name; the choice is
 * kept in the link (lang=).
 * @param {{language: import('../i18n/language.js').Language, uid?: string}} props
 */
export function LanguageSwitch({ language, uid = 'spg' }) {
  const i18n = useI18n();
  const current = i18n.lang;
  const codes = LANGUAGES.map((l) => l.code);
  if (!codes.includes(current)) codes.push(current); // the pseudo-locale, when chosen
  return (
    <div class="spg-lang">
      <label class="spg-sr" for={`${uid}-lang`}>{i18n.t('lang.label')}</label>
      <select
        id={`${uid}-lang`} value={current} data-testid="lang-select" title={i18n.t('lang.label')}
        onChange={(e) => language.choose(/** @type {HTMLSelectElement} */ (e.currentTarget).value)}
      >
        {codes.map((c) => <option key={c} value={c} lang={c === 'zh' ? 'zh-Hans' : c}>{languageName(c)}</option>)}
      </select>
      {language.failed.value && <small class="spg-error" role="alert">{i18n.t('lang.failed', { name: languageName(language.failed.value) })}</small>}
    </div>
  );
}

/**
 * A model's name as the menu shows it: a shipped or made model's in the
 * language on hand, a file's as it is.
 * @param {import('../i18n/index.js').I18n} i18n
 * @param {{id: string, name: string, builtin?: boolean}} entry
 */
export function modelName(i18n, entry) {
  return i18n.text(modelLabel(entry));
}
