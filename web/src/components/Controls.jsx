// @ts-check
/**
 * The setup controls of a panel: model picker (with file loading), prompt,
 * seed with a dice button, and the sampler sliders.
 */
import { useEffect, useRef, useState } from 'preact/hooks';

import { PARAM_SPECS, sliderMax } from '../app/params.js';
import { Slider } from './Slider.jsx';

const LOAD_FILE = '__load_file__';

/** Which of the dropped files is the tokenizer: by name, else the second. */
export function splitDroppedFiles(/** @type {File[]} */ files) {
  if (files.length === 0) return { model: null, tokenizer: null };
  if (files.length === 1) return { model: files[0], tokenizer: null };
  const tokIndex = files.findIndex((f) => /tok/i.test(f.name));
  const t = tokIndex >= 0 ? tokIndex : 1;
  return { model: files[t === 0 ? 1 : 0], tokenizer: files[t] };
}

/** @param {{panel: import('../app/panel.js').Panel, uid: string}} props */
export function ModelPicker({ panel, uid }) {
  const [open, setOpen] = useState(false);
  const [over, setOver] = useState(false);
  const modelInput = useRef(/** @type {HTMLInputElement | null} */ (null));
  const tokInput = useRef(/** @type {HTMLInputElement | null} */ (null));
  const selectRef = useRef(/** @type {HTMLSelectElement | null} */ (null));
  const busy = panel.busy.value;

  // a refused choice snaps the picker back to the model that is loaded
  useEffect(() => {
    if (selectRef.current && selectRef.current.value !== panel.modelId.value) selectRef.current.value = panel.modelId.value;
  });

  const onChange = async (/** @type {Event} */ e) => {
    const select = /** @type {HTMLSelectElement} */ (e.currentTarget);
    const value = select.value;
    if (value === LOAD_FILE) {
      select.value = panel.modelId.value;
      setOpen(true);
      return;
    }
    const ok = await panel.selectModel(value);
    if (!ok) select.value = panel.modelId.value;
  };

  const load = async () => {
    const m = modelInput.current?.files?.[0];
    if (!m) return;
    const ok = await panel.loadFiles(m, tokInput.current?.files?.[0] ?? null);
    if (ok) setOpen(false);
  };

  const onDrop = async (/** @type {DragEvent} */ e) => {
    e.preventDefault();
    setOver(false);
    const { model, tokenizer } = splitDroppedFiles([...(e.dataTransfer?.files ?? [])]);
    if (!model) return;
    const ok = await panel.loadFiles(model, tokenizer);
    if (ok) setOpen(false);
  };

  const error = panel.errors.value.model;
  return (
    <div class="spg-field">
      <label for={`${uid}-model`}>Model</label>
      <select id={`${uid}-model`} ref={selectRef} value={panel.modelId.value} onChange={onChange} disabled={!!busy && !panel.ready.value} data-testid="model-select">
        {panel.models.value.map((m) => <option key={m.id} value={m.id}>{m.name}</option>)}
        <option value={LOAD_FILE}>Load a llama2.c model…</option>
      </select>
      {panel.model.value && (
        <small class="spg-hint" data-testid="model-info">
          {panel.model.value.kind === 'bigram' ? 'bigram' : 'transformer'} · {panel.model.value.vocab.toLocaleString('en')} tokens
          {panel.model.value.seqLen > 0 ? ` · context ${panel.model.value.seqLen}` : ''}
        </small>
      )}
      {open && (
        <div
          class={`spg-files${over ? ' is-over' : ''}`}
          data-testid="drop-zone"
          onDragOver={(e) => { e.preventDefault(); setOver(true); }}
          onDragLeave={() => setOver(false)}
          onDrop={onDrop}
        >
          <p>A llama2.c checkpoint (.bin) and its tokenizer.bin — choose them or drop both here.</p>
          <label for={`${uid}-mfile`}>Checkpoint (.bin)</label>
          <input id={`${uid}-mfile`} type="file" ref={modelInput} data-testid="model-file" />
          <label for={`${uid}-tfile`}>Tokenizer (tokenizer.bin)</label>
          <input id={`${uid}-tfile`} type="file" ref={tokInput} data-testid="tokenizer-file" />
          <div class="spg-row">
            <button type="button" class="spg-btn spg-btn-primary" onClick={load} data-testid="load-files">Load model</button>
            <button type="button" class="spg-btn" onClick={() => setOpen(false)}>Cancel</button>
          </div>
        </div>
      )}
      {error && <p class="spg-error" role="alert" data-testid="model-error">{error}</p>}
    </div>
  );
}

/** @param {{panel: import('../app/panel.js').Panel, uid: string}} props */
export function PromptBox({ panel, uid }) {
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
      <label for={`${uid}-prompt`}>Prompt</label>
      <input
        id={`${uid}-prompt`}
        type="text"
        value={text}
        placeholder={panel.model.value?.kind === 'bigram' ? '(empty: a new name)' : 'Once'}
        autocomplete="off"
        spellcheck={false}
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
      {error && <p class="spg-error" role="alert" id={`${uid}-prompt-error`} data-testid="prompt-error">{error}</p>}
    </div>
  );
}

/** @param {{panel: import('../app/panel.js').Panel, uid: string}} props */
export function SeedField({ panel, uid }) {
  const [text, setText] = useState(panel.seed.value);
  const applied = panel.seed.value;
  useEffect(() => { setText(applied); }, [applied]);
  const error = panel.errors.value.seed;
  const commit = (/** @type {string} */ v) => {
    if (v.trim() !== panel.seed.value || panel.errors.value.seed) panel.setSeed(v);
  };
  return (
    <div class="spg-field">
      <label for={`${uid}-seed`}>Seed</label>
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
        <button type="button" class="spg-btn spg-dice" aria-label="Roll the dice" aria-describedby={`${uid}-dice-hint`} title="A new random seed" onClick={() => panel.rollSeed()} data-testid="dice">
          <span aria-hidden="true">⚄</span>
        </button>
      </div>
      <small id={`${uid}-dice-hint`} class="spg-hint">The same seed gives the same text; the dice picks a new one.</small>
      {error && <p class="spg-error" role="alert" data-testid="seed-error">{error}</p>}
    </div>
  );
}

/** @param {{panel: import('../app/panel.js').Panel, uid: string}} props */
export function SamplerSliders({ panel, uid }) {
  const vocab = panel.model.value?.vocab ?? 1;
  const params = panel.params.value;
  return (
    <fieldset class="spg-sliders">
      <legend>Sampler</legend>
      {PARAM_SPECS.map((spec) => (
        <Slider
          key={spec.key}
          id={`${uid}-${spec.key}`}
          spec={spec}
          value={/** @type {any} */ (params)[spec.key]}
          max={sliderMax(spec, vocab)}
          vocab={vocab}
          onChange={(v) => panel.setParam(spec.key, v)}
        />
      ))}
    </fieldset>
  );
}
