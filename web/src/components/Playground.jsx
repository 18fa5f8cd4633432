// @ts-check
/**
 * Playground: the view of one panel (one engine session) — controls, text,
 * probability bars, nucleus view, and the decoding lab: strategy (beams,
 * speculative rounds), constraint, bans, text metrics and the KV cache.
 */
import { useEffect, useState } from 'preact/hooks';

import { showPiece } from '../app/format.js';
import { statusMsg } from '../app/errors.js';
import { SAMPLE_COUNT } from '../app/panel.js';
import { BEAM_STAGES, PARAM_SPECS, SPEC, clampParam, sliderMax } from '../app/params.js';
import { ChainEditor } from './ChainEditor.jsx';
import { Rich, Say, modelName, useI18n } from './I18n.jsx';
import { ModelPicker, PromptBox, SeedField, unusedBecause } from './Controls.jsx';
import { BeamList, BeamText, SpecRounds, SpecText } from './Decoders.jsx';
import { BarAction, ConstraintField, GreedyRoads, StrategyPicker } from './LabControls.jsx';
import { KVView, Metrics } from './LabViews.jsx';
import { NucleusView, Readouts } from './NucleusView.jsx';
import { OutputText } from './OutputText.jsx';
import { EDIT_HINT, LOG_DECADES, ProbBars } from './ProbBars.jsx';
import { EditedBadge } from './ModelMaker.jsx';
import { KVPicture } from './KVPicture.jsx';
import { FastForward } from './FastForward.jsx';

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
 * the text, the bars and the slider being dragged are on screen together.
 * @param {{panel: import('../app/panel.js').Panel, uid: string}} props
 */
export function PhoneStrip({ panel, uid }) {
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
      <Transport panel={panel} />
      <div class="spg-strip-slider">
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
      </div>
    </div>
  );
}

/** what a past step's heading says of how its token came (catalogue keys, by strategy) */
const PAST_STEP = /** @type {Record<string, string>} */ ({ sample: 'step.sampled', beam: 'step.beamHas', speculative: 'step.roundsGave' });

/** What the bars show: the next token, or a past step (time travel). */
/** @param {{panel: import('../app/panel.js').Panel}} props */
/**
 * Fast-forward and how to read the text's tint.
 * @param {{panel: import('../app/panel.js').Panel}} props
 */
function TextExtras({ panel }) {
  const { t } = useI18n();
  const how = panel.strategy.value;
  return (
    <>
      <FastForward panel={panel} />
      <p class="spg-legend-text spg-hint">
        {t(how === 'beam' ? 'text.legendBeam' : how === 'speculative' ? 'text.legendSpec' : 'text.legend')}
      </p>
    </>
  );
}

/**
 * What the bars show: the next token, or a past step (time travel).  On a
 * phone (compact) the live heading is one line: the click hint and its
 * toggle follow the bars (BarsHelp), so the first bars are on screen.
 * @param {{panel: import('../app/panel.js').Panel, compact?: boolean}} props
 */
function StepHeading({ panel, compact = false }) {
  const i18n = useI18n();
  const { t } = i18n;
  const s = panel.shown.value;
  const i = panel.viewIndex.value;
  if (i !== null && !s) {
    return (
      <div class="spg-stephead is-past" data-testid="step-heading">
        <p><Rich k="step.asking" vars={{ n: i + 1 }} /></p>
      </div>
    );
  }
  if (i !== null && s) {
    const was = panel.steps.value[i];
    return (
      <div class="spg-stephead is-past" data-testid="step-heading">
        {s.kind === 'peek'
          ? (
            <p data-testid="peek-heading">
              <Rich k="step.peek" vars={{ n: i + 1, piece: showPiece(was.piece), was: i18n.pct(was.p), now: i18n.pct(s.p) }} />
              <span class="spg-hint"> {t('step.peekHint')}</span>
            </p>
          )
          : (
            <p>
              <Rich
                k={s.forced ? 'step.picked' : s.fastForwarded ? 'step.fastForwarded' : PAST_STEP[panel.strategy.value] ?? 'step.sampled'}
                vars={{ n: i + 1, piece: showPiece(s.piece), p: i18n.pct(s.p), u: i18n.fixed(s.u, 3) }}
              />
              <span class="spg-hint"> {t(panel.decoder.value.forcing ? 'step.pastHint' : 'step.pastHintNoForce')}</span>
            </p>
          )}
        {panel.focus.value !== null && (
          <button type="button" class="spg-btn spg-btn-small" onClick={() => panel.pin(null)} data-testid="back-live">
            {t('step.back')}
          </button>
        )}
      </div>
    );
  }
  const sampling = panel.strategy.value === 'sample';
  return (
    <div class="spg-stephead" data-testid="step-heading">
      {s && s.nKept === 1 && sampling && (
        <p class="spg-note" data-testid="seed-free">{t('step.seedFree')}</p>
      )}
      <p>
        <Rich k={panel.status.value?.nGenerated ? 'step.nextAt' : 'step.next'} vars={{ n: (panel.status.value?.nGenerated ?? 0) + 1 }} />
        {!compact && <ClickHint panel={panel} />}
      </p>
      {!compact && <BarAction panel={panel} />}
    </div>
  );
}

