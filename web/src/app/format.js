// @ts-check
/** format.js — how engine numbers and token pieces are written on screen. */

/** A probability as a percentage with sensible precision. */
export function pct(/** @type {number} */ p) {
  if (!Number.isFinite(p)) return '–';
  if (p === 0) return '0%';
  const v = p * 100;
  if (v >= 10) return `${v.toFixed(1)}%`;
  if (v >= 1) return `${v.toFixed(2)}%`;
  if (v >= 0.01) return `${v.toFixed(3)}%`;
  return '<0.01%';
}

/** Bits with two decimals. */
export function bits(/** @type {number} */ b) {
  return Number.isFinite(b) ? `${b.toFixed(2)} bits` : '–';
}

/**
 * A token piece made visible: spaces as ␣, newlines as ↵, tabs as ⇥,
 * other control characters as \xNN, the empty piece as ∅.
 * @param {string} piece
 */
export function showPiece(piece) {
  if (piece === '') return '∅';
  return piece
    .replace(/ /g, '␣')
    .replace(/\n/g, '↵')
    .replace(/\t/g, '⇥')
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** The words a learner reads for what cut a token where the engine's name
 * says too little (a ban is a bias of -inf; a temperature of 0 is greedy). */
const CUT_WORDS = /** @type {Record<string, string>} */ ({
  bias: 'banned',
  temperature: 'greedy',
  mask: 'masked',
});

/** What a learner reads for the stage that cut a token (an engine cut name:
 * its words, else the name as the CLI spells it, "top-k"). */
export function cutLabel(/** @type {string} */ name) {
  return CUT_WORDS[name] ?? name.replaceAll('_', '-');
}

/** A piece's name for screen readers: "space", "newline", or the piece made visible. */
export function pieceName(/** @type {string} */ piece) {
  if (piece === ' ') return 'space';
  if (piece === '\n') return 'newline';
  if (piece === '\t') return 'tab';
  return showPiece(piece);
}

/**
 * The next-token distribution in words, for screen readers (the bars'
 * text alternative): the engine's numbers of a step summary.
 * @param {import('../worker/summary.js').StepSummary} s
 * @param {number} [top] how many of the most likely tokens to name
 */
export function distributionText(s, top = 5) {
  const named = [];
  for (let i = 0; i < s.bars && named.length < top; i++) {
    if (s.final[i] > 0) named.push(`${pieceName(s.pieces[i])} ${pct(s.final[i])}`);
  }
  const drawn = s.kind === 'step' ? ` Drawn: ${pieceName(s.piece)} (${pct(s.p)}).` : '';
  return `${s.vocab.toLocaleString('en')} tokens, ${s.nKept.toLocaleString('en')} kept, holding ${pct(s.keptMass)} of the model's probability.`
    + ` Most likely: ${named.join(', ')}.${drawn} Entropy ${bits(s.entropyBits)}.`;
}

/**
 * The nucleus view in words: how many ranked tokens the p-line's mass
 * takes (the engine's cumulative masses).
 * @param {import('../worker/summary.js').StepSummary} s @param {number} topP
 */
export function nucleusText(s, topP) {
  let ranked = 0;
  while (ranked < s.cum.length && Number.isFinite(s.cum[ranked])) ranked++;
  let n = 0;
  while (n < ranked && s.cum[n] < topP) n++;
  const reach = n < ranked
    ? `the first ${n + 1} reach p = ${topP.toFixed(2)} (cumulative ${pct(s.cum[n])})`
    : `the first ${ranked} hold ${pct(ranked ? s.cum[ranked - 1] : 0)}, less than p = ${topP.toFixed(2)}`;
  return `Nucleus: ${ranked} tokens ranked by probability; ${reach}.`;
}
