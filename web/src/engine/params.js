// @ts-check
/**
 * params.js — sampler settings into the engine: each number by the
 * registry's index (the engine checks its range and says what is wrong),
 * the chain's order, DRY's sequence breakers, the logit biases; then the
 * engine checks the whole against the vocabulary; and which stages
 * settings turn on, as the engine decides.
 */

/**
 * Sampler settings: any parameter of the engine's registry by its name
 * (Engine.params lists them all), plus three that are not numbers:
 * logit_bias (token id -> value
 * added to its logit; -Infinity bans it), samplers (the chain's order:
 * stage names joined by commas, or "default", "hf", "llama.cpp") and
 * dry_breakers (DRY's sequence breakers, each a token id or a list of ids)
 * and dry_sequence_breakers (the same as texts, tokenized by the model's
 * tokenizer as the CLI's --dry-sequence-breaker: 1 to 8 tokens each).
 * Words, not ids: bad_words (texts, as the CLI's --bad-words) or
 * bad_words_ids (lists of token ids), sequence_bias ([text, value] pairs,
 * as --sequence-bias TEXT=VALUE) or sequence_bias_ids ([[ids], value]
 * pairs, Hugging Face's list form).  negative_prompt (a text): classifier-free
 * guidance's unconditional run, a session's (cfg_scale mixes it in).
 * @typedef {Record<string, any>} SamplerParams
 */

/**
 * Writes settings into an engine-side params struct (allocated once per
 * owner) and validates them against the vocabulary.
 * @param {import('./engine.js').Engine} e
 * @param {number} ptr
 * @param {SamplerParams} params
 * @param {number} vocab
 * @param {import('./tokenizer.js').Tokenizer | null} [tokenizer] what turns dry_sequence_breakers into tokens
 */
export function writeParams(e, ptr, params, vocab, tokenizer = null) {
  if (params === null || typeof params !== 'object') throw new TypeError('params must be an object');
  e.x.api_params_reset(ptr);
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined) continue;
    if (key === 'logit_bias' || key === 'samplers' || key === 'dry_breakers' || key === 'dry_sequence_breakers' || WORD_KEYS.has(key)
      || key === 'negative_prompt') continue; // a session's (Session.step), not the sampler's
    const field = e.paramIndex.get(key);
    if (field === undefined) throw new TypeError(`unknown sampler parameter "${key}"`);
    if (typeof value !== 'number') throw new TypeError(`${key.replaceAll('_', '-')} must be a number (got ${typeof value})`);
    e.check(e.x.api_params_set(ptr, field, value));
  }
  if (params.samplers !== undefined) {
    if (typeof params.samplers !== 'string') throw new TypeError('samplers must be a string of stage names (or default, hf, llama.cpp)');
    const text = e.allocString(params.samplers, 'samplers');
    try {
      e.check(e.x.api_params_set_order(ptr, text));
    } finally {
      e.free(text);
    }
  }
  /** @type {Array<number | number[]>} */
  const breakers = [...(params.dry_breakers ?? [])];
  for (const text of params.dry_sequence_breakers ?? []) {
    if (typeof text !== 'string') throw new TypeError('dry_sequence_breakers must be texts');
    if (!tokenizer) throw new TypeError('dry_sequence_breakers: no tokenizer to make them tokens (give dry_breakers as token ids)');
    // the engine makes it tokens, and says what is wrong with it
    e.withString(text, 'dry_sequence_breakers', (textPtr) => e.check(e.x.api_params_add_dry_breaker_text(ptr, tokenizer.handle, textPtr)));
  }
  for (const breaker of breakers) {
    const ids = Array.isArray(breaker) ? breaker : [breaker];
    if (!ids.every((t) => Number.isInteger(t) && t >= 0 && t <= 2147483647)) {
      throw new RangeError(`dry_breakers: ${JSON.stringify(breaker)} is not a token id or a list of them`);
    }
    const arr = e.malloc(4 * Math.max(1, ids.length));
    try {
      e.ints(arr, ids.length).set(ids);
      e.check(e.x.api_params_add_dry_breaker(ptr, arr, ids.length));
    } finally {
      e.free(arr);
    }
  }
  writeWords(e, ptr, params, tokenizer);
  const bias = params.logit_bias;
  if (bias !== undefined) {
    const entries = Array.isArray(bias) ? bias : Object.entries(bias);
    for (const entry of entries) {
      if (!Array.isArray(entry) || entry.length !== 2) throw new TypeError('logit_bias entries must be [token, value] pairs');
      const token = Number(entry[0]);
      const value = entry[1];
      if (typeof value !== 'number') throw new TypeError(`logit_bias: the value for token ${entry[0]} is a ${typeof value}, not a number`);
      e.check(e.x.api_params_add_bias(ptr, token, value));
    }
  }
  e.check(e.x.api_params_check(ptr, vocab));
}

/** the settings that are words, not ids */
export const WORD_KEYS = new Set(['bad_words', 'bad_words_ids', 'sequence_bias', 'sequence_bias_ids']);

/**
 * Bad words and sequence biases, as texts (the engine makes them the
 * model's tokens) or as token ids.
 * @param {import('./engine.js').Engine} e
 * @param {number} ptr
 * @param {SamplerParams} params
 * @param {import('./tokenizer.js').Tokenizer | null} tokenizer
 */
