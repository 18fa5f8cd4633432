// @ts-check
/**
 * beam.js — the Worker's side of beam search: a search (beamStart) and its
 * expansions (beamStep), answered with every hypothesis, best first, and
 * the engine's metrics of the best one (a session that follows it).
 */
import { isEngineError } from '../engine/engine.js';
import { beamParams } from './beamParams.js';
import { paramsAt } from './schedule.js';
import { constraintError } from './protocol.js';
import { summarize } from './summary.js';

/** @typedef {import('./protocol.js').Params} Params */
/** @typedef {import('./schedule.js').Schedule} Schedule */
/** @typedef {import('./host.js').SessionEntry} SessionEntry */
/** @typedef {import('./protocol.js').Hypothesis} Hypothesis */
/** @typedef {import('./protocol.js').Status} Status */
/** @typedef {import('./protocol.js').Lab} Lab */

/**
 * A new beam search on the session's model (the session's sampled text
 * is left as it is).
 * @param {import('./host.js').EngineHost} host
 * @param {{session: string, prompt: string, width: number, lengthPenalty?: number, groups?: number, diversity?: number, params: Params, steps?: number,
 *   schedule?: Schedule, constraint?: import('../engine/engine.js').Constraint | null, budget?: number}} args
 */
export async function beamStart(host, { session: sid, prompt, width, lengthPenalty = 0, groups = 1, diversity = 0, params, steps = 0, schedule, constraint = null, budget }) {
  const s = host.get(sid);
  const m = host.modelOf(s);
  const engine = await host.enginePromise;
  const tokenizer = m.tokenizer || m.model.tokenizer;
  const promptTokens = tokenizer ? tokenizer.encode(prompt).length + 2 : 2;
  const maxTokens = m.model.seqLen > 0 ? m.model.seqLen : promptTokens + host.maxTokens;
  const search = engine.createBeamSearch(m.model, m.tokenizer, { width, lengthPenalty, maxTokens, groups, diversity });
  let replay = null;
  try {
    if (constraint) {
      // every hypothesis under the constraint, within the budget a session gets
      try {
        search.constrain(constraint, budget ?? Math.min(host.maxTokens, maxTokens - promptTokens));
      } catch (err) {
        throw constraintError(err);
      }
    }
    search.start(prompt);
    // a session that follows the best beam, for the engine's metrics of it
    replay = engine.createSession(m.model, m.tokenizer);
    replay.start(prompt, 0);
  } catch (err) {
    search.free();
    replay?.free();
    throw err;
  }
  host.dropLab(s);
  s.beam = { search, replay, expansions: 0, message: '', reason: undefined, width, lengthPenalty, groups, diversity, constrained: !!constraint, steps: [], stepsKey: '' };
  return beamRun(host, s, params, steps, schedule);
}

/**  * @param {import('./host.js').EngineHost} host
@param {{session: string, params: Params, count?: number}} args */
export function beamStep(host, { session: sid, params, count = 1 }) {
  const s = host.get(sid);
  if (!s.beam) throw new RangeError('no beam search has been started in this session (beamStart)');
  return beamRun(host, s, params, count);
}

/**
 * @param {import('./host.js').EngineHost} host
 * @param {SessionEntry} s @param {Params} params @param {number} count
 * @param {Schedule} [schedule] by expansion, from the first
 * @returns {{steps: import('./summary.js').StepSummary[], hypotheses: Hypothesis[], live: number, expansions: number, width: number, lengthPenalty: number,
 *   groups: number, diversity: number, status: Status, lab: Lab}}
 */
