// @ts-check
/**
 * answer.js — the shape of the Worker's answers to a text's requests: a
 * step's summary, whether another token can come (and if not, why), what
 * the engine measures about the text (the lab), and the whole answer with
 * the next token's distribution and its samples.
 */
import { isEngineError } from '../engine/engine.js';
import { sampleSummary, summarize } from './summary.js';

/** @typedef {import('./protocol.js').Params} Params */
/** @typedef {import('./protocol.js').Status} Status */
/** @typedef {import('./protocol.js').StopReason} StopReason */
/** @typedef {import('./protocol.js').Lab} Lab */
/** @typedef {import('./host.js').SessionEntry} SessionEntry */
/** @typedef {import('./host.js').EngineHost} EngineHost */

/**
 * One step of a session's text (force: this token instead of a draw), as
 * the page gets it.
 * @param {EngineHost} host @param {SessionEntry} s @param {Params} params @param {number} force
 */
export function stepOnce(host, s, params, force) {
  const index = s.session.nGenerated;
  const rec = s.session.step(params, { force });
  host.logCost(s);
  if (force >= 0) s.forced.add(index);
  return summarize(rec, {
    kind: 'step', index, forced: force >= 0, params,
    pieceOf: (id) => s.session.tokenizer.piece(id),
  });
}

/**
 * Whether another token can come, and if not, why (calmly).
 * @param {{session: import('../engine/engine.js').Session, constrained?: boolean}} s
 * @param {EngineHost} host
 * @returns {Status}
 */
export function status(host, s) {
  const session = s.session;
  const nGenerated = session.nGenerated;
  const seqLen = session.model.seqLen;
  let message = '';
  /** @type {StopReason | undefined} */
  let reason;
  let n;
  if (session.finished && s.constrained) {
    message = 'The text is complete: it matches the constraint, and nothing more could follow.';
    reason = 'complete';
  } else if (session.finished) {
    message = 'The model ended the text here (it emitted its end-of-text token).';
    reason = 'end';
  } else if (seqLen > 0 && session.nTokens >= seqLen) {
    message = `The model's context is full (${seqLen} tokens). Reset to start again.`;
    reason = 'context';
    n = seqLen;
  } else if (nGenerated >= host.maxTokens) {
    message = `Stopped after ${host.maxTokens} tokens. Reset to start again.`;
    reason = 'limit';
    n = host.maxTokens;
  }
  /** @type {Status} */
  const status = { nGenerated, ready: message === '', finished: session.finished, message };
  if (reason) status.reason = reason;
  if (n !== undefined) status.n = n;
  return status;
}

/**
 * What the engine measures about the text: metrics, counters, and the
 * per-token stats from generated token `from` on.
 * @param {SessionEntry} s @param {number} from
 * @returns {Lab}
 */
export function lab(s, from) {
  const session = s.session;
  const start = Math.max(0, Math.min(from, session.nGenerated));
  const counters = session.counters();
  const costs = s.costLog.splice(0);
  costs.push({ ...counters, n: session.nGenerated });
  return { metrics: session.metrics(), counters, costs, statsFrom: start, stats: session.stats().slice(start) };
}

/**
 * The answer to start/step/preview/branch/constrain: the steps taken,
 * the next token's distribution under params (a preview: no random
 * draw), optionally samples of it, and the lab's numbers (stats from
 * generated token `from` on).
 * @param {EngineHost} host @param {SessionEntry} s
 * @param {import('./summary.js').StepSummary[]} steps
 * @param {Params} params
 * @param {{n: number, seed: number} | undefined} samples
 * @param {number | null} from  null: the text did not change (no lab)
 */
export function answer(host, s, steps, params, samples, from) {
  const now = status(host, s);
  let next = null;
  let drawn = null;
  if (now.ready) {
    try {
      const rec = s.session.preview(params);
      next = summarize(rec, {
        kind: 'preview', index: now.nGenerated, params,
        pieceOf: (id) => s.session.tokenizer.piece(id),
      });
    } catch (err) {
      // the engine's own "context full" (a state error): a calm stop
      if (isEngineError(err, 'state')) {
        now.ready = false;
        now.message = `${err.message}. Reset to start again.`;
        now.reason = 'engine';
      } else if (isEngineError(err, 'logits')) {
        // the model's output is not finite here: the text so far stays,
        // nothing can follow, and the engine's message says why
        now.ready = false;
        now.fault = true;
        now.reason = 'fault';
        now.message = `${err.message}. Nothing can follow; Reset, or choose another model.`;
      } else throw err;
    }
  }
  if (next && samples) {
    drawn = sampleSummary(next, s.session.sampleCounts(samples.n, samples.seed), samples.n, samples.seed);
  }
  return { steps, next, status: now, samples: drawn, lab: from === null ? undefined : lab(s, from) };
}