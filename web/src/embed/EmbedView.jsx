// @ts-check
/**
 * What a <sampler-playground> element shows: the parts of the playground
 * its `view` names (text, bars, nucleus; or compare mode's panels), the
 * controls its `controls` names, Step / Play / Reset, and its notices.
 * The same components as the page, on the element's own app (its own
 * sessions in the model's shared Worker).
 */
import { ModelProgress, PromptBox, SamplerSliders, SeedField } from '../components/Controls.jsx';
import { Bars, ClickNote, EditHint, SampleControls } from '../components/BarsCard.jsx';
import { decodersCode, useReadyAttr } from '../components/lazy.js';
import { DraftName, MetricsCard, Nucleus } from '../components/Cards.jsx';
import { Notices, Output, StatusLine, StripSlot } from '../components/TextCard.jsx';
import { Transport } from '../components/Transport.jsx';
import { I18nContext, langTag, useI18n } from '../components/I18n.jsx';
import { KVPicture } from '../components/KVPicture.jsx';
import { SLIDERS } from './attrs.js';
import { PANEL_NAMES, describeSettings } from '../app/lab.js';
import { useState } from 'preact/hooks';

/** @typedef {Pick<import('./attrs.js').Config, 'controls' | 'transport' | 'parts'>} ViewConfig */


/** the engine's names of the sliders a config shows @param {string[]} controls */
const sliderKeys = (controls) => controls.filter((c) => c in SLIDERS).map((c) => SLIDERS[/** @type {keyof typeof SLIDERS} */ (c)]);

/**
 * @param {{app: import('../app/app.js').App, config: import('@preact/signals').Signal<ViewConfig>}} props
 */
export function EmbedView({ app, config }) {
  const i18n = app.language.i18n.value;
  return (
    <I18nContext.Provider value={i18n}>
      <div class="spg-lang-root" lang={langTag(i18n)} dir={i18n.dir}>
        <EmbedParts app={app} config={config} />
      </div>
    </I18nContext.Provider>
  );
}

/**
 * @param {{app: import('../app/app.js').App, config: import('@preact/signals').Signal<ViewConfig>}} props
 */
function EmbedParts({ app, config }) {
  const { t } = useI18n();
  // what the last click on a bar did (click="ban" or "force"), said with Undo
  const [clicked, setClicked] = useState(/** @type {import('../components/BarsCard.jsx').SaidClick | null} */ (null));
  const { controls, transport, parts } = config.value;
  if (parts[0] === 'compare') return <EmbedCompare app={app} controls={controls} transport={transport} />;
  const panel = app.main;
  const uid = `spg-${panel.session}`;
  const keys = sliderKeys(controls);
  const setup = controls.includes('prompt') || controls.includes('seed') || keys.length > 0;
  const how = panel.strategy.value;
  const ready = useReadyAttr([how], panel.readyAttr);
  const code = decodersCode.use(false);
  return (
    <div class="spg spg-embed" data-theme={app.theme.value} data-testid="embed" data-ready={ready} data-playing={panel.playingAttr} data-step-count={panel.stepsAttr} data-strategy={panel.strategy.value}>
      <Notices panel={panel} />
      <ModelProgress panel={panel} />
      <div class={`spg-embed-grid${setup ? '' : ' is-bare'}`}>
        {setup && (
          <div class="spg-embed-setup">
            {controls.includes('prompt') && <PromptBox panel={panel} uid={uid} />}
            {controls.includes('seed') && <SeedField panel={panel} uid={uid} />}
            {keys.length > 0 && <SamplerSliders panel={panel} uid={uid} keys={keys} />}
          </div>
        )}
        <div class="spg-embed-main">
          {transport && <Transport panel={panel} />}
          {parts.includes('text') && (
            <section class="spg-card spg-text" aria-label={t('text.heading')}>
              <Output panel={panel} />
              {parts.includes('strip') && <StripSlot panel={panel} uid={uid} always />}
            </section>
          )}
          <StatusLine panel={panel} />
          {parts.includes('beams') && how === 'beam' && code && (
            <section class="spg-card spg-beam-card" aria-label={t('beams.heading')}>
              <code.BeamList beam={panel.beam.value} prompt={panel.prompt.value} />
            </section>
          )}
          {parts.includes('rounds') && how === 'speculative' && code && (
            <section class="spg-card spg-spec-card" aria-label={t('spec.heading')}>
              <code.SpecRounds spec={panel.spec.value} draftName={<DraftName panel={panel} />} />
            </section>
          )}
          {(parts.includes('bars') || parts.includes('samples')) && how !== 'beam' && (
            <section class="spg-card spg-dist" aria-label={t('bars.label')}>
              <p class="spg-legend" data-testid="bars-legend">
                <span><i class="spg-key spg-key-ghost" /> {t('bars.model')}</span>
                <span><i class="spg-key spg-key-fill" /> {t('bars.final')}</span>
                {parts.includes('samples') && <span><i class="spg-key spg-key-tick" /> {t('bars.samples')}</span>}
              </p>
              <EditHint panel={panel} />
              <Bars panel={panel} onClicked={setClicked} />
              <ClickNote panel={panel} click={clicked} onDone={() => setClicked(null)} />
              {parts.includes('samples') && how === 'sample' && <SampleControls panel={panel} />}
            </section>
          )}
          {parts.includes('kv') && (
            <section class="spg-card spg-kv-card" aria-label={t('kv.heading')}>
              <KVPicture panel={panel} />
            </section>
          )}
          {parts.includes('nucleus') && how !== 'beam' && (
            <section class="spg-card spg-nuc" aria-label={t('nucleus.heading')}>
              <Nucleus panel={panel} uid={uid} />
            </section>
          )}
          {parts.includes('metrics') && <MetricsCard panel={panel} uid={uid} />}
        </div>
      </div>
    </div>
  );
}