function beamRun(host, s, params, count, schedule) {
  const b = /** @type {NonNullable<SessionEntry['beam']>} */ (s.beam);
  const ended = () => { b.message = 'Every beam has ended its text.'; b.reason = 'beams'; };
  for (let i = 0; i < count && !b.message; i++) {
    if (b.expansions >= host.maxTokens) {
      b.message = `Stopped after ${host.maxTokens} tokens. Reset to start again.`;
      b.reason = 'limit';
      break;
    }
    if (b.search.live === 0) {
      ended();
      break;
    }
    try {
      b.search.step(paramsAt(schedule, b.expansions, params));
      b.expansions++;
    } catch (err) {
      if (!isEngineError(err, 'state')) throw err;
      if (err.reason === 'finished') ended();
      else {
        b.message = `${err.message}. Reset to start again.`;
        b.reason = 'engine';
      }
    }
  }
  if (!b.message && b.search.live === 0) ended();
  const hyps = b.search.hypotheses();
  const nPrompt = b.replay.nPrompt;
  // the text: the best hypothesis (under a constraint, the best complete one)
  const best = (b.constrained && hyps.find((h) => h.finished)) || hyps[0];
  const same = follow(host, b.replay, best ? best.tokens : null);
  // the best beam's steps, for time travel: each token's distribution as
  // beam search ranked it (the logits processors only, temperature 1); the
  // steps of the tokens the text kept, and the settings, are as they were
  const rank = beamParams(params);
  const key = JSON.stringify(rank);
  if (key !== b.stepsKey) b.steps = [];
  b.stepsKey = key;
  const steps = b.steps.slice(0, Math.min(same, b.replay.nGenerated));
  for (let i = steps.length; i < b.replay.nGenerated; i++) {
    const rec = b.replay.peek(i, rank);
    const step = summarize(rec, { kind: 'step', index: i, params: rank, pieceOf: (id) => b.replay.tokenizer.piece(id) });
    const t = b.replay.tokens[b.replay.nPrompt + i];
    const end = b.replay.engine.x.api_session_is_end(b.replay.handle, t) !== 0;
    step.token = t;
    const prev = b.replay.tokens[b.replay.nPrompt + i - 1];
    step.piece = end ? '' : utf8.decode(b.replay.tokenizer.decodeBytes(prev, t));
    step.p = rec.probs[t];
    step.u = NaN;
    steps.push(step);
  }
  b.steps = steps;
  return {
    steps,
    hypotheses: hyps.map((h) => ({
      text: h.text, length: h.tokens.length - nPrompt, logprob: h.logprob, score: h.score, finished: h.finished, group: h.group, penalty: h.penalty,
    })),
    live: b.search.live,
    expansions: b.expansions,
    width: b.width,
    lengthPenalty: b.lengthPenalty,
    groups: b.groups,
    diversity: b.diversity,
    status: {
      nGenerated: best ? best.tokens.length - nPrompt : 0, ready: !b.message, finished: !!best?.finished, message: b.message,
      ...(b.reason ? { reason: b.reason } : {}), ...(b.reason === 'limit' ? { n: host.maxTokens } : {}),
    },
    lab: { metrics: b.replay.metrics(), counters: null, costs: [], statsFrom: 0, stats: b.replay.stats() },
  };
}

const utf8 = new TextDecoder();

/**
 * Makes the replay session hold `tokens` (prompt included): rewinds to
 * the common prefix and forces the rest, so its metrics are the engine's
 * metrics of that text.  The forced steps are warped at temperature 0:
 * beam search picks, it does not sample.
 * @param {import('./host.js').EngineHost} host
 * @param {import('../engine/engine.js').Session} replay
 * @param {Int32Array | null} tokens
 * @returns {number} how many generated tokens the replay kept
 */
function follow(host, replay, tokens) {
  if (!tokens) return 0;
  const have = replay.tokens;
  const nPrompt = replay.nPrompt;
  let k = nPrompt;
  while (k < have.length && k < tokens.length && have[k] === tokens[k]) k++;
  if (k < have.length) replay.rewind(k - nPrompt);
  for (let i = k; i < tokens.length && !replay.finished; i++) replay.step({ temperature: 0 }, { force: tokens[i] });
  return k - nPrompt; // the generated tokens it kept
}
