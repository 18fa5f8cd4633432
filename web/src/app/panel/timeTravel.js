// @ts-check
/**
 * timeTravel.js — looking at the text's past and acting on the bars: a
 * pinned step, a branch from it, a click on a bar (ban, force, branch),
 * and samples drawn from the distribution on screen.
 */
import { batch } from '@preact/signals';
import { changesOf } from '../hash.js';
import { errorMsg } from '../errors.js';

/**
 * What this module calls of the panel's other modules.
 * @typedef {{ensureRecord: import('./fastForward.js').FastForward['ensureRecord'],
 *   refreshPeek: import('./settings.js').SettingsActions['refreshPeek'],
 *   refreshPreview: import('./settings.js').SettingsActions['refreshPreview'],
 *   step: import('./generation.js').Generation['step'], restart: import('./generation.js').Generation['restart'],
 *   toggleBan: import('./settings.js').SettingsActions['toggleBan']}} Needs
 */

/**
 * @param {import('./core.js').Core & import('./view.js').View & Needs} p
 */
export function createTimeTravel(p) {
  const { client, session, runtime, barAction, bans, stepSettings, peeked, steps, forced, focus, hover, samples, sampling, pause,
    setError, sampleArg, applyNext, settings, engineParams, viewIndex, decoder, stepCount } = p;

  /** Pins a past step (time travel), or null: back to the next token. */
  function pin(/** @type {number | null} */ i) {
    batch(() => {
      focus.value = i;
      if (i === null) hover.value = null;
    });
    if (i !== null) p.ensureRecord(i);
  }

  /** Branch: rewind to `index` generated tokens and append `token` instead. */
  async function branch(/** @type {number} */ index, /** @type {number} */ token) {
    pause();
    const e = ++runtime.epoch;
    try {
      const res = await client.request('branch', { session, index, token, params: engineParams.value, samples: sampleArg() });
      if (e !== runtime.epoch) return;
      batch(() => {
        steps.value = steps.value.slice(0, index).concat(res.steps);
        stepSettings.value = [...stepSettings.value.slice(0, index), settings.value];
        forced.value = [...forced.value.filter(([i]) => i < index), [index, token]];
        focus.value = null;
        hover.value = null;
        peeked.value = null;
        applyNext(res);
      });
    } catch (err) {
      if (e === runtime.epoch) setError('engine', errorMsg('engine', err));
    }
  }

  /** At a past step, branch there with this token; live, force it as the next token. */
  function pick(/** @type {number} */ token) {
    const i = viewIndex.value;
    if (i !== null) {
      // a branch is sampling's (speculative text is looked at, not branched)
      if (steps.value[i].token !== token && decoder.value.forcing) branch(i, token);
      return;
    }
    if (decoder.value.forcing) p.step(token);
  }

  /**
   * A click on a bar: at a past step it branches there; live, it bans the
   * token (or lifts its ban), or forces it when `force` (Shift+click) or
   * the bar action says so; with the bar action none (an element's
   * default), nothing.  Says what it did: what an element's line says, and
   * undoes (unclick).
   * @param {number} token @param {{force?: boolean}} [opts]
   * @returns {Click | null}
   */
  function clickBar(token, { force = false } = {}) {
    if (barAction.value === 'none') return null;
    if (viewIndex.value !== null) {
      pick(token);
      return null;
    }
    if ((force || barAction.value === 'force') && decoder.value.forcing) {
      const index = stepCount.value;
      p.step(token);
      return { did: 'force', token, index };
    }
    const banned = !bans.value.includes(token);
    p.toggleBan(token);
    return { did: banned ? 'ban' : 'unban', token, index: stepCount.value };
  }

  /**
   * Undoes a click: lifts the ban it made, or writes the text again as it
   * was before the token it forced (the same seed and picks give the same
   * tokens up to there).
   * @param {Click} click
   */
  function unclick(click) {
    if (click.did === 'ban' || click.did === 'unban') {
      if (bans.value.includes(click.token) === (click.did === 'ban')) p.toggleBan(click.token);
      return Promise.resolve(true);
    }
    const at = click.index;
    return p.restart({
      steps: at,
      forced: forced.value.filter(([i]) => i < at),
      changes: changesOf(stepSettings.value.slice(0, at), settings.value),
    });
  }

  // ---- samples --------------------------------------------------------

  /** Draws 1000 samples of the distribution on screen (a pinned past step too). */
  function drawSamples() {
    runtime.drawCount++;
    sampling.value = true;
    if (focus.value !== null && viewIndex.value !== null && decoder.value.timeTravel) return p.refreshPeek();
    focus.value = null;
    return p.refreshPreview();
  }

  function clearSamples() {
    batch(() => {
      sampling.value = false;
      samples.value = null;
      if (peeked.value) peeked.value = { ...peeked.value, samples: null };
    });
  }


  return { pin, branch, pick, clickBar, unclick, drawSamples, clearSamples };
}

/** What a click on a bar did: banned a token, lifted its ban, or forced it as the token at `index`. @typedef {{did: 'ban' | 'unban' | 'force', token: number, index: number}} Click */

/** @typedef {ReturnType<typeof createTimeTravel>} TimeTravel */
