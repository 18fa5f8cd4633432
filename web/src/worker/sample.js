// @ts-check
/**
 * sample.js — the Worker's side of sampling, one token a step: a new text
 * (start), steps, a re-warp of the next token (preview), a branch, a
 * constraint, and a look at a past step (peek).  Each takes the host
 * (models, sessions, the answer's shape: host.js) and the request's args.
 */
import { answer, status, stepOnce } from './answer.js';
import { beamParams } from './beamParams.js';
import { paramsAt } from './schedule.js';
import { sampleSummary, summarize } from './summary.js';

/** @typedef {import('./protocol.js').Params} Params */
/** @typedef {import('./schedule.js').Schedule} Schedule */

/**
 * @param {import('./host.js').EngineHost} host
 * @param {{session: string, prompt: string, seed: number | string, params: Params, steps?: number, forced?: Array<[number, number]>,
 *   samples?: {n: number, seed: number}, constraint?: import('../engine/engine.js').Constraint | null, budget?: number,
 *   schedule?: Schedule}} args
 */
export async function start(host, { session: sid, prompt, seed, params, steps = 0, forced = [], samples, constraint = null, budget, schedule }) {
  const s = host.get(sid);
  const m = host.modelOf(s);
  const engine = await host.enginePromise;
  // a fresh session object: if the prompt (or the constraint) is refused,
  // the old generation is still there, untouched
  const fresh = engine.createSession(m.model, m.tokenizer);
  try {
    fresh.start(prompt, seed);
    if (constraint) host.applyConstraint({ session: fresh, constrained: false }, constraint, budget);
  } catch (err) {
    fresh.free();
    throw err;
  }
  host.replaceSession(s, fresh);
  s.constrained = !!constraint;
  const byIndex = new Map(forced);
  const out = [];
  for (let i = 0; i < steps; i++) {
    if (!status(host, s).ready) break;
    const force = byIndex.get(i);
    out.push(stepOnce(host, s, paramsAt(schedule, i, params), force ?? -1));
  }
  return answer(host, s, out, params, samples, 0);
}

/**
 * @param {import('./host.js').EngineHost} host
 * @param {{session: string, params: Record<string, number>, force?: number, count?: number, samples?: {n: number, seed: number}}} args
 */
export function step(host, { session: sid, params, force = -1, count = 1, samples }) {
  const s = host.get(sid);
  const from = s.session.nGenerated;
  const out = [];
  for (let i = 0; i < count; i++) {
    if (!status(host, s).ready) break;
    out.push(stepOnce(host, s, params, i === 0 ? force : -1));
  }
  return answer(host, s, out, params, samples, from);
}

/**
 * A slider moved: the next token re-warped, and nothing else (the text,
 * its metrics and the model's work are as they were: no lab numbers).
 * @param {import('./host.js').EngineHost} host
 * @param {{session: string, params: Params, samples?: {n: number, seed: number}}} args
 */
export function preview(host, { session: sid, params, samples }) {
  return answer(host, host.get(sid), [], params, samples, null);
}

/**
 * @param {import('./host.js').EngineHost} host
 * @param {{session: string, index: number, token: number, params: Record<string, number>, samples?: {n: number, seed: number}}} args
 */
export function branch(host, { session: sid, index, token, params, samples }) {
  const s = host.get(sid);
  if (!Number.isInteger(token) || token < 0 || token >= s.session.vocab) {
    throw new RangeError(`branch: token ${token} is outside the vocabulary (0..${s.session.vocab - 1})`);
  }
  s.session.rewind(index);
  for (const i of [...s.forced]) if (i >= index) s.forced.delete(i);
  const out = [stepOnce(host, s, params, token)];
  return answer(host, s, out, params, samples, index);
}

/**
 * Constrains the text from here on (null lifts the constraint).
 * @param {import('./host.js').EngineHost} host
 * @param {{session: string, constraint: import('../engine/engine.js').Constraint | null, budget?: number, params: Params, samples?: {n: number, seed: number}}} args
 */
export function constrain(host, { session: sid, constraint, budget, params, samples }) {
  const s = host.get(sid);
  host.applyConstraint(s, constraint, budget);
  return answer(host, s, [], params, samples, s.session.nGenerated);
}

/**
 * Time travel: generated step `index` re-warped under params; the text,
 * its random numbers and the pending token stay as they are.
 * @param {import('./host.js').EngineHost} host
 * @param {{session: string, index: number, params: Params, samples?: {n: number, seed: number}}} args
 */
