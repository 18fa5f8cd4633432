// @ts-check
/**
 * attrs.js — a <sampler-playground> element's attributes: what they mean,
 * their checks, and the element tag for a setup ("Copy embed code").
 *
 *   model        bigram | transformer | a hand-made model (logits:2,1,0,
 *                logits:a=2,b=1,c=0, probs:0.5,0.3,0.2) | the URL of a
 *                llama2.c .bin
 *   edits        the model's edits (a dragged bar's top): ROW_TOKEN_P,...
 *   tokenizer    the URL of its tokenizer.bin (with a model URL)
 *   temperature, top-k, top-p, ...: every sampler setting, by its CLI
 *                flag (docs/samplers.md lists them)
 *   seed, prompt, steps (tokens generated at load), speed (Play's steps/s)
 *   controls     a comma list of what the reader can change: temperature,
 *                top-k, top-p, min-p, repetition-penalty, prompt, seed, or
 *                all (default: none, just Step / Play / Reset); "" hides
 *                Step / Play / Reset too
 *   view         text, strip (under the text, the state of the stateful
 *                stages that are on: Mirostat's μ, adaptive-p's average,
 *                the penalties' and DRY's counts), bars, samples ("Draw 1000 samples" and the KL under
 *                the bars), nucleus, kv, metrics (the text's measures and
 *                their chart), beams (beam search's hypotheses), rounds
 *                (speculative decoding's rounds and its last residual): a
 *                comma list, default text,bars; or compare (2-4 panels,
 *                `panels` as in a compare link)
 *   strategy, beams, length-penalty, num-beam-groups, diversity-penalty,
 *   draft, speculate, prompt-lookup, prompt-lookup-ngram, regex, grammar,
 *   click        what a click on a bar does: ban (the token), force (it as
 *                the next token) or none (the default: nothing)
 *   ban, logit-bias, dry-sequence-breakers, bad-words, sequence-bias, negative-prompt, forced, changes, scale, panels, theme, lang: as the URL hash keys
 *   of the same names (lang: without it, the element speaks its page's
 *   language when it is one of the playground's, else the browser's).
 *
 * A bad value (a sampler setting outside the engine's range, a fraction
 * for a whole number, ...) falls back to its default, as in a link; each
 * says so in a notice in the element, naming the range.
 */
import { defaultState, parseHash, serializeHash } from '../app/hash.js';
import { numberError } from '../app/lab.js';
import { PARAM_SPECS, SPEC } from '../app/params.js';
import { BUILTIN_MODELS, HANDMADE_ID, isHandmadeSpec } from '../app/models.js';
import { msg } from '../i18n/index.js';

/** slider attribute (the CLI's flag) -> the engine's setting: every
 * parameter of the engine's registry */
export const SLIDERS = /** @type {Record<string, string>} */ (Object.fromEntries(PARAM_SPECS.map((s) => [s.flag, s.key])));
export const CONTROLS = [...Object.keys(SLIDERS), 'prompt', 'seed'];
/** with no `controls` attribute: no sliders (Step / Play / Reset only) */
export const DEFAULT_CONTROLS = /** @type {string[]} */ ([]);
export const VIEW_PARTS = ['text', 'strip', 'bars', 'samples', 'nucleus', 'kv', 'metrics', 'beams', 'rounds'];
export const DEFAULT_VIEW = ['text', 'bars'];
/** attributes with the meaning of the hash key of the same name (- for _) */
export const HASH_ATTRIBUTES = ['seed', 'prompt', 'steps', 'speed', 'strategy', 'beams', 'length-penalty', 'num-beam-groups', 'diversity-penalty',
  'draft', 'speculate', 'prompt-lookup', 'prompt-lookup-ngram',
  'regex', 'grammar', 'ban', 'logit-bias', 'dry-sequence-breakers', 'bad-words', 'sequence-bias', 'negative-prompt', 'forced', 'changes', 'samplers', 'click', 'scale', 'panels', 'theme', 'edits', 'lang',
  'model-url'];
export const ATTRIBUTES = ['model', 'tokenizer', 'model-origins', 'model-cache', ...Object.keys(SLIDERS), 'controls', 'view', ...HASH_ATTRIBUTES];

const kebab = (/** @type {string} */ key) => key.replaceAll('_', '-');
const snake = (/** @type {string} */ name) => name.replaceAll('-', '_');

