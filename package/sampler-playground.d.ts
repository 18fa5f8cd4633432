// Types of the sampler-playground package: the <sampler-playground>
// element (its attributes and events) and the API for a lesson's script.

// ---- the element ------------------------------------------------------------

/**
 * The element's attributes (all strings, as attributes are). A sampler
 * setting takes any value in the engine's range (docs/samplers.md), even
 * past its slider's span; a value outside the range, a fraction for a
 * whole-number setting and any other bad value fall back to the default
 * and say so in a notice inside the element.
 */
// <attributes>

/** `detail` of `sampler-token`: a token was added to a text. */
export interface SamplerTokenDetail {
  /** which text: 0 (compare mode: 0 to 3, left to right) */
  panel: number;
  /** the token's place in the generated text (0 = the first after the prompt) */
  index: number;
  /** its id in the model's vocabulary */
  token: number;
  /** its text ('' for the end-of-text token) */
  piece: string;
  /** its final probability when it was drawn (NaN with speculative decoding) */
  p: number;
  /** picked by the reader, not drawn */
  forced: boolean;
  /** the generated text so far, this token included */
  text: string;
  /** the step record it was drawn from; null with speculative decoding */
  step: StepRecord | null;
}

/** `detail` of `sampler-settings`: a text's settings changed after it first loaded. */
export interface SamplerSettingsDetail {
  panel: number;
  /** bigram, transformer or url:… (a model given by its URL) */
  model: string;
  prompt: string;
  /** decimal (seeds go up to 2^64 - 1) */
  seed: string;
  /** the sliders by the engine's names: temperature, top_k, top_p, min_p, repetition_penalty */
  params: Record<string, number>;
  strategy: 'sample' | 'beam' | 'speculative';
}

export interface SamplerPlaygroundEventMap extends HTMLElementEventMap {
  /** a token was added to a text: Step, Play, the `steps` at load, a reader's pick (bubbles) */
  'sampler-token': CustomEvent<SamplerTokenDetail>;
  /** a slider, the seed or the prompt changed, by the reader or by an attribute (bubbles) */
  'sampler-settings': CustomEvent<SamplerSettingsDetail>;
}

export const TOKEN_EVENT: 'sampler-token';
export const SETTINGS_EVENT: 'sampler-settings';

/** `<sampler-playground>`: defined when the package is imported. */
export class SamplerPlayground extends HTMLElement {
  static readonly observedAttributes: string[];
  /**
   * Writes the text again from the attributes, as when the element loaded
   * (its `steps` tokens with its settings now): a slider's attribute alone
   * only re-warps the next token.
   */
  rewrite(): Promise<unknown>;
  addEventListener<K extends keyof SamplerPlaygroundEventMap>(type: K,
    listener: (this: SamplerPlayground, ev: SamplerPlaygroundEventMap[K]) => unknown,
    options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
  removeEventListener<K extends keyof SamplerPlaygroundEventMap>(type: K,
    listener: (this: SamplerPlayground, ev: SamplerPlaygroundEventMap[K]) => unknown,
    options?: boolean | EventListenerOptions): void;
  removeEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | EventListenerOptions): void;
}

/** `detail` of `sampler-question-answered`: the learner checked an answer. */
export interface SamplerQuestionAnsweredDetail {
  /** the question's `ask` attribute (p1, nucleus, kv-ratio, …) */
  ask: string;
  /** the learner's answer as a number ("87%" is 0.87) */
  answer: number;
  /** the engine's value */
  value: number;
  /** the answer matches the value to `digits` decimals */
  correct: boolean;
  digits: number;
}

export const ANSWERED_EVENT: 'sampler-question-answered';

/**
 * `<sampler-question>`: a question whose answer the engine computes from its
 * attributes (logits / probs / model, the sampler settings, ask, digits,
 * length, for); defined when the package is imported.
 */
export class SamplerQuestion extends HTMLElement {
  /** checks the answer typed in the element */
  check(): Promise<void>;
  /** configures the playground the question names (for=) or the next one on the page */
  showMe(): void;
}

