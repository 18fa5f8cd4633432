// @ts-check
/**
 * Playground: the view of one panel (one engine session) — controls, text,
 * probability bars, nucleus view, and the decoding lab: strategy (beams,
 * speculative rounds), constraint, bans, text metrics and the KV cache.
 */
import { BEAM_STAGES } from '../app/params.js';
import { Bars, BarsHelp, FindToken, SampleControls, StepHeading } from './BarsCard.jsx';
import { ChainEditor } from './ChainEditor.jsx';
import { PromptBox, SeedField } from './Controls.jsx';
import { ModelPicker } from './ModelPicker.jsx';
import { DraftName, MetricsCard, Nucleus } from './Cards.jsx';
import { useI18n } from './I18n.jsx';
import { KVPicture } from './KVPicture.jsx';
import { decodersCode, useReadyAttr } from './lazy.js';
import { ConstraintField, GreedyRoads, StrategyPicker } from './LabControls.jsx';
import { KVView } from './LabViews.jsx';
import { Notices, Output, StatusLine, StripSlot, TextExtras, WatermarkSlot } from './TextCard.jsx';
import { NARROW, PhoneStrip, Transport, useMedia } from './Transport.jsx';
import { teachOnFirstMove } from '../teach/teach.js';
import { useHeldOutOfSight } from './sight.js';
import { useEffect, useRef, useState } from 'preact/hooks';


/** @typedef {import('../app/panel.js').Panel} Panel */

/**
 * The KV cache (out of sight while Play runs: not redrawn at every token, sight.js).
 * @param {{panel: Pick<Panel, 'lab' | 'model' | 'playing' | 'status' | 'step' | 'strategy'>, uid: string}} props
 */
function KVCard({ panel: live, uid }) {
  const { t } = useI18n();
  const ref = useRef(/** @type {HTMLElement | null} */ (null));
  const panel = useHeldOutOfSight(ref, live, ['lab', 'status']);
  return (
    <section class="spg-card spg-kv-card" aria-labelledby={`${uid}-kv-h`} ref={ref}>
      <div class="spg-card-head">
        <h2 id={`${uid}-kv-h`}>{t('kv.heading')}</h2>
      </div>
      <KVPicture panel={panel} />
      <KVView lab={panel.lab.value} model={panel.model.value} strategy={panel.strategy.value} />
    </section>
  );
}

/** @param {{panel: Pick<Panel, 'strategy'>}} props */
function SamplerNote({ panel }) {
  const i18n = useI18n();
  const { t } = i18n;
  const how = panel.strategy.value;
  if (how === 'beam') {
    return (
      <p class="spg-hint" data-testid="sampler-note">
        {t('strategy.beamNote', { stages: i18n.list(BEAM_STAGES.map((s) => i18n.inSentence(t(`stage.${s}.label`)))) })}
      </p>
    );
  }
  if (how === 'speculative') return <p class="spg-hint" data-testid="sampler-note">{t('strategy.specNote')}</p>;
  return null;
}

/** the parts of the settings column whose effect is on the bars: while they are used, the text, the bars and the nucleus stay in sight */
const WATCHED = '.spg-chain, .spg-constraint';

/**
 * Beside a wide screen's settings column (sticky, scrolling on its own:
 * layout.css), a setting of the chain or the constraint used — clicked,
 * changed, or reached by the keyboard — brings the panel's top to the top
 * of the screen, so the end of the text, the first bars and the nucleus
 * readouts are on screen while it is used.  Not on a phone (one column:
 * the strip does that there).  Returns the listeners' removal.
 * @param {HTMLElement} aside @param {HTMLElement} layout
 */
function keepInSight(aside, layout) {
  if (!aside || !layout || typeof window === 'undefined') return undefined;
  const bring = (/** @type {Event} */ e) => {
    const el = /** @type {Element} */ (e.target);
    if (!el?.closest?.(WATCHED) || window.matchMedia(NARROW).matches) return;
    // a focus from the keyboard only: a pointer's focus comes before its click, and the page must not move under it
    if (e.type === 'focusin' && !el.matches(':focus-visible')) return;
    const top = layout.getBoundingClientRect().top;
    if (Math.abs(top) > 1) window.scrollBy({ top, behavior: 'instant' });
  };
  const events = ['click', 'change', 'focusin'];
  for (const ev of events) aside.addEventListener(ev, bring);
  return () => { for (const ev of events) aside.removeEventListener(ev, bring); };
}

/**
 * One panel's view.  Each part reads only the signals it shows, so a
 * slider move re-renders the sliders and, when the Worker answers, the
 * bars and the nucleus view; the text re-renders only when it changes.
 * @param {{panel: Panel}} props
 */
