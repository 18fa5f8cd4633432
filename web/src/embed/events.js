// @ts-check
/**
 * events.js — what a <sampler-playground> tells the page around it, as
 * CustomEvents on the element (they bubble, so a lesson can listen on the
 * document):
 *
 *   sampler-token     a token was added to a text: by Step or Play, by the
 *                     `steps` the element generates when it loads, by a
 *                     reader's pick, or by a text generated again for new
 *                     settings (compare mode).  detail: TokenDetail.
 *                     Beam search draws no single tokens: it sends none.
 *   sampler-settings  a text's settings changed after it first loaded (a
 *                     slider, the seed, the prompt, the model; from the
 *                     reader or from an attribute).  detail: SettingsDetail.
 *
 * The numbers come from the engine's step summaries, as on screen.
 */
import { effect, untracked } from '@preact/signals';

export const TOKEN_EVENT = 'sampler-token';
export const SETTINGS_EVENT = 'sampler-settings';

/**
 * @typedef {Object} TokenDetail
 * @property {number} panel   which text: 0 (compare mode: 0 to 3, left to right)
 * @property {number} index   the token's place in the generated text (0 = the first after the prompt)
 * @property {number} token   its id in the model's vocabulary
 * @property {string} piece   its text ('' for the end-of-text token)
 * @property {number} p       its final probability when it was drawn (NaN: speculative decoding's)
 * @property {boolean} forced picked by the reader, not drawn
 * @property {string} text    the generated text so far, this token included
 * @property {import('../worker/summary.js').StepSummary | null} step  the step record
 *   (every stage's probabilities of the ranked tokens); null for speculative decoding
 */

/**
 * @typedef {Object} SettingsDetail
 * @property {number} panel
 * @property {string} model   bigram, transformer or url:… (a model given by its URL)
 * @property {string} prompt
 * @property {string} seed    decimal (seeds go up to 2^64 - 1)
 * @property {Record<string, number>} params  the sampler's settings by the engine's names
 *   (temperature, top_k, top_p, …: docs/samplers.md lists them all)
 * @property {'sample' | 'beam' | 'speculative'} strategy
 */

/** @typedef {import('../app/panel.js').Panel} Panel */

/** the tokens of a panel's text, each with its step record when it has one */
function tokensOf(/** @type {Panel} */ panel) {
  if (panel.strategy.value === 'speculative') {
    return (panel.spec.value?.tokens ?? []).map((t) => ({ key: t, token: t.token, piece: t.piece, p: NaN, forced: false, step: null }));
  }
  if (panel.strategy.value === 'beam') return [];
  return panel.steps.value.map((s) => ({ key: s, token: s.token, piece: s.piece, p: s.p, forced: s.forced, step: s }));
}

/** @param {Panel} panel @param {number} index @returns {SettingsDetail} */
function settingsOf(panel, index) {
  return {
    panel: index,
    model: panel.modelId.value,
    prompt: panel.prompt.value,
    seed: panel.seed.value,
    params: { ...panel.params.value },
    strategy: panel.strategy.value,
  };
}

/**
 * Sends an app's tokens and settings changes as events on target.
 * @param {import('../app/app.js').App} app
 * @param {EventTarget} target
 * @returns {() => void} stops
 */
export function watchEvents(app, target) {
  /** per panel: the tokens already announced, and the settings last seen once ready */
  /** @type {WeakMap<Panel, {keys: unknown[], settings: string | null}>} */
  const seen = new WeakMap();
  return effect(() => {
    const panels = app.view.value === 'compare' ? app.compare.panels.value : [app.main];
    /** @type {CustomEvent[]} */
    const events = [];
    panels.forEach((panel, i) => {
      let s = seen.get(panel);
      if (!s) {
        s = { keys: [], settings: null };
        seen.set(panel, s);
      }
      const tokens = tokensOf(panel);
      let same = 0;
      while (same < tokens.length && same < s.keys.length && tokens[same].key === s.keys[same]) same++;
      let text = tokens.slice(0, same).map((t) => t.piece).join('');
      for (let k = same; k < tokens.length; k++) {
        const t = tokens[k];
        text += t.piece;
        /** @type {TokenDetail} */
        const detail = { panel: i, index: k, token: t.token, piece: t.piece, p: t.p, forced: t.forced, text, step: t.step };
        events.push(new CustomEvent(TOKEN_EVENT, { detail, bubbles: true, composed: true }));
      }
      s.keys = tokens.map((t) => t.key);
      if (!panel.ready.value) return;
      const settings = settingsOf(panel, i);
      const key = JSON.stringify({ ...settings, panel: 0 });
      if (s.settings !== null && s.settings !== key) events.push(new CustomEvent(SETTINGS_EVENT, { detail: settings, bubbles: true, composed: true }));
      s.settings = key;
    });
    // a listener's own reads of the app do not subscribe this effect
    untracked(() => {
      for (const e of events) target.dispatchEvent(e);
    });
  });
}
