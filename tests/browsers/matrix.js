// The exactness matrix: generations (sampling under several settings and
// seeds, constrained, beam search, speculative) on the bigram, the shipped
// transformer, the llama2.c fixture checkpoint and a Q8_0 GGUF the tests
// write, each run through the
// page's engine Worker protocol (worker/host.js) and written out as the
// native CLI's `generate --json` lines, so the bytes can be compared with
// build/sampler's.  Every step summary the Worker sends (all of its
// probabilities, ranks and cuts) is also folded into a digest, compared
// with the same run in Node.
//
// This module runs in Node and, served as it is, in every browser under
// test (tests/browsers/exact.html): no Node imports here.

/** @typedef {{model: 'bigram' | 'transformer' | 'stories' | 'gguf', prompt?: string, seed?: string, steps: number,
 *   params?: Record<string, any>, constraint?: {regex?: string, grammar?: 'json'},
 *   beam?: {width: number, lengthPenalty?: number, groups?: number, diversity?: number},
 *   spec?: {draft: 'bigram' | 'lookup', n: number, ngram?: number}}} Setup
 * (spec.draft 'lookup': prompt lookup, drafts of n tokens copied from the text's n-grams of at most ngram) */

/** @type {Array<{name: string} & Setup>} */
export const CASES = [
  { name: 'bigram defaults seed 42', model: 'bigram', prompt: 'Ma', seed: '42', steps: 60 },
  { name: 'bigram T1.3 p0.9 min-p seed 2^64-1', model: 'bigram', seed: '18446744073709551615', steps: 60, params: { temperature: 1.3, top_p: 0.9, min_p: 0.05 } },
  { name: 'bigram typical rep-penalty seed 1', model: 'bigram', seed: '1', steps: 60, params: { typical_p: 0.8, repetition_penalty: 1.3, penalty_last_n: 8 } },
  { name: 'bigram freq/presence/bias seed 7', model: 'bigram', prompt: 'Jo', seed: '7', steps: 40, params: { frequency_penalty: 0.4, presence_penalty: 0.6, logit_bias: [[0, -Infinity], [5, 2.5]] } },
  { name: 'bigram T0.7 k10 seed 3', model: 'bigram', seed: '3', steps: 40, params: { temperature: 0.7, top_k: 10 } },
  { name: 'bigram regex', model: 'bigram', seed: '6', steps: 12, params: { temperature: 1.5 }, constraint: { regex: '(Ma|Jo)[a-z]{2,6}' } },
  { name: 'bigram grammar json T2', model: 'bigram', seed: '2', steps: 40, params: { temperature: 2 }, constraint: { grammar: 'json' } },
  { name: 'bigram beam 4', model: 'bigram', prompt: 'Ma', steps: 20, beam: { width: 4 } },
  // the bigram's boundary ends a constrained text, and is not text (the engine says where a hypothesis's text ends)
  { name: 'bigram beam 3 regex', model: 'bigram', steps: 20, beam: { width: 3 }, constraint: { regex: '[A-Z][a-z]{2,4}' } },
  { name: 'bigram speculative bigram n3', model: 'bigram', seed: '5', steps: 60, spec: { draft: 'bigram', n: 3 } },
  // the newer decoding methods (issue 25): diverse beam search, prompt lookup, the watermark, bad words
  { name: 'bigram diverse beam 4 groups 2 diversity 0.7', model: 'bigram', prompt: 'Ma', steps: 16, beam: { width: 4, lengthPenalty: 1, groups: 2, diversity: 0.7 } },
  { name: 'bigram prompt lookup n3 ngram 2 seed 4', model: 'bigram', prompt: 'Anna\nAnnabel\nAnna\nAnn', seed: '4', steps: 40, params: { temperature: 0.7 }, spec: { draft: 'lookup', n: 3, ngram: 2 } },
  { name: 'bigram watermark 0.5 / 2 key 7 seed 6', model: 'bigram', seed: '6', steps: 40, params: { watermark_gamma: 0.5, watermark_delta: 2, watermark_key: 7 } },
  { name: 'bigram bad words an, ri seed 8', model: 'bigram', seed: '8', steps: 40, params: { bad_words: ['an', 'ri'] } },
  { name: 'transformer T0.8 k20 p0.95 seed 42', model: 'transformer', prompt: 'And God', seed: '42', steps: 60, params: { temperature: 0.8, top_k: 20, top_p: 0.95 } },
  { name: 'transformer greedy', model: 'transformer', prompt: 'In the beginning', steps: 40, params: { temperature: 0 } },
  { name: 'transformer T1.2 min-p rep seed 9', model: 'transformer', prompt: 'The ', seed: '9', steps: 60, params: { temperature: 1.2, min_p: 0.05, repetition_penalty: 1.2 } },
  { name: 'transformer regex', model: 'transformer', prompt: 'And ', seed: '4', steps: 60, constraint: { regex: '(God|the LORD) (said|spake)[a-z ,]*\\.' } },
  { name: 'transformer beam 3 lp1', model: 'transformer', prompt: 'And God said', steps: 16, beam: { width: 3, lengthPenalty: 1 } },
  { name: 'transformer speculative bigram n4 seed 11', model: 'transformer', prompt: 'And God said', seed: '11', steps: 40, params: { temperature: 0.8, top_k: 12 }, spec: { draft: 'bigram', n: 4 } },
  // top-k 40: the drawn token is among the ranked rows a step summary
  // carries for a large vocabulary, so its raw probability is there too
  { name: 'stories260K T0.9 k40 p0.9 seed 8', model: 'stories', seed: '8', steps: 40, params: { temperature: 0.9, top_k: 40, top_p: 0.9 } },
  { name: 'stories260K greedy', model: 'stories', steps: 30, params: { temperature: 0 } },
  // a GGUF file (Q8_0 weights, its own SentencePiece tokenizer; written by
  // the tests' GGUF writer): the quantized kernels and the file's tokenizer
  { name: 'GGUF Q8_0 T0.8 k40 seed 3', model: 'gguf', seed: '3', steps: 40, params: { temperature: 0.8, top_k: 40 } },
  { name: 'GGUF Q8_0 greedy', model: 'gguf', steps: 30, params: { temperature: 0 } },
];

