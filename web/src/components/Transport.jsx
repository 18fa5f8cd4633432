// @ts-check
/**
 * Step / Play / Reset and Play's speed, for a panel or for compare mode's
 * panels; on a phone, the strip at the bottom of the screen that holds
 * them and one setting.
 */
import { useEffect, useState } from 'preact/hooks';

import { PARAM_SPECS, SPEC, clampParam, sliderMax } from '../app/params.js';
import { unusedBecause } from './Controls.jsx';
import { useI18n } from './I18n.jsx';
import { miniCode } from './lazy.js';

/** @typedef {import('../app/panel.js').Panel} Panel */

/**
 * Step / Play / Reset and the speed: for a panel, or for compare mode's
 * panels in lockstep.
 * @param {{panel: {status: any, busy: any, playing: any, ready: any, speed: any, session: string, generating?: any,
 *   step: () => unknown, togglePlay: () => void, reset: () => unknown}, label?: string}} props
 *   generating: a fast-forward is running (a single panel's Generate N)
 */
export function Transport({ panel, label }) {
  const { t } = useI18n();
  const ready = !!panel.status.value?.ready && !panel.busy.value && !panel.generating?.value;
  const playing = panel.playing.value;
  return (
    <div class="spg-transport" role="group" aria-label={label ?? t('transport.label')}>
      <button type="button" class="spg-btn" onClick={() => panel.step()} disabled={!ready || playing} data-testid="step">{t('transport.step')}</button>
      <button
        type="button"
        class="spg-btn spg-btn-primary spg-play"
        onClick={() => panel.togglePlay()}
        disabled={!ready && !playing}
        aria-pressed={playing ? 'true' : 'false'}
        data-testid="play"
      >
        {playing ? t('transport.pause') : t('transport.play')}
      </button>
      <button type="button" class="spg-btn" onClick={() => panel.reset()} disabled={!panel.ready.value} data-testid="reset">{t('transport.reset')}</button>
      <div class="spg-speed">
        <label for={`${panel.session}-speed`}>{t('transport.speed')}</label>
        <input
          id={`${panel.session}-speed`}
          type="range"
          min={1}
          max={60}
          step={1}
          value={panel.speed.value}
          aria-valuetext={t('transport.speedValue', { count: panel.speed.value })}
          onInput={(e) => { panel.speed.value = Number(/** @type {HTMLInputElement} */ (e.currentTarget).value); }}
          data-testid="speed"
        />
        <output>{t('transport.perSecond', { count: panel.speed.value })}</output>
      </div>
    </div>
  );
}

/** the width below which the page is one column, with the phone strip */
export const NARROW = '(max-width: 820px)';

/** Whether a media query matches, kept up to date. @param {string} query */
export function useMedia(query) {
  const mq = typeof matchMedia === 'function' ? matchMedia(query) : null;
  const [matches, setMatches] = useState(!!mq?.matches);
  useEffect(() => {
    if (!mq) return undefined;
    const on = () => setMatches(mq.matches);
    on();
    mq.addEventListener('change', on);
    return () => mq.removeEventListener('change', on);
  }, [query]);
  return matches;
}

/**
 * On a phone, a strip fixed at the bottom of the screen: Step / Play /
 * Reset and one sampler setting (the one moved last, or chosen here), so
 * the text, the bars and the slider being dragged are on screen together;
 * while a setting of the chain is used (chain: far below the bars), the
 * first bars and the nucleus size too (MiniBars.jsx, fetched then).
 * @param {{panel: Pick<Panel, 'activeParam' | 'busy' | 'generating' | 'model' | 'params' | 'playing' | 'ready' |
 *     'reset' | 'session' | 'setParam' | 'shown' | 'speed' | 'status' | 'step' | 'strategy' |
 *     'togglePlay'>, uid: string, chain?: boolean}} props
 */
export function PhoneStrip({ panel, uid, chain = false }) {
  const mini = miniCode.use(chain);
  const i18n = useI18n();
  const { t } = i18n;
  const key = panel.activeParam.value;
  const spec = SPEC[key] ?? PARAM_SPECS[0];
  const vocab = panel.model.value?.vocab ?? 1;
  const max = sliderMax(spec, vocab);
  const value = /** @type {any} */ (panel.params.value)[spec.key];
  const why = unusedBecause(panel.strategy.value, spec.key);
  const text = spec.format(value, vocab, i18n);
  const label = t(`param.${spec.key}.label`);
  return (
    <div class="spg-strip" role="group" aria-label={t('strip.label')} data-testid="phone-strip">
      {chain && mini && <mini.MiniBars panel={panel} />}
      <Transport panel={panel} />
      {/* (while the chain is used, its own slider is the quick one: the first bars take its place) */}
      {!(chain && mini) && <div class="spg-strip-slider">
        <label class="spg-sr" for={`${uid}-quick-key`}>{t('strip.quick')}</label>
        <select
          id={`${uid}-quick-key`} value={spec.key} data-testid="quick-key"
          onChange={(e) => { panel.activeParam.value = /** @type {HTMLSelectElement} */ (e.currentTarget).value; }}
        >
          {PARAM_SPECS.map((s) => <option key={s.key} value={s.key}>{t(`param.${s.key}.label`)}</option>)}
        </select>
        <input
          type="range" min={spec.min} max={max} step={spec.step} value={value} disabled={!!why}
          aria-label={t('strip.quickOf', { name: label })} aria-valuetext={text} title={why ? t(why) : t(`param.${spec.key}.doc`)} data-testid="quick-slider"
          onInput={(e) => panel.setParam(spec.key, clampParam(spec, Number(/** @type {HTMLInputElement} */ (e.currentTarget).value), max))}
        />
        <output data-testid="quick-value">{text}</output>
      </div>}
    </div>
  );
}
