// @ts-check
/**
 * The strip of the samplers' state, under the text: a row per stateful
 * stage that is on (Mirostat's μ, adaptive-p's average, the penalties'
 * counts, DRY's repeat lengths, the watermark's green and red), one mark
 * per step in the order of the text's tokens.  Every number is the
 * engine's (rows.js).  Time travel as in the text: pointing at a mark
 * shows its step, a click pins it, and with the strip focused ← / → move
 * between steps; the step shown is highlighted in the text and here, and
 * said in words (a live line).  Each row's name explains it on hover and
 * on focus.  Its own chunk (lazy.js: fetched when a stateful stage is
 * on), with its words (texts/LANG.js, fetched with it) and its styles.
 */
import { Component } from 'preact';
import { useEffect, useState } from 'preact/hooks';

import { timeTravelHandlers } from '../components/timeTravel.js';
import { useI18n } from '../components/I18n.jsx';
import { languageComing } from '../i18n/index.js';
import { teachSay } from '../teach/teach.js';
import { stripRows } from './rows.js';
// its styles with it, in the strip itself: the same in the page and in an
// element's shadow root (whose sheet is the page's styles.css, without it)
import css from './strip.css?inline';

/** @typedef {import('../teach/teach.js').Texts} Texts */

const LOADERS = /** @type {Record<string, () => Promise<{default: Texts}>>} */ (import.meta.glob('./texts/*.js'));
/** @type {Record<string, Texts>} */
const loaded = {};

/** The strip's words in a language (English for one it does not have), or null while the first ones come. @param {string} lang */
function useTexts(lang) {
  const code = LOADERS[`./texts/${String(lang).split('-')[0]}.js`] ? String(lang).split('-')[0] : 'en';
  const [, redraw] = useState(0);
  useEffect(() => {
    if (loaded[code]) return undefined;
    let live = true;
    // English's words, the first time, only once no other language's
    // catalogue is on its way: an element or a chapter speaks English until
    // its own language's is here, and the strip would fetch English's
    // words for nothing
    const load = () => {
      if (code === 'en' && !last && languageComing()) { timer = setTimeout(load, 300); return; }
      LOADERS[`./texts/${code}.js`]().then((m) => { loaded[code] = m.default; if (live) redraw((n) => n + 1); }, () => {});
    };
    let timer = setTimeout(load, 0);
    return () => { live = false; clearTimeout(timer); };
  }, [code]);
  // (while another language's words come, the last ones: the strip stays)
  const have = loaded[code] ?? last;
  last = have;
  return have;
}
/** @type {Texts | null} the words last shown */
let last = null;

/** a mark's width and its row's height, px */
const W = 7;
const H = 34;

/**
 * @param {{
 *   steps: import('../worker/summary.js').StepSummary[],
 *   stagesOn: Set<string>,
 *   shown: number | null,
 *   focus: number | null,
 *   onHover: (i: number | null) => void,
 *   onFocus: (i: number | null) => void,
 *   onNeedStates?: () => void,
 *   uid?: string,
 * }} props
 *   onNeedStates: fast-forwarded steps have no state yet: the panel fetches
 *   theirs, all in one request (their marks are drawn as soon as it answers)
 */
export function StateStrip({ steps, stagesOn, shown, focus, onHover, onFocus, onNeedStates, uid = 'spg' }) {
  const i18n = useI18n();
  const texts = useTexts(i18n.lang);
  const say = (/** @type {string} */ key, /** @type {Record<string, unknown>} */ vars = {}) => teachSay(texts, i18n, `states.${key}`, vars);
  const [tip, setTip] = useState(/** @type {string | null} */ (null));
  const rows = stripRows(steps, stagesOn);
  const missing = rows.length > 0 && steps.some((s) => s.lazy && !s.stateFetched);
  useEffect(() => { if (missing) onNeedStates?.(); }, [steps, missing]);
  // (drawn once its words are here: no row without its name)
  if (!rows.length || !texts) return null;
  const n = steps.length;
  // the step said and highlighted: the one looked at, else the last
  const at = shown ?? (n ? n - 1 : null);
  const width = Math.max(n, 1) * W;
  return (
    <div class="spg-states" data-testid="state-strip" data-steps={String(n)}>
      <style>{css}</style>
      <div class="spg-states-names">
        {rows.map((row) => (
          <div key={row.id} class="spg-states-name">
            <button
              type="button"
              class="spg-states-term"
              aria-describedby={`${uid}-strip-tip-${row.id}`}
              aria-expanded={tip === row.id ? 'true' : 'false'}
              data-testid={`strip-term-${row.id}`}
              onMouseEnter={() => setTip(row.id)}
              onMouseLeave={() => setTip(null)}
              onFocus={() => setTip(row.id)}
              onBlur={() => setTip(null)}
              onClick={() => setTip(tip === row.id ? null : row.id)}
              onKeyDown={(e) => { if (e.key === 'Escape') setTip(null); }}
            >
              {say(row.id)}
            </button>
          </div>
        ))}
      </div>
      <div
        class="spg-states-track"
        tabIndex={0}
        role="group"
        aria-label={say('label')}
        aria-describedby={`${uid}-strip-now`}
        data-testid="strip-track"
        {...timeTravelHandlers(n, focus, onHover, onFocus)}
      >
        {rows.map((row) => (
          <svg key={row.id} class={`spg-states-row is-${row.id}`} width={width} height={H} viewBox={`0 0 ${width} ${H}`}
            data-testid="strip-row" data-row={row.id} aria-hidden="true">
            {row.marks.map((m) => <MarkView key={m.i} m={m} row={row} focused={m.i === at} />)}
          </svg>
        ))}
      </div>
      <p class="spg-states-now spg-hint" id={`${uid}-strip-now`} aria-live="polite" data-testid="strip-now">
        {at === null ? say('empty') : describe(rows, at, say, i18n)}
      </p>
      {rows.map((row) => (
        <p key={row.id} id={`${uid}-strip-tip-${row.id}`} class="spg-states-tip" role="tooltip" hidden={tip !== row.id} data-testid={`strip-tip-${row.id}`}>
          {say(`${row.id}Tip`) || '…'}
        </p>
      ))}
    </div>
  );
}

