// @ts-check
/**
 * question.js — <sampler-question>: a question a lesson author drops next
 * to a playground; the learner types a number and hears whether it is
 * right.  The answer is always the engine's: the element builds the model
 * and the settings its attributes name and asks the engine (in the page's
 * engine Worker, shared with the playgrounds) — never a number the author
 * typed.
 *
 *   <sampler-question logits="2,1,0" temperature="0.5" ask="p1" digits="2">
 *     What is the top probability?
 *   </sampler-question>
 *
 * The model: logits="2,1,0" (or "a=2,b=1,c=0"), probs="0.5,0.3,0.2", or
 * model="logits:…" / "probs:…" / "transformer" / "bigram"; every sampler
 * setting by its flag, as on <sampler-playground> (temperature, top-p, …).
 * What to ask (ask=):
 *   p1, p2, …       the final probability of the 1st, 2nd, … likeliest token
 *   p:LABEL         the final probability of the token labelled LABEL
 *   t1, t2, …       the 1st, 2nd, … likeliest token itself (its text)
 *   nucleus         how many tokens survive the pipeline
 *   kept-mass       the model probability of the tokens that survive
 *   entropy         the final distribution's entropy, in bits
 *   entropy-raw     the model's, in bits
 *   cut:STAGE       how many tokens STAGE cuts (cut:top_p, cut:top_k, …)
 *   kv-ratio        with length=N: the work without a KV cache over the
 *                   work with it once the model has read N tokens (the
 *                   prompt's and the generated ones: the KV view's
 *                   "tokens"), the transformer's; "Show me" generates
 *                   until the playground's text is N tokens long
 * samplers=        the chain's order (default, hf, llama.cpp or stage names
 *                  joined by commas), as on <sampler-playground>.
 * regex=, grammar= a constraint on the text (grammar="json" or
 *                  "json_object"), as on <sampler-playground>: its mask
 *                  is part of the step asked about.
 * prompt=          the text before the step asked about; without it, the
 *                  prompt of the playground "Show me" sets up when that
 *                  playground shows the question's model (else none) — so
 *                  the number graded is the number shown.
 * digits=          the decimals a decimal answer must match (default 2).
 *                  An answer of "87%" means 0.87.
 * The kind of answer follows the question (ANSWER_KIND): a count
 * (nucleus, cut:STAGE) is a whole number — "0.5" is no answer to "how
 * many", and is told so, not graded —, a token question's answer a token,
 * the rest a decimal to `digits` digits.  The field says which.
 * for=             the id of the <sampler-playground> "Show me" sets up;
 *                  without it, the next one on the page (else the last
 *                  one before the question).
 * lang=            the language of its words (as the playground's); without
 *                  it, its lesson page's when the playground has it, else
 *                  the browser's.
 *
 * It sends `sampler-question-answered` (bubbling, composed) with detail
 * {ask, answer, value, correct, digits, kind} after each check (digits: 0
 * for a whole number or a token).
 */
import { DEFAULT_VIEW, parseAttributes, SLIDERS, VIEW_PARTS } from './attrs.js';
import { acquireClient, releaseClient } from './registry.js';
import { answerKind, computeAnswer, grade, kvSetup, matches, parseAsk, questionConstraint, questionModel, readAnswer, readTyped, said } from './answer.js';
import { kindHint, kindSays } from './answer.texts.js';
import { errorMsg } from '../app/errors.js';
import { isHandmadeSpec } from '../app/models.js';
import { MAX_TOKENS } from '../shared/limits.js';
import { browserLanguage, createI18n, english, isLoaded, isMsg, loadLanguage, msg, normalizeLang } from '../i18n/index.js';

export { answerKind, computeAnswer, grade, kvSetup, matches, parseAsk, questionConstraint, questionModel, readAnswer, readTyped };

export const QUESTION_TAG = 'sampler-question';
export const ANSWERED_EVENT = 'sampler-question-answered';

/** the attributes besides the sampler settings */
const OWN = ['ask', 'digits', 'logits', 'probs', 'model', 'length', 'for', 'prompt', 'lang', 'samplers', 'regex', 'grammar'];
/** the attributes "Show me" copies to the playground as they are (removed there when the question has none) */
const SHOWN = ['samplers', 'regex', 'grammar'];

let questions = 0;

/**
 * The prompt a question without its own takes: that of the playground
 * "Show me" sets up, when the playground shows the question's model (so
 * "Show me" keeps it); else none.
 * @param {Element | null} el @param {string} model
 */
