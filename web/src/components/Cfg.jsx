// @ts-check
/**
 * Classifier-free guidance's field and view (a lazy chunk, fetched when
 * its stage is opened): the negative prompt the engine's second run reads,
 * and for the step shown the three distributions the engine reports — the
 * conditional run (the model on the text: the summary's raw), the
 * unconditional one (on the negative prompt) and their mix, which the
 * chain goes on with.  Every number is the engine's (StepSummary.cfg).
 * Its few words are in cfg.texts.js, in the four languages.
 */
import { useState } from 'preact/hooks';

import { useI18n } from './I18n.jsx';
import { CFG } from './cfg.texts.js';
// its styles with it (as the strip's): the same in the page and in an
// element's shadow root, whose sheet is the page's styles.css without them
import css from './cfg.css?inline';

/** @typedef {import('../app/panel.js').Panel} Panel */

/** rows the view draws: the first ones of the engine's ranking */
const ROWS = 8;

/** @param {string} lang @param {string} key @param {Record<string, string | number>} [values] */
function say(lang, key, values = {}) {
  const table = CFG[String(lang).split('-')[0]] ?? CFG.en;
  return (table[key] ?? CFG.en[key]).replace(/\{(\w+)\}/g, (_, k) => String(values[k] ?? ''));
}

/**
 * The negative prompt's field, and the view.
 * @param {{panel: Pick<Panel, 'negativePrompt' | 'setNegativePrompt' | 'shown'>, uid: string, onChanged: () => void}} props
 */
export function CfgField({ panel, uid, onChanged }) {
  const { lang } = useI18n();
  const [text, setText] = useState(/** @type {string | null} */ (null));
  const value = text ?? panel.negativePrompt.value;
  const id = `${uid}-negative-prompt`;
  const apply = () => {
    if (text === null) return;
    panel.setNegativePrompt(text);
    setText(null);
    onChanged();
  };
  return (
    <div class="spg-cfg" data-testid="cfg">
      <style>{css}</style>
      <label for={id}>{say(lang, 'negative')}</label>
      <div class="spg-cfg-row">
        <input
          id={id}
          type="text"
          value={value}
          data-testid="negative-prompt"
          aria-describedby={`${id}-hint`}
          onInput={(e) => setText(/** @type {HTMLInputElement} */ (e.currentTarget).value)}
          onKeyDown={(e) => { if (e.key === 'Enter') { e.preventDefault(); apply(); } }}
        />
        <button type="button" data-testid="negative-prompt-apply" disabled={text === null} onClick={apply}>{say(lang, 'apply')}</button>
      </div>
      <small class="spg-hint" id={`${id}-hint`}>{say(lang, 'negativeHint')}</small>
      <details class="spg-cfg-how">
        <summary>{say(lang, 'how')}</summary>
        <p class="spg-hint">{say(lang, 'explain')}</p>
      </details>
      <CfgView panel={panel} />
    </div>
  );
}

/**
 * The step's three distributions, one group of bars a token.
 * @param {{panel: Pick<Panel, 'shown'>}} props
 */
function CfgView({ panel }) {
  const i18n = useI18n();
  const { lang } = i18n;
  const s = panel.shown.value;
  const cfg = s?.cfg;
  if (!s || !cfg) return <p class="spg-hint" data-testid="cfg-off">{say(lang, 'off')}</p>;
  const n = Math.min(ROWS, s.bars, s.ids.length);
  let top = 0;
  for (let i = 0; i < n; i++) top = Math.max(top, s.raw[i], cfg.uncond[i], cfg.mix[i]);
  const kinds = /** @type {const} */ (['cond', 'uncond', 'mix']);
  const value = (/** @type {'cond' | 'uncond' | 'mix'} */ k, /** @type {number} */ i) => (k === 'cond' ? s.raw[i] : cfg[k][i]);
  return (
    <figure class="spg-cfg-view" data-testid="cfg-view">
      <figcaption>{say(lang, 'title')}</figcaption>
      <p class="spg-cfg-legend" aria-hidden="true">
        {kinds.map((k) => <span key={k} class={`spg-cfg-key is-${k}`}>{say(lang, k)}</span>)}
      </p>
      <ul class="spg-cfg-rows">
        {Array.from({ length: n }, (_, i) => (
          <li key={s.ids[i]} class="spg-cfg-token" data-testid="cfg-row"
            aria-label={say(lang, 'row', { piece: JSON.stringify(s.pieces[i]), cond: i18n.pct(s.raw[i]), uncond: i18n.pct(cfg.uncond[i]), mix: i18n.pct(cfg.mix[i]) })}>
            <span class="spg-cfg-piece" aria-hidden="true">{JSON.stringify(s.pieces[i]).slice(1, -1).replaceAll(' ', '␣') || '∅'}</span>
            <span class="spg-cfg-bars" aria-hidden="true">
              {kinds.map((k) => (
                <span key={k} class={`spg-cfg-bar is-${k}`} data-kind={k} data-p={String(value(k, i))}>
                  <span class="spg-cfg-track"><span style={{ width: `${top > 0 ? (100 * value(k, i)) / top : 0}%` }} /></span>
                  <b>{i18n.pct(value(k, i))}</b>
                </span>
              ))}
            </span>
          </li>
        ))}
      </ul>
    </figure>
  );
}
