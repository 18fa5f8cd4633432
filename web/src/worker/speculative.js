// @ts-check
/**
 * speculative.js — the Worker's side of speculative decoding: a text
 * drafted by another model (specStart) and its rounds (specRound), each
 * answered with what was drafted, accepted, rejected and corrected.
 */
import { answer, status } from './answer.js';
import { isEngineError } from '../engine/engine.js';
import { paramsAt } from './schedule.js';
import { summarize } from './summary.js';

/** @typedef {import('./protocol.js').Params} Params */
/** @typedef {import('./schedule.js').Schedule} Schedule */
/** @typedef {import('./host.js').SessionEntry} SessionEntry */
/** @typedef {import('./protocol.js').SpecRound} SpecRound */

/**
 * A new generation of the session's model, drafted by model `draft`, or
 * with draft '' and ngram M by prompt lookup (the drafts copied from the
 * text: what followed the first earlier occurrence of its last M .. 1 tokens).
 * @param {import('./host.js').EngineHost} host
 * @param {{session: string, draft: string, n: number, ngram?: number, prompt: string, seed: number | string, params: Params, rounds?: number,
 *   samples?: {n: number, seed: number}, schedule?: Schedule, constraint?: import('../engine/engine.js').Constraint | null, budget?: number}} args
 */
export async function specStart(host, { session: sid, draft, n, ngram = 0, prompt, seed, params, rounds = 0, samples, schedule, constraint = null, budget }) {
  const s = host.get(sid);
  const m = host.modelOf(s);
  const lookup = !draft && ngram > 0;
  const d = lookup ? null : host.models.get(draft);
  if (!lookup && !d) throw new RangeError(`no model "${draft}" is loaded to draft with`);
  const engine = await host.enginePromise;
  const fresh = engine.createSession(m.model, m.tokenizer);
  const plain = engine.createSession(m.model, m.tokenizer);
  let speculator = null;
  try {
    speculator = d ? engine.createSpeculator(fresh, d.model, d.tokenizer, n) : engine.createPromptLookup(fresh, n, ngram);
    speculator.start(prompt, seed);
    // drafts and verification both under the constraint (speculative.c)
    if (constraint) host.applyConstraint({ session: fresh, constrained: false }, constraint, budget);
    plain.start(prompt, seed);
  } catch (err) {
    speculator?.free();
    fresh.free();
    plain.free();
    throw err;
  }
  host.replaceSession(s, fresh);
  s.constrained = !!constraint;
  s.spec = { speculator, plain, draft: lookup ? '' : draft, n, ngram: lookup ? ngram : 0, rounds: 0, ms: 0, plainMs: 0 };
  return specRun(host, s, params, rounds, samples, 0, schedule);
}

/**  * @param {import('./host.js').EngineHost} host
@param {{session: string, params: Params, count?: number, samples?: {n: number, seed: number}}} args */
export function specRound(host, { session: sid, params, count = 1, samples }) {
  const s = host.get(sid);
  if (!s.spec) throw new RangeError('no speculative decoding has been started in this session (specStart)');
  return specRun(host, s, params, count, samples, s.session.nGenerated);
}

/**
 * @param {import('./host.js').EngineHost} host
 * @param {SessionEntry} s @param {Params} params @param {number} count
 * @param {{n: number, seed: number} | undefined} samples @param {number} from
 * @param {Schedule} [schedule] by round, from the first
 */
