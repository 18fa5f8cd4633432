// @ts-check
/**
 * changes.js — a link's `changes`: the settings each Step ran with where a
 * slider moved while the text was written (hash.js reads and writes the
 * rest of a link, and re-exports these).
 */
import { applySettingField, settingFields } from './lab.js';
import { msg } from '../i18n/index.js';

/**
 * From Step `from` on (0-based, in Step presses: tokens, beam expansions
 * or speculative rounds), the sampler settings were these, until the next
 * change; before the first change the link's own settings apply.
 * @typedef {{from: number, params: import('./params.js').Params, bans: number[], biases?: Array<[number, number]>, dryBreakers?: string[], badWords?: string[], seqBias?: Array<[string, number]>, samplers?: string}} Change
 */

/**
 * Reads `changes`: entries "FROM_FIELD_FIELD..." joined by commas, FROM
 * ascending and below `steps`, each field as in a compare panel (t0.5,
 * k40, p0.9, m0.05, r1.2, ban3.7; a bare "ban": no bans); an entry holds
 * the fields where that step's settings differ from the link's own, so a
 * bare "FROM" means "the link's settings from here on".
 * @param {string} text @param {import('./hash.js').HashState} state
 * @returns {{list: Change[], why: import('../i18n/index.js').Msg | ''}}
 */
export function parseChanges(text, state) {
  /** @type {Change[]} */
  const list = [];
  for (const entry of text.split(',')) {
    const [head, ...fields] = entry.split('_');
    if (!/^[0-9]+$/.test(head)) return { list: [], why: msg('why.changesStart', { entry }) };
    const from = Number(head);
    if (from >= state.steps) return { list: [], why: msg('why.changesPast', { from, count: state.steps }) };
    if (list.length && from <= list[list.length - 1].from) return { list: [], why: msg('why.changesOrder') };
    const into = { params: { ...state.params }, bans: [...state.bans], biases: [...(state.biases ?? [])], dryBreakers: [...(state.dryBreakers ?? [])], samplers: state.samplers ?? '', ...wordsOf(state) };
    for (const f of fields) {
      const why = applySettingField(f, into);
      if (why === null) return { list: [], why: msg('why.unknownField', { field: f }) };
      if (why) return { list: [], why: msg('why.field', { field: f, why }) };
    }
    list.push({ from, ...into });
  }
  return { list, why: '' };
}

/**
 * The bad words and sequence biases of settings, as fields only when there
 * are any (a change without them: none, as before they were).
 * @param {{badWords?: string[], seqBias?: Array<[string, number]>}} s
 * @returns {{badWords?: string[], seqBias?: Array<[string, number]>}}
 */
function wordsOf(s) {
  return { ...(s.badWords?.length ? { badWords: [...s.badWords] } : {}), ...(s.seqBias?.length ? { seqBias: [...s.seqBias] } : {}) };
}

/**
 * The settings Step `i` runs with under a list of changes (the link's own
 * before the first change).
 * @param {Change[] | undefined} changes @param {number} i
 * @param {{params: import('./params.js').Params, bans: number[], biases?: Array<[number, number]>, dryBreakers?: string[], badWords?: string[], seqBias?: Array<[string, number]>, samplers?: string}} live
 */
export function settingsAt(changes, i, live) {
  let at = live;
  for (const c of changes ?? []) {
    if (c.from > i) break;
    at = c;
  }
  return at;
}

/**
 * The changes of a list of per-Step settings against the live ones: an
 * entry wherever a Step ran with other settings than the one before it
 * (the first against the live settings).
 * @param {Array<{params: import('./params.js').Params, bans: number[], biases?: Array<[number, number]>, dryBreakers?: string[], badWords?: string[], seqBias?: Array<[string, number]>, samplers?: string}>} perStep
 * @param {{params: import('./params.js').Params, bans: number[], biases?: Array<[number, number]>, dryBreakers?: string[], badWords?: string[], seqBias?: Array<[string, number]>, samplers?: string}} live
 * @returns {Change[]}
 */
export function changesOf(perStep, live) {
  /** @type {Change[]} */
  const list = [];
  let before = settingFields(live, live).join('_');
  perStep.forEach((s, i) => {
    const key = settingFields(s, live).join('_');
    if (key !== before) list.push({ from: i, params: s.params, bans: s.bans, biases: s.biases ?? [], dryBreakers: s.dryBreakers ?? [], samplers: s.samplers ?? '', ...wordsOf(s) });
    before = key;
  });
  return list;
}
