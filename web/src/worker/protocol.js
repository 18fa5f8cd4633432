// @ts-check
/**
 * protocol.js — what the page and the Worker say to each other: the
 * requests, the shapes of their answers (plain, structured-clonable
 * objects), and an error as the page receives it.  host.js answers the
 * requests; docs/playground.md has the tables.
 *
 * Protocol (see worker/client.js for the page's side): a request is
 * {id, op, args}; the answer {id, ok: true, result} or {id, ok: false,
 * error: {name, message, code?, reason?, vars?, part?}} (WorkerError: the
 * engine's error code, or the Worker's own reason with its values, and
 * which file of a model failed — so the page can say it in the learner's
 * language).  Models and sessions have string ids chosen by the page, so
 * several panels (sessions) can share one model.
 *
 *   hello                                  -> {backend}
 *   loadModel {model, builtin? | bytes, tokenizerBytes? | url, tokenizerUrl? | handmade | text,
 *              name?, edits?}              -> ModelInfo (a failure leaves
 *                                             every loaded model as it was);
 *                                             a fetched file's progress (or a
 *                                             large text's training) goes to
 *                                             ctx.progress(loaded, total)
 *   modelRow {model, row}                  -> {row, logits, pieces} | null
 *   contextToken {session}                 -> the text's last token id (-1: none)
 *   modelCost {model, n}                   -> the counters n tokens cost
 *   checkSize {size}                       -> a model file of size bytes fits the
 *                                             engine's memory, else its message (code 3)
 *   chatWrap {session, prompt}             -> the prompt wrapped as one user message
 *                                             in the model's chat template (engine)
 *   findToken {session, text, params}      -> {count, found: [{token, piece, raw, final, cut}]}:
 *                                             the text's tokens in the next distribution (find.js)
 *   watermark {session, gamma?, key?, text?, prompt?} -> WatermarkAnswer
 *       (watermark.js): the text's tokens judged green or red by the
 *       engine's detector; without `text` the session's own tokens
 *   stages {session?, params}              -> {on: stage names}: the stages
 *                                             the settings turn on, as the
 *                                             engine decides (and 'mirostat')
 *   checkParams {values, samplers?}      -> {refused: Refusal[]} (engine/params.js):
 *                                             the values the engine refuses, and
 *                                             why (alone, then together in the
 *                                             registry's order): a link's settings
 *                                             are asked before they are used
 *   freeModel {model}
 *   openSession {session, model}           -> {session, model}
 *   closeSession {session}
 *   start {session, prompt, seed, params, steps?, forced?, samples?, schedule?}
 *       a new generation (replaces the old one only if the prompt is good);
 *       `steps` tokens are generated at once (forced: [[index, token]...];
 *       schedule: [{from, params}...], ascending: step i runs with the
 *       params of the last entry with from <= i, or `params` before the
 *       first — a link's settings as they were when each token was drawn)
 *   step {session, params, force?, count?, samples?}
 *   preview {session, params, samples?}    re-warp the pending logits; no draw
 *   branch {session, index, token, params, samples?}
 *       rewind to `index` generated tokens, then append `token`
 *   Results of start/step/preview/branch/constrain: {steps: StepSummary[],
 *       next: StepSummary | null, status: Status, samples: Samples | null,
 *       lab: Lab} (a preview changes no text: no lab)
 *   samples {n, seed}: also draw n samples from `next` (own PRNG).
 *
 * The decoding lab (docs/playground.md has the tables):
 *   start {..., constraint?, budget?}   constraint {regex} | {grammar: 'json' | 'json_object'}
 *       applied after the prompt; a bad one refuses the start (error name
 *       "ConstraintError", the engine's message) and the old text stays
 *   constrain {session, constraint | null, budget?, params, samples?}
 *   peek {session, index, params, samples?} -> {step: StepSummary (kind
 *       'peek'), samples}: generated step `index` re-warped under params
 *   states {session, from, to, params} -> {from, states}: the
 *       StepRecord.state of generated steps from .. to - 1 re-warped under
 *       params, the text's token as the one drawn (the strip's marks of a
 *       fast-forward, in one request)
 *   lab {session, from?}                   -> Lab of the text so far (stats from `from`)
 *   metrics {session} / counters {session} -> session.metrics() / counters()
 *   beamStart {session, prompt, width, lengthPenalty?, groups?, diversity?, params, steps?, schedule?}
 *   beamStep {session, params, count?}     -> BeamAnswer
 *   specStart {session, draft, n, prompt, seed, params, rounds?, samples?, schedule?}
 *     (draft '' and ngram M: prompt lookup, the drafts copied from the text)
 *   specRound {session, params, count?, samples?} -> SpecAnswer
 *
 * Fast-forward (sample.js generate):
 *   generate {session, params, n, samples?}  n tokens without a summary
 *       each; progress (done, n) as a model file's; the answer is start's
 *       and step's, plus generated: {tokens: [{index, token, piece}],
 *       stopped, ms}
 *   stopGenerate {session}                 answered at once: the running
 *       generate stops after its chunk (~30 ms)
 */
