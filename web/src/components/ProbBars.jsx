// @ts-check
/**
 * The next token's probability bars: one per token of a small vocabulary,
 * else the top 30 and an "other" bar.  Each bar shows the model's raw
 * probability (ghost) and the final probability (solid), the stage that cut
 * the token, the sampled token, and optional sample-frequency ticks.  It
 * draws what the summary says; it computes no probability.
 *
 * Editing (onEdit): a handle at the end of each model (ghost) bar; dragging
 * it (mouse, touch, pen) sets that token's model probability to where it is
 * let go, and + / - (PageUp / PageDown: 10 points) on a focused bar move
 * it by one point.  The engine makes the edit; the bars then show its
 * numbers.  A click or Enter on a bar still bans (or picks) its token: the
 * handle is a target of its own.
 */
import { useId, useLayoutEffect, useRef, useState } from 'preact/hooks';

import { cutLabel, distributionText, pieceName, showPiece } from '../app/format.js';
import { useI18n } from './I18n.jsx';

/** decades a log-scale bar spans: 0.01 % (1e-4) to 100 % */
export const LOG_DECADES = 4;

/**
 * How long a bar is for a probability, as a fraction of its track: linear
 * (p itself), relative to the largest value drawn (p / top), or log
 * (LOG_DECADES decades, 1e-4 at the left end).  A length is always the
 * value it stands for, on the chosen scale: no animation.
 * @param {import('../app/hash.js').BarScale} scale @param {number} top
 */
export function barLength(scale, top) {
  if (scale === 'max') return (/** @type {number} */ p) => (top > 0 ? Math.max(0, Math.min(1, p / top)) : 0);
  if (scale === 'log') return (/** @type {number} */ p) => (p > 0 ? Math.max(0, Math.min(1, 1 + Math.log10(p) / LOG_DECADES)) : 0);
  return (/** @type {number} */ p) => Math.max(0, Math.min(1, p));
}

/** pointer travel (px) past which a press is a drag, not a click */
const DRAG_PX = 5;

/** The probability at a fraction f of the track: barLength's inverse. @param {import('../app/hash.js').BarScale} scale @param {number} top @param {number} f */
export function probAt(scale, top, f) {
  const x = Math.max(0, Math.min(1, f));
  if (scale === 'max') return x * top;
  if (scale === 'log') return 10 ** ((x - 1) * LOG_DECADES);
  return x;
}

/** what the keys and the handle do, said in the bars' hint and titles (a catalogue key) */
export const EDIT_HINT = 'bars.editHint';
/** edits stay inside (0, 1): the engine needs the others to share something */
const EDIT_MIN = 0.001;
const EDIT_MAX = 0.999;
const clampEdit = (/** @type {number} */ p) => Math.min(EDIT_MAX, Math.max(EDIT_MIN, Math.round(p * 1000) / 1000));

/**
 * @param {{
 *   summary: import('../worker/summary.js').StepSummary | null,
 *   samples?: {freq: Float64Array, otherFreq: number} | null,
 *   onPick?: (token: number, event: MouseEvent) => void,
 *   pickHint?: string,
 *   label?: string,
 *   scale?: import('../app/hash.js').BarScale,
 *   onEdit?: ((token: number, p: number) => void) | null,
 *   windowed?: boolean,
 * }} props
 *   onEdit: the model can be edited (a drag on a bar's handle, + / - keys)
 *   windowed: draw only the rows the list's scroll window shows, and a
 *     spacer for the others (while Play redraws the bars many times a
 *     second: a row out of sight costs nothing then; all rows when it stops)
 */
