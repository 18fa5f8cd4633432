// @ts-check
/**
 * The nucleus view: the ranked tokens' probabilities (after penalties and
 * temperature: what top-p sees) as bars, the engine's cumulative mass
 * (top.cum) as a curve, and a horizontal p-line that sets Top-p when
 * dragged (mouse, touch or pen) or moved with the arrow keys.
 */
import { useRef, useState } from 'preact/hooks';

import { cutLabel, nucleusText } from '../app/format.js';
import { SPEC, clampParam } from '../app/params.js';
import { teachSay, useTeach } from '../teach/teach.js';
import { useI18n } from './I18n.jsx';

/**
 * @param {{
 *   summary: import('../worker/summary.js').StepSummary | null,
 *   topP: number,
 *   onTopP: (p: number) => void,
 *   disabled?: boolean,
 *   uid?: string,
 * }} props
 */
export function NucleusView({ summary, topP, onTopP, disabled = false, uid = 'spg' }) {
  const i18n = useI18n();
  const { t } = i18n;
  const plotRef = useRef(/** @type {HTMLDivElement | null} */ (null));
  const dragging = useRef(false);

  /** @param {PointerEvent} e */
  const fromPointer = (e) => {
    const el = plotRef.current;
    if (!el) return;
    const box = el.getBoundingClientRect();
    if (box.height <= 0) return;
    onTopP(clampParam(SPEC.top_p, 1 - (e.clientY - box.top) / box.height));
  };
  const onPointerDown = (/** @type {PointerEvent} */ e) => {
    if (disabled || e.button > 0) return;
    e.preventDefault();
    dragging.current = true;
    /** @type {HTMLElement} */ (e.currentTarget).setPointerCapture?.(e.pointerId);
    /** @type {HTMLElement | null} */ (plotRef.current?.querySelector('.spg-pline'))?.focus({ preventScroll: true });
    fromPointer(e);
  };
  const onPointerMove = (/** @type {PointerEvent} */ e) => {
    if (dragging.current) fromPointer(e);
  };
  const onPointerUp = (/** @type {PointerEvent} */ e) => {
    dragging.current = false;
    /** @type {HTMLElement} */ (e.currentTarget).releasePointerCapture?.(e.pointerId);
  };
  const onKeyDown = (/** @type {KeyboardEvent} */ e) => {
    const steps = /** @type {Record<string, number>} */ ({ ArrowUp: 0.01, ArrowRight: 0.01, ArrowDown: -0.01, ArrowLeft: -0.01, PageUp: 0.1, PageDown: -0.1 });
    let v;
    if (e.key in steps) v = topP + steps[e.key];
    else if (e.key === 'Home') v = SPEC.top_p.min;
    else if (e.key === 'End') v = SPEC.top_p.max;
    else return;
    e.preventDefault();
    onTopP(clampParam(SPEC.top_p, v));
  };

  /** the rows the engine ranked (they have a cumulative mass) */
  let k = 0;
  if (summary) while (k < summary.ids.length && Number.isFinite(summary.cum[k])) k++;
  const w = k > 0 ? 100 / k : 0;
  // the bars are drawn to their own scale (the tallest at 70% of the
  // height) so that small probabilities stay visible; the curve and the
  // p-line share the 0..1 axis
  const tallest = summary && k > 0 ? summary.tempered[0] : 1;
  const scale = tallest > 0 ? Math.max(1, 0.7 / tallest) : 1;
  // the bars as one path per kind (kept, cut by top-p, cut by another
  // stage): a new step rewrites three attributes instead of two for each of
  // up to 128 rectangles (each one an SVG layout of its own: Play redraws
  // this many times a second)
  /** @type {Record<'kept' | 'top-p' | 'cut', string[]>} */
  const bars = { kept: [], 'top-p': [], cut: [] };
  const r3 = (/** @type {number} */ x) => Math.round(x * 1000) / 1000;
  const bw = r3(w * 0.76);
  let curve = '0,100';
  for (let i = 0; i < k && summary; i++) {
    const h = r3(summary.tempered[i] * scale * 100);
    const cut = summary.cut[i];
    bars[cut === 'kept' ? 'kept' : cut === 'top_p' ? 'top-p' : 'cut'].push(`M${r3(i * w + w * 0.12)} ${r3(100 - h)}h${bw}v${h}h${-bw}z`);
    curve += ` ${(i + 1) * w},${100 - summary.cum[i] * 100}`;
  }
  const more = summary ? summary.vocab - k : 0;
  // the legend names every stage that greys a bar here (in the engine's order)
  const present = new Set(summary ? Array.from({ length: k }, (_, i) => summary.cut[i]) : []);
  // (in the chain's order, from the engine's list of who cut what)
  const others = (summary?.cuts ?? []).map((c) => c.stage).filter((c) => c !== 'top_p' && present.has(c));

  return (
    <div class="spg-nucleus">
      <div
        class={`spg-nucleus-plot${disabled ? ' is-disabled' : ''}`}
        ref={plotRef}
        data-testid="nucleus-plot"
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={onPointerUp}
        onPointerCancel={onPointerUp}
      >
        {summary && <p class="spg-sr" data-testid="nucleus-summary">{nucleusText(summary, topP, i18n)}</p>}
        <svg viewBox="0 0 100 100" preserveAspectRatio="none" aria-hidden="true" focusable="false">
          {Object.entries(bars).map(([kind, list]) => (
            <path key={kind} class={`spg-nb spg-nb-${kind}`} data-bars={String(list.length)} d={list.join('') || 'M0 0'} />
          ))}
          {k > 0 && <polyline class="spg-curve" points={curve} vector-effect="non-scaling-stroke" />}
        </svg>
        <div
          class={`spg-pline${topP > 0.85 ? ' is-high' : ''}`}
          style={{ top: `${+((1 - topP) * 100).toFixed(3)}%` }}
          role="slider"
          tabIndex={disabled ? -1 : 0}
          aria-label={t('nucleus.pline')}
          aria-describedby={`${uid}-pline-hint`}
          aria-valuemin={SPEC.top_p.min}
          aria-valuemax={SPEC.top_p.max}
          aria-valuenow={topP}
          aria-valuetext={t('nucleus.p', { p: i18n.fixed(topP, 2) })}
          aria-disabled={disabled ? 'true' : undefined}
          data-testid="p-line"
          onKeyDown={onKeyDown}
        >
          <span class="spg-pline-label">{t('nucleus.p', { p: i18n.fixed(topP, 2) })}</span>
        </div>
      </div>
      <p class="spg-axis">
        <span>{more > 0 ? t('nucleus.axisMore', { first: k, count: more }) : t('nucleus.axis')}</span>
        <span class="spg-legend">
          <span><i class="spg-key spg-key-fill" /> {t('nucleus.kept')}</span>
          <span><i class="spg-key spg-key-topp" /> {t('nucleus.cutTopP')}</span>
          {others.length > 0 && (
            <span data-testid="nucleus-legend-cut"><i class="spg-key spg-key-cut" /> {t('nucleus.cutBy', { names: others.map((c) => cutLabel(c, i18n)).join(', ') })}</span>
          )}
          <span><i class="spg-key spg-key-curve" /> {t('nucleus.cumulative')}</span>
        </span>
      </p>
      <p class="spg-hint" id={`${uid}-pline-hint`}>{t('nucleus.hint')}</p>
    </div>
  );
}

