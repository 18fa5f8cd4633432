// @ts-check
/**
 * models.js — the models a panel can show: the shipped ones
 * (models/manifest.json; and the drafts offered for speculative decoding only), a hand-made model, a
 * bigram trained on the learner's text; their ids and their names in the
 * page's language.
 */
import { msg } from '../i18n/index.js';
import { SHIPPED } from '../shared/manifest.js';

/**
 * @typedef {{id: string, name: string, builtin: boolean, url?: string, tokenizerUrl?: string | null, info?: import('../worker/protocol.js').ModelInfo,
 *   handmade?: string, text?: Uint8Array, draftOnly?: boolean, linkUrl?: string}} ModelEntry
 *   url: a model file the Worker fetches (a lesson's checkpoint); info: a model loaded from files;
 *   handmade: a hand-made model's spec ("logits:2,1,0"); text: the learner's text a bigram is trained on;
 *   draftOnly: a draft for speculative decoding, not in the model picker;
 *   linkUrl: a model loaded from a link's model_url, as the link wrote it
 */

/** a model file larger than this shows a progress bar while it loads */
export const PROGRESS_MIN_BYTES = 200 * 1000;

/** @type {ModelEntry[]} */
export const BUILTIN_MODELS = SHIPPED.map((m) => ({
  id: m.name, name: m.label, builtin: true,
  // a draft in another model's vocabulary: offered as a draft only
  ...(m.draft_of ? { draftOnly: true } : {}),
}));

/** the hand-made model's id in a panel's list, and the trained one's */
export const HANDMADE_ID = 'handmade';
export const TEXT_ID = 'text';

/** the shipped models' names, and the made ones' (catalogue keys), by their ids */
export const MODEL_NAMES = /** @type {Record<string, string>} */ ({
  ...Object.fromEntries(SHIPPED.map((m) => [m.name, m.catalogue])),
  [HANDMADE_ID]: 'model.handmade', [TEXT_ID]: 'model.yourText',
});

/**
 * A model's name in a message: a shipped or made model's in the page's
 * language, a file's as it is.
 * @param {{id: string, name: string, builtin?: boolean}} entry
 * @returns {import('../i18n/index.js').Text}
 */
export function modelLabel(entry) {
  return MODEL_NAMES[entry.id] ? msg(MODEL_NAMES[entry.id]) : entry.name;
}

/** Whether a model name is a hand-made model's spec. @param {string} name */
export const isHandmadeSpec = (name) => /^(logits|probs):/.test(name);
/** a trained bigram's text up to this many bytes (UTF-8) travels in its link (train=); a longer one cannot */
export const TRAIN_LINK_BYTES = 16384;
/** a text larger than this trains with a progress bar */
export const TRAIN_PROGRESS_BYTES = 1 << 20;
