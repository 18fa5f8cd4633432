// @ts-check
/**
 * The KV-cache picture: what the cache holds after each step — one K row
 * and one V row per position, the newest highlighted — beside the
 * cumulative work with and without the cache and their ratio, all from the
 * engine's counters (the panel's cost history).  ◀ / ▶ step through the
 * history; ▶ past the end generates the next token, so it works before any
 * generation.
 */
import { useState } from 'preact/hooks';

import { compact } from '../app/metrics.js';
import { useI18n } from './I18n.jsx';

/** @typedef {import('../app/panel.js').Panel} Panel */

/** rows drawn at most (the earlier ones are counted) */
const MAX_ROWS = 48;

/**
 * @param {{panel: Pick<Panel, 'lab' | 'model' | 'playing' | 'status' | 'step' | 'strategy'>}} props
 */
export function KVPicture({ panel }) {
  const i18n = useI18n();
  const { t } = i18n;
  const costs = panel.lab.value?.costs ?? [];
  const [at, setAt] = useState(/** @type {number | null} */ (null)); // null: follow the latest
  const kind = panel.model.value?.kind;
  if (kind && kind !== 'transformer') return null; // (the KV view beside it says why there is no cache)
  if (panel.strategy.value === 'beam') return null;
  const last = costs.length - 1;
  const i = at === null ? last : Math.min(at, last);
  const c = i >= 0 ? costs[i] : null;
  const prev = i > 0 ? costs[i - 1] : null;
  const positions = c ? c.tokens : 0;
  const fresh = c ? positions - (prev ? prev.tokens : 0) : 0;
  const shownFrom = Math.max(0, positions - MAX_ROWS);
  const canStep = !!panel.status.value?.ready && !panel.playing.value;
  const next = () => {
    if (i < last) setAt(i + 1 === last ? null : i + 1);
    else if (canStep) {
      setAt(null);
      panel.step();
    }
  };
  const back = () => { if (i > 0) setAt(i - 1); };
  const rows = [];
  for (let p = shownFrom; p < positions; p++) {
    const isNew = p >= positions - fresh;
    rows.push(
      <div key={p} class={`spg-kv-row${isNew ? ' is-new' : ''}`} data-testid="kv-row" data-pos={String(p)} data-new={isNew ? 'true' : undefined}>
        <span class="spg-kv-pos">{p}</span><span class="spg-kv-k" /><span class="spg-kv-v" />
      </div>,
    );
  }
  return (
    <div class="spg-kvpic" data-testid="kv-picture" data-step={String(i)} data-positions={String(positions)}>
      <div class="spg-row spg-kv-controls">
        <button type="button" class="spg-btn spg-btn-small" data-testid="kv-back" aria-label={t('kvpic.back')} disabled={i <= 0} onClick={back}>◀</button>
        <button type="button" class="spg-btn spg-btn-small" data-testid="kv-next" aria-label={t('kvpic.next')} disabled={i >= last && !canStep} onClick={next}>▶</button>
        <span class="spg-hint" data-testid="kv-at">{c ? (c.n === 0 ? t('kvpic.prompt') : t('kvpic.at', { count: c.n, of: costs[last].n })) : t('kvpic.waiting')}</span>
      </div>
      {c && (
        <div class="spg-kv-body">
          <figure class="spg-kv-cache" aria-label={t('kvpic.rows', { count: positions })}>
            <figcaption class="spg-hint">{t('kvpic.rows', { count: positions })}</figcaption>
            <div class="spg-kv-head" aria-hidden="true"><span /><span>{t('kvpic.k')}</span><span>{t('kvpic.v')}</span></div>
            {shownFrom > 0 && <div class="spg-hint">{t('kvpic.earlier', { count: shownFrom })}</div>}
            <div class="spg-kv-rows">{rows}</div>
            <small class="spg-hint"><i class="spg-key spg-kv-newkey" /> {t('kvpic.newRow')}</small>
          </figure>
          <dl class="spg-kv-work">
            <dt>{t('kvpic.withCache')}</dt><dd data-testid="kvpic-flops" data-value={String(c.flops)}>{t('kvpic.flops', { v: compact(c.flops, i18n) })}</dd>
            <dt>{t('kvpic.without')}</dt><dd data-testid="kvpic-nocache" data-value={String(c.flopsNoCache)}>{t('kvpic.flops', { v: compact(c.flopsNoCache, i18n) })}</dd>
            <dt>{t('kvpic.ratio')}</dt><dd data-testid="kvpic-ratio" data-value={String(c.flopsNoCache / c.flops)}>{c.flops > 0 ? t('kvpic.times', { x: i18n.fixed(c.flopsNoCache / c.flops, 2) }) : '—'}</dd>
          </dl>
        </div>
      )}
      <p class="spg-hint" data-testid="kv-growth">{t('kvpic.growth')}</p>
    </div>
  );
}
