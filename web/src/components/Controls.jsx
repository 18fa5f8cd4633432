// @ts-check
/**
 * The setup controls of a panel: prompt, seed with a dice button, the
 * sampler sliders, and a model download's progress (the page's model
 * picker is ModelPicker.jsx: an element has none).
 */
import { useEffect, useRef, useState } from 'preact/hooks';

import { PROGRESS_MIN_BYTES } from '../app/models.js';
import { BEAM_STAGES, PARAM_SPECS, SPEC, sliderMax } from '../app/params.js';
import { Rich, Say, useI18n } from './I18n.jsx';
import { Slider } from './Slider.jsx';

/** @typedef {import('../app/panel.js').Panel} Panel */

/**
 * A model file's download, while it is larger than PROGRESS_MIN_BYTES: a
 * progress bar (indeterminate when the host does not say the size).
 * @param {{panel: {progress: import('@preact/signals').Signal<{name: import('../i18n/index.js').Text, loaded: number, total: number, rate?: number, cancel?: () => void} | null>}}} props
 */
export function ModelProgress({ panel }) {
  const i18n = useI18n();
  const { t } = i18n;
  const mb = (/** @type {number} */ n) => t('model.mb', { n: i18n.fixed(n / 1e6, 1) });
  const p = panel.progress.value;
  if (!p || Math.max(p.total, p.loaded) <= PROGRESS_MIN_BYTES) return null;
  const known = p.total > 0;
  const pct = known ? Math.min(100, Math.round((100 * p.loaded) / p.total)) : 0;
  return (
    <div class="spg-progress" data-testid="model-progress">
      <div
        class={`spg-progress-track${known ? '' : ' is-unknown'}`}
        role="progressbar"
        aria-label={t('model.loadingLabel', { name: p.name })}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={known ? pct : undefined}
        aria-valuetext={known ? t('model.of', { loaded: mb(p.loaded), total: mb(p.total) }) : mb(p.loaded)}
      >
        <div class="spg-progress-fill" style={{ width: known ? `${pct}%` : '30%' }} />
      </div>
      <small class="spg-hint">
        {t('model.progress', { name: p.name, done: known ? t('model.of', { loaded: mb(p.loaded), total: mb(p.total) }) : mb(p.loaded) })}
        {p.rate !== undefined && p.rate > 0 && <span data-testid="model-rate"> · {t('model.rate', { n: i18n.fixed(p.rate / 1e6, 1) })}</span>}
      </small>
      {p.cancel && (
        <button type="button" class="spg-btn spg-btn-small" onClick={p.cancel} data-testid="model-cancel">{t('model.cancel')}</button>
      )}
    </div>
  );
}

/**
 * A download larger than MODEL_ASK_BYTES waits for the learner: its size,
 * Download or Cancel.
 * @param {{panel: Pick<Panel, 'askDownload'>}} props
 */
export function DownloadAsk({ panel }) {
  const i18n = useI18n();
  const { t } = i18n;
  const a = panel.askDownload.value;
  if (!a) return null;
  return (
    <div class="spg-ask" role="alertdialog" aria-labelledby="spg-ask-text" data-testid="model-ask">
      <p id="spg-ask-text">{t('model.ask', { name: a.name, size: t('model.mb', { n: i18n.fixed(a.size / 1e6, 1) }) })}</p>
      <button type="button" class="spg-btn" onClick={() => a.answer(true)} data-testid="model-ask-yes">{t('model.askYes')}</button>{' '}
      <button type="button" class="spg-btn" onClick={() => a.answer(false)} data-testid="model-ask-no">{t('model.cancel')}</button>
    </div>
  );
}

/** @param {{panel: Pick<Panel, 'errors' | 'model' | 'prompt' | 'setPrompt'> & Partial<Pick<Panel, 'chat' | 'chatText' | 'setChat'>>, uid: string}} props */
export function PromptBox({ panel, uid }) {
  const { t } = useI18n();
  const [text, setText] = useState(panel.prompt.value);
  const timer = useRef(/** @type {ReturnType<typeof setTimeout> | undefined} */ (undefined));
  const applied = panel.prompt.value;
  // a prompt set from elsewhere (a link) shows up in the box
  useEffect(() => { setText(applied); }, [applied]);
  const apply = (/** @type {string} */ value) => {
    clearTimeout(timer.current);
    if (value !== panel.prompt.value || panel.errors.value.prompt) panel.setPrompt(value);
  };
  const error = panel.errors.value.prompt;
  return (
    <div class="spg-field">
      <label for={`${uid}-prompt`}>{t('prompt.label')}</label>
      <input
        id={`${uid}-prompt`}
        type="text"
        value={text}
        placeholder={t(panel.model.value?.kind === 'bigram' ? 'prompt.placeholderBigram' : 'prompt.placeholder')}
        autocomplete="off"
        spellcheck={false}
        dir="auto"
        data-testid="prompt"
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={error ? `${uid}-prompt-error` : undefined}
        onInput={(e) => {
          const v = /** @type {HTMLInputElement} */ (e.currentTarget).value;
          setText(v);
          clearTimeout(timer.current);
          timer.current = setTimeout(() => apply(v), 400);
        }}
        onKeyDown={(e) => { if (e.key === 'Enter') apply(/** @type {HTMLInputElement} */ (e.currentTarget).value); }}
      />
      {error && <p class="spg-error" role="alert" id={`${uid}-prompt-error`} data-testid="prompt-error"><Say m={error} /></p>}
      {panel.setChat && <ChatSwitch panel={/** @type {any} */ (panel)} uid={uid} />}
    </div>
  );
}