/**
 * @typedef {Object} Lab  what the engine measures about the text so far
 * @property {ReturnType<import('../engine/engine.js').Session['metrics']>} metrics
 * @property {ReturnType<import('../engine/engine.js').Session['counters']> | null} counters
 *   the model state's work (null for beam search: its states are its own)
 * @property {Array<ReturnType<import('../engine/engine.js').Session['counters']> & {n: number}>} costs
 *   the counters after the prompt (start), after each step or round of the
 *   request, and now, by generated tokens n: the KV view's history
 * @property {number} statsFrom  `stats` starts at this generated token
 * @property {ReturnType<import('../engine/engine.js').Session['stats']>} stats
 */

/**
 * @typedef {Object} Hypothesis  one beam, best first
 * @property {string} text     generated text (after the prompt)
 * @property {number} length   generated tokens
 * @property {number} logprob  summed ln p of its tokens
 * @property {number} score    what the beams are ranked by
 * @property {boolean} finished it ended the text
 * @property {number} group    its group (diverse beam search; 0 otherwise)
 * @property {number} penalty  the diversity penalties it collected
 */

/**
 * @typedef {Object} SpecToken
 * @property {number} index    generated token index
 * @property {number} token
 * @property {string} piece    '' for an end-of-text token
 * @property {'accepted' | 'corrected' | 'bonus'} status
 * @property {boolean} end
 */

/**
 * @typedef {Object} SpecRound
 * @property {number} round     1-based
 * @property {number} index     generated index of its first token
 * @property {Array<{token: number, piece: string}>} drafted  the draft's
 *   proposals in target ids (-1: none)
 * @property {SpecToken[]} tokens  what the target appended
 * @property {{token: number, piece: string} | null} rejected  the draft
 *   token the target turned down (its replacement is the corrected token)
 * @property {number} fed  positions of the round's one batched pass of the
 *   model (the token the last round ended with, and the drafts)
 * @property {SpecResidual | null} residual  at the rejected position: the
 *   tokens of the residual max(0, p - q) it was resampled from
 * @property {number} ms  the round's time in the engine (drafting and the
 *   batched verification)
 * @property {number} plainMs  the time plain decoding took for the same
 *   tokens (one forward pass and one draw each, in a session of its own)
 * @property {{at: number | null, ngram: number}} [match]  prompt lookup: the
 *   generated index of the first token the draft was copied from (negative:
 *   in the prompt; null at: no match) and the n-gram matched
 */

/**
 * @typedef {Object} SpecResidual
 * @property {number} mass  the residual's total, sum of max(0, p - q)
 * @property {Array<{token: number, piece: string, p: number, q: number, r: number}>} bars
 *   the tokens the residual gives most to (r: its normalized probability),
 *   and the rejected draft (r = 0) when it is not among them
 */