/**
 * The native CLI's arguments for a case.
 * @param {Setup} c @param {{stories: string, storiesTokenizer: string}} files
 */
export function cliArgs(c, files) {
  const args = ['generate', '--json', '--steps', String(c.steps)];
  if (c.model === 'stories') args.push('--model', files.stories, '--tokenizer', files.storiesTokenizer);
  else if (c.model === 'gguf') args.push('--model', files.gguf);
  else args.push('--model', c.model);
  if (c.prompt) args.push('--prompt', c.prompt);
  if (c.seed) args.push('--seed', c.seed);
  for (const [k, v] of Object.entries(c.params ?? {})) {
    if (k === 'logit_bias') for (const [id, b] of v) args.push('--logit-bias', `${id}=${b === -Infinity ? '-inf' : b}`);
    else if (k === 'bad_words') for (const w of v) args.push('--bad-words', w);
    else args.push(`--${k.replaceAll('_', '-')}`, String(v)); // the registry's flag: its name with - for _
  }
  if (c.constraint?.regex) args.push('--regex', c.constraint.regex);
  if (c.constraint?.grammar) args.push('--grammar', c.constraint.grammar);
  if (c.beam) args.push('--beams', String(c.beam.width), '--length-penalty', String(c.beam.lengthPenalty ?? 0));
  if (c.beam?.groups) args.push('--num-beam-groups', String(c.beam.groups), '--diversity-penalty', String(c.beam.diversity ?? 0));
  if (c.spec?.draft === 'lookup') args.push('--prompt-lookup', String(c.spec.n), '--prompt-lookup-ngram', String(c.spec.ngram ?? 2));
  else if (c.spec) args.push('--draft', c.spec.draft, '--speculate', String(c.spec.n));
  return args;
}

