// @ts-check
/**
 * The tour of the page (offered by "Start here"): the bars, one slider,
 * Play.  It points at each part in turn (a ring around it, scrolled into
 * view) from a box of its own, usable from the keyboard: the focus moves
 * into it, Escape closes it and the focus goes back where it was.  Its
 * words are the teaching texts' (teach/texts: fetched with it).
 */
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';

import { teachSay, useTeach } from '../teach/teach.js';
import { useI18n } from './I18n.jsx';
import '../teach/tour.css';

/** the tour's steps: what it points at (the first found), its title's key and its text's key (teach/texts) */
const STEPS = [
  { at: ['.spg-dist'], title: 'guide.barsTitle', text: 'guide.bars' },
  // the phone's strip has its one slider on screen; a wider screen the chain's
  { at: ['.spg-strip-slider input[type="range"]', '.spg-stage[data-stage="temperature"] input[type="range"]', '.spg-slider input[type="range"]'], title: 'guide.sliderTitle', text: 'guide.slider' },
  { at: ['[data-testid="play"]'], title: 'guide.playTitle', text: 'guide.play' },
];

/** @param {string[]} selectors */
function find(selectors) {
  for (const s of selectors) {
    const el = /** @type {HTMLElement | null} */ (document.querySelector(s));
    if (el && el.getClientRects().length > 0) return el;
  }
  return null;
}

/** @param {{onDone: () => void}} props */
export function Tour({ onDone }) {
  const i18n = useI18n();
  const texts = useTeach(i18n.lang);
  /** a text of the tour ('…' until the texts are here) @param {string} key @param {Record<string, unknown>} [vars] */
  const t = (key, vars = {}) => teachSay(texts, i18n, key, vars) || '…';
  const [n, setN] = useState(0);
  const box = useRef(/** @type {HTMLDivElement | null} */ (null));
  /** where the focus was: it goes back there when the tour ends */
  const from = useRef(/** @type {Element | null} */ (typeof document === 'undefined' ? null : document.activeElement));
  const step = STEPS[n];

  // the part it points at: ringed and on screen
  useLayoutEffect(() => {
    const el = find(step.at);
    if (!el) return undefined;
    el.classList.add('spg-tour-target');
    el.scrollIntoView({ block: 'center', inline: 'nearest' });
    return () => el.classList.remove('spg-tour-target');
  }, [n]);
  // the focus on the step's heading (a screen reader reads the step)
  useEffect(() => {
    /** @type {HTMLElement | null | undefined} */ (box.current?.querySelector('h2'))?.focus({ preventScroll: true });
  }, [n]);

  const end = () => {
    onDone();
    const back = from.current;
    if (back instanceof HTMLElement && back.isConnected && back !== document.body) back.focus();
    else /** @type {HTMLElement | null} */ (document.querySelector('[data-testid="play"]'))?.focus();
  };
  const last = n === STEPS.length - 1;
  return (
    <div
      class="spg-tour"
      role="dialog"
      aria-modal="false"
      aria-labelledby="spg-tour-h"
      aria-describedby="spg-tour-text"
      data-testid="tour"
      data-step={String(n + 1)}
      ref={box}
      onKeyDown={(e) => {
        if (e.key === 'Escape') {
          e.preventDefault();
          end();
        }
      }}
    >
      <p class="spg-hint">{t('guide.label')} · {t('guide.step', { n: n + 1, count: STEPS.length })}</p>
      <h2 id="spg-tour-h" tabIndex={-1}>{t(step.title)}</h2>
      <p id="spg-tour-text">{t(step.text)}</p>
      <div class="spg-start-actions">
        {n > 0 && <button type="button" class="spg-btn" data-testid="tour-back" onClick={() => setN(n - 1)}>{t('guide.back')}</button>}
        <button
          type="button"
          class="spg-btn spg-btn-primary"
          data-testid={last ? 'tour-done' : 'tour-next'}
          onClick={() => (last ? end() : setN(n + 1))}
        >
          {t(last ? 'guide.done' : 'guide.next')}
        </button>
        <button type="button" class="spg-btn spg-btn-small spg-tour-close" aria-label={t('guide.close')} data-testid="tour-close" onClick={end}>
          <span aria-hidden="true">×</span>
        </button>
      </div>
    </div>
  );
}