/**
 * Compare mode in an element: one Step / Play / Reset, the panels side by
 * side (stacked when narrow), each with its settings, text and bars.
 * @param {{app: import('../app/app.js').App, controls: string[], transport: boolean}} props
 */
function EmbedCompare({ app, controls, transport }) {
  const { t } = useI18n();
  const compare = app.compare;
  const panels = compare.panels.value;
  const keys = sliderKeys(controls);
  const uid = `spg-${app.main.session}-cmp`;
  const ready = useReadyAttr(panels.map((p) => p.strategy.value), compare.readyAttr);
  return (
    <div class="spg spg-embed" data-theme={app.theme.value} data-testid="embed" data-ready={ready} data-step-count={compare.stepsAttr} data-playing={compare.playing.value ? 'true' : 'false'}>
      <Notices panel={compare} />
      {panels[0] && <ModelProgress panel={panels[0]} />}
      {(controls.includes('prompt') || controls.includes('seed')) && (
        <div class="spg-embed-shared">
          {controls.includes('prompt') && <PromptBox panel={/** @type {any} */ (compare)} uid={uid} />}
          {controls.includes('seed') && <SeedField panel={/** @type {any} */ (compare)} uid={uid} />}
        </div>
      )}
      {transport && <Transport panel={compare} label={t('compare.all')} />}
      <div class={`spg-embed-cpanels is-${panels.length}`}>
        {panels.map((p, i) => <ComparePanel key={p.session} compare={compare} panel={p} index={i} sliders={keys} clicks={app.main.barAction.value !== 'none'} />)}
      </div>
    </div>
  );
}

/**
 * One compare panel in an element: its settings in words, the author's
 * sliders, its text and its next-token bars (the page's panel, with its
 * preset, strategy, chain editor and metrics, is CompareView.jsx's).
 * @param {{compare: import('../app/compare.js').Compare, panel: import('../app/panel.js').Panel, index: number,
 *   sliders: string[], clicks: boolean}} props
 *   clicks: a click on a bar bans its token (click="ban" or "force"; a compare panel never forces)
 */
function ComparePanel({ compare, panel, index, sliders, clicks }) {
  const i18n = useI18n();
  const { t } = i18n;
  const uid = `spg-${panel.session}`;
  const how = panel.strategy.value;
  const name = PANEL_NAMES[index];
  /** a slider moved: regenerate once the hand rests */
  const tune = () => compare.retune(panel);
  return (
    <section class="spg-card spg-cpanel" aria-labelledby={`${uid}-h`} data-testid="compare-panel" data-session={panel.session} data-strategy={how} data-preset={panel.preset.value}>
      <h2 id={`${uid}-h`}>{t('compare.panel', { name })} <small class="spg-hint">{describeSettings(panel.panelSpec.value, i18n)}</small></h2>
      {sliders.length > 0 && <SamplerSliders panel={panel} uid={uid} keys={sliders} legend={t('compare.panel', { name })} onChanged={tune} />}
      <Output panel={panel} />
      <StatusLine panel={panel} />
      {how !== 'beam' && (
        <details class="spg-cpanel-more" open={compare.panels.value.some((p) => p.samplers.value !== '')}>
          <summary>{t('compare.next')}</summary>
          <Bars
            panel={panel} playing={compare.playing.value}
            onBan={clicks ? (token) => { panel.toggleBan(token); compare.retune(panel, { now: true }); } : null}
          />
        </details>
      )}
    </section>
  );
}