/**
 * @typedef {Object} ModelChoice
 * @property {string} id   the model's id in the Worker (a shipped model's name, or url:...)
 * @property {string} key  the Worker this element uses (one per model)
 * @property {import('../app/models.js').ModelEntry | null} entry  a model fetched from a URL
 */

/**
 * @typedef {Object} Config
 * @property {import('../app/hash.js').HashState} state
 * @property {ModelChoice} model
 * @property {string[]} controls  what to show of CONTROLS
 * @property {boolean} transport  Step / Play / Reset
 * @property {string[]} parts     the view's parts (VIEW_PARTS), or ['compare']
 * @property {import('../i18n/index.js').Msg[]} notices
 */

/**
 * Reads an element's attributes.
 * @param {(name: string) => string | null} get  the attribute, or null when absent
 * @param {string} base  what relative model URLs are resolved against (the page's URL)
 * @returns {Config}
 */
export function parseAttributes(get, base) {
  // the keys a link has: checked by the link's parser, notices in attribute terms
  const search = new URLSearchParams();
  for (const name of HASH_ATTRIBUTES) {
    const v = get(name);
    if (v !== null) search.set(snake(name), v);
  }
  const view = (get('view') ?? '').trim().toLowerCase();
  if (view === 'compare') search.set('view', 'compare');
  const { state, notices } = parseHash(search.toString(), { source: 'element', name: kebab });
  // a click on a bar does nothing unless the author asks (click="ban" or "force")
  if (state.barAction !== 'force' && get('click') !== 'ban') state.barAction = 'none';

  // the sliders: as a link's, numbers here; a value the engine refuses
  // falls back to the default before it is used, with a notice naming the
  // engine's range (linkCheck.js)
  for (const [name, key] of Object.entries(SLIDERS)) {
    const raw = get(name);
    if (raw === null) continue;
    const v = raw.trim() === '' ? NaN : Number(raw);
    const why = numberError(key, v);
    if (why) notices.push(msg('notice.ignored', { name, value: JSON.stringify(raw), why, def: String(SPEC[key].def) }));
    else /** @type {any} */ (state.params)[key] = v;
  }
  state.source = 'element';

  // the model: a shipped one, or a file's URL (resolved against the page);
  // model-url: a model file loaded in the page (progress, Cancel, asked over
  // 50 MB), from the page's own site or the origins model-origins allows
  const modelUrl = state.modelUrl;
  // (a model-url element's Worker is its file's: the whole engine, which
  // reads GGUF files — the shipped models' run the lesson engine, registry.js)
  const model = modelUrl ? { ...modelChoice(null, null, base, notices), key: `url:${modelUrl}` } : modelChoice(get('model'), get('tokenizer'), base, notices);
  const origins = get('model-origins');
  if (origins !== null) state.modelOrigins = origins.split(/[\s,]+/).filter(Boolean);
  // the author's opt-in: the model-url file kept on the reader's device (Cache Storage), for offline use
  const cache = get('model-cache');
  if (cache !== null) {
    if (cache.trim() === 'keep') state.modelCache = true;
    else if (cache.trim() !== '' && cache.trim() !== 'none') notices.push(msg('notice.ignored', { name: 'model-cache', value: JSON.stringify(cache), why: msg('why.modelCache'), def: 'none' }));
  }
  // a hand-made model by its spec, as a link names it: another spec is another model
  state.model = model.entry?.handmade ?? model.id;

  // what to show
  let controls = DEFAULT_CONTROLS;
  let transport = true;
  const rawControls = get('controls');
  if (rawControls !== null) {
    const names = rawControls.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
    const unknown = names.filter((n) => n !== 'all' && !CONTROLS.includes(n));
    if (unknown.length) notices.push(msg('notice.controls', { names: unknown.map((n) => JSON.stringify(n)).join(', '), list: CONTROLS.join(', ') }));
    controls = names.includes('all') ? CONTROLS : CONTROLS.filter((n) => names.includes(n));
    transport = rawControls.trim() !== '';
  }
  let parts = DEFAULT_VIEW;
  if (view === 'compare') parts = ['compare'];
  else if (view) {
    const names = view.split(',').map((s) => s.trim()).filter(Boolean);
    const known = VIEW_PARTS.filter((n) => names.includes(n));
    const unknown = names.filter((n) => !VIEW_PARTS.includes(n));
    if (known.length) parts = known;
    if (unknown.length || !known.length) {
      // say exactly what is shown instead
      const vars = { names: unknown.map((n) => JSON.stringify(n)).join(', '), value: JSON.stringify(get('view')), list: VIEW_PARTS.join(', '), shown: parts.join(',') };
      notices.push(msg(unknown.length && known.length ? 'notice.viewParts' : 'notice.view', vars));
    }
  }
  return { state, model, controls, transport, parts, notices };
}

