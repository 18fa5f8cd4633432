// @ts-check
/**
 * Generate N: a number and a button that fast-forward the text by that
 * many tokens in the engine's Worker (no bars drawn per token), a progress
 * bar and Stop while it runs, then how many tokens came and how fast.  The
 * text, its metrics and chart show the result; a token's step record is
 * fetched from the engine when the learner hovers or clicks it.
 */
import { useState } from 'preact/hooks';

import { MAX_TOKENS } from '../shared/limits.js';

/** the texts this control shows */
const T = {
  label: 'Tokens to generate',
  title: 'Fast-forward',
  button: 'Generate',
  buttonTitle: 'Generate this many tokens at once, in the engine\'s Worker, without drawing each step. The same text as pressing Step that many times.',
  stop: 'Stop',
  progress: (/** @type {number} */ done, /** @type {number} */ total) => `Generating: ${done} of ${total} tokens`,
  done: (/** @type {number} */ count, /** @type {string} */ secs, /** @type {string} */ rate) => `Fast-forwarded ${count} token${count === 1 ? '' : 's'} in ${secs} s (${rate} tokens/s in the engine).`,
  stopped: ' Stopped.',
  hint: ' Hover or click one of them to see its step.',
};

/** Generate N's default, and the field's range */
export const GENERATE_DEFAULT = 200;

/** @param {number} ms */
const secsOf = (ms) => (ms / 1000).toFixed(ms < 1000 ? 3 : 2);

/** @param {{panel: import('../app/panel.js').Panel}} props */
export function FastForward({ panel }) {
  const [n, setN] = useState(String(GENERATE_DEFAULT));
  const running = panel.generating.value;
  const last = panel.generated.value;
  const uid = `spg-${panel.session}-gen`;
  if (panel.strategy.value !== 'sample') return null;
  const ready = !!panel.status.value?.ready && !panel.busy.value && !panel.playing.value;
  const room = Math.max(0, MAX_TOKENS - (panel.status.value?.nGenerated ?? 0));
  const value = Math.min(room, Math.max(1, Math.round(Number(n)) || 1));
  const go = () => { if (ready && room > 0) panel.generate(value); };
  return (
    <div class="spg-ff" data-testid="fast-forward">
      {!running && (
        <div class="spg-row spg-ff-row">
          <label class="spg-ff-label" for={uid}><span aria-hidden="true">{T.title}</span><span class="spg-sr">{T.label}</span></label>
          <input
            id={uid} class="spg-ff-n" type="number" inputMode="numeric" min={1} max={Math.max(1, room)} step={1} value={n}
            disabled={!ready} data-testid="generate-n"
            onInput={(e) => setN(/** @type {HTMLInputElement} */ (e.currentTarget).value)}
            onKeyDown={(e) => { if (e.key === 'Enter') go(); }}
          />
          <button type="button" class="spg-btn" onClick={go} disabled={!ready || room === 0} title={T.buttonTitle} data-testid="generate">
            {T.button} {value}
          </button>
        </div>
      )}
      {running && (
        <div class="spg-row spg-ff-row">
          <div
            class="spg-progress-track spg-ff-track"
            role="progressbar"
            aria-label={T.label}
            aria-valuemin={0}
            aria-valuemax={running.total}
            aria-valuenow={running.done}
            aria-valuetext={T.progress(running.done, running.total)}
            data-testid="generate-progress"
          >
            <div class="spg-progress-fill" style={{ width: `${Math.round((100 * running.done) / Math.max(1, running.total))}%` }} />
          </div>
          <button type="button" class="spg-btn" onClick={() => panel.stopGenerate()} data-testid="generate-stop">{T.stop}</button>
          <small class="spg-hint" aria-hidden="true">{running.done} / {running.total}</small>
        </div>
      )}
      {!running && last && last.count > 0 && (
        <small class="spg-hint" data-testid="generate-done" data-count={String(last.count)} data-stopped={String(last.stopped)}>
          {T.done(last.count, secsOf(last.ms), last.ms > 0 ? Math.round((1000 * last.count) / last.ms).toLocaleString('en') : '—')}
          {last.stopped ? T.stopped : ''}
          {T.hint}
        </small>
      )}
    </div>
  );
}
