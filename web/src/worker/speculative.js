// @ts-check
/**
 * speculative.js — the Worker's side of speculative decoding: a text
 * drafted by another model (specStart) and its rounds (specRound), each
 * answered with what was drafted, accepted, rejected and corrected.
 */
import { EngineError } from '../engine/engine.js';
import { paramsAt } from './schedule.js';

/** @typedef {import('./host.js').Params} Params */
/** @typedef {import('./schedule.js').Schedule} Schedule */
/** @typedef {import('./host.js').SessionEntry} SessionEntry */
/** @typedef {import('./host.js').SpecRound} SpecRound */

/**
 * A new generation of the session's model, drafted by model `draft`.
 * @param {import('./host.js').EngineHost} host
 * @param {{session: string, draft: string, n: number, prompt: string, seed: number | string, params: Params, rounds?: number,
 *   samples?: {n: number, seed: number}, schedule?: Schedule}} args
 */
export async function specStart(host, { session: sid, draft, n, prompt, seed, params, rounds = 0, samples, schedule }) {
  const s = host.get(sid);
  const m = host.modelOf(s);
  const d = host.models.get(draft);
  if (!d) throw new RangeError(`no model "${draft}" is loaded to draft with`);
  const engine = await host.enginePromise;
  const fresh = engine.createSession(m.model, m.tokenizer);
  let speculator = null;
  try {
    speculator = engine.createSpeculator(fresh, d.model, d.tokenizer, n);
    speculator.start(prompt, seed);
  } catch (err) {
    speculator?.free();
    fresh.free();
    throw err;
  }
  host.replaceSession(s, fresh);
  s.spec = { speculator, draft, n, rounds: 0 };
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
  let stopped = '';
  for (let i = 0; i < count; i++) {
    if (!host.status(s).ready) break;
    const index = session.nGenerated;
    let r;
    try {
      r = spec.speculator.round(paramsAt(schedule, spec.rounds, params));
    } catch (err) {
      if (!(err instanceof EngineError && err.code === 4)) throw err;
      stopped = `${err.message}. Reset to start again.`;
      break;
    }
    spec.rounds++;
    host.logCost(s);
    const finished = session.finished;
    const tokens = r.tokens.map((t, j) => {
      const end = finished && j === r.tokens.length - 1;
      return { index: index + j, token: t.token, piece: end ? '' : t.piece, status: t.status, end };
    });
    const drafted = Array.from(r.drafted, (id) => ({ token: id, piece: id >= 0 ? tok.piece(id) : '' }));
    const at = tokens.findIndex((t) => t.status === 'corrected');
    rounds.push({ round: spec.rounds, index, drafted, tokens, rejected: at >= 0 && at < drafted.length ? drafted[at] : null });
  }
  const ans = host.answer(s, [], params, samples, from);
  if (stopped && ans.status.ready) {
    ans.status.ready = false;
    ans.status.message = stopped;
    ans.status.reason = 'engine';
    ans.next = null;
    ans.samples = null;
  }
  return { ...ans, rounds, totals: spec.speculator.totals(), n: spec.n, draft: spec.draft };
}