/**
 * @param {string | null} raw @param {string | null} tokenizer @param {string} base
 * @param {import('../i18n/index.js').Msg[]} notices
 * @returns {ModelChoice}
 */
export function modelChoice(raw, tokenizer, base, notices) {
  const name = (raw ?? '').trim();
  if (isHandmadeSpec(name)) {
    // one Worker for every hand-made element of the page; the engine checks the spec
    if (tokenizer !== null) notices.push(msg('notice.handmadeTokenizer'));
    return { id: HANDMADE_ID, key: HANDMADE_ID, entry: { id: HANDMADE_ID, name: 'Hand-made', builtin: false, handmade: name } };
  }
  if (!name || BUILTIN_MODELS.some((m) => m.id === name)) {
    if (tokenizer !== null) notices.push(msg('notice.tokenizer'));
    const id = name || 'bigram';
    return { id, key: id, entry: null };
  }
  /** @type {URL | null} */
  let url = null;
  /** @type {URL | null} */
  let tok = null;
  try {
    url = new URL(name, base);
    tok = tokenizer ? new URL(tokenizer.trim(), base) : null;
  } catch {
    url = null;
  }
  const ok = (/** @type {URL | null} */ u) => !!u && ['http:', 'https:', 'blob:', 'data:'].includes(u.protocol);
  if (!url || !ok(url) || (tok && !ok(tok))) {
    notices.push(msg('notice.model', { value: JSON.stringify(raw) }));
    return { id: 'bigram', key: 'bigram', entry: null };
  }
  const id = `url:${url.href}${tok ? ` ${tok.href}` : ''}`;
  const file = decodeURIComponent(url.pathname.replace(/.*\//, '')) || url.host;
  return { id, key: id, entry: { id, name: file, builtin: false, url: url.href, tokenizerUrl: tok ? tok.href : null } };
}

/** @param {string} v */
const escapeAttr = (v) => v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * The element's attributes for a setup: those of its link (the same keys,
 * spelled with -), so the element shows what the page showed.
 * @param {import('../app/hash.js').HashState} state
 * @returns {Array<[string, string]>}
 */
export function attributesFor(state) {
  const search = new URLSearchParams(serializeHash(state).slice(1));
  /** @type {Array<[string, string]>} */
  const out = [];
  for (const [key, value] of search) {
    if (key === 'view') continue;
    out.push([kebab(key), value]);
  }
  if (state.view === 'compare') out.splice(1, 0, ['view', 'compare']);
  return out;
}

/**
 * The controls an element copied from a setup gets: the sliders a link
 * always states (temperature, top-k, top-p), every other setting in use
 * there, and the prompt and the seed.
 * @param {import('../app/hash.js').HashState} state
 */
export function controlsFor(state) {
  const used = PARAM_SPECS.filter((s) => s.inLink || /** @type {any} */ (state.params)[s.key] !== s.def);
  return [...used.map((s) => s.flag), 'prompt', 'seed'];
}

/**
 * "Copy embed code": the script tag and the element for a setup, with the
 * controls in use (controlsFor).
 * @param {import('../app/hash.js').HashState} state
 * @param {string} src  embed.js's URL (a path on the playground's site)
 * @returns {{code: string, notes: import('../i18n/index.js').Msg[]}}
 */
export function embedCode(state, src) {
  const notes = [];
  let s = state;
  if (state.model === 'file') {
    notes.push(msg('embed.fileModel'));
    s = { ...state, model: defaultState().model };
  }
  if (state.model === 'text') {
    notes.push(msg('embed.noTextModel'));
    s = { ...state, model: defaultState().model, edits: [] };
  }
  const attrs = [...attributesFor(s), ['controls', controlsFor(s).join(',')]].map(([k, v]) => ` ${k}="${escapeAttr(v)}"`).join('');
  return {
    code: `<script type="module" src="${escapeAttr(src)}"></script>\n<sampler-playground${attrs}></sampler-playground>`,
    notes,
  };
}
