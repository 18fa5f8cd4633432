// @ts-check
/**
 * beam.js — the Worker's side of beam search: a search (beamStart) and its
 * expansions (beamStep), answered with every hypothesis, best first, and
 * the engine's metrics of the best one (a session that follows it).
 */
import { EngineError } from '../engine/engine.js';
import { paramsAt } from './schedule.js';

/** @typedef {import('./host.js').Params} Params */
/** @typedef {import('./schedule.js').Schedule} Schedule */
/** @typedef {import('./host.js').SessionEntry} SessionEntry */
/** @typedef {import('./host.js').Hypothesis} Hypothesis */
/** @typedef {import('./host.js').Status} Status */
/** @typedef {import('./host.js').Lab} Lab */

/**
 * A new beam search on the session's model (the session's sampled text
 * is left as it is).
 * @param {import('./host.js').EngineHost} host
 * @param {{session: string, prompt: string, width: number, lengthPenalty?: number, params: Params, steps?: number, schedule?: Schedule}} args
 */
export async function beamStart(host, { session: sid, prompt, width, lengthPenalty = 0, params, steps = 0, schedule }) {
  const s = host.get(sid);
  const m = host.modelOf(s);
  const engine = await host.enginePromise;
  const tokenizer = m.tokenizer || m.model.tokenizer;
  const promptTokens = tokenizer ? tokenizer.encode(prompt).length + 2 : 2;
  const maxTokens = m.model.seqLen > 0 ? m.model.seqLen : promptTokens + host.maxTokens;
  const search = engine.createBeamSearch(m.model, m.tokenizer, { width, lengthPenalty, maxTokens });
  let replay = null;
  try {
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
  s.beam = { search, replay, expansions: 0, message: '', reason: undefined, width, lengthPenalty };
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
 * @returns {{hypotheses: Hypothesis[], live: number, expansions: number, width: number, lengthPenalty: number, status: Status, lab: Lab}}
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
      if (!(err instanceof EngineError && err.code === 4)) throw err;
      if (/every hypothesis/.test(err.message)) ended();
      else {
        b.message = `${err.message}. Reset to start again.`;
        b.reason = 'engine';
      }
    }
  }
  if (!b.message && b.search.live === 0) ended();
  const hyps = b.search.hypotheses();
  const nPrompt = b.replay.nPrompt;
  const best = hyps[0];
  follow(host, b.replay, best ? best.tokens : null);
  return {
    hypotheses: hyps.map((h) => ({
      text: h.text, length: h.tokens.length - nPrompt, logprob: h.logprob, score: h.score, finished: h.finished,
    })),
    live: b.search.live,
    expansions: b.expansions,
    width: b.width,
    lengthPenalty: b.lengthPenalty,
    status: {
      nGenerated: best ? best.tokens.length - nPrompt : 0, ready: !b.message, finished: !!best?.finished, message: b.message,
      ...(b.reason ? { reason: b.reason } : {}), ...(b.reason === 'limit' ? { n: host.maxTokens } : {}),
    },
    lab: { metrics: b.replay.metrics(), counters: null, costs: [], statsFrom: 0, stats: b.replay.stats() },
  };
}

/**
 * Makes the replay session hold `tokens` (prompt included): rewinds to
 * the common prefix and forces the rest, so its metrics are the engine's
 * metrics of that text.  The forced steps are warped at temperature 0:
 * beam search picks, it does not sample.
 * @param {import('./host.js').EngineHost} host
 * @param {import('../engine/engine.js').Session} replay
 * @param {Int32Array | null} tokens
 */
function follow(host, replay, tokens) {
  if (!tokens) return;
  const have = replay.tokens;
  const nPrompt = replay.nPrompt;
  let k = nPrompt;
  while (k < have.length && k < tokens.length && have[k] === tokens[k]) k++;
  if (k < have.length) replay.rewind(k - nPrompt);
  for (let i = k; i < tokens.length && !replay.finished; i++) replay.step({ temperature: 0 }, { force: tokens[i] });
}
