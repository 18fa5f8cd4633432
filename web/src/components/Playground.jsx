// @ts-check
/**
 * Playground: the view of one panel (one engine session) — controls, text,
 * probability bars, nucleus view, and the decoding lab: strategy (beams,
 * speculative rounds), constraint, bans, text metrics and the KV cache.
 */
import { useEffect, useState } from 'preact/hooks';

import { pct, showPiece } from '../app/format.js';
import { BEAM_STAGES, PARAM_SPECS, SPEC, STAGE, clampParam, sliderMax } from '../app/params.js';
import { ChainEditor } from './ChainEditor.jsx';
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
export function Transport({ panel, label = 'Generation' }) {
  const ready = !!panel.status.value?.ready && !panel.busy.value && !panel.generating?.value;
  const playing = panel.playing.value;
  return (
    <div class="spg-transport" role="group" aria-label={label}>
      <button type="button" class="spg-btn" onClick={() => panel.step()} disabled={!ready || playing} data-testid="step">Step</button>
      <button
        type="button"
        class="spg-btn spg-btn-primary spg-play"
        onClick={() => panel.togglePlay()}
        disabled={!ready && !playing}
        aria-pressed={playing ? 'true' : 'false'}
        data-testid="play"
      >
        {playing ? 'Pause' : 'Play'}
      </button>
      <button type="button" class="spg-btn" onClick={() => panel.reset()} disabled={!panel.ready.value} data-testid="reset">Reset</button>
      <div class="spg-speed">
        <label for={`${panel.session}-speed`}>Speed</label>
        <input
          id={`${panel.session}-speed`}
          type="range"
          min={1}
          max={60}
          step={1}
          value={panel.speed.value}
          aria-valuetext={`${panel.speed.value} steps per second`}
          onInput={(e) => { panel.speed.value = Number(/** @type {HTMLInputElement} */ (e.currentTarget).value); }}
          data-testid="speed"
        />
        <output>{panel.speed.value}/s</output>
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
  const key = panel.activeParam.value;
  const spec = SPEC[key] ?? PARAM_SPECS[0];
  const vocab = panel.model.value?.vocab ?? 1;
  const max = sliderMax(spec, vocab);
  const value = /** @type {any} */ (panel.params.value)[spec.key];
  const why = unusedBecause(panel.strategy.value, spec.key);
  const text = spec.format(value, vocab);
  return (
    <div class="spg-strip" role="group" aria-label="Play and a quick setting" data-testid="phone-strip">
      <Transport panel={panel} />
      <div class="spg-strip-slider">
        <label class="spg-sr" for={`${uid}-quick-key`}>Quick setting</label>
        <select
          id={`${uid}-quick-key`} value={spec.key} data-testid="quick-key"
          onChange={(e) => { panel.activeParam.value = /** @type {HTMLSelectElement} */ (e.currentTarget).value; }}
        >
          {PARAM_SPECS.map((s) => <option key={s.key} value={s.key}>{s.label}</option>)}
        </select>
        <input
          type="range" min={spec.min} max={max} step={spec.step} value={value} disabled={!!why}
          aria-label={`Quick setting: ${spec.label}`} aria-valuetext={text} title={why || spec.hint} data-testid="quick-slider"
          onInput={(e) => panel.setParam(spec.key, clampParam(spec, Number(/** @type {HTMLInputElement} */ (e.currentTarget).value), max))}
        />
        <output data-testid="quick-value">{text}</output>
      </div>
    </div>
  );
}

/** What the bars show: the next token, or a past step (time travel). */
/** @param {{panel: import('../app/panel.js').Panel}} props */
function StepHeading({ panel }) {
  const s = panel.shown.value;
  const i = panel.viewIndex.value;
  if (i !== null && !s) {
    return (
      <div class="spg-stephead is-past" data-testid="step-heading">
        <p><strong>Step {i + 1}</strong>: asking the engine for this step's distribution…</p>
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
              <strong>Step {i + 1}</strong> under the current settings: the text keeps <code>{showPiece(was.piece)}</code>,
              which had {pct(was.p)} and would now have {pct(s.p)}.
              <span class="spg-hint"> Click another bar to branch from here.</span>
            </p>
          )
          : (
            <p>
              <strong>Step {i + 1}</strong>: {s.forced ? 'you picked' : s.fastForwarded ? 'fast-forwarded' : { sample: 'sampled', beam: 'the best beam has', speculative: 'the rounds gave' }[panel.strategy.value]} <code>{showPiece(s.piece)}</code> with
              probability {pct(s.p)}{s.forced || !Number.isFinite(s.u) ? '' : ` (u = ${s.u.toFixed(3)})`}.
              <span class="spg-hint">{panel.decoder.value.forcing ? ' Click another bar to branch from here; move a setting to re-warp this step.' : ' Move a setting to re-warp this step.'}</span>
            </p>
          )}
        {panel.focus.value !== null && (
          <button type="button" class="spg-btn spg-btn-small" onClick={() => panel.pin(null)} data-testid="back-live">
            Back to the next token
          </button>
        )}
      </div>
    );
  }
  const sampling = panel.strategy.value === 'sample';
  return (
    <div class="spg-stephead" data-testid="step-heading">
      {s && s.nKept === 1 && sampling && (
        <p class="spg-note" data-testid="seed-free">
          One token is left after the chain: this step no longer depends on the seed — every seed picks it.
        </p>
      )}
      <p>
        <strong>Next token</strong>{panel.status.value?.nGenerated ? ` (step ${panel.status.value.nGenerated + 1})` : ''}.
        <span class="spg-hint">
          {sampling
            ? (panel.barAction.value === 'force' ? ' Click a bar to pick that token (Shift+click too).' : ' Click a bar to ban that token; Shift+click picks it.')
            : ' Click a bar to ban that token.'}
        </span>
      </p>
      <BarAction panel={panel} />
    </div>
  );
}

