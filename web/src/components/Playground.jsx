// @ts-check
/**
 * Playground: the view of one panel (one engine session) — controls, text,
 * probability bars, nucleus view.  A compare mode can render several.
 */
import { pct, showPiece } from '../app/format.js';
import { ModelPicker, PromptBox, SamplerSliders, SeedField } from './Controls.jsx';
import { NucleusView, Readouts } from './NucleusView.jsx';
import { OutputText } from './OutputText.jsx';
import { ProbBars } from './ProbBars.jsx';

/** @param {{panel: import('../app/panel.js').Panel}} props */
function Transport({ panel }) {
  const ready = !!panel.status.value?.ready && !panel.busy.value;
  const playing = panel.playing.value;
  return (
    <div class="spg-transport" role="group" aria-label="Generation">
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
          aria-valuetext={`${panel.speed.value} tokens per second`}
          onInput={(e) => { panel.speed.value = Number(/** @type {HTMLInputElement} */ (e.currentTarget).value); }}
          data-testid="speed"
        />
        <output>{panel.speed.value}/s</output>
      </div>
    </div>
  );
}

/** What the bars show: the next token, or a past step (time travel). */
/** @param {{panel: import('../app/panel.js').Panel}} props */
function StepHeading({ panel }) {
  const s = panel.shown.value;
  const i = panel.viewIndex.value;
  if (i !== null && s) {
    return (
      <div class="spg-stephead is-past" data-testid="step-heading">
        <p>
          <strong>Step {i + 1}</strong>: {s.forced ? 'you picked' : 'sampled'} <code>{showPiece(s.piece)}</code> with
          probability {pct(s.p)}{s.forced ? '' : ` (u = ${s.u.toFixed(3)})`}.
          <span class="spg-hint"> Click another bar to branch from here.</span>
        </p>
        {panel.focus.value !== null && (
          <button type="button" class="spg-btn spg-btn-small" onClick={() => { panel.focus.value = null; panel.hover.value = null; }} data-testid="back-live">
            Back to the next token
          </button>
        )}
      </div>
    );
  }
  return (
    <div class="spg-stephead" data-testid="step-heading">
      <p>
        <strong>Next token</strong>{panel.steps.value.length ? ` (step ${panel.steps.value.length + 1})` : ''}.
        <span class="spg-hint"> Click a bar to pick that token yourself.</span>
      </p>
    </div>
  );
}

/** @param {{panel: import('../app/panel.js').Panel}} props */
function SampleControls({ panel }) {
  const s = panel.samples.value;
  const live = panel.viewIndex.value === null;
  return (
    <div class="spg-samples">
      <button type="button" class="spg-btn" onClick={() => panel.drawSamples()} disabled={!panel.next.value} data-testid="draw-samples">
        Draw 1000 samples
      </button>
      {s && live && (
        <>
          <span class="spg-kl">
            KL(samples ‖ final) = <strong data-testid="kl" data-value={String(s.kl)}>{s.kl.toFixed(4)}</strong> bits
          </span>
          <button type="button" class="spg-btn spg-btn-small" onClick={() => panel.clearSamples()}>Clear</button>
        </>
      )}
      {s && !live && <span class="spg-hint">Samples are drawn from the next token's distribution.</span>}
    </div>
  );
}

/** @param {{panel: import('../app/panel.js').Panel}} props */
function Notices({ panel }) {
  const notices = panel.notices.value;
  if (!notices.length) return null;
  return (
    <div class="spg-notice" role="status" data-testid="notice">
      <ul>{notices.map((n) => <li key={n}>{n}</li>)}</ul>
      <button type="button" class="spg-btn spg-btn-small" onClick={() => panel.dismissNotices()}>Dismiss</button>
    </div>
  );
}

/** @param {{panel: import('../app/panel.js').Panel}} props */
function Output({ panel }) {
  return (
    <OutputText
      prompt={panel.prompt.value}
      steps={panel.steps.value}
      focus={panel.focus.value}
      live={panel.viewIndex.value === null && !!panel.status.value?.ready}
      onHover={(i) => { panel.hover.value = i; }}
      onFocus={(i) => { panel.focus.value = i; }}
    />
  );
}

/** @param {{panel: import('../app/panel.js').Panel}} props */
function StatusLine({ panel }) {
  const engineError = panel.errors.value.engine;
  return (
    <>
      <p class="spg-status" role="status" data-testid="status">
        {panel.busy.value || panel.status.value?.message || ''}
      </p>
      {engineError && <p class="spg-error" role="alert" data-testid="engine-error">{engineError}</p>}
    </>
  );
}

/** @param {{panel: import('../app/panel.js').Panel}} props */
function Bars({ panel }) {
  const live = panel.viewIndex.value === null;
  return (
    <ProbBars
      summary={panel.shown.value}
      samples={live ? panel.samples.value : null}
      onPick={(token) => panel.pick(token)}
      pickHint={live ? 'Click to pick this token' : 'Click to branch with this token'}
    />
  );
}

/** @param {{panel: import('../app/panel.js').Panel, uid: string}} props */
function Nucleus({ panel, uid }) {
  const shown = panel.shown.value;
  const live = panel.viewIndex.value === null;
  const topP = panel.topP.value;
  return (
    <>
      <Readouts summary={shown} />
      <NucleusView
        uid={uid}
        summary={shown}
        topP={live ? topP : (shown?.params.top_p ?? topP)}
        onTopP={(p) => panel.setParam('top_p', p)}
      />
    </>
  );
}

/**
 * One panel's view.  Each part reads only the signals it shows, so a
 * slider move re-renders the sliders and, when the Worker answers, the
 * bars and the nucleus view; the text re-renders only when it changes.
 * @param {{panel: import('../app/panel.js').Panel}} props
 */
export function Playground({ panel }) {
  const uid = `spg-${panel.session}`;
  return (
    <div class="spg-panel" data-ready={panel.readyAttr} data-playing={panel.playingAttr}>
      <Notices panel={panel} />
      <div class="spg-layout">
        <aside class="spg-card spg-controls" aria-label="Setup">
          <ModelPicker panel={panel} uid={uid} />
          <PromptBox panel={panel} uid={uid} />
          <SeedField panel={panel} uid={uid} />
          <SamplerSliders panel={panel} uid={uid} />
        </aside>
        <div class="spg-main">
          <section class="spg-card spg-text" aria-labelledby={`${uid}-text-h`}>
            <div class="spg-card-head">
              <h2 id={`${uid}-text-h`}>Text</h2>
              <Transport panel={panel} />
            </div>
            <Output panel={panel} />
            <StatusLine panel={panel} />
            <p class="spg-legend-text spg-hint">
              Tint: the darker a token, the less likely it was. Hover or click a token to see how it was picked.
            </p>
          </section>
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
        </div>
      </div>
    </div>
  );
}
