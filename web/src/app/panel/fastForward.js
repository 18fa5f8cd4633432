// @ts-check
/**
 * fastForward.js — Generate N: many tokens in the Worker without a step
 * summary each, Stop, and a fast-forwarded token's record fetched when it
 * is looked at.
 */
import { batch } from '@preact/signals';
import { sample } from '../decoders/sample.js';
import { errorMsg } from '../errors.js';
import { engineParamsOf } from './engineArgs.js';
import { MAX_TOKENS } from '../../shared/limits.js';

/** @typedef {import('../../worker/summary.js').StepSummary} StepSummary */
/**
 * What this module calls of the panel's other modules.
 * @typedef {{refreshPreview: import('./settings.js').SettingsActions['refreshPreview']}} Needs
 */

/**
 * @param {import('./core.js').Core & import('./view.js').View & Needs} p
 */
export function createFastForward(p) {
  const { client, session, runtime, decoderState, model, strategy, constraint, stepSettings, steps, status, hover, generating,
    generated, pausePlay, setError, sampleArg, enqueue, applyNext, settings, paramsKey } = p;

  /** a Stop was asked of the fast-forward in progress */
  let stopAsked = false;

  /**
   * Fast-forward: up to n tokens in the Worker with the current settings,
   * each the token a Step would append (the same text, byte for byte), with
   * progress and no rendering per token.  The text gets one entry per token
   * (its piece, and its probability from the engine's per-token stats); a
   * token's step record comes from the engine when it is looked at
   * (ensureRecord).  With a constraint the text is stepped in small batches
   * instead (a past step's record under a constraint needs the step's own
   * answer: peek does not apply the constraint's mask).
   * Sampling only.
   * @param {number} n
   * @returns {Promise<boolean>} false when nothing was generated
   */
  function generate(n) {
    if (strategy.value !== 'sample' || generating.value) return Promise.resolve(false);
    const want = Math.max(1, Math.min(MAX_TOKENS, Math.round(n) || 1));
    pausePlay();
    return enqueue(async () => {
      if (!status.value?.ready) return false;
      const e = runtime.epoch;
      const used = settings.value;
      const p = engineParamsOf(used);
      const from = steps.value.length;
      stopAsked = false;
      generating.value = { done: 0, total: want };
      const t0 = performance.now();
      let ms = 0;
      let stopped = false;
      try {
        if (constraint.value.kind !== 'none') {
          // stepped in batches: every step's record comes with it
          while (steps.value.length - from < want && status.value?.ready && !stopAsked) {
            const count = Math.min(16, want - (steps.value.length - from));
            const res = await client.request('step', { session, params: p, count, samples: sampleArg() });
            if (e !== runtime.epoch) return false;
            batch(() => {
              sample.stepped(decoderState, res, -1);
              generating.value = { done: steps.value.length - from, total: want };
            });
          }
          stopped = stopAsked && !!status.value?.ready && steps.value.length - from < want;
          ms = performance.now() - t0;
        } else {
          const onProgress = (/** @type {{loaded: number, total: number}} */ pr) => {
            if (e === runtime.epoch && generating.peek()) generating.value = { done: pr.loaded, total: pr.total };
          };
          const res = await client.request('generate', { session, params: p, n: want, samples: sampleArg() }, [], { onProgress });
          if (e !== runtime.epoch) return false;
          const stats = res.lab?.stats ?? [];
          const base = res.lab ? res.lab.statsFrom : from;
          /** @type {StepSummary[]} */
          const added = res.generated.tokens.map((/** @type {{index: number, token: number, piece: string}} */ t) => lazyStep(t, stats[t.index - base]));
          batch(() => {
            steps.value = steps.value.concat(added);
            applyNext(res);
          });
          stopped = res.generated.stopped;
          ms = res.generated.ms;
        }
        const count = steps.value.length - from;
        batch(() => {
          // the settings these tokens ran with (a link replays them)
          stepSettings.value = [...stepSettings.value.slice(0, from), ...Array.from({ length: count }, () => used)];
          generated.value = { count, ms, stopped, from };
        });
        // a setting moved while it ran: the next token under the new one
        if (paramsKey.peek() !== JSON.stringify(p)) p.refreshPreview();
        return count > 0;
      } catch (err) {
        if (e === runtime.epoch) setError('engine', errorMsg('engine', err));
        return false;
      } finally {
        generating.value = null;
      }
    });
  }

  /** Asks the fast-forward in progress to stop (after the chunk the Worker is on). */
  function stopGenerate() {
    if (!generating.peek()) return;
    stopAsked = true;
    client.request('stopGenerate', { session }).catch(() => {});
  }

  /**
   * A fast-forwarded token's entry in the text: its piece and token, its
   * final probability and the step's entropies and nucleus from the
   * engine's per-token stats; the bars' rows come on demand (ensureRecord).
   * @param {{index: number, token: number, piece: string}} t
   * @param {{p: number, entropyBits: number, entropyRawBits: number, nKept: number} | undefined} stat
   * @returns {StepSummary}
   */
  function lazyStep(t, stat) {
    return {
      kind: 'step', index: t.index, vocab: model.peek()?.vocab ?? 0, token: t.token, piece: t.piece,
      p: stat ? stat.p : NaN, u: NaN, forced: false, nKept: stat ? stat.nKept : NaN, keptMass: NaN,
      entropyBits: stat ? stat.entropyBits : NaN, entropyRawBits: stat ? stat.entropyRawBits : NaN,
      argmaxRaw: -1, pArgmax: NaN, pArgmaxRaw: NaN, full: false, bars: 0,
      ids: new Int32Array(0), pieces: [], raw: new Float32Array(0), tempered: new Float32Array(0), final: new Float32Array(0),
      cut: [], cum: new Float64Array(0), penalized: new Uint8Array(0), cuts: [], other: null, params: {}, state: {}, lazy: true,
    };
  }

  /** the fast-forwarded step being fetched, and the one wanted next */
  let recordRunning = false;
  /** @type {number | null} */
  let recordWanted = null;

  /**
   * A fast-forwarded step's record, from the engine: the step re-warped
   * with the settings it ran with (peek), so the same distribution,
   * cutoffs and probabilities the step had; it takes the entry's place in
   * the text.  Nothing to do for a step that has its record.
   * @param {number} i
   */
  async function ensureRecord(i) {
    if (!steps.peek()[i]?.lazy) return;
    recordWanted = i;
    if (recordRunning) return;
    recordRunning = true;
    try {
      while (recordWanted !== null) {
        const k = recordWanted;
        recordWanted = null;
        const stub = steps.peek()[k];
        if (!stub?.lazy) continue;
        const e = runtime.epoch;
        const ran = stepSettings.peek()[k] ?? settings.peek();
        const res = await client.request('peek', { session, index: k, params: engineParamsOf(ran) });
        if (e !== runtime.epoch || steps.peek()[k] !== stub) continue;
        const list = steps.peek().slice();
        list[k] = { ...res.step, kind: 'step', token: stub.token, piece: stub.piece, p: res.step.p, u: NaN, forced: false, fastForwarded: true };
        steps.value = list;
      }
    } catch (err) {
      setError('engine', errorMsg('engine', err));
    } finally {
      recordRunning = false;
    }
  }

  /** a states request is running; another was asked meanwhile */
  let statesRunning = false;
  let statesAgain = false;

  /**
   * The strip's marks of fast-forwarded steps: the state of every lazy step
   * that has none yet (StepSummary.state, from the engine: each step
   * re-warped with the settings it ran with, the text's token as the one
   * drawn), one request per run of steps with the same settings (a
   * fast-forward is one), not one per mark.  The stub stays a stub (its
   * bars still come when it is looked at: ensureRecord) with its state.
   */
  async function ensureStates() {
    if (statesRunning) { statesAgain = true; return; }
    statesRunning = true;
    try {
      do {
        statesAgain = false;
        const list = steps.peek();
        const ran = stepSettings.peek();
        const from = list.findIndex((s) => s.lazy && !s.stateFetched);
        if (from < 0) break;
        let to = from + 1;
        while (to < list.length && list[to].lazy && !list[to].stateFetched && ran[to] === ran[from]) to++;
        const e = runtime.epoch;
        const res = await client.request('states', { session, from, to, params: engineParamsOf(ran[from] ?? settings.peek()) });
        if (e !== runtime.epoch) break;
        const now = steps.peek();
        let filled = 0;
        /** @type {Array<Record<string, number>>} */ (res.states).forEach((state, i) => {
          const s = now[from + i];
          // (the same stub: a step's identity stays, ensureRecord's check)
          if (s && s === list[from + i] && s.lazy && !s.stateFetched) {
            s.state = state;
            s.stateFetched = true;
            filled++;
          }
        });
        if (!filled) break;
        steps.value = now.slice();
        statesAgain = true; // the next run without its state, if any
      } while (statesAgain);
    } catch (err) {
      setError('engine', errorMsg('engine', err));
    } finally {
      statesRunning = false;
    }
  }

  /** The pointer is over a token of the text (null: off it). @param {number | null} i */
  function hoverStep(i) {
    hover.value = i;
    if (i !== null) ensureRecord(i);
  }


  return { generate, stopGenerate, lazyStep, ensureRecord, ensureStates, hoverStep };
}

/** @typedef {ReturnType<typeof createFastForward>} FastForward */
