// @ts-check
/**
 * view.js — what a panel's state adds up to, as computed signals: the
 * settings in force (and as the engine takes them), the step on screen
 * (the live next token, or a past one: time travel), the decoder of the
 * strategy, the text, the attributes of the panel's root, and the setup
 * a link or a compare panel describes.
 */
import { computed } from '@preact/signals';

import { changesOf, defaultState } from '../hash.js';
import { matchPreset } from '../lab.js';
import { BUILTIN_MODELS, TEXT_ID, TRAIN_LINK_BYTES } from '../models.js';
import { DECODERS } from '../decoders/index.js';
import { engineParamsOf } from './engineArgs.js';

/**
 * @param {import('./core.js').Core} p
 */
export function createView(p) {
  const { params, bans, biases, dryBreakers, badWords, seqBias, negativePrompt, samplers, hover, focus, steps, peeked, next, samples, strategy, ready, playing, generating,
    modelId, models, model, edits, seed, prompt, forced, beamOpts, specOpts, constraint, speed, barAction, barScale, stepSettings, decoderState: state } = p;
  /** the settings in force: the sliders and the bans */
  const settings = computed(() => ({ params: params.value, bans: bans.value, biases: biases.value, dryBreakers: dryBreakers.value,
    badWords: badWords.value, seqBias: seqBias.value, samplers: samplers.value, negativePrompt: negativePrompt.value }));
  /** the settings as the engine takes them */
  const engineParams = computed(() => engineParamsOf(settings.value));
  const paramsKey = computed(() => JSON.stringify(engineParams.value));
  /** the step being looked at (time travel), or null: the live next token */
  const viewIndex = computed(() => {
    if (!decoder.value.timeTravel) return null;
    const i = hover.value ?? focus.value;
    return i !== null && i < steps.value.length ? i : null;
  });
  /** the pinned step's re-warp, while it matches the settings */
  const peekShown = computed(() => {
    const pk = peeked.value;
    const i = viewIndex.value;
    return pk && i !== null && pk.index === i && focus.value === i && pk.key === paramsKey.value ? pk : null;
  });
  /** the distribution on screen */
  const shown = computed(() => {
    const i = viewIndex.value;
    if (i === null) return next.value;
    if (peekShown.value) return peekShown.value.summary;
    // a fast-forwarded token: its record is on its way (ensureRecord)
    return steps.value[i].lazy ? null : steps.value[i];
  });
  /** the samples that go with the distribution on screen */
  const shownSamples = computed(() => (viewIndex.value === null ? samples.value : peekShown.value?.samples ?? null));
  /** the decoding strategy's side of the panel (decoders/*.js) */
  const decoder = computed(() => DECODERS[strategy.value]);
  /** how many times Step has advanced this text (what a link's `steps` replays) */
  const stepCount = computed(() => decoder.value.count(state));
  /** the generated text (after the prompt) */
  const text = computed(() => decoder.value.text(state));
  /** the preset these settings are, or 'custom' */
  const preset = computed(() => matchPreset(params.value));
  /** a drag on a bar's top can edit the model: a bigram or hand-made one, sampling, the live step */
  const canEdit = computed(() => {
    const kind = model.value?.kind;
    return (kind === 'bigram' || kind === 'handmade') && strategy.value === 'sample' && viewIndex.value === null;
  });
  /** the live Top-p alone (the nucleus view re-renders only for it) */
  const topP = computed(() => params.value.top_p);
  /** attribute values for the panel's root (bound without re-rendering it) */
  const readyAttr = computed(() => (ready.value ? 'true' : 'false'));
  const playingAttr = computed(() => (playing.value ? 'true' : 'false'));
  /** the Steps taken so far, as an attribute (a test waits for a queued Step to land) */
  const stepsAttr = computed(() => String(stepCount.value));
  /** the panel root's class: dimmed bars while a fast-forward runs */
  const panelClass = computed(() => (generating.value ? 'spg-panel is-generating' : 'spg-panel'));
  /** what the URL hash describes */
  const hashState = computed(() => ({
    ...defaultState(),
    model: hashModel(),
    trainText: trainText(),
    ...(modelLinkUrl() ? { modelUrl: modelLinkUrl() } : {}),
    edits: edits.value,
    params: params.value,
    seed: seed.value,
    prompt: prompt.value,
    chat: p.chat.value,
    steps: stepCount.value,
    forced: forced.value,
    strategy: strategy.value,
    beam: beamOpts.value,
    spec: specOpts.value,
    bans: bans.value,
    biases: biases.value,
    dryBreakers: dryBreakers.value,
    badWords: badWords.value,
    seqBias: seqBias.value,
    negativePrompt: negativePrompt.value,
    constraint: constraint.value,
    speed: speed.value,
    barAction: barAction.value,
    barScale: barScale.value,
    samplers: samplers.value,
    changes: changesOf(stepSettings.value.slice(0, stepCount.value), settings.value),
  }));
  /** this panel's own settings, as a compare link has them */
  const panelSpec = computed(() => ({
    params: params.value, strategy: strategy.value, beam: beamOpts.value, spec: specOpts.value, bans: bans.value, biases: biases.value,
    dryBreakers: dryBreakers.value, badWords: badWords.value, seqBias: seqBias.value, samplers: samplers.value,
  }));

  /** the URL a link loaded the model from (model_url), as it wrote it */
  function modelLinkUrl() {
    return models.value.find((m) => m.id === modelId.value)?.linkUrl ?? '';
  }

  /** the model as a link names it: a shipped one, a hand-made spec, text (trained) or file */
  function hashModel() {
    const id = modelId.value;
    if (!id) return 'bigram';
    if (BUILTIN_MODELS.some((m) => m.id === id)) return id;
    const entry = models.value.find((m) => m.id === id);
    if (entry?.handmade) return entry.handmade;
    return id === TEXT_ID ? TEXT_ID : 'file';
  }

  /** the trained bigram's text, for its link: a short one, in UTF-8 (a BOM kept: the same bytes, the same model) */
  function trainText() {
    const bytes = modelId.value === TEXT_ID ? models.value.find((m) => m.id === TEXT_ID)?.text : undefined;
    if (!bytes || bytes.length > TRAIN_LINK_BYTES) return undefined;
    try {
      return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
    } catch {
      return undefined; // not UTF-8: a link cannot spell it
    }
  }

  return {
    settings, engineParams, paramsKey, viewIndex, peekShown, shown, shownSamples, decoder, stepCount, text, preset, canEdit,
    topP, readyAttr, playingAttr, stepsAttr, panelClass, hashState, panelSpec, hashModel,
  };
}

/** @typedef {ReturnType<typeof createView>} View */
