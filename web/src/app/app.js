// @ts-check
/**
 * app.js — the page: one panel (the single view) or compare mode, bound to
 * the URL hash through the same members a panel has (hashState, ready,
 * init, load), so url.js binds either.
 */
import { computed, signal } from '@preact/signals';

import { createCompare } from './compare.js';
import { DEFAULT_PANELS, defaultState } from './hash.js';
import { defaultPanelSpec } from './lab.js';
import { BUILTIN_MODELS } from './models.js';
import { createPanel } from './panel.js';
import { browserLanguage } from '../i18n/index.js';
import { createLanguage } from '../i18n/language.js';

/**
 * @param {{request: (op: string, args?: any, transfer?: Transferable[], options?: any) => Promise<any>}} client
 * @param {{retuneDelay?: number, session?: string, models?: import('./panel.js').ModelEntry[], fallbackLanguage?: () => string}} [options]
 *   session: the single view's session id, and the prefix of compare
 *   mode's (several apps can share a Worker: the embedded elements);
 *   models: the models to offer (the shipped ones by default);
 *   fallbackLanguage: the language when the link names none (the browser's)
 */
export function createApp(client, { retuneDelay, session = 'main', models: list = BUILTIN_MODELS, fallbackLanguage = () => browserLanguage() } = {}) {
  /** the models every panel can choose (files loaded in one are there for all) */
  const models = signal(list.map((m) => ({ ...m })));
  const main = createPanel(client, { session, models });
  const compare = createCompare(client, { models, retuneDelay, prefix: session === 'main' ? 'cmp' : `${session}-cmp` });
  /** @type {import('@preact/signals').Signal<'single' | 'compare'>} */
  const view = signal('single');
  const switching = signal(false);
  /** the page's colours (kept in the link): the system's, light or dark */
  const theme = signal(/** @type {import('./hash.js').Theme} */ ('auto'));
  /** the language (kept in the link when chosen) and its words */
  const language = createLanguage(fallbackLanguage);

  const hashState = computed(() => ({
    ...(view.value === 'compare' ? compare.hashState.value : { ...main.hashState.value, view: /** @type {'single'} */ ('single') }),
    theme: theme.value,
    lang: language.chosen.value,
  }));
  const ready = computed(() => !switching.value && (view.value === 'compare' ? compare.ready.value : main.ready.value));
  /** Play (or a fast-forward) is running in the view shown: the link is written less often */
  const playing = computed(() => (view.value === 'compare' ? compare.playing.value : main.playing.value || !!main.generating.value));

  /**
   * @param {import('./hash.js').HashState} state @param {import('../i18n/index.js').Text[]} [notices]
   */
  async function load(state, notices = []) {
    theme.value = state.theme ?? 'auto';
    language.choose(state.lang ?? ''); // the words change when its catalogue is here
    if (state.view === 'compare') {
      main.pause();
      view.value = 'compare';
      return compare.load(state, notices);
    }
    compare.pause();
    view.value = 'single';
    return main.load(state, notices);
  }

  /**
   * Switches views, carrying the model, seed, prompt and constraint over
   * (each view keeps its own text and settings).
   * @param {'single' | 'compare'} to
   */
  async function setView(to) {
    if (to === view.value) return true;
    switching.value = true;
    try {
      if (to === 'compare') {
        main.pause();
        view.value = 'compare';
        const kept = compare.panels.value.map((p) => p.panelSpec.value);
        await compare.load({
          ...defaultState(),
          view: 'compare',
          model: main.modelId.value || 'bigram',
          seed: main.seed.value,
          prompt: main.prompt.value,
          constraint: main.constraint.value,
          panels: kept.length ? kept : DEFAULT_PANELS.map((id) => defaultPanelSpec(id)),
        });
      } else {
        compare.pause();
        view.value = 'single';
        const p = compare.panels.value[0];
        const moved = p && (p.modelId.value !== main.modelId.value || p.seed.value !== main.seed.value || p.prompt.value !== main.prompt.value);
        if (!main.ready.value || moved) {
          await main.load({
            ...main.hashState.value,
            model: p?.modelId.value || main.modelId.value || 'bigram',
            seed: p?.seed.value ?? main.seed.value,
            prompt: p?.prompt.value ?? main.prompt.value,
            constraint: compare.constraint.value,
            steps: 0,
            forced: [],
          });
        }
      }
    } finally {
      switching.value = false;
    }
    return true;
  }

  /** Stops playing and frees this app's sessions in the Worker (it may be shared). */
  function dispose() {
    main.pause();
    compare.pause();
    const sessions = [main.session, ...compare.panels.value.map((p) => p.session)];
    for (const s of sessions) client.request('closeSession', { session: s }).catch(() => {});
  }

  return {
    main, compare, view, models, hashState, ready, playing, theme, language,
    init: () => main.init(),
    load, setView, dispose,
  };
}

/** @typedef {ReturnType<typeof createApp>} App */
