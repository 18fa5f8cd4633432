// @ts-check
/**
 * Compare mode: the shared setup (model, prompt, seed, constraint), one
 * Step / Play / Reset for all panels, and two to four panels side by side
 * (stacked on a narrow screen), each with its preset, strategy, settings,
 * text, metrics and chart.
 */
import { MAX_PANELS, MIN_PANELS } from '../app/hash.js';
import { ORDER_LESSON, PANEL_NAMES as NAMES, PRESETS, describeSettings } from '../app/lab.js';
import { ChainEditor } from './ChainEditor.jsx';
import { PromptBox, SeedField } from './Controls.jsx';
import { ModelPicker } from './ModelPicker.jsx';
import { BeamList, SpecRounds } from './Decoders.jsx';
import { ConstraintField, StrategyPicker } from './LabControls.jsx';
import { Rich, modelName, useI18n } from './I18n.jsx';
import { Metrics } from './LabViews.jsx';
import { Bars } from './BarsCard.jsx';
import { Notices, Output, StatusLine } from './TextCard.jsx';
import { Transport } from './Transport.jsx';

/** @typedef {import('../app/panel.js').Panel} Panel */

/** The note that all panels draw the same random numbers, with the last one. */
/** @param {{compare: import('../app/compare.js').Compare}} props */
function SharedRandomness({ compare }) {
  const i18n = useI18n();
  const sampler = compare.panels.value.find((p) => p.strategy.value === 'sample' && p.steps.value.length > 0);
  const last = sampler ? sampler.steps.value[sampler.steps.value.length - 1] : null;
  return (
    <p class="spg-note" data-testid="same-randoms">
      <Rich
        k={last ? 'compare.randomsAt' : 'compare.randoms'}
        vars={{ seed: compare.seed.value, n: last ? last.index + 1 : 0, u: <span data-testid="shared-u">{last ? i18n.fixed(last.u, 4) : ''}</span> }}
      />
    </p>
  );
}

/**
 * One compare panel of the page: its preset, settings, strategy, bans,
 * text, beams or rounds, metrics and next-token bars (an element's panel
 * is EmbedView.jsx's).
 * @param {{compare: import('../app/compare.js').Compare, panel: Panel, index: number}} props
 */
export function ComparePanel({ compare, panel, index }) {
  const i18n = useI18n();
  const { t } = i18n;
  const uid = `spg-${panel.session}`;
  const how = panel.strategy.value;
  const preset = panel.preset.value;
  const name = NAMES[index];
  /** a slider moved: regenerate once the hand rests */
  const tune = () => compare.retune(panel);
  /** a choice was made: regenerate now */
  const retune = () => compare.retune(panel, { now: true });
  return (
    <section class="spg-card spg-cpanel" aria-labelledby={`${uid}-h`} data-testid="compare-panel" data-session={panel.session} data-strategy={how} data-preset={preset}>
      <div class="spg-card-head">
        <h2 id={`${uid}-h`}>{t('compare.panel', { name })}</h2>
        <div class="spg-row spg-cpanel-pick">
          <label class="spg-sr" for={`${uid}-preset`}>{t('compare.preset', { name })}</label>
          <select
            id={`${uid}-preset`}
            value={preset}
            data-testid="preset-select"
            onChange={(e) => {
              const v = /** @type {HTMLSelectElement} */ (e.currentTarget).value;
              if (v !== 'custom') compare.setPreset(panel, v);
            }}
          >
            {PRESETS.map((p) => <option key={p.id} value={p.id}>{t(p.label)}</option>)}
            <option value="custom" disabled={preset !== 'custom'}>{t('preset.custom')}</option>
          </select>
          <button
            type="button"
            class="spg-btn spg-btn-small"
            aria-label={t('compare.remove', { name })}
            title={t('compare.removeTitle')}
            disabled={compare.panels.value.length <= MIN_PANELS}
            data-testid="remove-panel"
            onClick={() => compare.removePanel(panel)}
          >
            ×
          </button>
        </div>
      </div>
      <details class="spg-cpanel-settings">
        <summary data-testid="panel-settings">
          {describeSettings(panel.panelSpec.value, i18n)}{panel.bans.value.length ? ` · ${t('chain.banned', { count: panel.bans.value.length })}` : ''}
        </summary>
        <StrategyPicker panel={panel} uid={uid} onStrategy={(st) => compare.setStrategy(panel, st)} onTuned={retune} />
        <ChainEditor panel={panel} uid={uid} onChanged={tune} />
      </details>
      <Output panel={panel} />
      <StatusLine panel={panel} />
      {how === 'beam' && (
        <details class="spg-cpanel-more">
          <summary>{t('beams.heading')}</summary>
          <BeamList beam={panel.beam.value} prompt={panel.prompt.value} />
        </details>
      )}
      {how === 'speculative' && (
        <details class="spg-cpanel-more">
          <summary>{t('spec.rounds')}</summary>
          <SpecRounds spec={panel.spec.value} draftName={draftName(i18n, panel)} />
        </details>
      )}
      <Metrics lab={panel.lab.value} text={panel.text.value} vocab={panel.model.value?.vocab ?? 2} uid={uid} compact />
      {how !== 'beam' && (
        <details class="spg-cpanel-more" open={compare.panels.value.some((p) => p.samplers.value !== '')}>
          <summary>{t('compare.next')}</summary>
          <Bars panel={panel} playing={compare.playing.value} onBan={(token) => { panel.toggleBan(token); retune(); }} />
        </details>
      )}
    </section>
  );
}