/**
 * @typedef {Object} ModelInfo
 * @property {string} model   its id
 * @property {string} name
 * @property {'bigram' | 'transformer' | 'handmade'} kind
 * @property {number} vocab
 * @property {number} seqLen  context length; 0 = unbounded
 * @property {number[]} ends  the tokens that end a text (a llama2.c tokenizer's BOS and EOS; none for a bigram)
 * @property {Array<[number, number, number]>} [edits]  the edits applied,
 *   in order: [row, token, p] (sp_model_set_prob)
 * @property {{bytes: number, chars: number}} [trained]  a bigram trained on
 *   a text here: the text's bytes and its different characters
 * @property {boolean} [ids]  a checkpoint chosen without its tokenizer: its
 *   tokens are ids ("<17>"), and so is a prompt ("<1><17>")
 * @property {'chars' | 'bpe' | 'spm' | 'bytebpe' | null} [tokenizer]  the tokenizer's
 *   kind (engine/tokenizer.js): spm and bytebpe are a GGUF file's
 * @property {'chatml' | 'llama3' | 'other' | null} [chat]  a GGUF file's chat
 *   template: one the engine wraps a prompt in, 'other' (not supported) or
 *   null (none)
 */

/** @typedef {[number, number, number]} ModelEdit  [row, token, p]: P(token | row) = p */

/**
 * @typedef {Object} Status
 * @property {number} nGenerated
 * @property {boolean} ready   another token can be generated
 * @property {boolean} finished  the model emitted its end-of-text token
 * @property {string} message  why not ready ('' when ready), in English
 * @property {StopReason} [reason]  why not ready, for the page to say in its language
 * @property {number} [n]  the number the reason names (the context's size, the most tokens)
 * @property {boolean} [fault]  the message is the engine's: the model's output is not finite
 */

/**
 * Why no token can follow: the text matches its constraint and nothing
 * more could follow (complete), the model emitted its end-of-text token
 * (end), the context is full (context, n tokens), the most tokens a text
 * may have (limit, n), every beam ended (beams), the engine's own stop
 * (engine: its message says why) or a model whose output is not finite
 * (fault: the engine's message).
 * @typedef {'complete' | 'end' | 'context' | 'limit' | 'beams' | 'engine' | 'fault'} StopReason
 */

/**
 * An error as the page receives it: the engine's error (its code, its name
 * as `reason` and its class as `kind`: engine/errors.js) or the Worker's own
 * reason with its values; `part`: which of a model's files the engine
 * refused (model, tokenizer, or the pair that does not fit).
 * @typedef {{name: string, message: string, code?: number, reason?: string, kind?: string, vars?: Record<string, string | number>, part?: string}} WorkerError
 */

/**
 * An Error with the Worker's reason and values (the page says it in its
 * language; `message` stays the English one).
 * @param {string} message @param {string} reason @param {Record<string, string | number>} [vars]
 */
export function reasoned(message, reason, vars = {}) {
  const e = /** @type {Error & {reason: string, vars: Record<string, string | number>}} */ (new Error(message));
  e.reason = reason;
  e.vars = vars;
  return e;
}

/**
 * A constraint the engine refused, as the page is told it: an Error named
 * "ConstraintError" with the engine's message and which error it is
 * (code, reason, kind: the page says a bad regex and an unsatisfiable one
 * apart by them).
 * @param {unknown} err
 */
export function constraintError(err) {
  const from = /** @type {Error & {code?: number, reason?: string, kind?: string}} */ (err);
  const e = /** @type {Error & {code?: number, reason?: string, kind?: string}} */ (new Error(from?.message ?? String(err)));
  e.name = 'ConstraintError';
  if (typeof from?.code === 'number') Object.assign(e, { code: from.code, reason: from.reason, kind: from.kind });
  return e;
}

/**
 * The clonable form of a thrown error (what the Worker posts).
 * @param {unknown} err @returns {WorkerError}
 */
export function errorOf(err) {
  const e = /** @type {Error & {code?: unknown, reason?: unknown, kind?: unknown, vars?: unknown, part?: unknown}} */ (err);
  /** @type {WorkerError} */
  const out = { name: e?.name || 'Error', message: e?.message || String(err) };
  if (typeof e?.code === 'number') out.code = e.code;
  if (typeof e?.reason === 'string') out.reason = e.reason;
  if (typeof e?.kind === 'string') out.kind = e.kind;
  if (e?.vars && typeof e.vars === 'object') out.vars = /** @type {Record<string, string | number>} */ (e.vars);
  if (typeof e?.part === 'string') out.part = e.part;
  return out;
}
/** @typedef {Record<string, any>} Params  sampler settings (engine.js SamplerParams) */
