// @ts-check
/**
 * settings.js — the sampler's settings: the sliders (clamped), presets,
 * the chain's order and its stages' switches, bans, finite logit biases and
 * DRY's sequence breakers; each change re-warps what is on screen (the
 * next token, or a pinned past step) without drawing.
 */
import { batch } from '@preact/signals';
import { MAX_BANS, MAX_BIASES, presetParams } from '../lab.js';
import { PARAM_SPECS, SPEC, TERMINAL, clampParam, orderName, orderOf } from '../params.js';
import { errorMsg } from '../errors.js';
import { engineParamsOf } from './engineArgs.js';
import { SAMPLE_COUNT } from './core.js';
import { msg } from '../../i18n/index.js';

/**
 * @param {import('./core.js').Core & import('./view.js').View & ReturnType<typeof import('./stages.js').createStages>} p
 */
export function createSettingsActions(p) {
  const { flipStage, client, session, runtime, decoderState, model, params, samplers, activeParam, bans, biases, dryBreakers, badWords, seqBias, peeked, steps,
    status, focus, hover, sampling, setError, sampleArg, applyNext, settings, engineParams, paramsKey, viewIndex, decoder } = p;

  /**
   * Runs fn now, or once more after the run in progress (bursts of slider
   * moves make one request at a time, the last one with the last value).
   * @param {() => Promise<void>} fn
   */
  function coalesced(fn) {
    let running = false;
    let again = false;
    return async () => {
      if (running) {
        again = true;
        return;
      }
      running = true;
      try {
        do {
          again = false;
          await fn();
        } while (again);
      } catch (err) {
        setError('engine', errorMsg('engine', err));
      } finally {
        running = false;
      }
    };
  }

  /** Re-warps the pending logits with the current settings (no draw). */
  const refreshPreview = coalesced(async () => {
    if (!status.value?.ready || !decoder.value.previews) return;
    const e = runtime.epoch;
    const n = stepCountNow();
    const res = await client.request('preview', { session, params: engineParams.value, samples: sampleArg() });
    if (e === runtime.epoch && n === stepCountNow() && (!res.next || res.next.index === status.value?.nGenerated)) applyNext(res);
  });

  /** generated tokens so far (steps in sampling; the spec text) */
  const stepCountNow = () => decoder.peek().generated(decoderState);

  /** Re-warps the pinned past step with the current settings (time travel, no draw). */
  const refreshPeek = coalesced(async () => {
    const i = focus.value;
    if (i === null || !decoder.value.timeTravel || i >= steps.value.length) return;
    const e = runtime.epoch;
    const key = paramsKey.value;
    const drawn = sampling.value ? { n: SAMPLE_COUNT, seed: runtime.drawCount * 1000003 + i } : undefined;
    const res = await client.request('peek', { session, index: i, params: engineParams.value, samples: drawn });
    if (e === runtime.epoch && focus.value === i && key === paramsKey.value) {
      peeked.value = { index: i, key, summary: res.step, samples: res.samples };
    }
  });

  /** The settings changed: re-warp what is on screen (the pinned past step too). */
  function settingsChanged() {
    if (focus.value !== null && viewIndex.value !== null) {
      hover.value = null;
      refreshPeek();
    } else {
      batch(() => {
        focus.value = null;
        hover.value = null;
      });
    }
    refreshPreview();
  }

  /**
   * Sets a sampler setting (clamped onto the slider's range and grid); the
   * bars re-warp at once (a pinned past step too: time travel), the
   * following steps use it.
   * @param {string} key @param {number} value
   */
  function setParam(key, value) {
    const spec = SPEC[key];
    if (!spec) throw new RangeError(`unknown setting ${key}`);
    const max = key === 'top_k' && model.value ? model.value.vocab : spec.max;
    const v = clampParam(spec, value, max);
    activeParam.value = key;
    if (params.value[/** @type {keyof import('../params.js').Params} */ (key)] === v) return;
    params.value = { ...params.value, [key]: v };
    settingsChanged();
  }

  /**
   * Sets all the sampler settings at once (a preset).
   * @param {import('../params.js').Params} p
   */
  function setParams(p) {
    const vocab = model.value?.vocab;
    const next = { ...p, top_k: vocab !== undefined ? Math.min(p.top_k, vocab) : p.top_k };
    if (JSON.stringify(next) === JSON.stringify(params.value)) return;
    params.value = next;
    settingsChanged();
  }

  /** Applies a compare preset's settings. @param {string} id */
  function applyPreset(id) {
    setParams(presetParams(id));
  }

  // ---- the chain -----------------------------------------------------------

  /** the values a stage had when the learner turned it off (to turn it on again) */
  /** @type {Map<string, Record<string, number>>} */
  const offValues = new Map();

  /**
   * Puts the chain's stages in this order (a preset's name when it is
   * one); the bars re-warp at once, the following steps use it.
   * @param {string[]} stages
   */
  function setOrder(stages) {
    const name = orderName(stages);
    if (name === samplers.value) return;
    samplers.value = name;
    settingsChanged();
  }

  /**
   * Turns a stage on (its switch to the value it had, or to a typical one;
   * into the chain if the order left it out) or off (every switch to
   * neutral).
   * @param {string} stage @param {boolean} on
   */
  function setStageOn(stage, on) {
    const switches = PARAM_SPECS.filter((s) => s.stage === stage && s.isSwitch);
    /** @type {Record<string, number>} */
    const next = { ...params.value };
    if (on) {
      const before = offValues.get(stage);
      if (before) Object.assign(next, before);
      else if (switches[0]) next[switches[0].key] = switches[0].on;
      const order = orderOf(samplers.value);
      if (!TERMINAL.some((s) => s.name === stage) && !order.includes(stage)) samplers.value = orderName([...order, stage]);
    } else {
      offValues.set(stage, Object.fromEntries(switches.filter((s) => params.value[s.key] !== s.def).map((s) => [s.key, params.value[s.key]])));
      for (const s of switches) next[s.key] = s.def;
    }
    params.value = next;
    flipStage(stage, on);
    settingsChanged();
  }

  /**
   * A stage turned on that the engine still calls off (XTC with a
   * threshold above 0.5): its other settings to their typical values too.
   * @param {string} stage
   */
  function setStageTypical(stage) {
    const others = PARAM_SPECS.filter((s) => s.stage === stage && !s.isSwitch && params.value[s.key] !== s.on);
    if (!others.length) return;
    params.value = { ...params.value, ...Object.fromEntries(others.map((s) => [s.key, s.on])) };
    flipStage(stage, true);
    settingsChanged();
  }

  // ---- bans -----------------------------------------------------------

  /** @param {number[]} list */
  function setBans(list) {
    const vocab = model.value?.vocab ?? Infinity;
    const clean = [...new Set(list)].filter((t) => Number.isInteger(t) && t >= 0 && t < vocab).sort((a, b) => a - b).slice(0, MAX_BANS);
    if (JSON.stringify(clean) === JSON.stringify(bans.value)) return;
    bans.value = clean;
    settingsChanged();
  }

  /** Bans a token (logit bias -inf), or lifts its ban. @param {number} token */
  function toggleBan(token) {
    const has = bans.value.includes(token);
    if (!has && bans.value.length >= MAX_BANS) {
      setError('bans', msg('bans.max', { count: MAX_BANS }));
      return;
    }
    setError('bans');
    setBans(has ? bans.value.filter((t) => t !== token) : [...bans.value, token]);
  }

  /**
   * Sets a token's finite logit bias (0 removes it); a banned token keeps
   * its ban.
   * @param {number} token @param {number} value
   */
  function setBias(token, value) {
    const vocab = model.value?.vocab ?? Infinity;
    if (!Number.isInteger(token) || token < 0 || token >= vocab || !Number.isFinite(value)) return;
    const rest = biases.value.filter(([t]) => t !== token);
    if (value !== 0 && rest.length >= MAX_BIASES) {
      setError('bans', msg('biases.max', { count: MAX_BIASES }));
      return;
    }
    setError('bans');
    biases.value = (value === 0 ? rest : [...rest, /** @type {[number, number]} */ ([token, value])]).sort((a, b) => a[0] - b[0]);
    settingsChanged();
  }

  /**
   * DRY's sequence breakers (texts, each 1 to 8 of the model's tokens; a
   * text the engine cannot take is refused with its message).
   * @param {string[]} list
   */
  async function setDryBreakers(list) {
    const clean = [...new Set(list.filter((x) => x !== ''))];
    if (JSON.stringify(clean) === JSON.stringify(dryBreakers.value)) return true;
    const { keep, why } = await taken('dryBreakers', clean);
    setError('dry', why.length ? msg('error.dryBreakers', { count: why.length }, why.join(' ')) : '');
    if (JSON.stringify(keep) !== JSON.stringify(dryBreakers.value)) {
      dryBreakers.value = keep;
      settingsChanged();
    }
    return why.length === 0;
  }

  /**
   * Of a list of texts the engine makes tokens (DRY's breakers, the bad
   * words, the sequence biases), those it takes and its messages for the
   * others: it is asked first, so a text it refuses never reaches the
   * steps (and of several, it keeps those it takes).
   * @template T @param {'dryBreakers' | 'badWords' | 'seqBias'} key @param {T[]} list
   */
  async function taken(key, list) {
    /** '' when the engine takes these, else its message @param {T[]} l */
    const refusal = async (l) => {
      if (!status.value?.ready || !decoder.value.previews) return '';
      try {
        await client.request('preview', { session, params: engineParamsOf({ ...settings.value, [key]: l }) });
        return '';
      } catch (err) {
        return /** @type {Error} */ (err).message || String(err);
      }
    };
    let keep = list;
    /** @type {string[]} */
    const why = [];
    if (await refusal(list)) {
      keep = [];
      for (const b of list) {
        const no = await refusal([...keep, b]);
        if (no) why.push(no);
        else keep.push(b);
      }
    }
    return { keep, why };
  }

  /**
   * The bad words (kind 'bad': texts) or the sequence biases ('bias':
   * [text, value] pairs), each made the model's tokens by the engine,
   * which refuses the texts it cannot take (no token, more than 16, a
   * character the model cannot write).  Resolves to its messages for
   * those left out.
   * @param {'bad' | 'bias'} kind @param {Array<string | [string, number]>} list
   * @returns {Promise<string[]>}
   */
  async function setWords(kind, list) {
    const target = kind === 'bad' ? badWords : seqBias;
    const seen = new Set();
    const clean = list.filter((x) => (typeof x === 'string' ? x : x[0]) !== '' && !seen.has(JSON.stringify(x)) && seen.add(JSON.stringify(x)));
    const { keep, why } = await taken(kind === 'bad' ? 'badWords' : 'seqBias', clean);
    if (JSON.stringify(keep) !== JSON.stringify(target.value)) {
      /** @type {any} */ (target).value = keep;
      settingsChanged();
    }
    return why;
  }

  /**
   * The tokens of a text and their probabilities in the next-token
   * distribution under the current settings (the Worker asks the engine).
   * @param {string} text
   * @returns {Promise<{count: number, found: import('../../worker/find.js').FoundToken[]}>}
   */
  function findToken(text) {
    return client.request('findToken', { session, text, params: engineParams.value });
  }

  /**
   * Classifier-free guidance's negative prompt ('': the prompt's last token
   * alone): the engine's second run reads it from the next step on.
   * @param {string} text
   */
  function setNegativePrompt(text) {
    if (text === p.negativePrompt.value) return;
    p.negativePrompt.value = text;
    settingsChanged();
  }

  return { setNegativePrompt, findToken, refreshPreview, refreshPeek, settingsChanged, setParam, setParams, applyPreset, setOrder, setStageOn, setStageTypical, setBans, toggleBan, setBias, setDryBreakers, setWords };
}

/** @typedef {ReturnType<typeof createSettingsActions>} SettingsActions */
