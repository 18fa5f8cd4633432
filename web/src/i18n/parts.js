// @ts-check
/**
 * Which words only the playground page shows: its panel, chain editor,
 * lab controls, model picker, compare mode, links and header.  The build
 * cuts each catalogue in two (vite.config.js, catalogueParts): what an
 * element and a course chapter show, in the catalogue's chunk, and these,
 * in a chunk of their own that the page fetches with its language
 * (index.js, withPageWords).  An element never needs them; should one
 * name one of them all the same, it is fetched then and the words appear
 * a moment later (index.js) — tests/js/i18n.test.js checks that no code an
 * element runs names one.  Nothing here changes a word: only where it is
 * loaded from.
 */

/** whole groups of keys (the part before the first dot) */
const PAGE_GROUPS = new Set(['chain', 'constraint', 'handmade', 'page', 'link', 'dry', 'greedy', 'copy', 'view', 'theme', 'setup']);

/** single keys of groups an element shows too */
const PAGE_KEYS = new Set([
  // (beam.width and beam.lengthPenalty label the beam search chapter's controls)
  'beam.widthGreedy', 'beam.widthHint', 'beam.lengthPenaltyHint',
  'text.headingBeam', 'spec.draft', 'spec.n', 'spec.hint', 'spec.rounds',
  'beam.groups', 'beam.diversity', 'spec.lookup', 'spec.ngram',
  'strategy.beamNote', 'strategy.specNote', 'strategy.legend', 'strategy.label', 'strategy.sampleHint',
  'model.label', 'model.loadFile', 'model.kindBigram', 'model.kindTransformer', 'model.kindHandmade', 'model.info', 'model.infoContext',
  'model.filesHelp', 'model.files', 'model.idsNote', 'model.newHandmade',
  'bans.label', 'bans.hint', 'bans.lift', 'bans.liftTitle', 'bans.token',
  'biases.label', 'biases.remove', 'biases.removeTitle', 'biases.pick', 'biases.add', 'biases.hint',
  'embed.copy', 'embed.label', 'embed.box', 'embed.help', 'embed.iframe',
  'compare.randoms', 'compare.randomsAt', 'compare.preset', 'compare.remove', 'compare.removeTitle', 'compare.shared', 'compare.add',
  'compare.orders', 'compare.ordersTitle',
  'train.hint', 'train.textArea', 'train.file', 'train.go',
]);

/** Whether a catalogue key is one only the page shows. @param {string} key */
export function isPageWord(key) {
  return PAGE_GROUPS.has(key.slice(0, key.indexOf('.'))) || PAGE_KEYS.has(key);
}

/** the groups and keys (for the test that no element's code names one) */
export const PAGE_WORDS = { groups: [...PAGE_GROUPS], keys: [...PAGE_KEYS] };