declare global {
  interface HTMLElementTagNameMap {
    'sampler-playground': SamplerPlayground;
    'sampler-question': SamplerQuestion;
  }
  /** the events bubble: a page can listen on document or any ancestor */
  interface GlobalEventHandlersEventMap {
    'sampler-token': CustomEvent<SamplerTokenDetail>;
    'sampler-settings': CustomEvent<SamplerSettingsDetail>;
    'sampler-question-answered': CustomEvent<SamplerQuestionAnsweredDetail>;
  }
}

// ---- the engine, for a lesson's script --------------------------------------

/** The sampler's settings, by the engine's names; all optional. */
export interface SamplerParams {
  /** >= 0; 0 = greedy (default 1) */
  temperature?: number;
  /** integer >= 0; 0 = off */
  top_k?: number;
  /** (0, 1]; 1 = off */
  top_p?: number;
  /** [0, 1]; 0 = off */
  min_p?: number;
  /** (0, 1]; 1 = off */
  typical_p?: number;
  /** > 0; 1 = off */
  repetition_penalty?: number;
  /** 0 = off */
  frequency_penalty?: number;
  /** 0 = off */
  presence_penalty?: number;
  /** integer >= 0: the penalties look at the last n tokens; 0 = all of them */
  penalty_last_n?: number;
  /** token id -> value added to its logit; -Infinity bans it */
  logit_bias?: Array<[number, number]> | Record<string, number>;
}

/**
 * Everything the engine reports about one step: the token drawn and the
 * distribution it was drawn from, before and after each stage, for the
 * ranked tokens, in the engine's order (the whole vocabulary when it has at
 * most 128 tokens, else the engine's 64 first).  Row i of `ids`, `pieces`, `raw`, `tempered`,
 * `final`, `cut`, `cum` and `penalized` is one token.
 */
export interface StepRecord {
  /** 'step': a token drawn; 'preview': the next token's distribution, nothing drawn */
  kind: 'step' | 'preview' | 'peek';
  /** the generated token this is for (0 = the first after the prompt) */
  index: number;
  vocab: number;
  /** the token drawn (-1 for a preview) */
  token: number;
  /** its text in context ('' for a preview or the end of the text) */
  piece: string;
  /** its final probability (NaN for a preview) */
  p: number;
  /** the uniform random number that chose it (NaN for a preview) */
  u: number;
  /** picked, not drawn */
  forced: boolean;
  /** how many tokens survived every stage (the nucleus) */
  nKept: number;
  /** the model's probability mass of those */
  keptMass: number;
  /** entropy of the final distribution, in bits */
  entropyBits: number;
  /** entropy of the model's own distribution, in bits */
  entropyRawBits: number;
  /** the model's most likely token */
  argmaxRaw: number;
  /** final probability of the top-ranked token */
  pArgmax: number;
  /** the model's probability of its most likely token */
  pArgmaxRaw: number;
  /** the rows cover the whole vocabulary */
  full: boolean;
  /** rows that get a bar on screen */
  bars: number;
  /** the rows' token ids, most likely first */
  ids: Int32Array;
  /** the rows' pieces */
  pieces: string[];
  /** the model's probabilities (softmax of its logits) */
  raw: Float32Array;
  /** after the logit bias, the penalties and the temperature: what the truncating stages see */
  tempered: Float32Array;
  /** the distribution the token is drawn from (0 where cut) */
  final: Float32Array;
  /** the stage that cut each row: 'kept', 'bias', 'temperature', 'top_k', 'top_p', 'min_p', 'typical_p', 'mask', 'constraint',
   * 'top_n_sigma', 'epsilon', 'eta', 'top_a', 'xtc', 'no_repeat_ngram', 'mirostat' */
  cut: string[];
  /** cumulative tempered mass after each row (the engine's, for every row) */
  cum: Float64Array;
  /** 1: a penalty applied to this row's token */
  penalized: Uint8Array;
  /** who cut how many tokens of the whole vocabulary, in the chain's order (only what cut one) */
  cuts: Array<{ stage: string; cut: number }>;
  /** the tokens past the first `bars` rows, for a large vocabulary */
  other: { count: number; raw: number; tempered: number; final: number; kept: number } | null;
  /** the settings that produced it */
  params: Record<string, any>;
  /** the stateful stages' numbers at this step, the engine's (Mirostat's
   * mirostat_mu, adaptive-p's adaptive_average and adaptive_aim, the
   * drawn token's surprise_bits, the penalties' and DRY's counts, the
   * watermark's watermark_green, ...); before a token is drawn (a peek),
   * NaN for the numbers about the drawn token */
  state: Record<string, number>;
}