function writeWords(e, ptr, params, tokenizer) {
  for (const name of WORD_KEYS) {
    const list = params[name] ?? [];
    if (!Array.isArray(list)) throw new TypeError(`${name} must be a list`);
    const bad = name.startsWith('bad');
    for (const entry of list) {
      const [word, value] = bad ? [entry, 0] : Array.isArray(entry) && entry.length === 2 ? entry : [];
      if (!bad && typeof value !== 'number') throw new TypeError(`${name} entries must be [${name.endsWith('ids') ? '[token ids]' : 'text'}, value] pairs`);
      if (!name.endsWith('ids')) {
        if (typeof word !== 'string') throw new TypeError(`${name} must be texts`);
        if (!tokenizer) throw new TypeError(`${name}: no tokenizer to make them tokens (give ${name}_ids as token ids)`);
        e.withString(word, name, (at) => e.check(bad ? e.x.api_params_add_bad_word_text(ptr, tokenizer.handle, at)
          : e.x.api_params_add_sequence_bias_text(ptr, tokenizer.handle, at, value)));
        continue;
      }
      if (!Array.isArray(word) || !word.every((t) => Number.isInteger(t) && t >= 0 && t <= 2147483647)) {
        throw new RangeError(`${name}: ${JSON.stringify(word)} is not a list of token ids`);
      }
      const arr = e.malloc(4 * Math.max(1, word.length));
      try {
        e.ints(arr, word.length).set(word);
        e.check(bad ? e.x.api_params_add_bad_word(ptr, arr, word.length) : e.x.api_params_add_sequence_bias(ptr, arr, word.length, value));
      } finally {
        e.free(arr);
      }
    }
  }
}

/**
 * The stages settings turn on, as the engine decides (sp_stage_active, the
 * test the chain itself runs): the chain's stage names in their default
 * order, then the terminal ones ('mirostat', 'adaptive_p').  A stage whose switch is set but whose settings
 * do nothing is not on (XTC with a threshold above 0.5 removes nothing).
 * Settings the engine refuses throw as a warp would.
 * @param {import('./engine.js').Engine} e
 * @param {SamplerParams} params
 * @param {number} [vocab] checks logit_bias's tokens against it (0: any id)
 * @param {import('./tokenizer.js').Tokenizer | null} [tokenizer] for dry_sequence_breakers
 * @returns {string[]}
 */
export function activeStages(e, params, vocab = 0, tokenizer = null) {
  const ptr = e.x.api_params_new();
  if (!ptr) throw new Error('engine: out of memory');
  try {
    writeParams(e, ptr, params, vocab, tokenizer);
    const on = e.stages.filter((_, i) => e.x.api_stage_active(ptr, i) !== 0);
    e.terminal.forEach((name, i) => {
      if (e.x.api_stage_active(ptr, -1 - i) !== 0) on.push(name);
    });
    return on;
  } finally {
    e.x.api_params_free(ptr);
  }
}

/** why the engine refuses a value (sampler_params.h SP_PARAM_*), by its number: '' it takes it */
const REFUSAL_REASONS = /** @type {const} */ (['', 'number', 'whole', 'finite', 'range']);

/**
 * @typedef {Object} Refusal  why the engine refuses a setting's value
 * @property {string} key   the parameter's name
 * @property {'number' | 'whole' | 'finite' | 'range' | 'together'} reason  not a number; a fraction
 *   for a whole-number parameter; infinite or past what the engine's float holds (1e308);
 *   outside its range; refused with the settings before it (mirostat with adaptive-p)
 * @property {string} message  the engine's line
 * @property {string} range    the parameter's range as the engine writes it ("(0, 1]")
 */

/**
 * Why the engine refuses one value of a parameter alone (as it stores and
 * checks it: sp_param_refusal), or null when it takes it.
 * @param {import('./engine.js').Engine} e @param {string} key @param {number} value
 * @returns {Refusal | null}
 */
export function paramRefusal(e, key, value) {
  const i = e.paramIndex.get(key);
  if (i === undefined) throw new TypeError(`unknown sampler parameter "${key}"`);
  const why = REFUSAL_REASONS[e.x.api_param_refusal(i, typeof value === 'number' ? value : NaN)];
  if (!why) return null;
  return { key, reason: why, message: e.lastError(), range: e.cstring(e.x.api_param_range(i)) };
}

/**
 * The values of a setup the engine refuses: each alone (paramRefusal),
 * then together, in the registry's order — a value refused with the ones
 * taken before it (mirostat's mode with adaptive-p's target; a stage the
 * order leaves out) is refused 'together', with the engine's line.
 * @param {import('./engine.js').Engine} e
 * @param {Record<string, number>} values  parameters by name
 * @param {string} [samplers]  the chain's order ('' the default)
 * @returns {Refusal[]}
 */
export function paramRefusals(e, values, samplers = '') {
  /** @type {Refusal[]} */
  const refused = [];
  const ptr = e.x.api_params_new();
  if (!ptr) throw new Error('engine: out of memory');
  try {
    if (samplers) e.withString(samplers, 'samplers', (at) => e.check(e.x.api_params_set_order(ptr, at)));
    e.params.forEach((p, i) => {
      if (!Object.hasOwn(values, p.name)) return;
      const v = values[p.name];
      const alone = paramRefusal(e, p.name, v);
      if (alone) {
        refused.push(alone);
        return;
      }
      if (v === p.neutral) return;
      e.check(e.x.api_params_set(ptr, i, v));
      if (e.x.api_params_check(ptr, 0) !== 0) {
        refused.push({ key: p.name, reason: 'together', message: e.lastError(), range: e.cstring(e.x.api_param_range(i)) });
        e.check(e.x.api_params_set(ptr, i, p.neutral));
      }
    });
  } finally {
    e.x.api_params_free(ptr);
  }
  return refused;
}
