// @ts-check
/**
 * embed.js — defines <sampler-playground>.  A lesson page includes it with
 *   <script type="module" src="…/dist/embed.js"></script>
 *   <sampler-playground model="bigram" temperature="0.7" view="bars"></sampler-playground>
 * Each element renders into its own shadow root (the playground's styles
 * inside it, so the page's CSS cannot break it, nor its CSS the page's).
 * The Worker, the .wasm and the shipped models are resolved against this
 * module's URL, never the page's; elements showing the same model share
 * one Worker (registry.js).  attrs.js lists the attributes, events.js the
 * events it sends.
 */
import { signal } from '@preact/signals';
import { render } from 'preact';

import { createApp } from '../app/app.js';
import { BUILTIN_MODELS } from '../app/models.js';
import baseCss from '../styles.css?inline';
import { ATTRIBUTES, parseAttributes } from './attrs.js';
import embedCss from './embed.css?inline';
import { EmbedView } from './EmbedView.jsx';
import { watchEvents } from './events.js';
import { acquireClient, releaseClient } from './registry.js';
import { browserLanguage, isLoaded, msg, normalizeLang } from '../i18n/index.js';
import './question.js'; // defines <sampler-question>

export const TAG = 'sampler-playground';

// rem would follow the host page's root font size: the element's own sizes
// are pixels (16 px to the rem, the browsers' default)
const CSS = `${baseCss}\n${embedCss}`.replace(/(\d*\.?\d+)rem\b/g, (_, n) => `${Number((Number(n) * 16).toFixed(2))}px`);

/** @type {CSSStyleSheet | null} */
let sheet = null;
/** one stylesheet object for every element, where the browser allows it */
function adoptStyles(/** @type {ShadowRoot} */ root) {
  try {
    if (!sheet) {
      sheet = new CSSStyleSheet();
      sheet.replaceSync(CSS);
    }
    root.adoptedStyleSheets = [sheet];
    return true;
  } catch {
    const style = document.createElement('style');
    style.textContent = CSS;
    root.appendChild(style);
    return false;
  }
}

let count = 0;

/** the settings that only re-warp the next token or change the words (the text stays) */
const withoutParams = (/** @type {import('../app/hash.js').HashState} */ s) => JSON.stringify({ ...s, params: null, speed: null, lang: null });

export class SamplerPlayground extends HTMLElement {
  static get observedAttributes() {
    return ATTRIBUTES;
  }

  constructor() {
    super();
    this.sid = `spg${++count}`;
    this.root = this.attachShadow({ mode: 'open' });
    adoptStyles(this.root);
    this.mount = document.createElement('div');
    this.mount.className = 'spg-host';
    this.root.appendChild(this.mount);
    /** @type {import('../app/app.js').App | null} */
    this.app = null;
    this.modelKey = '';
    /** @type {import('@preact/signals').Signal<import('./EmbedView.jsx').ViewConfig>} */
    this.view = signal({ controls: [], transport: false, parts: ['text'] });
    /** @type {import('./attrs.js').Config | null} */
    this.config = null;
    this.updating = false;
    /** @type {Promise<unknown>} */
    this.loading = Promise.resolve();
  }

  connectedCallback() {
    if (!this.app) this.safely(() => this.setup());
  }

  disconnectedCallback() {
    // moved elsewhere in the page: it is connected again at once
    queueMicrotask(() => {
      if (!this.isConnected) this.safely(() => this.teardown());
    });
  }

  attributeChangedCallback() {
    if (!this.app || this.updating) return;
    this.updating = true;
    queueMicrotask(() => {
      this.updating = false;
      this.safely(() => this.update());
    });
  }

  /** never an exception in the host page: a failure is a notice in the element */
  safely(/** @type {() => unknown} */ fn) {
    try {
      const r = fn();
      if (r instanceof Promise) r.catch((err) => this.fail(err));
    } catch (err) {
      this.fail(err);
    }
  }

  fail(/** @type {unknown} */ err) {
    const message = msg('notice.problem', {}, `The playground ran into a problem: ${/** @type {Error} */ (err)?.message || String(err)}`);
    const target = this.app ? (this.app.view.value === 'compare' ? this.app.compare : this.app.main) : null;
    if (target) target.notices.value = [...target.notices.value, message];
    else this.mount.textContent = message.detail; // no app (nor language) yet: the English line
  }

  read() {
    return parseAttributes((name) => this.getAttribute(name), document.baseURI);
  }

  setup() {
    const config = this.read();
    this.config = config;
    this.modelKey = config.model.key;
    const client = acquireClient(config.model.key);
    const models = config.model.entry ? [...BUILTIN_MODELS, config.model.entry] : BUILTIN_MODELS;
    // without a lang attribute: its lesson page's language when it is one of ours, else the browser's
    const fallbackLanguage = () => normalizeLang(this.parentElement?.closest('[lang]')?.getAttribute('lang')) || browserLanguage();
    const app = createApp(client, { session: this.sid, models, fallbackLanguage });
    this.app = app;
    /** the page hears of tokens and settings (events.js) */
    this.unwatch = watchEvents(app, this);
    this.view.value = { controls: config.controls, transport: config.transport, parts: config.parts };
    // the first render once its words are here (the build fetches English too, as any language)
    const lang = normalizeLang(config.state.lang) || fallbackLanguage();
    const show = () => { if (this.app === app) render(<EmbedView app={app} config={this.view} />, this.mount); };
    if (isLoaded(app.language.i18n.value.lang)) show();
    else app.language.prepare(lang).then(show, show);
    this.loading = app.init().then(() => app.load(config.state, config.notices));
    return this.loading;
  }

  teardown() {
    if (!this.app) return;
    this.unwatch?.();
    this.app.dispose();
    render(null, this.mount);
    releaseClient(this.modelKey);
    this.app = null;
    this.config = null;
  }

  /**
   * Writes the text again from the attributes, as when the element loaded
   * (its `steps` tokens with the settings it has now): a lesson's own
   * control can set a slider's attribute (which by itself only re-warps
   * the next token) and show the whole text those settings give.
   * @returns {Promise<unknown>}
   */
  rewrite() {
    const app = this.app;
    if (!app) return Promise.resolve(false);
    const config = this.read();
    this.config = config;
    this.view.value = { controls: config.controls, transport: config.transport, parts: config.parts };
    this.loading = this.loading.catch(() => {}).then(() => (this.app === app ? app.load(config.state, config.notices) : false));
    return this.loading;
  }

  /** Attributes changed: a new model restarts the element; new slider values re-warp; anything else regenerates. */
  update() {
    const app = this.app;
    const old = this.config;
    if (!app || !old) return undefined;
    const config = this.read();
    if (config.model.key !== this.modelKey) {
      this.teardown();
      return this.setup();
    }
    this.config = config;
    this.view.value = { controls: config.controls, transport: config.transport, parts: config.parts };
    const s = config.state;
    if (withoutParams(s) === withoutParams(old.state)) {
      // the sliders and the speed: the text stays, the next token re-warps
      const target = s.view === 'compare' ? app.compare : app.main;
      target.speed.value = s.speed;
      if ((s.lang ?? '') !== app.language.chosen.value) app.language.choose(s.lang ?? '');
      if (s.view !== 'compare') {
        app.main.setParams(s.params);
        app.main.notices.value = config.notices;
      }
      return undefined;
    }
    this.loading = this.loading.catch(() => {}).then(() => (this.app === app ? app.load(s, config.notices) : false));
    return this.loading;
  }
}

if (typeof customElements !== 'undefined' && !customElements.get(TAG)) customElements.define(TAG, SamplerPlayground);