/**
 * What a click on a bar does now (after the live step's heading).
 * @param {{panel: import('../app/panel.js').Panel}} props
 */
function ClickHint({ panel }) {
  const { t } = useI18n();
  const sampling = panel.strategy.value === 'sample';
  return (
    <span class="spg-hint">
      {' '}
      {t(sampling ? (panel.barAction.value === 'force' ? 'step.hintForce' : 'step.hintBan') : 'step.hintBanOnly')}
    </span>
  );
}

/**
 * How to read and use the bars: the scale, and what dragging a bar does;
 * on a phone also what a click does (compact), all after the bars.
 * @param {{panel: import('../app/panel.js').Panel, compact?: boolean}} props
 */
function BarsHelp({ panel, compact = false }) {
  const live = panel.viewIndex.value === null;
  return (
    <div class={`spg-bars-help${compact ? ' is-after' : ''}`}>
      {compact && live && <p class="spg-click-hint"><ClickHint panel={panel} /></p>}
      {compact && live && <BarAction panel={panel} />}
      <ScaleSwitch panel={panel} />
      <EditHint panel={panel} />
    </div>
  );
}

/** @param {{panel: import('../app/panel.js').Panel}} props */
export function SampleControls({ panel }) {
  const i18n = useI18n();
  const { t } = i18n;
  const s = panel.shownSamples.value;
  const live = panel.viewIndex.value === null;
  const pinned = panel.focus.value !== null && !live;
  return (
    <div class="spg-samples">
      <button type="button" class="spg-btn" onClick={() => panel.drawSamples()} disabled={!panel.next.value && !pinned} data-testid="draw-samples">
        {t('samples.draw', { n: String(SAMPLE_COUNT) })}
      </button>
      {s && (
        <>
          <span class="spg-kl">
            <Rich k="samples.kl" vars={{ kl: <strong data-testid="kl" data-value={String(s.kl)}>{i18n.fixed(s.kl, 4)}</strong> }} />
          </span>
          <button type="button" class="spg-btn spg-btn-small" onClick={() => panel.clearSamples()}>{t('samples.clear')}</button>
        </>
      )}
      {!s && !live && !pinned && <span class="spg-hint">{t('samples.pinFirst')}</span>}
    </div>
  );
}

/** @param {{panel: {notices: any, dismissNotices: () => void}}} props */
export function Notices({ panel }) {
  const { t } = useI18n();
  const notices = panel.notices.value;
  if (!notices.length) return null;
  return (
    <div class="spg-notice" role="status" data-testid="notice">
      <ul>{notices.map((/** @type {import('../i18n/index.js').Text} */ n, /** @type {number} */ i) => <li key={i}><Say m={n} /></li>)}</ul>
      <button type="button" class="spg-btn spg-btn-small" onClick={() => panel.dismissNotices()}>{t('notice.dismiss')}</button>
    </div>
  );
}

/**
 * The text, drawn as the panel's strategy makes it.
 * @param {{panel: import('../app/panel.js').Panel}} props
 */