export function ProbBars({ summary, samples = null, onPick, pickHint = '', label, scale = 'linear', onEdit = null, windowed = false }) {
  const i18n = useI18n();
  const { t } = i18n;
  const pct = i18n.pct;
  const name = label ?? t('bars.label');
  /** a handle being dragged: its token and where it is (the learner's value, until the engine answers) */
  const [dragging, setDragging] = useState(/** @type {{id: number, p: number} | null} */ (null));
  const listRef = useRef(/** @type {HTMLDivElement | null} */ (null));
  const summaryId = `spg-dist-${useId()}`;
  /** the bar that holds the list's one tab stop (the last one focused) */
  const tabStop = useRef(/** @type {number | null} */ (null));
  /** a bar picked while focused: focus stays on it when the bars redraw */
  const keepFocus = useRef(/** @type {number | null} */ (null));
  /** the token whose bar has the focus (rows are keyed by rank: a redraw can give the focused row another token) */
  const focusedToken = useRef(/** @type {number | null} */ (null));
  /** where the pointer went down on a bar */
  const pressed = useRef(/** @type {{x: number, y: number} | null} */ (null));
  /** the rank of the bar under the pointer, or -1 */
  const hovered = useRef(-1);
  /** a row's height (px; measured once drawn) and how many rows the list's scroll window reaches */
  const rowHeight = useRef(0);
  const [reach, setReach] = useState(0);
  /** rows drawn last time, and whether the focus is on one of them (then none of them goes: the focused button would fall to the page) */
  const drawnBefore = useRef(0);
  const focusInside = useRef(false);
  /**
   * the rows the scroll window reaches, and a quarter of a window more (a
   * scroll redraws at once; each row more is redrawn at every token while
   * Play runs) — read where the layout is fresh: a scroll, a first draw
   */
  const measureReach = () => {
    const list = listRef.current;
    const row = /** @type {HTMLElement | null | undefined} */ (list?.querySelector('.spg-bar'));
    if (!list || !row) return;
    if (!rowHeight.current) rowHeight.current = row.offsetHeight;
    const h = rowHeight.current || 24;
    const rows = Math.ceil((list.scrollTop + 1.25 * list.clientHeight) / h);
    if (rows !== reach) setReach(rows);
  };
  useLayoutEffect(() => { if (windowed && !rowHeight.current) measureReach(); }, [windowed, summary === null]);
  /**
   * What a bar says after its value: the stage that cut it, "penalty" for a
   * kept token a penalty lowered, else nothing.
   * @param {import('../worker/summary.js').StepSummary} sum @param {number} i its rank
   */
  const badgeOf = (sum, i) => (sum.cut[i] === 'kept' ? (sum.penalized[i] === 1 ? t('bars.penalty') : '') : cutLabel(sum.cut[i], i18n));
  /**
   * A bar's tooltip: its token, its probabilities along the chain, the
   * stage that cut it, and what a click and the keys do.
   * @param {number} i its rank
   */
  const titleOf = (i) => {
    if (!summary || i >= summary.bars) return '';
    const kept = summary.cut[i] === 'kept';
    const badge = badgeOf(summary, i);
    const title = t(kept ? 'bars.title' : 'bars.titleCut', {
      piece: JSON.stringify(summary.pieces[i]), raw: pct(summary.raw[i]), tempered: pct(summary.tempered[i]), final: pct(summary.final[i]), by: badge,
    });
    return [title, pickHint, onEdit ? t(EDIT_HINT) : ''].filter(Boolean).reduce((a, hint) => t('bars.titleHint', { title: a, hint }));
  };

  // a redraw can give the focused row another token (the rows are keyed by
  // rank, and a ban or a new step reorders the tokens) or replace it: the
  // focus follows the token it was on
  useLayoutEffect(() => {
    const list = listRef.current;
    if (!list) return;
    const root = /** @type {Document | ShadowRoot} */ (list.getRootNode());
    const active = root.activeElement;
    if (active && list.contains(active)) {
      const want = focusedToken.current;
      const row = /** @type {HTMLElement | null} */ (active.closest('[data-token]'));
      if (want === null || !row || Number(row.dataset.token) === want) return;
      /** @type {HTMLButtonElement | null} */ (list.querySelector(`[data-token="${want}"] button.spg-bar-btn`))?.focus({ preventScroll: true });
      return;
    }
    const id = keepFocus.current;
    if (id === null) return;
    // focus fell to the page's body (its button moved or went away); focus
    // elsewhere was the learner's move
    if (document.activeElement && document.activeElement !== document.body) {
      keepFocus.current = null;
      return;
    }
    const button = /** @type {HTMLButtonElement | null} */ (list.querySelector(`[data-token="${id}"] button.spg-bar-btn`)
      ?? list.querySelector('button.spg-bar-btn'));
    button?.focus();
  });

  // the tooltip of the bar under the pointer, and of a focused one: built
  // for that bar alone (Play redraws every bar many times a second, and
  // each tooltip is a sentence of formatted numbers), and rebuilt at each
  // redraw while the pointer stays, so it always tells the bar's token
  useLayoutEffect(() => {
    const i = hovered.current;
    const button = i >= 0 ? /** @type {HTMLElement | undefined} */ (listRef.current?.querySelectorAll('button.spg-bar-btn')[i]) : undefined;
    if (button) button.title = titleOf(i);
  });

  if (!summary) {
    return <div class="spg-bars spg-bars-empty" data-testid="prob-bars" aria-label={name}>{t('bars.empty')}</div>;
  }
  const sampled = summary.kind === 'step' ? summary.token : -1;
  const n = summary.bars;
  let top = 0;
  for (let i = 0; i < n; i++) top = Math.max(top, summary.raw[i], summary.final[i]);
  if (summary.other) top = Math.max(top, summary.other.raw, summary.other.final);
  const len = barLength(scale, top);
  const width = (/** @type {number} */ p) => `${len(p) * 100}%`;
  /** a bar's length as a transform of a full-width bar: a redraw moves no layout (Play redraws many times a second) */
  const lengthStyle = (/** @type {number} */ p) => ({ transform: `scaleX(${len(p)})` });
  /** a token's rank among the bars, or -1 */
  const rankOf = (/** @type {number | null} */ id) => (id === null ? -1 : Array.prototype.indexOf.call(summary.ids.subarray(0, n), id));
  const stopId = rankOf(tabStop.current) >= 0
    ? tabStop.current : sampled >= 0 ? sampled : summary.ids[0];

  /** + / - (and PageUp / PageDown) on a focused bar: its model probability by 1 (10) points */
  const editKey = (/** @type {KeyboardEvent} */ e) => {
    const step = { '+': 0.01, '=': 0.01, '-': -0.01, '_': -0.01, '−': -0.01, PageUp: 0.1, PageDown: -0.1 }[e.key];
    if (!onEdit || step === undefined || e.ctrlKey || e.metaKey || e.altKey) return false;
    const bar = /** @type {HTMLElement | null} */ (/** @type {HTMLElement} */ (e.target).closest?.('[data-token]'));
    const id = bar ? Number(bar.dataset.token) : NaN;
    const i = rankOf(id);
    if (i < 0) return false;
    e.preventDefault();
    keepFocus.current = id;
    onEdit(id, clampEdit(summary.raw[i] + step));
    return true;
  };

  /** Arrow keys move between the bars (one tab stop for the whole list). */
  const onKeyDown = (/** @type {KeyboardEvent} */ e) => {
    if (editKey(e)) return;
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

  /** @param {FocusEvent} e */
  const onFocusIn = (e) => {
    const bar = /** @type {HTMLElement | null} */ (/** @type {HTMLElement} */ (e.target).closest?.('[data-token]'));
    const id = bar ? Number(bar.dataset.token) : NaN;
    if (Number.isInteger(id)) tabStop.current = focusedToken.current = id;
    focusInside.current = true;
  };
  /** @param {FocusEvent} e */
  const onFocusOut = (e) => {
    const to = /** @type {Node | null} */ (e.relatedTarget);
    if (!to || !listRef.current?.contains(to)) focusInside.current = false;
    if (to && !listRef.current?.contains(to)) keepFocus.current = focusedToken.current = null; // focus went elsewhere on purpose
  };
  /**
   * A click picks the bar's token, unless the pointer travelled: a drag is
   * not a click.  (A click from the keyboard has no pointer.)
   * @param {number} id @param {MouseEvent} e
   */
  const onClick = (id, e) => {
    const down = pressed.current;
    pressed.current = null;
    if (e.detail > 0 && down && Math.hypot(e.clientX - down.x, e.clientY - down.y) > DRAG_PX) return;
    keepFocus.current = id;
    onPick?.(id, e);
  };
  const onPointerDown = (/** @type {PointerEvent} */ e) => { pressed.current = { x: e.clientX, y: e.clientY }; };

  /**
   * A press on a handle: the pointer is captured, the ghost bar follows it,
   * and letting go makes the edit.  The press never reaches the bar's button
   * (no click, no ban).
   * @param {number} id @param {PointerEvent} e
   */
  const onHandleDown = (id, e) => {
    if (!onEdit) return;
    e.preventDefault();
    e.stopPropagation();
    const handle = /** @type {HTMLElement} */ (e.currentTarget);
    const track = /** @type {HTMLElement | null} */ (handle.closest('.spg-bar')?.querySelector('.spg-bar-track') ?? null);
    if (!track) return;
    handle.setPointerCapture?.(e.pointerId);
    const at = (/** @type {PointerEvent} */ ev) => {
      const r = track.getBoundingClientRect();
      // the track grows from its start: the right edge in a right-to-left language
      const fromStart = getComputedStyle(track).direction === 'rtl' ? r.right - ev.clientX : ev.clientX - r.left;
      return clampEdit(probAt(scale, top, r.width > 0 ? fromStart / r.width : 0));
    };
    let p = at(e);
    setDragging({ id, p });
    const move = (/** @type {PointerEvent} */ ev) => { p = at(ev); setDragging({ id, p }); };
    const up = (/** @type {PointerEvent} */ ev) => {
      handle.removeEventListener('pointermove', move);
      handle.removeEventListener('pointerup', up);
      handle.removeEventListener('pointercancel', cancel);
      setDragging(null);
      onEdit(id, at(ev));
    };
    const cancel = () => {
      handle.removeEventListener('pointermove', move);
      handle.removeEventListener('pointerup', up);
      handle.removeEventListener('pointercancel', cancel);
      setDragging(null);
    };
    handle.addEventListener('pointermove', move);
    handle.addEventListener('pointerup', up);
    handle.addEventListener('pointercancel', cancel);
  };

  // while windowed: the rows the scroll window reaches (and the focused
  // one), then one spacer as tall as the rows left out, so the scroll bar
  // and the rows' places stay the same
  let drawn = n;
  if (windowed && rowHeight.current > 0) {
    drawn = Math.min(n, Math.max(reach, rankOf(focusedToken.current) + 1, focusInside.current ? drawnBefore.current : 0, 1));
  }
  drawnBefore.current = drawn;
  // each row says its place among all (a windowed list holds fewer rows)
  const setSize = n + (summary.other ? 1 : 0);
  const rows = [];
  for (let i = 0; i < drawn; i++) {
    const id = summary.ids[i];
    const cutName = summary.cut[i];
    const kept = cutName === 'kept';
    const penalized = summary.penalized[i] === 1;
    const piece = summary.pieces[i];
    const final = summary.final[i];
    const drag = dragging && dragging.id === id ? dragging.p : null;
    const raw = summary.raw[i];
    const ghost = drag ?? raw;
    const freq = samples ? samples.freq[i] : -1;
    const isSampled = id === sampled;
    const badge = badgeOf(summary, i);
    // the button's name is its text: the piece's name (its symbol is for
    // the eye), the probability, the stage that cut it, and what else holds
    const also = `${penalized && !kept ? t('bars.alsoPenalized') : ''}${isSampled ? t('bars.alsoSampled') : ''}`;
    rows.push(
      // keyed by rank: a new distribution updates the rows in place instead
      // of moving them (Play reorders the bars at every step)
      <div
        key={i}
        role="listitem"
        aria-posinset={i + 1}
        aria-setsize={setSize}
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
          tabIndex={id === stopId ? 0 : -1}
          onPointerEnter={(e) => { hovered.current = i; /** @type {HTMLElement} */ (e.currentTarget).title = titleOf(i); }}
          onPointerLeave={(e) => { hovered.current = -1; /** @type {HTMLElement} */ (e.currentTarget).removeAttribute('title'); }}
          onFocus={(e) => { /** @type {HTMLElement} */ (e.currentTarget).title = titleOf(i); }}
          onBlur={(e) => { /** @type {HTMLElement} */ (e.currentTarget).removeAttribute('title'); }}
          aria-keyshortcuts={onEdit ? '+ - PageUp PageDown' : undefined}
          onPointerDown={onPick ? onPointerDown : undefined}
          onClick={onPick ? (e) => onClick(id, e) : undefined}
        >
          <span class="spg-bar-tok" aria-hidden="true">{showPiece(piece)}</span>
          <span class="spg-sr">{pieceName(piece, i18n)} </span>
          <span class="spg-bar-track">
            {/* the bar being dragged keeps a width: its dashed outline is not squeezed by a scale */}
            <span class={`spg-bar-ghost${drag !== null ? ' is-dragged' : ''}`} style={drag !== null ? { width: width(ghost) } : lengthStyle(ghost)} />
            <span class="spg-bar-fill" style={lengthStyle(final)} />
            {freq > 0 && <span class="spg-tick" data-testid="sample-tick" data-freq={String(freq)} style={{ '--at': width(freq) }} />}
            {onEdit && (
              <span
                class="spg-bar-handle" data-testid="bar-handle" aria-hidden="true" style={{ '--at': width(ghost) }}
                onPointerDown={(e) => onHandleDown(id, e)} onClick={(e) => { e.stopPropagation(); e.preventDefault(); }}
              />
            )}
          </span>
          <span class="spg-bar-val">{drag !== null ? <span class="spg-bar-drag" data-testid="bar-drag-value">{t('bars.dragTo', { p: pct(drag) })}</span> : pct(final)}</span>
          {!kept && <span class="spg-sr"> {t('bars.cutBy')} </span>}
          {/* (null, never '': Preact rewrites an empty text at every render, and Play renders often) */}
          {kept && badge ? <span class="spg-sr"> </span> : null}
          <span class={`spg-bar-cut spg-cut-${cutName}`}>{badge || null}</span>
          {also ? <span class="spg-sr">{also}</span> : null}
        </button>
      </div>,
    );
  }

  if (drawn < n) {
    rows.push(
      <div
        key="rest" class="spg-bars-rest" aria-hidden="true" data-testid="prob-bars-rest" data-count={String(n - drawn)}
        style={{ height: `${(n - drawn) * rowHeight.current}px` }}
      />,
    );
  }

  const other = summary.other;
  if (other) {
    const freq = samples ? samples.otherFreq : -1;
    rows.push(
      <div
        key="other"
        role="listitem"
        aria-posinset={setSize}
        aria-setsize={setSize}
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
        <div class="spg-bar-btn" title={t('bars.otherTitle', { count: other.count, kept: other.kept, raw: pct(other.raw), final: pct(other.final) })}>
          <span class="spg-bar-tok">{t('bars.other')}</span>
          <span class="spg-bar-track">
            <span class="spg-bar-ghost" style={lengthStyle(other.raw)} />
            <span class="spg-bar-fill" style={lengthStyle(other.final)} />
            {freq > 0 && <span class="spg-tick" data-testid="sample-tick" data-freq={String(freq)} style={{ '--at': width(freq) }} />}
          </span>
          <span class="spg-bar-val">{pct(other.final)}</span>
          <span class="spg-bar-cut">{t('bars.otherCount', { count: other.count, kept: other.kept })}</span>
        </div>
      </div>,
    );
  }

  return (
    <>
      <p class="spg-sr" id={summaryId} data-testid="bars-summary">{distributionText(summary, 5, i18n)}</p>
      <div
        class="spg-bars" data-testid="prob-bars" data-full={summary.full ? 'true' : 'false'} data-scale={scale} role="list" aria-label={name}
        aria-describedby={summaryId} ref={listRef} onKeyDown={onKeyDown} onFocusIn={onFocusIn} onFocusOut={onFocusOut}
        onScroll={windowed ? measureReach : undefined}
      >
        {rows}
      </div>
    </>
  );
}
