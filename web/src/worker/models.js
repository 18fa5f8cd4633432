// @ts-check
/**
 * models.js — the Worker's models: loading one (shipped, from bytes, from
 * URLs, hand-made, trained on a text; edited), and a row of a bigram's or
 * hand-made model's logits.  A failure leaves every loaded model as it was.
 */
import { reasoned } from './protocol.js';

/** @typedef {import('./protocol.js').ModelInfo} ModelInfo */
/** @typedef {import('./protocol.js').ModelEdit} ModelEdit */
/** @typedef {import('./fetch.js').OnProgress} OnProgress */

/**
 * What a loadModel request loads, as a key: a second request with the same
 * key changes nothing ('' for bytes and texts: those are read each time).
 * @param {{builtin?: string, url?: string, handmade?: string, edits?: ModelEdit[]}} args
 */
export function loadKey({ builtin, url, handmade, edits = [] }) {
  const source = builtin ? `builtin:${builtin}` : url ? `url:${url}` : handmade ? `handmade:${handmade}` : '';
  return source && JSON.stringify([source, edits]);
}

/**
 * A model: built in, from bytes, or from URLs (fetched here, with
 * progress).
 * handmade: a hand-made model's spec ("logits:2,1,0"); text: UTF-8 text
 * to train a bigram on (progress per MiB past 1 MiB); edits: [row, token,
 * p] applied in order to the loaded model (a bigram or hand-made one).
 * @param {import('./host.js').EngineHost} host
 * @param {{model: string, builtin?: string, bytes?: ArrayBuffer | Uint8Array, tokenizerBytes?: ArrayBuffer | Uint8Array | null,
 *   url?: string, tokenizerUrl?: string | null, name?: string, handmade?: string, text?: ArrayBuffer | Uint8Array,
 *   edits?: ModelEdit[]}} args
 * @param {OnProgress} [progress]
 * @returns {Promise<ModelInfo>}
 */
export async function loadModel(host, { model: id, builtin, bytes, tokenizerBytes, url, tokenizerUrl, name, handmade, text, edits = [] }, progress) {
  const have = host.models.get(id);
  // the same source and edits: already loaded
  const key = loadKey({ builtin, url, handmade, edits });
  if (have && key && have.key === key) return have.info;
  const engine = await host.enginePromise;
  /** @type {Uint8Array | null} */
  let modelData = null;
  /** @type {Uint8Array | null} */
  let tokData = null;
  /** @type {ModelInfo['trained']} */
  let trained;
  /** @type {import('../engine/engine.js').Model | null} */
  let made = null;
  if (handmade) {
    made = engine.handmadeModel(String(handmade));
    name ??= 'Hand-made';
  } else if (text) {
    // a bigram trained on the learner's text, with progress for a large one
    const t = new Uint8Array(text);
    const onProgress = t.length > 1 << 20 ? (/** @type {number} */ done, /** @type {number} */ total) => progress?.(done, total) : undefined;
    const file = engine.trainBigram(t, { onProgress });
    made = engine.loadModel(file);
    trained = { bytes: t.length, chars: made.vocab - 1 };
    name ??= 'Your text';
  } else if (builtin) {
    const b = host.builtins[builtin];
    if (!b) throw new RangeError(`no built-in model "${builtin}"`);
    name = b.name;
    modelData = await host.fetchBytes(b.url, progress);
    if (b.tokenizerUrl && modelData) tokData = await host.fetchBytes(b.tokenizerUrl);
    if (!modelData || (b.tokenizerUrl && !tokData)) throw reasoned(b.missing, 'missing', { model: builtin });
  } else if (url) {
    modelData = await host.fetchUrl(url, progress);
    if (tokenizerUrl) tokData = await host.fetchUrl(tokenizerUrl);
  } else {
    if (!bytes) throw new TypeError('loadModel: no model bytes');
    modelData = new Uint8Array(bytes);
    tokData = tokenizerBytes ? new Uint8Array(tokenizerBytes) : null;
  }
  /** which file the engine refused: its error says so (part) */
  const as = (/** @type {string} */ part, /** @type {() => any} */ fn) => {
    try {
      return fn();
    } catch (err) {
      if (err && typeof err === 'object') /** @type {any} */ (err).part = part;
      throw err;
    }
  };
  const model = made ?? as('model', () => engine.loadModel(/** @type {Uint8Array} */ (modelData)));
  /** @type {import('../engine/engine.js').Tokenizer | null} */
  let tokenizer = null;
  /** the tokens that end a text (the engine's test, on a fresh session) */
  const ends = [];
  try {
    if (tokData) tokenizer = as('tokenizer', () => engine.loadTokenizer(/** @type {Uint8Array} */ (tokData)));
    // a checkpoint chosen alone: its tokens are shown as ids ("<17>"), as
    // `sampler logits` reads a model without its tokenizer
    if (!tokenizer && !model.tokenizer) tokenizer = engine.idsTokenizer(model.vocab);
    // a trial session: a tokenizer that does not fit the model is refused
    // here, with the engine's message, before anything is replaced
    const trial = as('pair', () => engine.createSession(model, tokenizer));
    for (let t = 0; t < model.vocab; t++) if (trial.isEnd(t)) ends.push(t);
    trial.free();
    for (const [row, token, p] of edits) model.setProb(row, token, p);
  } catch (err) {
    tokenizer?.free();
    model.free();
    throw err;
  }
  if (have) host.freeModel(id);
  /** @type {ModelInfo} */
  const info = { model: id, name: name || id, kind: model.kind, vocab: model.vocab, seqLen: model.seqLen, ends };
  const tok = tokenizer ?? model.tokenizer;
  info.ids = !!tok?.ids;
  info.tokenizer = tok && !tok.ids ? tok.kind : null;
  info.chat = tok && !tok.ids ? tok.chat : null;
  if (edits.length) info.edits = edits.map((e) => [e[0], e[1], e[2]]);
  if (trained) info.trained = trained;
  host.models.set(id, { model, tokenizer, info, key });
  return info;
}

/**
 * A bigram's or hand-made model's row of logits with the tokens' pieces
 * (the hand-made table, an edited row), or null for a transformer.
 * @param {import('./host.js').EngineHost} host @param {string} id @param {number} row
 */
export function modelRow(host, id, row) {
  const { model, tokenizer } = host.modelEntry(id);
  const logits = model.row(row);
  if (!logits) return null;
  const tok = tokenizer ?? model.tokenizer;
  return { row, logits: Array.from(logits), pieces: Array.from(logits, (_, i) => tok?.piece(i) ?? String(i)) };
}

