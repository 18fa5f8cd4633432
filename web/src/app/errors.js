// @ts-check
/**
 * errors.js — what went wrong, as messages the page says in the learner's
 * language.  The engine reports which error it is (its name as `reason`:
 * "regex", "prompt_long", ...; its class as `kind`: "format", "arg",
 * "nomem", "state", "unsatisfiable": c/engine/sampler.h SP_ERRORS, through
 * engine/errors.js) and one line of English; the Worker adds its own
 * reasons (a file it could not fetch, a model not in this build, …) and
 * which of a model's files the engine refused.  Each becomes a message by
 * what the page was doing (loading a model, applying a constraint,
 * starting a text, drafting, stepping) and that error; the English line is
 * kept as its detail: English shows it as it is (it is specific), every
 * other language shows its own words with the English line beneath as a
 * technical detail.  Nothing here reads the English to decide.
 */
import { msg } from '../i18n/index.js';

/** @typedef {import('../i18n/index.js').Msg} Msg */

/** @typedef {'model' | 'constraint' | 'start' | 'draft' | 'engine'} Doing  what the page was doing */

/**
 * @typedef {Error & {code?: number, reason?: string, kind?: string, vars?: Record<string, string | number>, part?: string}} WorkerFailure
 *   an error from the Worker (worker/client.js): the engine's error (code,
 *   reason, kind), or the Worker's reason with its values; which file of a
 *   model failed
 */

/**
 * The message for a failure while doing something.
 * @param {Doing} doing @param {unknown} err @param {{file?: string}} [about]
 *   file: the file the learner chose (its name leads the English detail)
 * @returns {Msg}
 */
export function errorMsg(doing, err, about = {}) {
  const e = /** @type {WorkerFailure} */ (err);
  const text = e?.message ?? String(err);
  const detail = about.file ? `${about.file}: ${text}` : text;
  const file = about.file ?? '';
  const vars = { ...(e?.vars ?? {}), file };
  switch (e?.reason) {
    case 'missing': return msg({ transformer: 'error.missingTransformer', bigram: 'error.missingBigram' }[String(e.vars?.model)] ?? 'error.missingDraft', vars, detail);
    case 'fetch': return msg('error.fetch', vars, detail);
    case 'http': return msg('error.http', vars, detail);
    case 'html': return msg('error.html', vars, detail);
    case 'worker': return msg('error.worker', vars, detail);
    case 'wholeEngine': return msg('error.wholeEngine', vars, detail);
    default: break;
  }
  const kind = e?.kind;
  if (kind === 'nomem') return msg('error.nomem', vars, detail);
  if (doing === 'model') {
    if (e?.part === 'tokenizer') return msg('error.tokenizerFile', vars, detail);
    if (e?.part === 'pair') return msg('error.pair', vars, detail);
    if (e?.reason === 'tokenizer_as_model') return msg('error.tokenizerAsModel', vars, detail);
    if (kind === 'format') return msg(file ? 'error.modelFile' : 'error.modelFormat', vars, detail);
    return msg('error.model', vars, detail);
  }
  if (doing === 'constraint') {
    if (kind === 'unsatisfiable') return msg('error.unsatisfiable', vars, detail);
    if (e?.reason === 'regex') return msg('error.regex', vars, detail);
    return msg('error.constraint', vars, detail);
  }
  if (doing === 'draft') return msg('error.draft', vars, detail);
  if (doing === 'start') {
    if (e?.reason === 'prompt') return msg('error.prompt', vars, detail);
    if (e?.reason === 'prompt_long') return msg('error.promptLong', vars, detail);
    if (kind === 'arg') return msg('error.settings', vars, detail);
    return msg('error.start', vars, detail);
  }
  if (kind === 'state') return msg('error.state', vars, detail);
  if (kind === 'arg') return msg('error.settings', vars, detail);
  return msg('error.engine', vars, detail);
}

/**
 * Why no token can follow (the Worker's status), or '' when one can.
 * @param {import('../worker/protocol.js').Status | null | undefined} status
 * @returns {Msg | ''}
 */
export function statusMsg(status) {
  if (!status || status.ready || !status.message) return '';
  switch (status.reason) {
    case 'complete': return msg('status.complete');
    case 'end': return msg('status.end');
    case 'context': return msg('status.context', { count: status.n ?? 0 });
    case 'limit': return msg('status.limit', { count: status.n ?? 0 });
    case 'beams': return msg('status.beams');
    case 'fault': return msg('status.fault', {}, status.message);
    default: return msg('status.engine', {}, status.message);
  }
}