export function Output({ panel }) {
  const how = panel.strategy.value;
  const live = !!panel.status.value?.ready;
  if (how === 'beam') {
    return (
      <BeamText
        prompt={panel.prompt.value} beam={panel.beam.value} live={panel.viewIndex.value === null && live} steps={panel.steps.value}
        focus={panel.focus.value} onHover={(i) => { panel.hover.value = i; }} onFocus={(i) => panel.pin(i)}
      />
    );
  }
  if (how === 'speculative') {
    return (
      <SpecText
        prompt={panel.prompt.value} spec={panel.spec.value} live={panel.viewIndex.value === null && live}
        focus={panel.focus.value} onHover={(i) => { panel.hover.value = i; }} onFocus={(i) => panel.pin(i)}
      />
    );
  }
  return (
    <OutputText
      prompt={panel.prompt.value}
      steps={panel.steps.value}
      focus={panel.focus.value}
      live={panel.viewIndex.value === null && live}
      onHover={(i) => panel.hoverStep(i)}
      onFocus={(i) => panel.pin(i)}
    />
  );
}

/** @param {{panel: import('../app/panel.js').Panel}} props */
export function StatusLine({ panel }) {
  const i18n = useI18n();
  const status = panel.status.value;
  // the engine's own failure (a request refused, or a model whose output is not finite)
  const engineError = panel.errors.value.engine || (status?.fault ? statusMsg(status) : null);
  const busy = panel.busy.value;
  return (
    <>
      <p class="spg-status" role="status" data-testid="status">
        {busy ? i18n.text(busy) : status?.fault ? '' : <Say m={statusMsg(status)} />}
      </p>
      {engineError && <p class="spg-error" role="alert" data-testid="engine-error"><Say m={engineError} /></p>}
    </>
  );
}

/**
 * @param {{panel: import('../app/panel.js').Panel, onBan?: (token: number) => void, playing?: boolean}} props
 *   playing: Play runs (a compare panel is played by compare mode; by default the panel's own Play)
 *   onBan: compare mode (a click bans; no forcing, so the panels stay in step)
 */
export function Bars({ panel, onBan, playing }) {
  const { t } = useI18n();
  const live = panel.viewIndex.value === null;
  const force = panel.barAction.value === 'force' && panel.strategy.value === 'sample';
  const editable = !onBan && panel.canEdit.value;
  return (
    <>
    <EditedBadge panel={panel} />
    <ProbBars
      summary={panel.shown.value}
      samples={panel.shownSamples.value}
      scale={panel.barScale.value}
      windowed={playing ?? !!panel.playing?.value}
      onEdit={editable ? (token, p) => { panel.editProb(token, p); } : null}
      onPick={(token, e) => (onBan && live ? onBan(token) : panel.clickBar(token, { force: !onBan && !!e?.shiftKey }))}
      pickHint={t(!live ? 'bars.hintBranch' : onBan ? 'bars.hintBan' : force ? 'bars.hintPick' : 'bars.hintBanShift')}
    />
    </>
  );
}

/**
 * What dragging a bar's handle does, where the bars can edit the model.
 * @param {{panel: import('../app/panel.js').Panel}} props
 */
export function EditHint({ panel }) {
  const { t } = useI18n();
  return panel.canEdit.value ? <small class="spg-hint" data-testid="edit-hint">{t(EDIT_HINT)}</small> : null;
}

/** each scale: its name and what it means (catalogue keys) */
const SCALES = /** @type {const} */ ([
  ['linear', 'scale.linear', 'scale.linearNote'],
  ['max', 'scale.max', 'scale.maxNote'],
  ['log', 'scale.log', 'scale.logNote'],
]);

/**
 * How long a bar is for its probability: linear, relative to the largest
 * bar, or log (the sample ticks follow).
 * @param {{panel: {barScale: import('@preact/signals').Signal<import('../app/hash.js').BarScale>, session: string}}} props
 */
export function ScaleSwitch({ panel }) {
  const i18n = useI18n();
  const { t } = i18n;
  const scale = panel.barScale.value;
  const note = SCALES.find(([k]) => k === scale)?.[2] ?? 'scale.linearNote';
  return (
    <div class="spg-scale">
      <div class="spg-seg spg-seg-small" role="radiogroup" aria-label={t('scale.label')}>
        <span class="spg-hint" aria-hidden="true">{t('scale.prefix')}</span>
        {SCALES.map(([k, label]) => (
          <label key={k} class={`spg-seg-opt${scale === k ? ' is-on' : ''}`}>
            <input
              type="radio" name={`${panel.session}-bar-scale`} value={k} checked={scale === k}
              data-testid={`scale-${k}`} onChange={() => { panel.barScale.value = k; }}
            />
            <span>{t(label)}</span>
          </label>
        ))}
      </div>
      <small class="spg-hint" data-testid="scale-note">{t(note, { low: i18n.pct(10 ** -LOG_DECADES), high: i18n.pct(1) })}</small>
    </div>
  );
}

