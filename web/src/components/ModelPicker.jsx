// @ts-check
/**
 * The page's model picker: the shipped models, a hand-made one, the
 * learner's text, or files of their own (chosen or dropped).  An element
 * has none, so it loads none of this (nor the model maker).
 */
import { useEffect, useRef, useState } from 'preact/hooks';

import { HANDMADE_ID } from '../app/models.js';
import { ModelProgress } from './Controls.jsx';
import { Rich, Say, modelName, useI18n } from './I18n.jsx';
import { HandmadeEditor, PRESETS, TextTrainer } from './ModelMaker.jsx';

/** @typedef {import('../app/panel.js').Panel} Panel */

const LOAD_FILE = '__load_file__';
const NEW_HANDMADE = '__handmade__';
/** a model's kind, as its line under the menu says it (catalogue keys) */
const KIND_NAME = /** @type {Record<string, string>} */ ({ bigram: 'model.kindBigram', transformer: 'model.kindTransformer', handmade: 'model.kindHandmade' });

/**
 * Which of the chosen (or dropped) files is the tokenizer: the one whose
 * name says so ("tokenizer.bin", "tok512.bin"), else the smaller one.
 * @param {File[]} files
 */
export function splitModelFiles(files) {
  if (files.length === 0) return { model: null, tokenizer: null };
  if (files.length === 1) return { model: files[0], tokenizer: null };
  let t = files.findIndex((f) => /tok/i.test(f.name));
  if (t < 0) t = files[0].size <= files[1].size ? 0 : 1;
  const m = files.findIndex((_, i) => i !== t);
  return { model: files[m], tokenizer: files[t] };
}

/** @param {{panel: Pick<Panel, 'busy' | 'errors' | 'loadFiles' | 'loadingModel' | 'model' | 'modelId' | 'modelRow' |
 *     'models' | 'next' | 'progress' | 'ready' | 'selectModel' | 'setHandmade' |
 *     'trainOn'>, uid: string}} props */
export function ModelPicker({ panel, uid }) {
  const i18n = useI18n();
  const { t } = i18n;
  const [open, setOpen] = useState(false);
  const [over, setOver] = useState(false);
  const fileInput = useRef(/** @type {HTMLInputElement | null} */ (null));
  const selectRef = useRef(/** @type {HTMLSelectElement | null} */ (null));
  const busy = panel.busy.value;
  // the model being loaded, then the one loaded: the picker never names the
  // old model while the new one is on its way
  const shownId = panel.loadingModel.value || panel.modelId.value;
  const loading = panel.loadingModel.value ? panel.models.value.find((m) => m.id === panel.loadingModel.value) : null;

  // a refused choice snaps the picker back to the model that is loaded
  useEffect(() => {
    if (selectRef.current && selectRef.current.value !== shownId) selectRef.current.value = shownId;
  });

  const onChange = async (/** @type {Event} */ e) => {
    const select = /** @type {HTMLSelectElement} */ (e.currentTarget);
    const value = select.value;
    if (value === NEW_HANDMADE) {
      const ok = await panel.setHandmade(PRESETS[0].spec);
      if (!ok) select.value = panel.modelId.value;
      return;
    }
    if (value === LOAD_FILE) {
      select.value = panel.modelId.value;
      setOpen(true);
      requestAnimationFrame(() => fileInput.current?.focus());
      return;
    }
    const ok = await panel.selectModel(value);
    if (!ok) select.value = panel.modelId.value;
  };

  /** @param {File[]} files */
  const load = async (files) => {
    const { model, tokenizer } = splitModelFiles(files);
    if (!model) return;
    if (await panel.loadFiles(model, tokenizer)) setOpen(false);
  };

  const onDrop = (/** @type {DragEvent} */ e) => {
    e.preventDefault();
    setOver(false);
    load([...(e.dataTransfer?.files ?? [])]);
  };

  const error = panel.errors.value.model;
  // a single panel makes models (hand-made, your text); compare mode's shared picker does not
  const makes = 'setHandmade' in panel;
  return (
    <div
      class={`spg-field spg-model${over ? ' is-over' : ''}`}
      data-testid="drop-zone"
      onDragOver={(e) => { e.preventDefault(); setOver(true); }}
      onDragLeave={() => setOver(false)}
      onDrop={onDrop}
    >
      <label for={`${uid}-model`}>{t('model.label')}</label>
      <select id={`${uid}-model`} ref={selectRef} value={shownId} onChange={onChange} disabled={!!busy && !panel.ready.value} data-testid="model-select">
        {panel.models.value.filter((m) => !m.draftOnly || m.id === shownId).map((m) => <option key={m.id} value={m.id}>{modelName(i18n, m)}</option>)}
        {makes && !panel.models.value.some((m) => m.id === HANDMADE_ID) && <option value={NEW_HANDMADE}>{t('model.newHandmade')}</option>}
        <option value={LOAD_FILE}>{t('model.loadFile')}</option>
      </select>
      {loading && <small class="spg-hint" data-testid="model-info" data-loading="true">{t('model.loading', { name: modelName(i18n, loading) })}</small>}
      {!loading && panel.model.value && (
        <small class="spg-hint" data-testid="model-info">
          {t(panel.model.value.seqLen > 0 ? 'model.infoContext' : 'model.info', {
            kind: t(KIND_NAME[panel.model.value.kind] ?? 'model.kindTransformer'),
            count: panel.model.value.vocab,
            context: panel.model.value.seqLen,
          })}
        </small>
      )}
      {!loading && panel.model.value?.ids && <small class="spg-hint" data-testid="model-ids">{t('model.idsNote')}</small>}
      <details class="spg-files" open={open} onToggle={(e) => setOpen(/** @type {HTMLDetailsElement} */ (e.currentTarget).open)}>
        <summary>{t('model.loadFile')}</summary>
        <p><Rich k="model.filesHelp" /></p>
        <label for={`${uid}-files`}>{t('model.files')}</label>
        <input
          id={`${uid}-files`}
          type="file"
          multiple
          accept=".gguf,.bin,application/octet-stream"
          ref={fileInput}
          data-testid="model-file"
          onChange={(e) => {
            const input = /** @type {HTMLInputElement} */ (e.currentTarget);
            load([...(input.files ?? [])]);
            input.value = '';
          }}
        />
      </details>
      {makes && <TextTrainer panel={panel} uid={uid} />}
      {!panel.progress.value?.cancel && <ModelProgress panel={panel} />}
      {error && <p class="spg-error" role="alert" data-testid="model-error"><Say m={error} /></p>}
      {makes && <HandmadeEditor panel={panel} uid={uid} />}
    </div>
  );
}
