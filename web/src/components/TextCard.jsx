// @ts-check
/**
 * A panel's text and what goes with it: the text as its strategy draws it,
 * the status line and the engine's errors, fast-forward and the legend of
 * the text's tint, and the notices a link or an element's attributes left.
 */
import { useSignalEffect } from '@preact/signals';

import { DownloadAsk, ModelProgress } from './Controls.jsx';
import { statusMsg } from '../app/errors.js';
import { STRIP_STAGES, decodersCode, stripCode, usesDecoders, watermarkCode } from './lazy.js';
import { FastForward } from './FastForward.jsx';
import { Say, useI18n } from './I18n.jsx';
import { OutputText } from './OutputText.jsx';

/** @typedef {import('../app/panel.js').Panel} Panel */

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
 * @param {{panel: Pick<Panel, 'beam' | 'focus' | 'hover' | 'hoverStep' | 'pin' | 'prompt' | 'spec' | 'status' |
 *     'steps' | 'strategy' | 'viewIndex'>}} props
 */
export function Output({ panel }) {
  const how = panel.strategy.value;
  const live = !!panel.status.value?.ready;
  const code = decodersCode.use(usesDecoders(how));
  // (until their code is here, the part that shows the panel says it is not ready: lazy.js)
  if (how === 'beam') {
    return code && (
      <code.BeamText
        prompt={panel.prompt.value} beam={panel.beam.value} live={panel.viewIndex.value === null && live} steps={panel.steps.value}
        focus={panel.focus.value} onHover={(i) => { panel.hover.value = i; }} onFocus={(i) => panel.pin(i)}
      />
    );
  }
  if (how === 'speculative') {
    return code && (
      <code.SpecText
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

/**
 * The strip of the samplers' state under a sampled text, while a stateful
 * stage is on (or always, when `always`: an element's view names it): its
 * code comes then (lazy.js).
 * @param {{panel: Pick<Panel, 'askStages' | 'ensureStates' | 'focus' | 'hoverStep' | 'paramsKey' | 'pin' | 'stagesOn' | 'steps' | 'strategy' |
 *   'viewIndex'>, uid?: string, always?: boolean}} props
 */
export function StripSlot({ panel, uid, always = false }) {
  // an element has no chain editor to ask which stages are on: this asks
  useSignalEffect(() => {
    panel.paramsKey.value;
    if (always) panel.askStages();
  });
  const on = panel.stagesOn.value;
  // (from the first token on: before it the strip has no mark to show,
  // and a chapter's first load stays within its budget)
  const want = panel.strategy.value === 'sample' && panel.steps.value.length > 0 && (always || STRIP_STAGES.some((s) => on.has(s)));
  const code = stripCode.use(want);
  if (!want || !code) return null;
  return (
    <code.StateStrip
      steps={panel.steps.value} stagesOn={on} shown={panel.viewIndex.value} focus={panel.focus.value} uid={uid}
      onHover={(i) => panel.hoverStep(i)} onFocus={(i) => panel.pin(i)} onNeedStates={() => panel.ensureStates()}
    />
  );
}

/**
 * The status line; under it, a model download by URL (its progress, rate
 * and Cancel) and the question before a large one: here, where the text is,
 * on a phone and in an element without the model picker too.
 * @param {{panel: Pick<Panel, 'busy' | 'errors' | 'status'> & Partial<Pick<Panel, 'askDownload' | 'progress'>>}} props
 */
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
      {panel.progress?.value?.cancel && <ModelProgress panel={/** @type {any} */ (panel)} />}
      {panel.askDownload && <DownloadAsk panel={/** @type {any} */ (panel)} />}
      {engineError && <p class="spg-error" role="alert" data-testid="engine-error"><Say m={engineError} /></p>}
    </>
  );
}

/**
 * The watermark's card (its code fetched when the stage is on, sampling).
 * @param {{panel: Panel, uid: string}} props
 */
export function WatermarkSlot({ panel, uid }) {
  const on = panel.strategy.value === 'sample' && panel.params.value.watermark_delta > 0;
  const code = watermarkCode.use(on);
  return on && code ? <code.WatermarkCard panel={panel} uid={uid} /> : null;
}

/**
 * Fast-forward and how to read the text's tint.
 * @param {{panel: Pick<Panel, 'busy' | 'generate' | 'generated' | 'generating' | 'playing' | 'session' | 'status' |
 *     'stopGenerate' | 'strategy'>}} props
 */
export function TextExtras({ panel }) {
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
