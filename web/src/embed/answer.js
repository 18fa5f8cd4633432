// @ts-check
/**
 * answer.js — what a <sampler-question> asks and how the engine answers
 * it: the attributes read as a model, a constraint and a question (ask=),
 * the engine's value for them (asked of the page's engine Worker, never
 * computed here), and a typed answer read and graded against it.  The
 * element (question.js) and the lessons' questions (learn/ask.js) share
 * these.
 */
import { isHandmadeSpec } from '../app/models.js';
import { DEFAULT_MODEL } from '../shared/manifest.js';
import { msg } from '../i18n/index.js';


/**
 * An error that says itself in the learner's language (its message is
 * the English).
 * @param {string} key @param {Record<string, unknown>} [vars]
 */
export function said(key, vars = {}) {
  const m = msg(key, vars);
  return Object.assign(new Error(String(m)), { said: m });
}

/**
 * The constraint a question's attributes name (as the Worker's start takes
 * it), or null.
 * @param {(name: string) => string | null} get
 * @returns {{regex: string} | {grammar: string} | null}
 */
export function questionConstraint(get) {
  const regex = get('regex');
  if (regex) return { regex };
  const grammar = (get('grammar') ?? '').trim();
  return grammar ? { grammar } : null;
}

/** @typedef {{kind: 'rank' | 'token', n: number} | {kind: 'label', label: string} | {kind: 'nucleus' | 'kept-mass' | 'entropy' | 'entropy-raw' | 'kv-ratio'} | {kind: 'cut', stage: string}} Ask */

/**
 * The kind of answer each question takes: a count is a whole number (0.5
 * tokens is no answer to "how many"), a probability, mass, entropy or
 * ratio a decimal to the question's digits, a token its text.
 * @type {Record<Ask['kind'], 'whole' | 'decimal' | 'token'>}
 */
export const ANSWER_KIND = {
  rank: 'decimal', label: 'decimal', 'kept-mass': 'decimal', entropy: 'decimal', 'entropy-raw': 'decimal', 'kv-ratio': 'decimal',
  nucleus: 'whole', cut: 'whole',
  token: 'token',
};

/** @typedef {{kind: 'whole'} | {kind: 'decimal', digits: number} | {kind: 'token'}} AnswerKind */

/**
 * The kind of answer a question takes, with its digits (a decimal's: the
 * digits attribute, 2 by default, at most 6).
 * @param {Ask} ask @param {string | null} digits  the attribute
 * @returns {AnswerKind}
 */
export function answerKind(ask, digits) {
  const kind = ANSWER_KIND[ask.kind];
  if (kind !== 'decimal') return { kind };
  const d = digits === null || digits.trim() === '' ? 2 : Math.round(Number(digits));
  return { kind, digits: Number.isFinite(d) ? Math.max(0, Math.min(6, d)) : 2 };
}

/** @param {string} raw @returns {Ask | null} */
export function parseAsk(raw) {
  // (an attribute's own spaces only: a label may be a no-break space, U+00A0, which trim() would take)
  const a = raw.replace(/^[ \t\n\r\f]+|[ \t\n\r\f]+$/g, '');
  let m = /^p([1-9]\d*)$/.exec(a);
  if (m) return { kind: 'rank', n: Number(m[1]) };
  m = /^t([1-9]\d*)$/.exec(a);
  if (m) return { kind: 'token', n: Number(m[1]) };
  if (a.startsWith('p:') && a.length > 2) return { kind: 'label', label: a.slice(2) };
  if (a.startsWith('cut:') && a.length > 4) return { kind: 'cut', stage: a.slice(4).replaceAll('-', '_') };
  if (['nucleus', 'kept-mass', 'entropy', 'entropy-raw', 'kv-ratio'].includes(a)) return /** @type {Ask} */ ({ kind: a });
  return null;
}

/**
 * The model a question's attributes name: a hand-made spec, or a shipped
 * model's name.
 * @param {(name: string) => string | null} get
 */
export function questionModel(get) {
  const logits = get('logits');
  const probs = get('probs');
  if (logits !== null) return `logits:${logits.trim()}`;
  if (probs !== null) return `probs:${probs.trim()}`;
  const model = (get('model') ?? '').trim();
  if (model) return model;
  return (get('ask') ?? '').trim() === 'kv-ratio' ? 'transformer' : DEFAULT_MODEL;
}

/**
 * Whether an answer matches the engine's value to `digits` decimals.
 * @param {number} answer @param {number} value @param {number} digits
 */
export function matches(answer, value, digits) {
  return Math.abs(answer - value) <= 0.5 * 10 ** -digits + 1e-9;
}

/** A typed answer as a number ("87%" = 0.87), or NaN. @param {string} text */
export function readAnswer(text) {
  const t = text.trim().replace(',', '.');
  if (!t) return NaN;
  const pctForm = t.endsWith('%');
  const v = Number(pctForm ? t.slice(0, -1) : t);
  return pctForm ? v / 100 : v;
}

/**
 * A typed answer read as its question's kind: the answer, or why it is
 * none (not graded: the learner is told what kind of answer is asked for).
 * A whole number is written without a fraction or a percent sign ("3",
 * "3.0"); a decimal as readAnswer reads it; a token as the bars show it
 * (an answer's outer spaces are the learner's unless the token is all
 * spaces).
 * @param {string} text @param {AnswerKind} kind
 * @returns {{answer: number | string} | {invalid: 'notNumber' | 'notWhole' | 'notToken'}}
 */