export function Playground({ panel }) {
  const { t } = useI18n();
  const uid = `spg-${panel.session}`;
  const how = panel.strategy.value;
  // a phone: Step / Play / Reset move to the strip at the bottom
  const narrow = useMedia(NARROW);
  const ready = useReadyAttr([how], panel.readyAttr);
  const code = decodersCode.use(false);
  // the teaching texts: fetched at the learner's first move
  useEffect(() => teachOnFirstMove(document), []);
  const layout = useRef(/** @type {HTMLDivElement | null} */ (null));
  const aside = useRef(/** @type {HTMLElement | null} */ (null));
  useEffect(() => keepInSight(/** @type {HTMLElement} */ (aside.current), /** @type {HTMLElement} */ (layout.current)), []);
  // a phone: whether a setting of the chain or the constraint is in use (the strip then shows the first bars)
  const [chain, setChain] = useState(false);
  const watch = narrow ? (/** @type {Event} */ e) => setChain(!!/** @type {Element} */ (e.target).closest(WATCHED)) : undefined;
  return (
    <div class={panel.panelClass} data-ready={ready} data-playing={panel.playingAttr} data-step-count={panel.stepsAttr} data-strategy={how}>
      <Notices panel={panel} />
      <div class="spg-layout" ref={layout} onFocusIn={watch} onPointerDown={watch}>
        <aside class="spg-card spg-controls" aria-label={t('setup.label')} ref={aside}>
          <ModelPicker panel={panel} uid={uid} />
          <PromptBox panel={panel} uid={uid} />
          <SeedField panel={panel} uid={uid} />
          <StrategyPicker panel={panel} uid={uid} />
          <SamplerNote panel={panel} />
          <ChainEditor panel={panel} uid={uid} />
          <GreedyRoads panel={panel} />
          <ConstraintField target={panel} uid={uid} />
        </aside>
        <div class="spg-main">
          <section class="spg-card spg-text" aria-labelledby={`${uid}-text-h`}>
            <div class="spg-card-head">
              <h2 id={`${uid}-text-h`}>{t(how === 'beam' ? 'text.headingBeam' : 'text.heading')}</h2>
              {!narrow && <Transport panel={panel} />}
            </div>
            <Output panel={panel} />
            <StripSlot panel={panel} uid={uid} />
            <StatusLine panel={panel} />
            {/* a phone: these follow the bars, so text, bars and the strip share the screen */}
            {!narrow && <TextExtras panel={panel} />}
          </section>
          {how === 'beam' && code && (
            <section class="spg-card spg-beam-card" aria-labelledby={`${uid}-beams-h`}>
              <div class="spg-card-head"><h2 id={`${uid}-beams-h`}>{t('beams.heading')}</h2></div>
              <code.BeamList beam={panel.beam.value} prompt={panel.prompt.value} />
            </section>
          )}
          {how === 'speculative' && code && (
            <section class="spg-card spg-spec-card" aria-labelledby={`${uid}-spec-h`}>
              <div class="spg-card-head"><h2 id={`${uid}-spec-h`}>{t('spec.heading')}</h2></div>
              <code.SpecRounds spec={panel.spec.value} draftName={<DraftName panel={panel} />} />
            </section>
          )}
          {/* beam search has no next-token distribution: the charts show a
              token of the best beam's only while one is looked at */}
          {(how !== 'beam' || panel.viewIndex.value !== null) && (
            <div class="spg-charts">
              <section class="spg-card spg-dist" aria-labelledby={`${uid}-bars-h`}>
                <div class="spg-card-head">
                  <h2 id={`${uid}-bars-h`}>{t('bars.heading')}</h2>
                  <p class="spg-legend">
                    <span><i class="spg-key spg-key-ghost" /> {t('bars.model')}</span>
                    <span><i class="spg-key spg-key-fill" /> {t('bars.final')}</span>
                    <span><i class="spg-key spg-key-tick" /> {t('bars.samples')}</span>
                  </p>
                </div>
                <StepHeading panel={panel} compact={narrow} />
                {!narrow && <BarsHelp panel={panel} />}
                <Bars panel={panel} />
                <FindToken panel={panel} uid={uid} />
                <SampleControls panel={panel} />
                {narrow && <BarsHelp panel={panel} compact />}
              </section>
              <section class="spg-card spg-nuc" aria-labelledby={`${uid}-nuc-h`}>
                <div class="spg-card-head">
                  <h2 id={`${uid}-nuc-h`}>{t('nucleus.heading')}</h2>
                </div>
                <Nucleus panel={panel} uid={uid} />
              </section>
            </div>
          )}
          {narrow && (
            <section class="spg-card spg-text-extras" aria-label={t('ff.title')}>
              <TextExtras panel={panel} />
            </section>
          )}
          {/* after the bars: turning the watermark on, the learner sees the
              green list's push on the bars first; detecting comes after */}
          <WatermarkSlot panel={panel} uid={uid} />
          <div class="spg-charts">
            <MetricsCard panel={panel} uid={uid} />
            <KVCard panel={panel} uid={uid} />
          </div>
        </div>
      </div>
      {narrow && <PhoneStrip panel={panel} uid={uid} chain={chain} />}
    </div>
  );
}