/**
 * The readouts: nucleus size, kept mass, entropy, P(argmax).  Each name
 * says what it means on hover, on focus and on a tap (teach/texts), in a
 * box of its own outside the live region (a screen reader hears it as the
 * name's description, not as a change of the numbers).
 * @param {{summary: import('../worker/summary.js').StepSummary | null, uid?: string}} props
 */
export function Readouts({ summary, uid = 'spg' }) {
  const i18n = useI18n();
  const { t, pct } = i18n;
  const s = summary;
  const texts = useTeach(i18n.lang);
  /** the name whose meaning shows (hover or focus), and one a tap pinned */
  const [over, setOver] = useState(/** @type {string | null} */ (null));
  const [pinned, setPinned] = useState(/** @type {string | null} */ (null));
  const open = over ?? pinned;
  /** @param {string} key @param {string} label */
  const term = (key, label) => (
    <button
      type="button"
      class="spg-term"
      aria-describedby={`${uid}-tip-${key}`}
      aria-expanded={open === key ? 'true' : 'false'}
      data-testid={`term-${key}`}
      onMouseEnter={() => setOver(key)}
      onMouseLeave={() => setOver(null)}
      onFocus={() => setOver(key)}
      onBlur={() => { setOver(null); setPinned(null); }}
      onClick={() => setPinned(pinned === key ? null : key)}
      onKeyDown={(e) => { if (e.key === 'Escape') { setOver(null); setPinned(null); } }}
    >
      {label}
    </button>
  );
  const keys = ['size', 'mass', 'entropy', 'argmax'];
  return (
    <div class="spg-readouts-box">
      <dl class="spg-readouts" aria-live="polite" aria-atomic="false">
        <div>
          <dt>{term('size', t('readout.size'))}</dt>
          <dd>
            <span data-testid="nucleus-size" data-value={s ? String(s.nKept) : ''}>{s ? i18n.int(s.nKept) : '–'}</span>
            {s && <small> {t('readout.of', { count: s.vocab })}</small>}
          </dd>
        </div>
        <div>
          <dt>{term('mass', t('readout.mass'))}</dt>
          <dd data-testid="kept-mass" data-value={s ? String(s.keptMass) : ''}>{s ? pct(s.keptMass) : '–'}</dd>
        </div>
        <div>
          <dt>{term('entropy', t('readout.entropy'))}</dt>
          <dd data-testid="entropy" data-value={s ? String(s.entropyBits) : ''}>
            {s ? i18n.fixed(s.entropyBits, 2) : '–'} <small class="spg-unit">{t('readout.bits')}</small>
          </dd>
          {s && <dd class="spg-sub">{t('readout.model', { value: i18n.fixed(s.entropyRawBits, 2) })}</dd>}
        </div>
        <div>
          <dt>{term('argmax', t('readout.argmax'))}</dt>
          <dd data-testid="p-argmax" data-value={s ? String(s.pArgmax) : ''}>{s ? pct(s.pArgmax) : '–'}</dd>
          {s && <dd class="spg-sub">{t('readout.model', { value: pct(s.pArgmaxRaw) })}</dd>}
        </div>
      </dl>
      {keys.map((key) => (
        <p key={key} id={`${uid}-tip-${key}`} class="spg-tip" role="tooltip" hidden={open !== key} data-testid={`tip-${key}`}>
          {teachSay(texts, i18n, `explain.${key}`) || '…'}
        </p>
      ))}
    </div>
  );
}
