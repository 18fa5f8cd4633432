// @ts-check
/**
 * Generate N: a number and a button that fast-forward the text by that
 * many tokens in the engine's Worker (no bars drawn per token), a progress
 * bar and Stop while it runs, then how many tokens came and how fast.  The
 * text, its metrics and chart show the result; a token's step record is
 * fetched from the engine when the learner hovers or clicks it.
 */
import { useState } from 'preact/hooks';

import { MAX_TOKENS } from '../shared/limits.js';
import { useI18n } from './I18n.jsx';

/** @typedef {import('../app/panel.js').Panel} Panel */

/** Generate N's default, and the field's range */
export const GENERATE_DEFAULT = 200;

/** @param {import('../i18n/index.js').I18n} i18n @param {number} ms */
const secsOf = (i18n, ms) => i18n.fixed(ms / 1000, ms < 1000 ? 3 : 2);

/** @param {{panel: Pick<Panel, 'busy' | 'generate' | 'generated' | 'generating' | 'playing' | 'session' | 'status' |
 *     'stopGenerate' | 'strategy'>}} props */
export function FastForward({ panel }) {
  const i18n = useI18n();
  const { t } = i18n;
  const [n, setN] = useState(String(GENERATE_DEFAULT));
  const running = panel.generating.value;
  const last = panel.generated.value;
  const uid = `spg-${panel.session}-gen`;
  if (panel.strategy.value !== 'sample') return null;
  const ready = !!panel.status.value?.ready && !panel.busy.value && !panel.playing.value;
  const room = Math.max(0, MAX_TOKENS - (panel.status.value?.nGenerated ?? 0));
  // a whole number from 1 (-5, 2.5 or nothing is said so, not read as 1)
  const wanted = Number(n);
  const valid = n.trim() !== '' && Number.isInteger(wanted) && wanted >= 1;
  const value = valid ? Math.min(room, wanted) : 0;
  const go = () => { if (ready && valid && room > 0) panel.generate(value); };
  return (
    <div class="spg-ff" data-testid="fast-forward">
      {!running && (
        <div class="spg-row spg-ff-row">
          <label class="spg-ff-label" for={uid}><span aria-hidden="true">{t('ff.title')}</span><span class="spg-sr">{t('ff.label')}</span></label>
          <input
            id={uid} class="spg-ff-n" type="number" inputMode="numeric" min={1} max={Math.max(1, room)} step={1} value={n}
            disabled={!ready} data-testid="generate-n" aria-invalid={valid ? undefined : 'true'} aria-describedby={valid ? undefined : `${uid}-bad`}
            onInput={(e) => setN(/** @type {HTMLInputElement} */ (e.currentTarget).value)}
            onKeyDown={(e) => { if (e.key === 'Enter') go(); }}
          />
          <button type="button" class="spg-btn" onClick={go} disabled={!ready || room === 0 || !valid} title={t('ff.buttonTitle')} data-testid="generate">
            {valid ? t('ff.button', { count: value }) : t('ff.buttonNone')}
          </button>
          {!valid && <small class="spg-error" id={`${uid}-bad`} data-testid="generate-bad">{t('ff.invalid', { max: i18n.int(Math.max(1, room)) })}</small>}
        </div>
      )}
      {running && (
        <div class="spg-row spg-ff-row">
          <div
            class="spg-progress-track spg-ff-track"
            role="progressbar"
            aria-label={t('ff.label')}
            aria-valuemin={0}
            aria-valuemax={running.total}
            aria-valuenow={running.done}
            aria-valuetext={t('ff.progress', { done: running.done, count: running.total })}
            data-testid="generate-progress"
          >
            <div class="spg-progress-fill" style={{ width: `${Math.round((100 * running.done) / Math.max(1, running.total))}%` }} />
          </div>
          <button type="button" class="spg-btn" onClick={() => panel.stopGenerate()} data-testid="generate-stop">{t('ff.stop')}</button>
          <small class="spg-hint" aria-hidden="true">{t('ff.fraction', { done: running.done, total: running.total })}</small>
        </div>
      )}
      {!running && last && last.count > 0 && (
        <small class="spg-hint" data-testid="generate-done" data-count={String(last.count)} data-stopped={String(last.stopped)}>
          {t('ff.done', { count: last.count, secs: secsOf(i18n, last.ms), rate: last.ms >= 1 ? i18n.int((1000 * last.count) / last.ms) : '—' })}
          {last.stopped ? ` ${t('ff.stopped')}` : ''}
          {` ${t('ff.hint')}`}
        </small>
      )}
    </div>
  );
}
