// @ts-check
/**
 * model.js — the panel's model: a shipped one, a file, a hand-made model,
 * a bigram trained on the learner's text, and the learner's edits of it
 * (a copy of the model, the text written again).
 */
import { batch } from '@preact/signals';
import { defaultDraft } from '../lab.js';
import { errorMsg } from '../errors.js';
import { HANDMADE_ID, TEXT_ID, modelLabel } from '../models.js';
import { MODEL_ASK_BYTES, MODEL_CACHE, downloadModel, resolveModelUrl, urlFileName } from '../modelUrl.js';
import { msg } from '../../i18n/index.js';

/** @typedef {import('../../worker/protocol.js').ModelInfo} ModelInfo */
/**
 * What this module calls of the panel's other modules.
 * @typedef {{restart: import('./generation.js').Generation['restart']}} Needs
 */

/**
 * @param {import('./core.js').Core & import('./view.js').View & Needs} p
 */
export function createModelActions(p) {
  const { client, session, models, runtime, modelId, loadingModel, model, params, specOpts, bans, biases, edits, modelRow, lab,
    beam, spec, peeked, prompt, steps, forced, next, status, progress, samples, errors, busy, generated, pause, setError,
    stepCount, canEdit, askDownload } = p;

  /**
   * Makes a loaded (or shipped) model the panel's model.  Nothing changes
   * when it fails: the error is shown and the current model stays.
   * @param {string} id @param {{restart?: boolean, edits?: Array<[number, number, number]>, keepText?: boolean}} [opts]
   *   edits: the model's edits (default: none for another model, the
   *   current ones for this one); keepText: write the same number of
   *   steps again (an edit) instead of a new text
   */
  async function selectModel(id, opts = {}) {
    const entry = models.value.find((m) => m.id === id);
    if (!entry) return false;
    // a new model starts unedited (a link's edits come with opts.edits)
    const wantEdits = opts.edits ?? (id === modelId.value ? edits.value : []);
    // the Worker's id: a model made or edited here is this panel's own (the
    // elements of a page share a Worker); an edited shipped model is a copy
    // beside the original
    const own = entry.handmade || entry.text || (wantEdits.length && entry.builtin);
    const wid = own ? `${id}${entry.builtin ? '~edited' : ''}@${session}` : id;
    // an edit writes the same steps again: what they were before the reload
    const keep = opts.keepText ? { steps: stepCount.value, forced: forced.value } : null;
    pause();
    busy.value = msg('model.loading', { name: modelLabel(entry) });
    loadingModel.value = id;
    const onProgress = (/** @type {{loaded: number, total: number}} */ p) => {
      progress.value = { name: modelLabel(entry), loaded: p.loaded, total: p.total };
    };
    try {
      /** @type {ModelInfo} */
      let info;
      if (entry.handmade) info = await client.request('loadModel', { model: wid, handmade: entry.handmade, edits: wantEdits, name: entry.name });
      else if (entry.text) {
        info = await client.request('loadModel', { model: wid, text: entry.text, edits: wantEdits, name: entry.name }, [], { onProgress });
      } else if (entry.builtin) info = await client.request('loadModel', { model: wid, builtin: id, edits: wantEdits }, [], { onProgress });
      else if (entry.url) {
        info = await client.request('loadModel', { model: id, url: entry.url, tokenizerUrl: entry.tokenizerUrl ?? null, name: entry.name }, [], { onProgress });
      } else info = /** @type {ModelInfo} */ (entry.info);
      progress.value = null;
      const row = entry.handmade ? await client.request('modelRow', { model: wid, row: 0 }) : null;
      await client.request('openSession', { session, model: wid });
      ++runtime.epoch; // the old session's answers no longer apply
      batch(() => {
        modelId.value = id;
        edits.value = wantEdits;
        modelRow.value = row;
        model.value = info;
        steps.value = [];
        next.value = null;
        status.value = null;
        samples.value = null;
        lab.value = null;
        generated.value = null;
        beam.value = null;
        spec.value = null;
        peeked.value = null;
        // (a top-k past the vocabulary stays: in its range, it keeps every token; the slider rests at its end)
        if (bans.value.some((t) => t >= info.vocab)) bans.value = bans.value.filter((t) => t < info.vocab);
        if (biases.value.some(([t]) => t >= info.vocab)) biases.value = biases.value.filter(([t]) => t < info.vocab);
        if (!runtime.draftChosen) specOpts.value = { ...specOpts.value, draft: defaultDraft(id) };
        setError('model');
      });
    } catch (err) {
      progress.value = null;
      setError('model', errorMsg('model', err));
      busy.value = '';
      loadingModel.value = '';
      return false;
    }
    busy.value = '';
    loadingModel.value = '';
    if (keep) return p.restart(keep); // an edit: the same text written again with the edited model
    if (opts.restart !== false) {
      // a prompt this model cannot encode: say so and start without it
      if (!(await p.restart()) && prompt.value) {
        const why = errors.value.prompt;
        await p.restart({ prompt: '' });
        setError('prompt', why);
      }
    }
    return true;
  }

  /**
   * Makes the hand-made model (spec: "logits:2,1,0", "probs:...") the
   * panel's model; its edits start afresh.  A spec the engine refuses
   * keeps the old model, and the engine's message is shown.
   * @param {string} spec
   */
  async function setHandmade(spec) {
    const old = models.value;
    const entry = { id: HANDMADE_ID, name: 'Hand-made', builtin: false, handmade: spec };
    models.value = [...old.filter((m) => m.id !== HANDMADE_ID), entry];
    const ok = await selectModel(HANDMADE_ID, { edits: [] });
    if (!ok) {
      const was = old.find((m) => m.id === HANDMADE_ID);
      models.value = was ? old : old.filter((m) => m.id !== HANDMADE_ID);
    }
    return ok;
  }

  /**
   * Trains a bigram on the learner's text (pasted, or a dropped .txt) in
   * the engine, and switches to it.  Bad text keeps the old model and
   * shows the engine's message.
   * @param {string | Blob} source
   */
  async function trainOn(source) {
    const bytes = typeof source === 'string' ? new TextEncoder().encode(source) : new Uint8Array(await source.arrayBuffer());
    const entry = { id: TEXT_ID, name: 'Your text', builtin: false, text: bytes };
    const old = models.value;
    models.value = [...old.filter((m) => m.id !== TEXT_ID), entry];
    const ok = await selectModel(TEXT_ID, { edits: [] });
    if (!ok) models.value = old;
    return ok;
  }

  /**
   * Sets the model's probability of token in the distribution shown (the
   * bigram's row of the text's last token; a hand-made model's only row) to
   * p, on a copy of the model, and writes the text again with it.
   * @param {number} token @param {number} p
   */
  async function editProb(token, p) {
    const entry = models.value.find((m) => m.id === modelId.value);
    if (!entry || !canEdit.value) return false;
    const q = Math.min(0.999, Math.max(0.001, Math.round(p * 1000) / 1000));
    const row = model.value?.kind === 'handmade' ? 0 : await client.request('contextToken', { session });
    if (!Number.isInteger(row) || row < 0) return false;
    // a second edit of the same bar (+ then PageUp, a drag after a key)
    // replaces the first: one edit per token in the link; the model is
    // made again from the list, so the page shows what the link gives
    const last = edits.value[edits.value.length - 1];
    const before = last && last[0] === row && last[1] === token ? edits.value.slice(0, -1) : edits.value;
    return selectModel(entry.id, { edits: [...before, [row, token, q]], keepText: true });
  }

  /** Drops the edits: the model as it was loaded, the text written again. */
  function resetModel() {
    if (!edits.value.length) return Promise.resolve(true);
    return selectModel(modelId.value, { edits: [], keepText: true });
  }

  /**
   * Loads a model the learner chose (a llama2.c checkpoint and its
   * tokenizer, or a bigram file) and switches to it.
   * @param {File | Blob & {name?: string}} modelFile
   * @param {(File | Blob) | null} [tokenizerFile]
   */
  async function loadFiles(modelFile, tokenizerFile = null) {
    const id = `file-${models.value.filter((m) => !m.builtin).length + 1}`;
    const name = /** @type {any} */ (modelFile).name || 'model.bin';
    busy.value = msg('model.loading', { name });
    try {
      const bytes = await modelFile.arrayBuffer();
      const tok = tokenizerFile ? await tokenizerFile.arrayBuffer() : null;
      const info = await client.request('loadModel', { model: id, bytes, tokenizerBytes: tok, name },
        tok ? [bytes, tok] : [bytes]);
      models.value = [...models.value, /** @type {any} */ ({ id, name, builtin: false, info })];
    } catch (err) {
      setError('model', errorMsg('model', err, { file: name }));
      busy.value = '';
      return false;
    }
    busy.value = '';
    return selectModel(id);
  }


  /**
   * Loads a model named by URL (a link's model_url, an element's
   * model-url) and switches to it: resolved against the page, from the
   * page's own origin or one the author allows; a file too large for the
   * engine is refused before its bytes come, one over MODEL_ASK_BYTES is
   * asked for; downloaded with progress, its rate and Cancel.  Nothing
   * changes when it fails or is cancelled.
   * @param {string} raw
   * @param {{base?: string, origins?: string[], restart?: boolean, keep?: boolean}} [opts]
   *   keep: the author's opt-in (model-cache="keep"): the file is kept on
   *   the device (Cache Storage, MODEL_CACHE) and read from there next time
   */
  async function loadUrl(raw, { base = globalThis.location?.href ?? 'http://localhost/', origins = [], restart = true, keep = false } = {}) {
    const where = resolveModelUrl(raw, base, origins);
    if (!('url' in where)) {
      setError('model', where.why === 'origin'
        ? msg('error.urlOrigin', { origin: where.origin ?? '' })
        : msg('error.url', { url: raw }));
      return false;
    }
    const url = where.url;
    const id = `url:${url.href}`;
    if (models.value.some((m) => m.id === id)) return selectModel(id, { restart });
    const name = urlFileName(url);
    const controller = new AbortController();
    const cancel = () => controller.abort();
    pause();
    busy.value = msg('model.loading', { name });
    progress.value = { name, loaded: 0, total: 0, rate: 0, cancel };
    try {
      const store = keep && globalThis.caches ? await caches.open(MODEL_CACHE) : null;
      const kept = store ? await store.match(url.href) : undefined;
      const bytes = kept ? new Uint8Array(await kept.arrayBuffer()) : await downloadModel(url, {
        signal: controller.signal,
        onProgress: ({ loaded, total, rate }) => { progress.value = { name, loaded, total, rate, cancel }; },
        // no Content-Length: the bytes so far, checked as they grow
        unsized: (loaded) => client.request('checkSize', { size: loaded }),
        beforeBody: async (total) => {
          if (!total) return;
          await client.request('checkSize', { size: total });
          if (total > MODEL_ASK_BYTES) {
            const yes = await new Promise((resolve) => { askDownload.value = { name, size: total, answer: resolve }; });
            askDownload.value = null;
            if (!yes) controller.abort();
            if (controller.signal.aborted) throw new DOMException('cancelled', 'AbortError');
          }
        },
      });
      progress.value = null;
      if (store && !kept) {
        await store.put(url.href, new Response(bytes.slice(), { headers: { 'content-type': 'application/octet-stream' } })).catch(() => {});
      }
      const info = await client.request('loadModel', { model: id, bytes, name }, [bytes.buffer]);
      models.value = [...models.value.filter((m) => m.id !== id), /** @type {any} */ ({ id, name, builtin: false, info, linkUrl: raw })];
    } catch (err) {
      progress.value = null;
      askDownload.value = null;
      busy.value = '';
      if (controller.signal.aborted) setError('model', msg('error.cancelled', { file: name }));
      else setError('model', errorMsg('model', err, { file: name }));
      return false;
    }
    busy.value = '';
    return selectModel(id, { restart });
  }

  return { selectModel, setHandmade, trainOn, editProb, resetModel, loadFiles, loadUrl };
}

/** @typedef {ReturnType<typeof createModelActions>} ModelActions */
