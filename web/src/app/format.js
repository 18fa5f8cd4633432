// @ts-check
/** format.js — how engine numbers and token pieces are written on screen
 * (in the page's language: i18n/index.js; English by default). */
import { english } from '../i18n/index.js';

/** A probability as a percentage with sensible precision. */
export function pct(/** @type {number} */ p, i18n = english()) {
  return i18n.pct(p);
}

/** Bits with two decimals. */
export function bits(/** @type {number} */ b, i18n = english()) {
  return Number.isFinite(b) ? i18n.t('unit.bits', { n: i18n.fixed(b, 2) }) : '–';
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

/** The words a learner reads for what cut a token, where the engine's name
 * says too little (a ban is a bias of -inf; a temperature of 0 is greedy). */
const CUT_WORDS = /** @type {Record<string, string>} */ ({
  bias: 'cut.bias',
  temperature: 'cut.temperature',
  mask: 'cut.mask',
  constraint: 'cut.constraint',
});

/** What a learner reads for the stage that cut a token (an engine cut name:
 * its words, else the name as the CLI spells it, "top-k", the same in
 * every language). */
export function cutLabel(/** @type {string} */ name, i18n = english()) {
  return CUT_WORDS[name] ? i18n.t(CUT_WORDS[name]) : name.replaceAll('_', '-');
}

/** A piece's name for screen readers: "space", "newline", or the piece made visible. */
export function pieceName(/** @type {string} */ piece, i18n = english()) {
  if (piece === ' ') return i18n.t('piece.space');
  if (piece === '\n') return i18n.t('piece.newline');
  if (piece === '\t') return i18n.t('piece.tab');
  return showPiece(piece);
}

/**
 * The next-token distribution in words, for screen readers (the bars'
 * text alternative): the engine's numbers of a step summary.
 * @param {import('../worker/summary.js').StepSummary} s
 * @param {number} [top] how many of the most likely tokens to name
 */
export function distributionText(s, top = 5, i18n = english()) {
  const named = [];
  for (let i = 0; i < s.bars && named.length < top; i++) {
    if (s.final[i] > 0) named.push(i18n.t('sr.named', { piece: pieceName(s.pieces[i], i18n), p: i18n.pct(s.final[i]) }));
  }
  const vars = {
    count: s.vocab, kept: s.nKept, mass: i18n.pct(s.keptMass), named: named.join(', '),
    entropy: bits(s.entropyBits, i18n),
  };
  const text = i18n.t('sr.distribution', vars);
  return s.kind === 'step' ? `${text} ${i18n.t('sr.drawn', { piece: pieceName(s.piece, i18n), p: i18n.pct(s.p) })}` : text;
}

/**
 * The nucleus view in words: how many ranked tokens the p-line's mass
 * takes (the engine's cumulative masses).
 * @param {import('../worker/summary.js').StepSummary} s @param {number} topP
 */
export function nucleusText(s, topP, i18n = english()) {
  let ranked = 0;
  while (ranked < s.cum.length && Number.isFinite(s.cum[ranked])) ranked++;
  let n = 0;
  while (n < ranked && s.cum[n] < topP) n++;
  const p = i18n.fixed(topP, 2);
  return n < ranked
    ? i18n.t('sr.nucleusReach', { count: ranked, first: n + 1, p, mass: i18n.pct(s.cum[n]) })
    : i18n.t('sr.nucleusShort', { count: ranked, first: ranked, p, mass: i18n.pct(ranked ? s.cum[ranked - 1] : 0) });
}
