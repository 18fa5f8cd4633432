// @ts-check
/**
 * MiniBars.jsx — on a phone, while a setting of the chain or the
 * constraint is used far down the page, the strip at the bottom of the
 * screen shows the first bars and the nucleus size with it (the bars
 * themselves are up at the top), so the learner sees what the slider
 * does.  The engine's numbers of the distribution shown, as the bars
 * draw them; fetched the first time it is needed (components/lazy.js).
 * Styled inline: the element's shadow root gets no stylesheet of a chunk.
 */
import { showPiece } from '../app/format.js';
import { useI18n } from './I18n.jsx';

/** how many bars the strip shows */
export const MINI_BARS = 3;

const ROW = 'display:grid;grid-template-columns:2.6em minmax(0,1fr) 4.2em;gap:6px;align-items:center;font-size:0.8rem;min-height:18px';

/** @param {{panel: Pick<import('../app/panel.js').Panel, 'shown'>}} props */
export function MiniBars({ panel }) {
  const i18n = useI18n();
  const { t } = i18n;
  const s = panel.shown.value;
  if (!s || !s.final?.length) return null;
  const rows = Array.from({ length: Math.min(MINI_BARS, s.final.length) }, (_, i) => i);
  return (
    <div role="group" aria-label={t('bars.label')} data-testid="mini-bars" style="display:grid;gap:2px">
      {rows.map((i) => (
        <div key={i} style={ROW} data-testid="mini-bar" data-piece={s.pieces[i]} data-prob={String(s.final[i])}>
          <span style="font-family:ui-monospace,monospace;overflow:hidden;white-space:nowrap">{showPiece(s.pieces[i])}</span>
          <span style="height:8px;background:var(--spg-track);border-radius:3px;overflow:hidden">
            <span style={`display:block;height:100%;width:${(100 * s.final[i]).toFixed(2)}%;background:var(--spg-accent)`} />
          </span>
          <span style="text-align:end;font-variant-numeric:tabular-nums">{i18n.pct(s.final[i])}</span>
        </div>
      ))}
      <small class="spg-hint" data-testid="mini-nucleus">
        {t('readout.size')}: {i18n.int(s.nKept)} {t('readout.of', { count: s.vocab })}
      </small>
    </div>
  );
}