/** @typedef {{m: import('./rows.js').Mark, row: import('./rows.js').Row, focused: boolean}} MarkProps */

/**
 * One step's mark: the bar (its height the value on the row's scale), the
 * dot, the setting's line; an empty mark where the stage was off.  It
 * draws again only when its numbers, its scale or its focus change (Play
 * adds a mark at a time, as the text's tokens).
 * @extends {Component<MarkProps>}
 */
class MarkView extends Component {
  /** @param {MarkProps} next */
  shouldComponentUpdate(next) {
    const a = this.props.m, b = next.m;
    return next.focused !== this.props.focused || next.row.top !== this.props.row.top || a.i !== b.i || a.ran !== b.ran ||
      a.fetched !== b.fetched || !Object.is(a.bar, b.bar) || !Object.is(a.dot, b.dot) || !Object.is(a.line, b.line);
  }

  render() {
    return markView(this.props);
  }
}

/** @param {MarkProps} props */
function markView({ m, row, focused }) {
  const x = m.i * W;
  const y = (/** @type {number} */ v) => H - 2 - (Math.min(v, row.top) / row.top) * (H - 4);
  const green = row.id === 'watermark';
  return (
    <g data-step={String(m.i)} data-testid="strip-mark" data-ran={m.ran ? 'true' : 'false'}
      data-bar={String(m.bar)} data-dot={String(m.dot)} data-count={String(m.count)} class={focused ? 'is-focus' : undefined}>
      <rect class="spg-states-hit" x={x} y={0} width={W} height={H} />
      {m.ran && Number.isFinite(m.bar) && (green
        ? <rect class={m.bar > 0 ? 'spg-states-green' : 'spg-states-red'} x={x + 1} y={4} width={W - 2} height={H - 8} />
        : <rect class="spg-states-bar" x={x + 1} y={y(m.bar)} width={W - 2} height={Math.max(H - 2 - y(m.bar), 1)} />)}
      {m.ran && Number.isFinite(m.line) && <line class="spg-states-line" x1={x} x2={x + W} y1={y(m.line)} y2={y(m.line)} />}
      {m.ran && Number.isFinite(m.dot) && <circle class="spg-states-dot" cx={x + W / 2} cy={y(m.dot)} r={1.8} />}
      {!m.fetched && <circle class="spg-states-later" cx={x + W / 2} cy={H / 2} r={1} />}
    </g>
  );
}

/**
 * The step shown, in words: each row's numbers.
 * @param {import('./rows.js').Row[]} rows @param {number} at
 * @param {(key: string, vars?: Record<string, unknown>) => string} say
 * @param {import('../i18n/index.js').I18n} i18n
 */
function describe(rows, at, say, i18n) {
  const parts = rows.map((row) => {
    const m = row.marks[at];
    if (!m) return '';
    if (!m.fetched) return say('later');
    if (!m.ran) return say('off', { name: say(row.id) });
    const f = (/** @type {number} */ v, /** @type {number} */ d) => (Number.isFinite(v) ? i18n.fixed(v, d) : '–');
    const int = (/** @type {number} */ v) => (Number.isFinite(v) ? i18n.int(v) : '–');
    if (row.id === 'mirostat') return say('sayMirostat', { mu: f(m.bar, 2), surprise: f(m.dot, 2), tau: f(m.line, 2) });
    if (row.id === 'adaptive') return say('sayAdaptive', { average: f(m.bar, 3), aim: f(m.dot, 3), target: f(m.line, 2) });
    if (row.id === 'penalties') return say('sayPenalties', { count: m.bar, n: int(m.bar), times: int(m.dot) });
    if (row.id === 'dry') return say('sayDry', { count: m.count, n: int(m.count), longest: int(m.bar), token: int(m.dot) });
    return say(m.bar > 0 ? 'sayGreen' : 'sayRed');
  });
  return `${say('step', { n: i18n.int(at + 1) })} ${parts.filter(Boolean).join(' · ')}`;
}