export function readTyped(text, kind) {
  if (kind.kind === 'token') return text === '' ? { invalid: 'notToken' } : { answer: text };
  const v = readAnswer(text);
  if (!Number.isFinite(v)) return { invalid: 'notNumber' };
  if (kind.kind === 'whole' && (!Number.isInteger(v) || text.trim().endsWith('%'))) return { invalid: 'notWhole' };
  return { answer: v };
}

/**
 * Whether a typed answer (read by readTyped) is the engine's value, as its
 * kind grades it: a whole number equal, a decimal to its digits, a token
 * the same text (outer spaces aside when there is more to it).
 * @param {number | string} answer @param {number | string} value @param {AnswerKind} kind
 */
export function grade(answer, value, kind) {
  if (kind.kind === 'token') {
    const a = String(answer), v = String(value);
    return a === v || (a.trim() !== '' && a.trim() === v.trim());
  }
  if (kind.kind === 'whole') return Number(answer) === Number(value);
  return matches(Number(answer), Number(value), kind.digits);
}

/**
 * What "Show me" needs for a KV question: how many tokens the model reads
 * for the prompt (the BOS included: the engine's count, from a session
 * started on it) and the tokens that end its text.
 * @param {{request: (op: string, args?: any) => Promise<any>}} client
 * @param {{model: string, prompt: string, id: string}} q
 * @returns {Promise<{promptTokens: number, ends: number[]}>}
 */
export async function kvSetup(client, q) {
  const { modelId, info } = await loadQuestionModel(client, q.model);
  await client.request('openSession', { session: q.id, model: modelId });
  try {
    const a = await client.request('start', { session: q.id, prompt: q.prompt, seed: 0, params: {} });
    return { promptTokens: a.lab.costs[0].tokens, ends: info.ends };
  } finally {
    await client.request('closeSession', { session: q.id }).catch(() => {});
  }
}

/**
 * Loads a question's model in its Worker: its id there and what it is.
 * @param {{request: (op: string, args?: any) => Promise<any>}} client @param {string} model
 * @returns {Promise<{modelId: string, info: import('../worker/protocol.js').ModelInfo}>}
 */
async function loadQuestionModel(client, model) {
  const handmade = isHandmadeSpec(model);
  const modelId = handmade ? `q:${model}` : model;
  const info = await client.request('loadModel', handmade ? { model: modelId, handmade: model } : { model: modelId, builtin: model });
  return { modelId, info };
}

/**
 * Asks the engine: the value of a question (what its attributes say).
 * @param {{request: (op: string, args?: any) => Promise<any>}} client
 * @param {{model: string, ask: Ask, params: Record<string, number | string>, length: number, prompt: string, id: string,
 *   constraint?: {regex: string} | {grammar: string} | null}} q
 *   params: the sampler settings, and the chain's order (samplers) when not the default
 * @returns {Promise<number | string>}  a token question's: the token's text
 */
export async function computeAnswer(client, q) {
  const { modelId } = await loadQuestionModel(client, q.model);
  if (q.ask.kind === 'kv-ratio') {
    const c = await client.request('modelCost', { model: modelId, n: q.length });
    if (!(c.flops > 0)) throw said('question.kvNeedsTransformer');
    return c.flopsNoCache / c.flops;
  }
  await client.request('openSession', { session: q.id, model: modelId });
  try {
    const a = await client.request('start', { session: q.id, prompt: q.prompt, seed: 0, params: q.params, constraint: q.constraint ?? null });
    const s = a.next;
    if (!s) throw Object.assign(new Error(a.status?.message || 'no distribution'), { said: msg('question.noDistribution', {}, a.status?.message ?? '') });
    const ask = q.ask;
    switch (ask.kind) {
      case 'rank': {
        // the final probabilities in the engine's rank order
        const finals = Array.from(s.final).sort((x, y) => y - x);
        if (ask.n > finals.length) throw said('question.rankPast', { n: ask.n, count: finals.length });
        return finals[ask.n - 1];
      }
      case 'token': {
        // the token at that rank of the final distribution (ties: the lower id, as the bars list them)
        const order = Array.from(s.final.keys()).sort((x, y) => s.final[y] - s.final[x] || x - y);
        if (ask.n > order.length) throw said('question.rankPast', { n: ask.n, count: order.length });
        return s.pieces[order[ask.n - 1]];
      }
      case 'label': {
        const i = s.pieces.indexOf(ask.label);
        if (i < 0) throw said('question.noLabel', { label: ask.label });
        return s.final[i];
      }
      case 'nucleus': return s.nKept;
      case 'kept-mass': return s.keptMass;
      case 'entropy': return s.entropyBits;
      case 'entropy-raw': return s.entropyRawBits;
      case 'cut': return s.cuts.find((/** @type {{stage: string}} */ c) => c.stage === ask.stage)?.cut ?? 0;
      default: throw said('question.unknown');
    }
  } finally {
    await client.request('closeSession', { session: q.id }).catch(() => {});
  }
}
