// @ts-check
/**
 * rows.js — the strip of the samplers' state: which rows it has and what
 * each step's mark holds, from the steps' summaries (StepSummary.state:
 * the engine's step record, c/wasm/wasm_step.c STEP_FIELDS).  Nothing is
 * computed here but the scale of a row (the largest value it draws); a
 * mark's numbers are the engine's as they are.  No Preact, no DOM.
 *
 * A row per stateful stage that is on (the engine's answer, stagesOn):
 *   mirostat   its target μ (the bar) and the surprise of the token drawn
 *              (the dot), bits; its goal τ as a line (mirostat_goal)
 *   adaptive_p its running average of the drawn tokens' probabilities (the
 *              bar) and the probability it aimed at (the dot); its target
 *              as a line (adaptive_goal: the one it used, at most 1)
 *   penalties  how many distinct tokens of the window they pushed down
 *              (the bar) and the drawn token's count in it (the dot)
 *   dry        the longest repeat a candidate it penalized would extend
 *              (the bar), how many it penalized, the drawn token's (the dot)
 *   watermark  the drawn token green (1) or red (0) (the step field
 *              watermark_green, -1 off: the row only when the engine has it)
 */

/**
 * @typedef {Object} RowSpec
 * @property {string} id       the row's name (its words' keys: strip.ID)
 * @property {string} stage    the stage that turns it on
 * @property {string} bar      the state field drawn as the bar
 * @property {string} [dot]    the one drawn as a dot
 * @property {string} [count]  one said beside them
 * @property {string} [line]   the state field drawn as a line across the row (the goal the stage worked towards)
 * @property {number} [max]    a fixed top of the scale (else the largest value drawn)
 * @property {(state: Record<string, number>) => boolean} ran  whether the stage ran at that step
 */

const finite = (/** @type {unknown} */ x) => typeof x === 'number' && Number.isFinite(x);

/** @type {RowSpec[]} */
export const ROWS = [
  { id: 'mirostat', stage: 'mirostat', bar: 'mirostat_mu', dot: 'surprise_bits', line: 'mirostat_goal', ran: (s) => finite(s.mirostat_mu) },
  { id: 'adaptive', stage: 'adaptive_p', bar: 'adaptive_average', dot: 'adaptive_aim', line: 'adaptive_goal', max: 1, ran: (s) => finite(s.adaptive_average) },
  { id: 'penalties', stage: 'penalties', bar: 'penalties_n', dot: 'penalty_count_token', ran: (s) => s.penalties_n >= 0 },
  { id: 'dry', stage: 'dry', bar: 'dry_longest', dot: 'dry_length_token', count: 'dry_n', ran: (s) => s.dry_n >= 0 },
  { id: 'watermark', stage: 'watermark', bar: 'watermark_green', max: 1, ran: (s) => s.watermark_green >= 0 },
];

/** the stages that have a row: the strip's code is fetched when one of them is on */
export const STRIP_STAGES = ROWS.map((r) => r.stage);

/**
 * @typedef {Object} Mark  one step's mark in a row
 * @property {number} i        the step (the token's index in the text)
 * @property {boolean} ran     the stage ran at that step (else: an empty mark)
 * @property {boolean} fetched the step's state is here (a fast-forwarded step's comes in one request for them all: StateStrip's onNeedStates)
 * @property {number} bar      the engine's numbers (NaN: none)
 * @property {number} dot
 * @property {number} count
 * @property {number} line     the goal the stage worked towards at that step (NaN: none)
 */

/**
 * @typedef {Object} Row
 * @property {string} id
 * @property {string} stage
 * @property {number} top      the top of its scale: the largest number drawn (at least 1), or the row's fixed one
 * @property {Mark[]} marks    one per step of the text
 */

/** @param {Record<string, number>} o @param {string | undefined} k */
const num = (o, k) => (k && o && finite(o[k]) ? o[k] : NaN);

/**
 * The strip's rows for a text.
 * @param {Array<Pick<import('../worker/summary.js').StepSummary, 'state' | 'lazy' | 'stateFetched'>>} steps
 * @param {Set<string> | string[]} stagesOn the stages on now (the engine's answer)
 * @returns {Row[]}
 */
export function stripRows(steps, stagesOn) {
  const on = new Set(stagesOn);
  /** @type {Row[]} */
  const rows = [];
  for (const spec of ROWS) {
    if (!on.has(spec.stage)) continue;
    // a row whose field the engine does not have (another build's engine): none
    // (judged by the steps whose state is here: a fast-forward's come after)
    const known = steps.filter((s) => !s.lazy || s.stateFetched);
    if (known.length && !known.some((s) => s.state && spec.bar in s.state)) continue;
    let top = 1;
    const marks = steps.map((s, i) => {
      const state = s.state ?? {};
      const fetched = !s.lazy || !!s.stateFetched;
      const ran = fetched && spec.ran(state);
      /** @type {Mark} */
      const m = {
        i, ran, fetched,
        bar: ran ? num(state, spec.bar) : NaN,
        dot: ran ? num(state, spec.dot) : NaN,
        count: ran ? num(state, spec.count) : NaN,
        line: ran ? num(state, spec.line) : NaN,
      };
      for (const v of [m.bar, m.dot, m.line]) if (finite(v) && v > top) top = v;
      return m;
    });
    rows.push({ id: spec.id, stage: spec.stage, top: spec.max ?? top, marks });
  }
  return rows;
}

/** Whether any stage with a row is on. @param {Set<string>} stagesOn */
export const stripWanted = (stagesOn) => STRIP_STAGES.some((s) => stagesOn.has(s));