/**
 * The Chat switch, for a model whose file carries a chat template: the
 * prompt wrapped as one user message (ChatML or Llama 3 style, the engine's
 * wrap) and the wrapped text shown, so an instruct model answers; a
 * template the engine does not know is said, and the prompt used as it is.
 * @param {{panel: Pick<Panel, 'chat' | 'chatText' | 'model' | 'setChat'>, uid: string}} props
 */
export function ChatSwitch({ panel, uid }) {
  const { t } = useI18n();
  const kind = panel.model.value?.chat;
  if (!kind) return null;
  if (kind === 'other') return <small class="spg-hint" data-testid="chat-other">{t('chat.other')}</small>;
  const on = panel.chat.value;
  return (
    <div class="spg-chat">
      <label class="spg-check">
        <input type="checkbox" checked={on} onChange={(e) => panel.setChat(/** @type {HTMLInputElement} */ (e.currentTarget).checked)} data-testid="chat" aria-describedby={`${uid}-chat-hint`} />
        {' '}{t('chat.label')}
      </label>
      <small class="spg-hint" id={`${uid}-chat-hint`}>{t(kind === 'llama3' ? 'chat.hintLlama3' : 'chat.hintChatml')}</small>
      {on && panel.chatText.value !== null && (
        <div class="spg-chat-text">
          <small class="spg-hint">{t('chat.wrapped')}</small>
          <pre data-testid="chat-text">{panel.chatText.value}</pre>
        </div>
      )}
    </div>
  );
}

/** @param {{panel: Pick<Panel, 'errors' | 'rollSeed' | 'seed' | 'setSeed'>, uid: string}} props */
export function SeedField({ panel, uid }) {
  const { t } = useI18n();
  const [text, setText] = useState(panel.seed.value);
  const applied = panel.seed.value;
  useEffect(() => { setText(applied); }, [applied]);
  const error = panel.errors.value.seed;
  /** a seed the engine cannot take is refused (said below) and the field shows the seed in use again */
  const commit = async (/** @type {string} */ v) => {
    if (v.trim() === panel.seed.value && !panel.errors.value.seed) return;
    const ok = await panel.setSeed(v);
    if (!ok && panel.errors.value.seed) setText(panel.seed.value);
  };
  return (
    <div class="spg-field">
      <label for={`${uid}-seed`}>{t('seed.label')}</label>
      <div class="spg-row">
        <input
          id={`${uid}-seed`}
          type="text"
          inputMode="numeric"
          value={text}
          autocomplete="off"
          data-testid="seed"
          aria-invalid={error ? 'true' : undefined}
          onInput={(e) => setText(/** @type {HTMLInputElement} */ (e.currentTarget).value)}
          onChange={(e) => commit(/** @type {HTMLInputElement} */ (e.currentTarget).value)}
          onKeyDown={(e) => { if (e.key === 'Enter') commit(/** @type {HTMLInputElement} */ (e.currentTarget).value); }}
        />
        <button type="button" class="spg-btn spg-dice" aria-label={t('seed.dice')} aria-describedby={`${uid}-dice-hint`} title={t('seed.diceTitle')} onClick={() => panel.rollSeed()} data-testid="dice">
          <span aria-hidden="true">⚄</span>
        </button>
      </div>
      <small id={`${uid}-dice-hint`} class="spg-hint">{t('seed.hint')}</small>
      {error && <p class="spg-error" role="alert" data-testid="seed-error"><Say m={error} suffix={` ${t('seed.still', { seed: panel.seed.value })}`} /></p>}
    </div>
  );
}

/**
 * Why a sampler setting does nothing under a decoding strategy ('' when it
 * applies): beam search ranks beams by log-probability and draws nothing,
 * so only the stages that reshape the logits (the engine's beam chain)
 * reach it.
 * @param {import('../app/lab.js').Strategy} strategy @param {string} key
 */
export function unusedBecause(strategy, key) {
  if (strategy === 'beam' && !BEAM_STAGES.includes(SPEC[key]?.stage)) return 'slider.unusedBeam';
  return '';
}

/**
 * One parameter's slider, disabled with the reason where the decoding
 * strategy does not use it.
 * @param {{panel: Pick<Panel, 'model' | 'params' | 'setParam' |
 *     'strategy'>, uid: string, spec: import('../app/params.js').ParamSpec, onChanged?: () => void}} props
 */
export function ParamSlider({ panel, uid, spec, onChanged }) {
  const { t } = useI18n();
  const vocab = panel.model.value?.vocab ?? 1;
  const why = unusedBecause(panel.strategy.value, spec.key);
  return (
    <Slider
      id={`${uid}-${spec.key}`}
      spec={spec}
      value={/** @type {any} */ (panel.params.value)[spec.key]}
      max={sliderMax(spec, vocab)}
      vocab={vocab}
      disabled={!!why}
      note={why ? t(why) : ''}
      onChange={(v) => { panel.setParam(spec.key, v); onChanged?.(); }}
    />
  );
}

/**
 * @param {{panel: Pick<Panel, 'model' | 'params' | 'setParam' |
 *     'strategy'>, uid: string, onChanged?: () => void, keys?: string[], legend?: string}} props
 *   onChanged: after a setting moved (compare mode regenerates the panel);
 *   keys: just these sliders (the engine's names)
 */
export function SamplerSliders({ panel, uid, onChanged, keys, legend }) {
  const { t } = useI18n();
  const specs = keys ? PARAM_SPECS.filter((s) => keys.includes(s.key)) : PARAM_SPECS;
  return (
    <fieldset class="spg-sliders">
      <legend>{legend ?? t('slider.legend')}</legend>
      {specs.map((spec) => <ParamSlider key={spec.key} panel={panel} uid={uid} spec={spec} onChanged={onChanged} />)}
    </fieldset>
  );
}
