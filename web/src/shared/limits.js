// @ts-check
/**
 * limits.js — numbers the page and the engine's Worker both go by (the
 * Worker never imports the app layer; both import this).
 */

/** a constraint must be complete within this many generated tokens (or
 * the model's context, if that leaves fewer) unless the page says otherwise */
export const CONSTRAINT_BUDGET = 200;

/** a generation stops here even when the model could go on: a link
 * replays at most this many steps */
export const MAX_TOKENS = 2000;
