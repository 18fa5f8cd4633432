// @ts-check
/**
 * linkCheck.js — a link's (or an element's) sampler settings, asked of the
 * engine before they are used.  hash.js reads a setting as a number; here
 * the engine says which numbers it refuses (engine/params.js
 * paramRefusals, through the Worker's checkParams): each value alone, as
 * the engine stores it (1e308 is infinity in its float) and checks it,
 * then together (mirostat with adaptive-p).  A refused value gets the
 * calm notice every bad link value gets ("Ignored temperature="1e308" from
 * the link: …; using 1.") and its default; the rest of the link stays,
 * so the page opens usable.  No range is restated in JavaScript: the
 * notice names the engine's reason and the engine's range.
 */
import { SPEC } from './params.js';
import { msg } from '../i18n/index.js';

/** @typedef {import('../engine/params.js').Refusal} Refusal */
/** @typedef {(values: Record<string, number>, samplers: string) => Promise<{refused: Refusal[]}>} AskEngine */

/**
 * Why the engine refuses a value, in the page's words: its reason and its
 * range (a refusal together with other settings: the engine's line beneath).
 * @param {Refusal} r
 */
export function refusalWhy(r) {
  const name = msg(`param.${r.key}.label`);
  switch (r.reason) {
    case 'number': return msg('why.number', { name });
    case 'whole': return msg('why.whole', { name });
    case 'finite': return msg('why.finite', { name });
    case 'range': return msg('why.range', { name, range: r.range });
    default: return msg('why.together', { name }, r.message);
  }
}

/** A number as a link writes it: 1e308, -0, Infinity. @param {number} v */
export const numberText = (v) => (Object.is(v, -0) ? '-0' : String(v).replace('e+', 'e'));

/**
 * The settings of a parsed link as the engine takes them: each value it
 * refuses back to its default, with a notice; the changes (a slider moved
 * mid-text) checked too — a change the engine refuses drops the changes,
 * as any bad change does.
 * @param {import('./hash.js').HashState} state
 * @param {AskEngine} ask
 * @returns {Promise<{state: import('./hash.js').HashState, notices: import('../i18n/index.js').Msg[]}>}
 *   a new state (the one given is not changed)
 */
export async function engineChecked(state, ask) {
  const element = state.source === 'element';
  /** @type {import('../i18n/index.js').Msg[]} */
  const notices = [];
  const params = { ...state.params };
  const { refused } = await ask(params, state.samplers ?? '');
  for (const r of refused) {
    const spec = SPEC[r.key];
    notices.push(msg(element ? 'notice.ignored' : 'notice.ignoredLink', {
      name: element ? spec.flag : r.key, value: JSON.stringify(numberText(/** @type {any} */ (params)[r.key])), why: refusalWhy(r), def: String(spec.def),
    }));
    /** @type {any} */ (params)[r.key] = spec.def;
  }
  let changes = state.changes ?? [];
  if (changes.length) {
    const said = new Map(refused.map((r) => [r.key, /** @type {any} */ (state.params)[r.key]]));
    const fixed = [];
    for (const c of changes) {
      // a change keeps the link's own value where it did not move it: refused already, said already
      const cp = { ...c.params };
      for (const [key, v] of said) if (Object.is(/** @type {any} */ (cp)[key], v)) /** @type {any} */ (cp)[key] = SPEC[key].def;
      const { refused: no } = await ask(cp, c.samplers ?? state.samplers ?? '');
      if (no.length) {
        const field = `${SPEC[no[0].key].code}${numberText(/** @type {any} */ (cp)[no[0].key])}`;
        notices.push(msg(element ? 'notice.ignored' : 'notice.ignoredLink', {
          name: 'changes', value: JSON.stringify(`${c.from}_${field}`), why: msg('why.field', { field, why: refusalWhy(no[0]) }), def: msg('def.changes'),
        }));
        fixed.length = 0;
        break;
      }
      fixed.push({ ...c, params: cp });
    }
    changes = fixed;
  }
  return { state: { ...state, params, changes }, notices };
}

/**
 * A compare panel's settings as the engine takes them: each value it
 * refuses back to its default, and why, as the field that set it
 * ('"t-1": Temperature must be in [0, ∞)').
 * @param {import('./lab.js').PanelSpec} spec @param {AskEngine} ask
 * @returns {Promise<{spec: import('./lab.js').PanelSpec, whys: import('../i18n/index.js').Msg[]}>}
 */
export async function panelChecked(spec, ask) {
  const params = { ...spec.params };
  const { refused } = await ask(params, spec.samplers ?? '');
  const whys = refused.map((r) => msg('why.field', { field: `${SPEC[r.key].code}${numberText(/** @type {any} */ (params)[r.key])}`, why: refusalWhy(r) }));
  for (const r of refused) /** @type {any} */ (params)[r.key] = SPEC[r.key].def;
  return { spec: { ...spec, params }, whys };
}