export function keptPrompt(el, model) {
  const shows = (el?.getAttribute('model') ?? '').trim() || 'bigram';
  return el && shows === model ? el.getAttribute('prompt') ?? '' : '';
}

/**
 * A playground's view with the parts a question needs added (the author's
 * parts stay, in their order; compare mode gives way).
 * @param {string | null} view @param {string[]} parts
 */
export function viewWith(view, parts) {
  const had = (view ?? '').split(',').map((x) => x.trim()).filter((x) => VIEW_PARTS.includes(x));
  const want = new Set([...(had.length ? had : DEFAULT_VIEW), ...parts]);
  return VIEW_PARTS.filter((x) => want.has(x)).join(',');
}

/**
 * The engine's value as the feedback writes it: a whole number, a decimal
 * to the question's digits, a token in quotes.
 * @param {import('../i18n/index.js').I18n} i18n @param {number | string} value @param {import('./answer.js').AnswerKind} kind
 */
function shown(i18n, value, kind) {
  if (kind.kind === 'token') return `“${value}”`;
  return kind.kind === 'whole' ? i18n.int(Number(value)) : i18n.fixed(Number(value), kind.digits);
}

const CSS = `
:host { display: block; margin: 1em 0; font: 16px/1.4 system-ui, sans-serif; color: #1d2329; }
.q { border: 1px solid #c9ced3; border-radius: 8px; padding: 12px 14px; background: #fbfbf8; }
.q-text { margin: 0 0 8px; font-weight: 600; }
.q-row { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; }
input { font: inherit; width: 11em; padding: 4px 6px; border: 1px solid #8a939b; border-radius: 4px; }
button { font: inherit; padding: 4px 12px; border: 1px solid #2a5d9f; border-radius: 4px; background: #2a5d9f; color: #fff; cursor: pointer; }
button.secondary { background: #fff; color: #2a5d9f; }
button:disabled { opacity: 0.5; cursor: default; }
.q-result { margin: 8px 0 0; }
.q-result[data-correct="true"] { color: #1f6b2c; }
.q-result[data-correct="false"] { color: #9c2a1f; }
.q-error { margin: 8px 0 0; color: #9c2a1f; }
@media (prefers-color-scheme: dark) {
  :host { color: #e6e9ec; }
  .q { background: #1b1f23; border-color: #3b434b; }
  input { background: #111; color: inherit; }
  button.secondary { background: #1b1f23; color: #8fb8ee; }
  .q-result[data-correct="true"] { color: #7fd08a; }
  .q-result[data-correct="false"] { color: #f08a80; }
}
`;

export class SamplerQuestion extends HTMLElement {
  constructor() {
    super();
    this.qid = `spq${++questions}`;
    this.root = this.attachShadow({ mode: 'open' });
    this.root.innerHTML = `<style>${CSS}</style><div class="q" part="question">
      <p class="q-text" data-testid="question-text"><slot></slot></p>
      <form class="q-row" data-testid="question-form">
        <label><span class="sr"></span><input data-testid="question-answer" inputmode="decimal" autocomplete="off"></label>
        <button type="submit" data-testid="question-check"></button>
        <button type="button" class="secondary" data-testid="question-show"></button>
      </form>
      <p class="q-result" role="status" data-testid="question-result"></p>
      <p class="q-error" role="alert" data-testid="question-error" hidden></p>
    </div>`;
    const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (this.root.querySelector(`[data-testid="${id}"]`));
    this.input = /** @type {HTMLInputElement} */ ($('question-answer'));
    this.result = $('question-result');
    this.error = $('question-error');
    this.checkButton = /** @type {HTMLButtonElement} */ ($('question-check'));
    this.showButton = /** @type {HTMLButtonElement} */ ($('question-show'));
    $('question-form').addEventListener('submit', (e) => {
      e.preventDefault();
      this.check();
    });
    this.showButton.addEventListener('click', () => this.showMe());
    /** @type {Promise<number | string> | null} the engine's value, once asked */
    this.value = null;
    this.clientKey = '';
    /** the words, in the question's language (English until its catalogue is here) */
    this.i18n = english();
    /** what the result and error lines say, kept to say again in another language */
    /** @type {{result: import('../i18n/index.js').Text | ((i18n: import('../i18n/index.js').I18n) => string), error: import('../i18n/index.js').Text}} */
    this.said = { result: '', error: '' };
    this.words();
  }

  static get observedAttributes() {
    return ['lang'];
  }

  attributeChangedCallback() {
    if (this.isConnected) this.useLanguage();
  }

