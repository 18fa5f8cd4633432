// @ts-check
/**
 * strategy.js — how the panel decodes: the strategy and its options, the
 * constraint, and greedy decoding two ways.
 */
import { changesOf } from '../hash.js';
import { BEAM_GROUPS, BEAM_WIDTH, DIVERSITY, LENGTH_PENALTY, LOOKUP_NGRAM, SPECULATE } from '../lab.js';
import { clampParam } from '../params.js';


/** @typedef {import('../hash.js').ConstraintState} ConstraintState */

/** tokens "greedy via T = 0 / top-k = 1" generates on an empty text */
export const GREEDY_STEPS = 30;
/**
 * What this module calls of the panel's other modules.
 * @typedef {{restart: import('./generation.js').Generation['restart']}} Needs
 */

/**
 * @param {import('./core.js').Core & import('./view.js').View & Needs} p
 */
export function createStrategyActions(p) {
  const { runtime, params, strategy, beamOpts, specOpts, constraint, stepSettings, steps, errors, setError, settings, decoder,
    stepCount } = p;

  /**
   * Switches the decoding strategy (a new text from the prompt).
   * @param {import('../lab.js').Strategy} s
   */
  function setStrategy(s) {
    if (strategy.value === s) return Promise.resolve(true);
    strategy.value = s;
    return p.restart();
  }

  /**
   * The beam width, the length penalty, and diverse beam search's groups
   * (a divisor of the width: the nearest one at most the asked number)
   * and diversity penalty.
   * @param {{width?: number, lengthPenalty?: number, groups?: number, diversity?: number}} o
   */
  function setBeamOpts(o) {
    const old = beamOpts.value;
    const width = clampInt(o.width ?? old.width, BEAM_WIDTH.min, BEAM_WIDTH.max);
    const lp = clampParam(/** @type {any} */ (LENGTH_PENALTY), o.lengthPenalty ?? old.lengthPenalty);
    let groups = clampInt(o.groups ?? old.groups ?? 1, BEAM_GROUPS.min, Math.min(BEAM_GROUPS.max, width));
    while (width % groups) groups--;
    const diversity = clampParam(/** @type {any} */ (DIVERSITY), o.diversity ?? old.diversity ?? 0);
    if (width === old.width && lp === old.lengthPenalty && groups === (old.groups ?? 1) && diversity === (old.diversity ?? 0)) return Promise.resolve(true);
    beamOpts.value = { width, lengthPenalty: lp, ...(groups !== 1 || diversity !== 0 ? { groups, diversity } : {}) };
    // the same expansions again, each with the settings it had
    return strategy.value === 'beam' ? p.restart({ steps: stepCount.value, changes: changesOf(stepSettings.value, settings.value) }) : Promise.resolve(true);
  }

  /**
   * The draft model (or 'lookup': the text itself, prompt lookup, with its
   * longest n-gram) and how many tokens it drafts a round.  A draft model
   * that cannot be loaded is refused with its message.
   * @param {{draft?: string, n?: number, ngram?: number}} o
   */
  async function setSpecOpts(o) {
    const old = specOpts.value;
    /** @type {{draft: string, n: number, ngram?: number}} */
    const want = { draft: o.draft ?? old.draft, n: clampInt(o.n ?? old.n, SPECULATE.min, SPECULATE.max) };
    if (o.ngram !== undefined || old.ngram !== undefined) want.ngram = clampInt(o.ngram ?? old.ngram ?? LOOKUP_NGRAM.def, LOOKUP_NGRAM.min, LOOKUP_NGRAM.max);
    if (o.draft !== undefined) runtime.draftChosen = true;
    if (want.draft === old.draft && want.n === old.n && want.ngram === old.ngram) return true;
    specOpts.value = want;
    if (strategy.value !== 'speculative') return true;
    const ok = await p.restart();
    if (!ok && errors.value.spec) specOpts.value = old;
    return ok;
  }

  /**
   * Constrains the text (a new text from the prompt): a regex, JSON, or
   * none.  A constraint the engine refuses is not kept; its message is
   * errors.constraint and the old text stays.
   * @param {ConstraintState} c
   */
  function setConstraint(c) {
    setError('constraint');
    if (!decoder.value.constrains) {
      constraint.value = c;
      return Promise.resolve(true);
    }
    return p.restart({ constraint: c });
  }

  /**
   * Greedy decoding two ways: temperature 0, or top-k 1 at temperature 1.
   * Regenerates the text (as long as it was, or GREEDY_STEPS tokens) from
   * the prompt with that setting; both give the same text.
   * @param {'temperature' | 'top_k'} road
   */
  function greedyVia(road) {
    params.value = { ...params.value, temperature: road === 'temperature' ? 0 : 1, top_k: road === 'temperature' ? 0 : 1 };
    strategy.value = 'sample'; // greedy decoding is sampling's
    return p.restart({ steps: steps.value.length || GREEDY_STEPS });
  }


  return { setStrategy, setBeamOpts, setSpecOpts, setConstraint, greedyVia };
}

/** @typedef {ReturnType<typeof createStrategyActions>} StrategyActions */

/** @param {number} v @param {number} min @param {number} max */
function clampInt(v, min, max) {
  return Number.isFinite(v) ? Math.min(max, Math.max(min, Math.round(v))) : min;
}