export function peek(host, { session: sid, index, params, samples }) {
  const s = host.get(sid);
  // beam search: the best beam's text, followed by its replay session,
  // under beam search's own chain
  const session = s.beam ? s.beam.replay : s.session;
  if (s.beam) params = beamParams(params);
  const rec = session.peek(index, params);
  const tokens = session.tokens;
  const at = session.nPrompt + index;
  const step = summarize(rec, {
    kind: 'peek', index, params,
    pieceOf: (id) => session.tokenizer.piece(id),
  });
  if (at < tokens.length) {
    // the token the text has at this step, and its probability now
    step.token = tokens[at];
    step.piece = session.tokenizer.piece(tokens[at]);
    step.p = rec.probs[tokens[at]];
  }
  const drawn = samples ? sampleSummary(step, session.sampleCounts(samples.n, samples.seed), samples.n, samples.seed) : null;
  return { step, samples: drawn };
}

/**
 * The strip's marks of fast-forwarded steps: the stateful stages' numbers
 * (StepRecord.state) of generated steps from .. to - 1, each re-warped
 * under params with the text's token as the one drawn; one request for
 * them all.
 * @param {import('./host.js').EngineHost} host
 * @param {{session: string, from: number, to: number, params: Params}} args
 */
export function states(host, { session: sid, from, to, params }) {
  const session = host.get(sid).session;
  if (!Number.isInteger(from) || !Number.isInteger(to) || from < 0 || to < from || to > session.nGenerated) {
    throw new RangeError(`states: from and to must be whole numbers with 0 <= from <= to <= ${session.nGenerated} (got ${from}, ${to})`);
  }
  return { from, states: session.peekStates(from, to, params) };
}

/**
 * Fast-forward: up to n tokens in the Worker, each exactly the token a
 * step would append, without a summary per token.  It runs in chunks of
 * about 30 ms; after each, ctx.progress(done, n) and a turn of the event
 * loop, where a stop request (host.stopGenerate) ends it.  The answer:
 * the usual one (the next token's distribution, the status, the lab with
 * every generated token's stats from `from` on), and `generated`: the new
 * tokens and their pieces in context, whether a stop ended it, and how
 * long the generation took (ms).  Each token's step record is there on
 * demand: peek re-warps any generated step.
 * @param {import('./host.js').EngineHost} host
 * @param {{session: string, params: Params, n: number, samples?: {n: number, seed: number}}} args
 * @param {{progress?: (done: number, total: number) => void}} [ctx]
 */
export async function generate(host, { session: sid, params, n, samples }, { progress } = {}) {
  const s = host.get(sid);
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`generate: n must be a whole number >= 1 (got ${n})`);
  const session = s.session;
  const from = session.nGenerated;
  const want = Math.min(n, Math.max(0, host.maxTokens - from));
  s.stop = false;
  let done = 0;
  let chunk = 4;
  let stopped = false;
  let ms = 0;
  while (done < want && status(host, s).ready) {
    const t0 = performance.now();
    const { count, stopped: why } = session.generate(params, Math.min(chunk, want - done));
    const dt = performance.now() - t0;
    ms += dt;
    done += count;
    if (why || count === 0) break;
    // about 30 ms a chunk: a Stop is heard within that
    chunk = Math.max(1, Math.min(4096, Math.round((count * 30) / Math.max(dt, 0.1))));
    progress?.(done, want);
    await new Promise((resolve) => setTimeout(resolve, 0));
    if (s.stop) {
      stopped = true;
      break;
    }
  }
  s.stop = false;
  host.logCost(s);
  const tokens = session.tokens;
  const nPrompt = session.nPrompt;
  const tokenizer = session.tokenizer;
  const text = new TextDecoder();
  /** @type {Array<{index: number, token: number, piece: string}>} */
  const generated = [];
  for (let i = from; i < from + done; i++) {
    const at = nPrompt + i;
    const bytes = session.isEnd(tokens[at]) ? new Uint8Array(0) : tokenizer.decodeBytes(at > 0 ? tokens[at - 1] : -1, tokens[at]);
    generated.push({ index: i, token: tokens[at], piece: text.decode(bytes) });
  }
  return { ...answer(host, s, [], params, samples, from), generated: { tokens: generated, stopped, ms } };
}