  /**
   * The question's language: its lang attribute, else its lesson page's
   * (when one of the playground's), else the browser's.
   */
  useLanguage() {
    const code = normalizeLang(this.getAttribute('lang')) || normalizeLang(this.parentElement?.closest('[lang]')?.getAttribute('lang')) || browserLanguage();
    loadLanguage(code).then(() => {
      this.i18n = createI18n(code);
      this.words();
    }, () => { /* offline: the words stay as they are */ });
  }

  /** Writes the words (again, after a change of language). */
  words() {
    const i18n = this.i18n;
    if (!isLoaded(i18n.lang)) return; // (the build fetches English as any language: its words once here)
    const kind = this.kind();
    const hint = kindHint(i18n.lang, kind);
    this.input.setAttribute('aria-label', `${i18n.t('question.answer')} (${hint})`);
    this.input.placeholder = hint;
    this.input.inputMode = kind.kind === 'whole' ? 'numeric' : kind.kind === 'token' ? 'text' : 'decimal';
    this.input.dataset.kind = kind.kind;
    this.checkButton.textContent = i18n.t('question.check');
    this.showButton.textContent = i18n.t('question.showMe');
    /** @type {HTMLElement} */ (this.root.querySelector('.q')).dir = i18n.dir;
    const r = this.said.result;
    this.result.textContent = typeof r === 'function' ? r(i18n) : i18n.text(r);
    this.error.textContent = [i18n.text(this.said.error), ...i18n.details(isMsg(this.said.error) ? this.said.error : null)].filter(Boolean).join(' — ');
  }

  /**
   * Says a result or an error (a message: said again when the language changes).
   * @param {'result' | 'error'} where @param {any} what  a text, a message, or (a result) a function of the language
   */
  say(where, what) {
    this.said[where] = what;
    this.words();
  }

  /** the attribute, or null @param {string} name */
  attr(name) {
    return this.getAttribute(name);
  }

  /** the kind of answer the question takes (a decimal when it asks nothing it can) */
  kind() {
    const ask = parseAsk(this.attr('ask') ?? '');
    return ask ? answerKind(ask, this.attr('digits')) : answerKind({ kind: 'rank', n: 1 }, null);
  }

  /** the question as its attributes say it */
  question() {
    const get = (/** @type {string} */ n) => this.attr(n);
    const ask = parseAsk(get('ask') ?? '');
    // the sampler settings: checked and clamped as a playground's attributes are
    const { state } = parseAttributes((n) => (n in SLIDERS ? get(n) : null), location.href);
    /** @type {Record<string, number | string>} */
    const params = {};
    for (const name of Object.keys(SLIDERS)) if (get(name) !== null) params[SLIDERS[name]] = /** @type {any} */ (state.params)[SLIDERS[name]];
    const samplers = (get('samplers') ?? '').trim();
    if (samplers) params.samplers = samplers;
    const kind = this.kind();
    const digits = kind.kind === 'decimal' ? kind.digits : 0;
    const length = Math.max(1, Math.round(Number(get('length') ?? 256)) || 256);
    const model = questionModel(get);
    return { model, ask, params, kind, digits, length, prompt: get('prompt') ?? keptPrompt(this.target(), model), id: this.qid, constraint: questionConstraint(get) };
  }

  connectedCallback() {
    this.value = null;
    this.useLanguage();
    this.precheck();
  }

  /**
   * What is wrong with the question's own attributes is said on load, not
   * after Check: a question it cannot ask, a hand-made model the engine
   * refuses (logits="2,1,x").  (The answer itself is computed at Check:
   * the prompt may be the playground's, as the reader left it.)
   */
  precheck() {
    const q = this.question();
    const fail = (/** @type {any} */ err) => {
      if (!this.isConnected) return;
      this.say('error', err?.said ?? errorMsg('engine', err));
      this.error.hidden = false;
    };
    if (!q.ask) {
      fail(said('question.badAsk', { ask: this.attr('ask') ?? '' }));
      return;
    }
    if (isHandmadeSpec(q.model)) computeAnswer(this.engineClient(q), /** @type {any} */ (q)).catch(fail);
  }

  disconnectedCallback() {
    if (this.clientKey) releaseClient(this.clientKey);
    this.clientKey = '';
    this.value = null;
  }

  /**
   * The engine Worker of the question's model (the one the page's
   * playgrounds showing that model share).
   * @param {{model: string}} q
   */
  engineClient(q) {
    const key = isHandmadeSpec(q.model) ? 'handmade' : q.model;
    if (this.clientKey !== key) {
      if (this.clientKey) releaseClient(this.clientKey);
      this.clientKey = key;
      this.client = acquireClient(key);
    }
    return /** @type {NonNullable<typeof this.client>} */ (this.client);
  }

