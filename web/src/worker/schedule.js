// @ts-check
/**
 * schedule.js — a link's settings step by step: step i of a replayed text
 * runs with the settings it had when it was first taken.
 */

/** @typedef {Record<string, any>} Params  sampler settings (engine.js SamplerParams) */
/** @typedef {Array<{from: number, params: Params}>} Schedule  settings by step, ascending */

/**
 * The params step i runs with: the last schedule entry from i or before,
 * else `params`.
 * @param {Schedule | undefined} schedule @param {number} i @param {Params} params
 */
export function paramsAt(schedule, i, params) {
  let at = params;
  for (const c of schedule ?? []) {
    if (c.from > i) break;
    at = c.params;
  }
  return at;
}