function specRun(host, s, params, count, samples, from, schedule) {
  const spec = /** @type {NonNullable<SessionEntry['spec']>} */ (s.spec);
  const session = s.session;
  const tok = session.tokenizer;
  /** @type {SpecRound[]} */
  const rounds = [];
  /** each appended token's step, for time travel: its distribution as the
   * model gave it (a look back, peek: the text and its numbers untouched)
   * @type {import('./summary.js').StepSummary[]} */
  const steps = [];
  let stopped = '';
  for (let i = 0; i < count; i++) {
    if (!status(host, s).ready) break;
    const index = session.nGenerated;
    const roundParams = paramsAt(schedule, spec.rounds, params);
    let r;
    const t0 = performance.now();
    try {
      r = spec.speculator.round(roundParams);
    } catch (err) {
      if (!isEngineError(err, 'state')) throw err;
      stopped = `${err.message}. Reset to start again.`;
      break;
    }
    const ms = performance.now() - t0;
    spec.rounds++;
    const residual = residualOf(spec.speculator.rejection(), tok);
    const fed = spec.speculator.work().roundFed;
    // the same tokens decoded one at a time, as plain sampling would: one
    // forward pass and one warp each
    const t1 = performance.now();
    for (const t of r.tokens) if (!spec.plain.finished) spec.plain.advance(roundParams, t.token);
    const plainMs = performance.now() - t1;
    spec.ms += ms;
    spec.plainMs += plainMs;
    host.logCost(s);
    // an end-of-text token is no text (a constraint completed by an
    // ordinary token ends the text too, and that token is text)
    const tokens = r.tokens.map((t, j) => ({ index: index + j, token: t.token, piece: t.end ? '' : t.piece, status: t.status, end: t.end }));
    const drafted = Array.from(r.drafted, (id) => ({ token: id, piece: id >= 0 ? tok.piece(id) : '' }));
    const at = tokens.findIndex((t) => t.status === 'corrected');
    /** @type {SpecRound} */
    const one = { round: spec.rounds, index, drafted, tokens, rejected: at >= 0 && at < drafted.length ? drafted[at] : null, fed, residual, ms, plainMs };
    // prompt lookup: where the draft was copied from, as a generated index
    if (spec.ngram) one.match = { at: r.match.at < 0 ? null : r.match.at - session.nPrompt, ngram: r.match.ngram };
    rounds.push(one);
    for (const t of tokens) steps.push(stepOf(session, t, roundParams));
  }
  const ans = answer(host, s, steps, params, samples, from);
  if (stopped && ans.status.ready) {
    ans.status.ready = false;
    ans.status.message = stopped;
    ans.status.reason = 'engine';
    ans.next = null;
    ans.samples = null;
  }
  const work = spec.speculator.work();
  return {
    ...ans, rounds, totals: spec.speculator.totals(), n: spec.n, draft: spec.draft, ngram: spec.ngram,
    work: { targetPasses: work.targetPasses, targetFed: work.targetFed, matched: work.matched, ms: spec.ms, plainMs: spec.plainMs },
  };
}

/**
 * The step summary of an appended token: the distribution it was chosen
 * from (the session's peek: one forward pass from the cache), its token
 * and probability; no uniform of the session's (the round drew its own).
 * @param {import('../engine/engine.js').Session} session
 * @param {{index: number, token: number, piece: string}} t @param {Params} params
 */
function stepOf(session, t, params) {
  const rec = session.peek(t.index, params);
  const step = summarize(rec, { kind: 'step', index: t.index, params, pieceOf: (id) => session.tokenizer.piece(id) });
  step.token = t.token;
  step.piece = t.piece;
  step.p = rec.probs[t.token];
  step.u = NaN;
  return step;
}

/** The residual's largest entries, as bars (and the rejected draft's). */
const RESIDUAL_BARS = 8;
/**
 * @param {ReturnType<import('../engine/engine.js').Speculator['rejection']>} rej
 * @param {import('../engine/engine.js').Tokenizer} tok
 * @returns {import('./protocol.js').SpecResidual | null}
 */
function residualOf(rej, tok) {
  if (!rej) return null;
  const ids = Array.from(rej.residual.keys()).filter((i) => rej.residual[i] > 0)
    .sort((a, b) => rej.residual[b] - rej.residual[a] || a - b).slice(0, RESIDUAL_BARS);
  if (!ids.includes(rej.drafted)) ids.push(rej.drafted);
  return {
    mass: rej.residualMass,
    bars: ids.map((id) => ({ token: id, piece: tok.piece(id), p: rej.p[id], q: rej.q[id], r: rej.residual[id] })),
  };
}