  /** The engine's value for this question (asked once per connection). */
  engineValue() {
    if (!this.value) {
      const q = this.question();
      if (!q.ask) return Promise.reject(said('question.badAsk', { ask: this.attr('ask') ?? '' }));
      this.value = computeAnswer(this.engineClient(q), /** @type {any} */ (q));
    }
    return this.value;
  }

  async check() {
    const q = this.question();
    const typed = readTyped(this.input.value, q.kind);
    this.error.hidden = true;
    if ('invalid' in typed) {
      // not an answer of the kind asked for: said, not graded
      const why = typed.invalid;
      this.say('result', why === 'notNumber' && q.kind.kind === 'decimal' ? msg('question.notNumber') : (/** @type {import('../i18n/index.js').I18n} */ i18n) => kindSays(i18n.lang, why));
      this.result.removeAttribute('data-correct');
      this.result.dataset.invalid = why;
      return;
    }
    delete this.result.dataset.invalid;
    const answer = typed.answer;
    this.say('result', msg('question.computing'));
    let value;
    try {
      value = await this.engineValue();
    } catch (err) {
      this.say('result', '');
      this.say('error', /** @type {any} */ (err)?.said ?? errorMsg('engine', err));
      this.error.hidden = false;
      this.value = null;
      return;
    }
    const correct = grade(answer, value, q.kind);
    this.say('result', (/** @type {import('../i18n/index.js').I18n} */ i18n) => i18n.t(correct ? 'question.right' : 'question.wrong', { value: shown(i18n, value, q.kind) }));
    this.result.dataset.correct = String(correct);
    this.result.dataset.value = String(value);
    this.dispatchEvent(new CustomEvent(ANSWERED_EVENT, {
      bubbles: true, composed: true,
      detail: { ask: this.attr('ask') ?? '', answer, value, correct, digits: q.digits, kind: q.kind.kind },
    }));
  }

  /** The playground "Show me" sets up: for=ID, else the next one, else the last one before. */
  target() {
    const id = this.attr('for');
    if (id) return /** @type {HTMLElement | null} */ (document.getElementById(id));
    const all = [...document.querySelectorAll('sampler-playground')];
    const after = all.find((el) => this.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING);
    return /** @type {HTMLElement | null} */ (after ?? all.at(-1) ?? null);
  }

  /** Configures the playground to show the question's setup. */
  async showMe() {
    const el = this.target();
    this.error.hidden = true;
    if (!el) {
      this.say('error', msg('question.noPlayground'));
      this.error.hidden = false;
      return;
    }
    const q = this.question();
    // the settings: the question's, every other one back to its default
    for (const name of Object.keys(SLIDERS)) {
      const v = this.attr(name);
      if (v === null) el.removeAttribute(name);
      else el.setAttribute(name, v);
    }
    el.removeAttribute('edits');
    for (const name of SHOWN) {
      const v = this.attr(name);
      if (v === null) el.removeAttribute(name);
      else el.setAttribute(name, v);
    }
    // the prompt: the question's, else the playground's own (kept: q.prompt is it)
    if (el.getAttribute('prompt') !== q.prompt) el.setAttribute('prompt', q.prompt);
    el.setAttribute('model', q.model);
    let steps = 0;
    if (q.ask?.kind === 'kv-ratio') {
      // the text grows until the model has read `length` tokens, the
      // prompt's included; the tokens that end a text are banned, so it
      // does not end before
      try {
        const { promptTokens, ends } = await kvSetup(this.engineClient(q), q);
        steps = Math.max(0, q.length - promptTokens);
        const bans = new Set((el.getAttribute('ban') ?? '').split(',').map((x) => x.trim()).filter(Boolean));
        for (const t of ends) bans.add(String(t));
        if (bans.size) el.setAttribute('ban', [...bans].join(','));
      } catch (err) {
        this.say('error', /** @type {any} */ (err)?.said ?? errorMsg('engine', err));
        this.error.hidden = false;
        return;
      }
    }
    el.setAttribute('steps', String(Math.min(steps, MAX_TOKENS)));
    el.setAttribute('view', viewWith(el.getAttribute('view'), q.ask?.kind === 'kv-ratio' ? ['text', 'kv'] : ['bars', 'nucleus']));
    el.scrollIntoView?.({ block: 'nearest', behavior: 'smooth' });
  }
}

export const OWN_ATTRIBUTES = OWN;

if (typeof customElements !== 'undefined' && !customElements.get(QUESTION_TAG)) customElements.define(QUESTION_TAG, SamplerQuestion);