/** A loaded model. */
export interface ModelInfo {
  /** bigram, transformer or url:… */
  model: string;
  name: string;
  kind: 'bigram' | 'transformer';
  vocab: number;
  /** context length; 0 = unbounded */
  seqLen: number;
  /** the tokens that end a text (a llama2.c tokenizer's BOS and EOS; none for a bigram) */
  ends: number[];
  /** a checkpoint without its tokenizer: its tokens are ids ("<17>"), and so is a prompt ("<1><17>") */
  ids: boolean;
  /** the tokenizer's kind: 'spm' and 'bytebpe' are a GGUF file's (null: ids) */
  tokenizer: 'chars' | 'bpe' | 'spm' | 'bytebpe' | null;
  /** a GGUF file's chat template: 'chatml' or 'llama3' (the engine wraps a prompt in it), 'other', or null (none) */
  chat: 'chatml' | 'llama3' | 'other' | null;
}

export interface SessionStatus {
  nGenerated: number;
  /** another token can be drawn */
  ready: boolean;
  /** the model emitted its end-of-text token */
  finished: boolean;
  /** why not ready ('' when ready) */
  message: string;
}

export interface SessionOptions {
  /** bigram (default), transformer, or the URL of a llama2.c checkpoint (relative to the page) */
  model?: string;
  /** with a checkpoint's URL: its tokenizer.bin's URL */
  tokenizer?: string;
  /** the text the model continues ('' by default) */
  prompt?: string;
  /** 0 to 2^64 - 1 (42 by default) */
  seed?: number | bigint | string;
  /** the sampler's settings ({} = all off, temperature 1) */
  params?: SamplerParams;
  /** a model file's bytes as they arrive (total 0: unknown) */
  onProgress?: (loaded: number, total: number) => void;
}

/**
 * Loads a model (in the Worker the page's elements share for it) and starts
 * a text. Rejects with the engine's message for a bad model, prompt, seed or
 * setting.
 */
export function createSession(options?: SessionOptions): Promise<Session>;

/** One text: its prompt, seed, settings and the tokens generated so far. */
export class Session {
  private constructor();
  /** the model */
  readonly model: ModelInfo;
  readonly prompt: string;
  /** decimal */
  readonly seed: string;
  /** the settings in force (a copy) */
  readonly params: SamplerParams;
  /** the step record of every token generated, in order */
  readonly records: StepRecord[];
  /** the generated text (after the prompt) */
  readonly text: string;
  /** the next token's distribution (nothing drawn); null when the text cannot go on */
  readonly next: StepRecord | null;
  readonly status: SessionStatus | null;
  /** nothing more can be drawn (the text ended, or the context is full) */
  readonly done: boolean;
  readonly closed: boolean;
  /**
   * A new text; the prompt, seed and settings not given stay. A refused one
   * rejects and leaves the old text. Resolves to the first token's distribution.
   */
  start(options?: { prompt?: string; seed?: number | bigint | string; params?: SamplerParams }): Promise<StepRecord | null>;
  /**
   * Changes some settings (the others stay) and re-warps the next token;
   * nothing is drawn. A setting the engine refuses rejects with its message
   * and the old settings stay.
   */
  setParams(params: SamplerParams): Promise<StepRecord | null>;
  /** Draws the next token. */
  step(): Promise<StepRecord>;
  /** Draws up to n tokens (1 to 2000; fewer if the text ends). */
  generate(n: number): Promise<StepRecord[]>;
  /** Ends the session (the model's Worker stops with its last user). */
  close(): void;
}