/** The name of a panel's draft model. @param {import('../i18n/index.js').I18n} i18n @param {Pick<Panel, 'models' |
 *     'specOpts'>} panel */
function draftName(i18n, panel) {
  const id = panel.specOpts.value.draft;
  const m = panel.models.value.find((x) => x.id === id);
  return m ? modelName(i18n, m) : id;
}

/** The first preset no panel has (a new panel shows something new). @param {import('../app/panel.js').Panel[]} panels */
function unusedPreset(panels) {
  const used = new Set(panels.map((p) => p.preset.value));
  return (PRESETS.find((p) => !used.has(p.id)) ?? PRESETS[3]).id;
}

/** @param {{compare: import('../app/compare.js').Compare}} props */
export function CompareView({ compare }) {
  const { t } = useI18n();
  const uid = 'spg-compare';
  const panels = compare.panels.value;
  const n = panels.length;
  return (
    <div class="spg-compare" data-testid="compare" data-ready={compare.readyAttr} data-step-count={compare.stepsAttr} data-playing={compare.playing.value ? 'true' : 'false'}>
      <Notices panel={compare} />
      <section class="spg-card spg-shared" aria-label={t('compare.shared')}>
        <div class="spg-shared-grid">
          <ModelPicker panel={/** @type {any} */ (compare)} uid={uid} />
          <PromptBox panel={/** @type {any} */ (compare)} uid={uid} />
          <SeedField panel={/** @type {any} */ (compare)} uid={uid} />
          <ConstraintField target={compare} uid={uid} />
        </div>
        <div class="spg-shared-bar">
          <Transport panel={compare} label={t('compare.all')} />
          <button type="button" class="spg-btn" disabled={n >= MAX_PANELS} data-testid="add-panel" onClick={() => compare.addPanel(unusedPreset(panels))}>
            {t('compare.add')}
          </button>
          <button
            type="button"
            class="spg-btn"
            data-testid="show-orders"
            title={t('compare.ordersTitle', { temperature: ORDER_LESSON.params.temperature, topP: ORDER_LESSON.params.top_p })}
            onClick={() => compare.showOrders()}
          >
            {t('compare.orders')}
          </button>
        </div>
        <SharedRandomness compare={compare} />
      </section>
      <div class={`spg-cpanels is-${n}`}>
        {panels.map((p, i) => <ComparePanel key={p.session} compare={compare} panel={p} index={i} />)}
      </div>
    </div>
  );
}