/** @param {{panel: import('../app/panel.js').Panel}} props */
function SampleControls({ panel }) {
  const s = panel.shownSamples.value;
  const live = panel.viewIndex.value === null;
  const pinned = panel.focus.value !== null && !live;
  return (
    <div class="spg-samples">
      <button type="button" class="spg-btn" onClick={() => panel.drawSamples()} disabled={!panel.next.value && !pinned} data-testid="draw-samples">
        Draw 1000 samples
      </button>
      {s && (
        <>
          <span class="spg-kl">
            KL(samples ‖ final) = <strong data-testid="kl" data-value={String(s.kl)}>{s.kl.toFixed(4)}</strong> bits
          </span>
          <button type="button" class="spg-btn spg-btn-small" onClick={() => panel.clearSamples()}>Clear</button>
        </>
      )}
      {!s && !live && !pinned && <span class="spg-hint">Click a token of the text to pin its step, then draw samples of it.</span>}
    </div>
  );
}

/** @param {{panel: {notices: any, dismissNotices: () => void}}} props */
export function Notices({ panel }) {
  const notices = panel.notices.value;
  if (!notices.length) return null;
  return (
    <div class="spg-notice" role="status" data-testid="notice">
      <ul>{notices.map((/** @type {string} */ n) => <li key={n}>{n}</li>)}</ul>
      <button type="button" class="spg-btn spg-btn-small" onClick={() => panel.dismissNotices()}>Dismiss</button>
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
  const status = panel.status.value;
  // the engine's own failure (a request refused, or a model whose output is not finite)
  const engineError = panel.errors.value.engine || (status?.fault ? status.message : '');
  return (
    <>
      <p class="spg-status" role="status" data-testid="status">
        {panel.busy.value || (status?.fault ? '' : status?.message) || ''}
      </p>
      {engineError && <p class="spg-error" role="alert" data-testid="engine-error">{engineError}</p>}
    </>
  );
}

/**
 * @param {{panel: import('../app/panel.js').Panel, onBan?: (token: number) => void}} props
 *   onBan: compare mode (a click bans; no forcing, so the panels stay in step)
 */
export function Bars({ panel, onBan }) {
  const live = panel.viewIndex.value === null;
  const force = panel.barAction.value === 'force' && panel.strategy.value === 'sample';
  const editable = !onBan && panel.canEdit.value;
  return (
    <>
    {editable && <small class="spg-hint" data-testid="edit-hint">{EDIT_HINT}</small>}
    <EditedBadge panel={panel} />
    <ProbBars
      summary={panel.shown.value}
      samples={panel.shownSamples.value}
      scale={panel.barScale.value}
      onEdit={editable ? (token, p) => { panel.editProb(token, p); } : null}
      onPick={(token, e) => (onBan && live ? onBan(token) : panel.clickBar(token, { force: !onBan && !!e?.shiftKey }))}
      pickHint={!live ? 'Click to branch with this token' : onBan ? 'Click to ban this token' : force ? 'Click to pick this token' : 'Click to ban this token (Shift+click: pick it)'}
    />
    </>
  );
}

const SCALES = /** @type {const} */ ([
  ['linear', 'Linear', 'A bar\'s length is its probability: 100 % fills the track.'],
  ['max', '× largest', 'Lengths relative to the largest bar, which fills the track: small differences show.'],
  ['log', 'Log', `Log scale: each quarter of the track is a factor of 10, from ${pct(10 ** -LOG_DECADES)} at the left to 100 %.`],
]);

/**
 * How long a bar is for its probability: linear, relative to the largest
 * bar, or log (the sample ticks follow).
 * @param {{panel: {barScale: import('@preact/signals').Signal<import('../app/hash.js').BarScale>, session: string}}} props
 */
export function ScaleSwitch({ panel }) {
  const scale = panel.barScale.value;
  return (
    <div class="spg-scale">
      <div class="spg-seg spg-seg-small" role="radiogroup" aria-label="Bar scale">
        <span class="spg-hint" aria-hidden="true">Scale:</span>
        {SCALES.map(([k, label]) => (
          <label key={k} class={`spg-seg-opt${scale === k ? ' is-on' : ''}`}>
            <input
              type="radio" name={`${panel.session}-bar-scale`} value={k} checked={scale === k}
              data-testid={`scale-${k}`} onChange={() => { panel.barScale.value = k; }}
            />
            <span>{label}</span>
          </label>
        ))}
      </div>
      <small class="spg-hint" data-testid="scale-note">{SCALES.find(([k]) => k === scale)?.[2]}</small>
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
function MetricsCard({ panel, uid }) {
  const how = panel.strategy.value;
  return (
    <section class="spg-card spg-metrics-card" aria-labelledby={`${uid}-metrics-h`}>
      <div class="spg-card-head">
        <h2 id={`${uid}-metrics-h`}>Text metrics</h2>
      </div>
      <Metrics
        lab={panel.lab.value}
        text={panel.text.value}
        vocab={panel.model.value?.vocab ?? 2}
        uid={uid}
        note={how === 'beam' ? 'Of the best beam. Beam search picks rather than samples: its entropy is 0 and its nucleus 1.' : ''}
      />
    </section>
  );
}

/** @param {{panel: import('../app/panel.js').Panel, uid: string}} props */
function KVCard({ panel, uid }) {
  return (
    <section class="spg-card spg-kv-card" aria-labelledby={`${uid}-kv-h`}>
      <div class="spg-card-head">
        <h2 id={`${uid}-kv-h`}>KV cache</h2>
      </div>
      <KVPicture panel={panel} />
      <KVView lab={panel.lab.value} model={panel.model.value} strategy={panel.strategy.value} />
    </section>
  );
}

/** @param {{panel: import('../app/panel.js').Panel}} props */
function SamplerNote({ panel }) {
  const how = panel.strategy.value;
  if (how === 'beam') {
    return (
      <p class="spg-hint" data-testid="sampler-note">
        Beam search uses no temperature or truncation: only {BEAM_STAGES.map((s) => STAGE[s].label.toLowerCase()).join(', ')} apply.
      </p>
    );
  }
  if (how === 'speculative') return <p class="spg-hint" data-testid="sampler-note">The draft and the model both sample with these settings; the acceptance rule compares their distributions.</p>;
  return null;
}

/** @param {{panel: import('../app/panel.js').Panel}} props */
function DraftName({ panel }) {
  const id = panel.spec.value?.draft ?? panel.specOpts.value.draft;
  const m = panel.models.value.find((x) => x.id === id);
  return <>{m ? m.name : id}</>;
}

/**
 * One panel's view.  Each part reads only the signals it shows, so a
 * slider move re-renders the sliders and, when the Worker answers, the
 * bars and the nucleus view; the text re-renders only when it changes.
 * @param {{panel: import('../app/panel.js').Panel}} props
 */
export function Playground({ panel }) {
  const uid = `spg-${panel.session}`;
  const how = panel.strategy.value;
  // a phone: Step / Play / Reset move to the strip at the bottom
  const narrow = useMedia(NARROW);
  return (
    <div class={panel.panelClass} data-ready={panel.readyAttr} data-playing={panel.playingAttr} data-strategy={how}>
      <Notices panel={panel} />
      <div class="spg-layout">
        <aside class="spg-card spg-controls" aria-label="Setup">
          <ModelPicker panel={panel} uid={uid} />
          <PromptBox panel={panel} uid={uid} />
          <SeedField panel={panel} uid={uid} />
          <StrategyPicker panel={panel} uid={uid} />
          <SamplerNote panel={panel} />
          <ChainEditor panel={panel} uid={uid} />
          <GreedyRoads panel={panel} />
          <ConstraintField target={panel} uid={uid} note={how === 'sample' ? '' : 'Constraints apply when sampling: switch to Sample to use one.'} />
        </aside>
        <div class="spg-main">
          <section class="spg-card spg-text" aria-labelledby={`${uid}-text-h`}>
            <div class="spg-card-head">
              <h2 id={`${uid}-text-h`}>{how === 'beam' ? 'Text (the best beam)' : 'Text'}</h2>
              {!narrow && <Transport panel={panel} />}
            </div>
            <Output panel={panel} />
            <StatusLine panel={panel} />
            <FastForward panel={panel} />
            <p class="spg-legend-text spg-hint">
              {how === 'sample' && 'Tint: the darker a token, the less likely it was. Hover or click a token to see how it was picked.'}
              {how === 'beam' && 'Each Step extends the beams by one token. Point at or click a token to see the distribution beam search ranked it in.'}
              {how === 'speculative' && 'Each Step is one round: underlined tokens are accepted drafts, wavy red ones the model\'s corrections of a rejected draft (the rounds below show what was rejected), and a dotted box marks a bonus token.'}
            </p>
          </section>
          {how === 'beam' && (
            <section class="spg-card spg-beam-card" aria-labelledby={`${uid}-beams-h`}>
              <div class="spg-card-head"><h2 id={`${uid}-beams-h`}>Beams</h2></div>
              <BeamList beam={panel.beam.value} prompt={panel.prompt.value} />
            </section>
          )}
          {how === 'speculative' && (
            <section class="spg-card spg-spec-card" aria-labelledby={`${uid}-spec-h`}>
              <div class="spg-card-head"><h2 id={`${uid}-spec-h`}>Speculative rounds</h2></div>
              <SpecRounds spec={panel.spec.value} draftName={<DraftName panel={panel} />} />
            </section>
          )}
          {/* beam search has no next-token distribution: the charts show a
              token of the best beam's only while one is looked at */}
          {(how !== 'beam' || panel.viewIndex.value !== null) && (
            <div class="spg-charts">
              <section class="spg-card spg-dist" aria-labelledby={`${uid}-bars-h`}>
                <div class="spg-card-head">
                  <h2 id={`${uid}-bars-h`}>Probabilities</h2>
                  <p class="spg-legend">
                    <span><i class="spg-key spg-key-ghost" /> model</span>
                    <span><i class="spg-key spg-key-fill" /> final</span>
                    <span><i class="spg-key spg-key-tick" /> samples</span>
                  </p>
                </div>
                <StepHeading panel={panel} />
                <ScaleSwitch panel={panel} />
                <Bars panel={panel} />
                <SampleControls panel={panel} />
              </section>
              <section class="spg-card spg-nuc" aria-labelledby={`${uid}-nuc-h`}>
                <div class="spg-card-head">
                  <h2 id={`${uid}-nuc-h`}>Nucleus</h2>
                </div>
                <Nucleus panel={panel} uid={uid} />
              </section>
            </div>
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
