// @ts-check
/**
 * The next token's probability bars: one per token of a small vocabulary,
 * else the top 30 and an "other" bar.  Each bar shows the model's raw
 * probability (ghost) and the final probability (solid), the stage that cut
 * the token, the sampled token, and optional sample-frequency ticks.  It
 * draws what the summary says; it computes no probability.
 */
import { useId, useRef } from 'preact/hooks';

import { CUT_LABELS, distributionText, pct, pieceName, showPiece } from '../app/format.js';

/** @param {number} p */
const width = (p) => `${Math.max(0, Math.min(1, p)) * 100}%`;

/**
 * @param {{
 *   summary: import('../worker/summary.js').StepSummary | null,
 *   samples?: {freq: Float64Array, otherFreq: number} | null,
 *   onPick?: (token: number, event: MouseEvent) => void,
 *   pickHint?: string,
 *   label?: string,
 * }} props
 */
export function ProbBars({ summary, samples = null, onPick, pickHint = '', label = 'Next-token probabilities' }) {
  const listRef = useRef(/** @type {HTMLDivElement | null} */ (null));
  const summaryId = `spg-dist-${useId()}`;
  if (!summary) {
    return <div class="spg-bars spg-bars-empty" data-testid="prob-bars" aria-label={label}>No distribution yet.</div>;
  }
  const sampled = summary.kind === 'step' ? summary.token : -1;
  const n = summary.bars;

  /** Arrow keys move between the bars (one tab stop for the whole list). */
  const onKeyDown = (/** @type {KeyboardEvent} */ e) => {
    if (!['ArrowDown', 'ArrowUp', 'Home', 'End'].includes(e.key)) return;
    const buttons = /** @type {HTMLButtonElement[]} */ ([...(listRef.current?.querySelectorAll('button.spg-bar-btn') ?? [])]);
    // the focused button (inside a shadow root, the root knows it; the document sees the host)
    const root = /** @type {Document | ShadowRoot | undefined} */ (listRef.current?.getRootNode());
    const at = buttons.indexOf(/** @type {HTMLButtonElement} */ ((root && 'activeElement' in root ? root.activeElement : null) ?? document.activeElement));
    if (at < 0) return;
    e.preventDefault();
    const to = e.key === 'Home' ? 0 : e.key === 'End' ? buttons.length - 1
      : Math.max(0, Math.min(buttons.length - 1, at + (e.key === 'ArrowDown' ? 1 : -1)));
    buttons.forEach((b, i) => { b.tabIndex = i === to ? 0 : -1; });
    buttons[to].focus();
  };

  const rows = [];
  for (let i = 0; i < n; i++) {
    const id = summary.ids[i];
    const cutName = summary.cut[i];
    const kept = cutName === 'kept';
    const penalized = summary.penalized[i] === 1;
    const piece = summary.pieces[i];
    const final = summary.final[i];
    const raw = summary.raw[i];
    const freq = samples ? samples.freq[i] : -1;
    const isSampled = id === sampled;
    const badge = kept ? (penalized ? 'penalty' : '') : CUT_LABELS[cutName] ?? cutName;
    // the button's name is its text: the piece's name (its symbol is for
    // the eye), the probability, the stage that cut it, and what else holds
    const also = `${penalized && !kept ? ', penalized' : ''}${isSampled ? ', sampled' : ''}`;
    rows.push(
      <div
        key={id}
        role="listitem"
        class={`spg-bar${kept ? '' : ' is-cut'}${isSampled ? ' is-sampled' : ''}${penalized ? ' is-penalized' : ''}`}
        data-testid="prob-bar"
        data-token={String(id)}
        data-piece={piece}
        data-prob={String(final)}
        data-raw={String(raw)}
        data-kept={kept ? 'true' : 'false'}
        data-cut={cutName}
        data-sampled={isSampled ? 'true' : undefined}
      >
        <button
          type="button"
          class="spg-bar-btn"
          tabIndex={isSampled || (sampled < 0 && i === 0) ? 0 : -1}
          title={`${JSON.stringify(piece)} — model ${pct(raw)}, after penalties and temperature ${pct(summary.tempered[i])}, final ${pct(final)}${kept ? '' : ` (cut by ${badge})`}${pickHint ? `. ${pickHint}` : ''}`}
          onClick={onPick ? (e) => onPick(id, e) : undefined}
        >
          <span class="spg-bar-tok" aria-hidden="true">{showPiece(piece)}</span>
          <span class="spg-sr">{pieceName(piece)} </span>
          <span class="spg-bar-track">
            <span class="spg-bar-ghost" style={{ width: width(raw) }} />
            <span class="spg-bar-fill" style={{ width: width(final) }} />
            {freq > 0 && <span class="spg-tick" data-testid="sample-tick" data-freq={String(freq)} style={{ left: width(freq) }} />}
          </span>
          <span class="spg-bar-val">{pct(final)}</span>
          {!kept && <span class="spg-sr"> cut by </span>}
          {kept && badge && <span class="spg-sr"> </span>}
          <span class={`spg-bar-cut spg-cut-${cutName}`}>{badge}</span>
          {also && <span class="spg-sr">{also}</span>}
        </button>
      </div>,
    );
  }

  const other = summary.other;
  if (other) {
    const freq = samples ? samples.otherFreq : -1;
    rows.push(
      <div
        key="other"
        role="listitem"
        class={`spg-bar spg-bar-other${other.kept > 0 ? '' : ' is-cut'}`}
        data-testid="prob-bar"
        data-token="other"
        data-other="true"
        data-count={String(other.count)}
        data-kept-count={String(other.kept)}
        data-prob={String(other.final)}
        data-raw={String(other.raw)}
        data-kept={other.kept > 0 ? 'true' : 'false'}
      >
        <div class="spg-bar-btn" title={`${other.count} other tokens (${other.kept} of them kept) — model ${pct(other.raw)}, final ${pct(other.final)}`}>
          <span class="spg-bar-tok">other</span>
          <span class="spg-bar-track">
            <span class="spg-bar-ghost" style={{ width: width(other.raw) }} />
            <span class="spg-bar-fill" style={{ width: width(other.final) }} />
            {freq > 0 && <span class="spg-tick" data-testid="sample-tick" data-freq={String(freq)} style={{ left: width(freq) }} />}
          </span>
          <span class="spg-bar-val">{pct(other.final)}</span>
          <span class="spg-bar-cut">{other.count.toLocaleString('en')} tokens · {other.kept.toLocaleString('en')} kept</span>
        </div>
      </div>,
    );
  }

  return (
    <>
      <p class="spg-sr" id={summaryId} data-testid="bars-summary">{distributionText(summary)}</p>
      <div class="spg-bars" data-testid="prob-bars" data-full={summary.full ? 'true' : 'false'} role="list" aria-label={label} aria-describedby={summaryId} ref={listRef} onKeyDown={onKeyDown}>
        {rows}
      </div>
    </>
  );
}