// ---- the CLI's JSON, byte for byte -----------------------------------------

/** C's printf("%.9g", x), as the CLI prints every number (null for NaN and infinities). */
export function fmtG(x, precision = 9) {
  if (!Number.isFinite(x)) return 'null';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const [mantissa, e] = x.toExponential(precision - 1).split('e');
  const exp = Number(e);
  const trim = (s) => (s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s);
  if (exp < -4 || exp >= precision) return `${trim(mantissa)}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return trim(x.toFixed(precision - 1 - exp));
}

/** The CLI's JSON string (c/util.c sp_buf_json_str): bytes >= 0x80 stay as they are. */
export function jsonStr(s) {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0);
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (c < 0x20 || c === 0x7f) out += `\\u00${c.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/** One record of a run (runCase) as the CLI's `--json` line. */
export function cliLine(r) {
  if (r.kind === 'beam') {
    // diverse beam search: each beam's group and the diversity penalty it took
    const diverse = (b) => (r.groups > 1 ? `,"group":${b.group},"penalty":${fmtG(b.penalty)}` : '');
    const beams = r.beams.map((b) => `{"text":${jsonStr(b.text)},"logprob":${fmtG(b.logprob)},"score":${fmtG(b.score)},"finished":${b.finished}${diverse(b)}}`);
    return `{"step":${r.step},"beams":[${beams.join(',')}]}\n`;
  }
  if (r.kind === 'round') {
    const tokens = r.tokens.map((t) => `{"token":${t.token},"piece":${jsonStr(t.piece)},"status":"${t.status}"}`);
    // prompt lookup: where the draft was copied from (a position of the whole text, -1: none) and the n-gram
    const match = r.match ? `"match":${r.match.at},"ngram":${r.match.ngram},` : '';
    return `{"round":${r.round},${match}"drafted":[${r.drafted.join(',')}],"tokens":[${tokens.join(',')}]}\n`;
  }
  return `{"step":${r.step},"token":${r.token},"piece":${jsonStr(r.piece)}${r.end ? ',"end":true' : ''}`
    + `,"p":${fmtG(r.p)},"p_raw":${fmtG(r.pRaw)},"kept":${r.kept},"kept_mass":${fmtG(r.keptMass)}`
    + `,"entropy_bits":${fmtG(r.entropyBits)},"entropy_raw_bits":${fmtG(r.entropyRawBits)},"argmax_raw":${r.argmaxRaw}`
    // the watermark, when it ran: the green list's mass, the spike entropy, the drawn token green or red
    + (r.watermark ? `,"green_mass":${fmtG(r.watermark.mass)},"spike_entropy":${fmtG(r.watermark.spike)}${r.watermark.green >= 0 ? `,"green":${r.watermark.green}` : ''}` : '')
    + `,"u":${fmtG(r.u)}}\n`;
}

// ---- a digest of everything the Worker sent ---------------------------------

/** the speculative rounds' measured times (ms, plainMs): wall-clock, so left out */
const CLOCK_KEYS = new Set(['ms', 'plainMs']);

/** FNV-1a (32 bit) over a canonical walk of a value (times left out): numbers by their float64
 * bits, typed arrays element by element (float32 elements by their float32
 * bits), NaN as one tag whatever its bits, object keys sorted. */
export function digest(value) {
  let h = 0x811c9dc5;
  const view = new DataView(new ArrayBuffer(8));
  const bytes = new Uint8Array(view.buffer);
  const feed = (n) => {
    for (let i = 0; i < n; i++) h = Math.imul(h ^ bytes[i], 0x01000193) >>> 0;
  };
  const tag = (t) => {
    view.setUint8(0, t);
    feed(1);
  };
  const num = (x, f32) => {
    if (x !== x) return tag(1);
    tag(2);
    if (f32) {
      view.setFloat32(0, x, true);
      feed(4);
    } else {
      view.setFloat64(0, x, true);
      feed(8);
    }
  };
  const walk = (v) => {
    if (v === null || v === undefined) return tag(0);
    if (typeof v === 'number') return num(v, false);
    if (typeof v === 'boolean') return tag(v ? 3 : 4);
    if (typeof v === 'string') {
      tag(5);
      for (const b of new TextEncoder().encode(v)) {
        view.setUint8(0, b);
        feed(1);
      }
      return tag(6);
    }
    if (ArrayBuffer.isView(v)) {
      tag(7);
      const f32 = v instanceof Float32Array;
      for (const x of /** @type {any} */ (v)) num(Number(x), f32);
      return tag(8);
    }
    if (Array.isArray(v)) {
      tag(9);
      v.forEach(walk);
      return tag(10);
    }
    tag(11);
    for (const k of Object.keys(v).sort()) {
      if (CLOCK_KEYS.has(k)) continue; // times the Worker measured: the machine's, not the engine's
      walk(k);
      walk(v[k]);
    }
    return tag(12);
  };
  walk(value);
  return h.toString(16).padStart(8, '0');
}

// ---- running a case through the Worker protocol -------------------------------

/** The Worker's summary of a step as the CLI's record of it. */
function stepRecord(s, step, end) {
  const row = Array.prototype.indexOf.call(s.ids, s.token);
  return {
    kind: 'step', step, token: s.token, piece: s.piece, end,
    p: s.p, pRaw: row >= 0 ? s.raw[row] : NaN, kept: s.nKept, keptMass: s.keptMass,
    entropyBits: s.entropyBits, entropyRawBits: s.entropyRawBits, argmaxRaw: s.argmaxRaw, u: s.u, watermark: s.watermark ?? null,
  };
}

/**
 * Loads the matrix's models into a Worker (or an in-process host).
 * @param {(op: string, args?: any, transfer?: any[]) => Promise<any>} request
 * @param {{stories: Uint8Array | null, storiesTokenizer: Uint8Array | null, gguf?: Uint8Array, bigram?: Uint8Array, transformer?: Uint8Array, transformerTokenizer?: Uint8Array}} files
 *   bigram/transformer: their bytes (else the Worker's built-in ones)
 */
export async function loadModels(request, files) {
  for (const [model, tokenizer] of [['bigram', null], ['transformer', 'transformerTokenizer']]) {
    if (files[model]) await request('loadModel', { model, bytes: files[model], tokenizerBytes: tokenizer ? files[tokenizer] : null });
    else await request('loadModel', { model, builtin: model });
  }
  // the llama2.c fixture: absent on a machine without ../shared (its cases are left out)
  if (files.stories) await request('loadModel', { model: 'stories', bytes: files.stories, tokenizerBytes: files.storiesTokenizer, name: 'stories260K' });
  if (files.gguf) await request('loadModel', { model: 'gguf', bytes: files.gguf, name: 'matrix-q8_0.gguf' });
}

/**
 * Runs one case as the native CLI runs it (`generate --json`): its records
 * (cliLine turns them into the CLI's lines) and the digest of every answer
 * the Worker gave.
 * @param {(op: string, args?: any) => Promise<any>} request
 * @param {{name: string} & Setup} c
 */
export async function runCase(request, c) {
  const session = `m${CASES.indexOf(c)}`;
  const params = c.params ?? {};
  const prompt = c.prompt ?? '';
  const seed = c.seed ?? '42';
  const answers = [];
  const records = [];
  await request('openSession', { session, model: c.model });
  if (c.beam) {
    answers.push(await request('beamStart', {
      session, prompt, width: c.beam.width, lengthPenalty: c.beam.lengthPenalty ?? 0, groups: c.beam.groups ?? 1, diversity: c.beam.diversity ?? 0, params, steps: 0,
      constraint: c.constraint ?? null, budget: c.constraint ? c.steps : undefined,
    }));
    for (let i = 0; i < c.steps; i++) {
      const a = await request('beamStep', { session, params, count: 1 });
      answers.push(a);
      if (a.expansions !== i + 1) break; // every beam ended: the CLI stops too
      records.push({ kind: 'beam', step: i, beams: a.hypotheses, groups: c.beam.groups ?? 1 });
    }
  } else if (c.spec) {
    const lookup = c.spec.draft === 'lookup';
    let a = await request('specStart', { session, draft: lookup ? '' : c.spec.draft, n: c.spec.n, ngram: lookup ? c.spec.ngram ?? 2 : 0, prompt, seed, params, rounds: 0 });
    answers.push(a);
    let round = 0;
    while (a.status.nGenerated < c.steps && a.status.ready) {
      a = await request('specRound', { session, params, count: 1 });
      answers.push(a);
      const r = a.rounds[0];
      if (!r) break;
      // the CLI never goes past --steps: the last round may be cut short
      const tokens = r.tokens.slice(0, Math.max(0, c.steps - r.index));
      // (the Worker says where a lookup's draft came from as a generated index; the
      // CLI as a position of the whole text: the bigram's prompt is a begin token and a token per character)
      const match = r.match && { at: r.match.at === null ? -1 : r.match.at + prompt.length + 1, ngram: r.match.ngram };
      records.push({ kind: 'round', round: round++, match, drafted: Array.from(r.drafted, (d) => d.token), tokens });
    }
  } else {
    const a = await request('start', { session, prompt, seed, params, steps: c.steps, constraint: c.constraint ?? null, budget: c.constraint ? c.steps : undefined });
    answers.push(a);
    // an end-of-text token ends the text and has no piece (a constraint
    // that is complete also finishes the text, after an ordinary token)
    const last = a.steps.length - 1;
    a.steps.forEach((s, i) => records.push(stepRecord(s, i, i === last && a.status.finished && s.piece === '')));
  }
  await request('closeSession', { session });
  return { name: c.name, records, digest: digest(answers) };
}

/**
 * In a browser: the page's engine Worker (the built one, with
 * ?wasm=FLAVOR) runs every case.  Returns JSON text (exact numbers in
 * every engine and every driver).
 * @param {string} workerUrl @param {'simd' | 'scalar'} flavor
 * @param {{stories: string | null, storiesTokenizer: string, gguf: string}} urls (stories null: no fixture)
 * @param {string[]} [names] only these cases
 */
export async function runInWorker(workerUrl, flavor, urls, names) {
  const url = new URL(workerUrl, location.href);
  url.searchParams.set('wasm', flavor);
  const worker = new Worker(url, { type: 'module', name: `matrix-${flavor}` });
  let next = 1;
  const pending = new Map();
  worker.onmessage = ({ data }) => {
    const p = pending.get(data.id);
    if (!p || data.progress) return;
    pending.delete(data.id);
    if (data.ok) p.resolve(data.result);
    else p.reject(new Error(`${data.error.name}: ${data.error.message}`));
  };
  const failed = new Promise((_, reject) => {
    worker.onerror = (e) => reject(new Error(`the engine worker failed: ${e.message}`));
  });
  const request = (op, args = {}, transfer = []) => Promise.race([failed, new Promise((resolve, reject) => {
    const id = next++;
    pending.set(id, { resolve, reject });
    worker.postMessage({ id, op, args }, transfer);
  })]);
  const t0 = performance.now();
  try {
    const { backend } = await request('hello');
    const fetched = async (u) => new Uint8Array(await (await fetch(u)).arrayBuffer());
    await loadModels(request, {
      ...(urls.stories
        ? { stories: await fetched(urls.stories), storiesTokenizer: await fetched(urls.storiesTokenizer) }
        : { stories: null, storiesTokenizer: null }),
      gguf: await fetched(urls.gguf),
    });
    const results = [];
    for (const c of CASES) if (!names || names.includes(c.name)) results.push(await runCase(request, c));
    return JSON.stringify({ backend, ms: performance.now() - t0, results });
  } finally {
    worker.terminate();
  }
}