/** @param {{panel: import('../app/panel.js').Panel, uid: string}} props */
export function Nucleus({ panel, uid }) {
  const shown = panel.shown.value;
  const live = panel.viewIndex.value === null;
  const topP = panel.topP.value;
  return (
    <>
      <Readouts summary={shown} />
      <NucleusView
        uid={uid}
        summary={shown}
        topP={live || shown?.kind === 'peek' ? topP : (shown?.params.top_p ?? topP)}
        onTopP={(p) => panel.setParam('top_p', p)}
      />
    </>
  );
}

/** @param {{panel: import('../app/panel.js').Panel, uid: string}} props */
export function MetricsCard({ panel, uid }) {
  const { t } = useI18n();
  const how = panel.strategy.value;
  return (
    <section class="spg-card spg-metrics-card" aria-labelledby={`${uid}-metrics-h`}>
      <div class="spg-card-head">
        <h2 id={`${uid}-metrics-h`}>{t('metrics.heading')}</h2>
      </div>
      <Metrics
        lab={panel.lab.value}
        text={panel.text.value}
        vocab={panel.model.value?.vocab ?? 2}
        uid={uid}
        note={how === 'beam' ? t('metrics.beamNote') : ''}
      />
    </section>
  );
}

/** @param {{panel: import('../app/panel.js').Panel, uid: string}} props */
function KVCard({ panel, uid }) {
  const { t } = useI18n();
  return (
    <section class="spg-card spg-kv-card" aria-labelledby={`${uid}-kv-h`}>
      <div class="spg-card-head">
        <h2 id={`${uid}-kv-h`}>{t('kv.heading')}</h2>
      </div>
      <KVPicture panel={panel} />
      <KVView lab={panel.lab.value} model={panel.model.value} strategy={panel.strategy.value} />
    </section>
  );
}

/** @param {{panel: import('../app/panel.js').Panel}} props */
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

/** @param {{panel: import('../app/panel.js').Panel}} props */
export function DraftName({ panel }) {
  const i18n = useI18n();
  const id = panel.spec.value?.draft ?? panel.specOpts.value.draft;
  const m = panel.models.value.find((x) => x.id === id);
  return <>{m ? modelName(i18n, m) : id}</>;
}

/**
 * One panel's view.  Each part reads only the signals it shows, so a
 * slider move re-renders the sliders and, when the Worker answers, the
 * bars and the nucleus view; the text re-renders only when it changes.
 * @param {{panel: import('../app/panel.js').Panel}} props
 */
export function Playground({ panel }) {
  const { t } = useI18n();
  const uid = `spg-${panel.session}`;
  const how = panel.strategy.value;
  // a phone: Step / Play / Reset move to the strip at the bottom
  const narrow = useMedia(NARROW);
  return (
    <div class={panel.panelClass} data-ready={panel.readyAttr} data-playing={panel.playingAttr} data-step-count={panel.stepsAttr} data-strategy={how}>
      <Notices panel={panel} />
      <div class="spg-layout">
        <aside class="spg-card spg-controls" aria-label={t('setup.label')}>
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
            <StatusLine panel={panel} />
            {/* a phone: these follow the bars, so text, bars and the strip share the screen */}
            {!narrow && <TextExtras panel={panel} />}
          </section>
          {how === 'beam' && (
            <section class="spg-card spg-beam-card" aria-labelledby={`${uid}-beams-h`}>
              <div class="spg-card-head"><h2 id={`${uid}-beams-h`}>{t('beams.heading')}</h2></div>
              <BeamList beam={panel.beam.value} prompt={panel.prompt.value} />
            </section>
          )}
          {how === 'speculative' && (
            <section class="spg-card spg-spec-card" aria-labelledby={`${uid}-spec-h`}>
              <div class="spg-card-head"><h2 id={`${uid}-spec-h`}>{t('spec.heading')}</h2></div>
              <SpecRounds spec={panel.spec.value} draftName={<DraftName panel={panel} />} />
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
          <div class="spg-charts">
            <MetricsCard panel={panel} uid={uid} />
            <KVCard panel={panel} uid={uid} />
          </div>
        </div>
      </div>
      {narrow && <PhoneStrip panel={panel} uid={uid} />}
    </div>
  );
}
