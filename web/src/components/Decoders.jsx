// @ts-check
/**
 * The views of the two other decoding strategies: beam search (the best
 * beam's text; the live beams with their log-probabilities and scores) and
 * speculative decoding (the text with each token's fate; the rounds with
 * what was drafted, accepted, rejected and corrected; the running totals).
 */
import { useLayoutEffect, useRef } from 'preact/hooks';

import { showPiece } from '../app/format.js';
import { rate } from '../app/metrics.js';

/** Keeps a scrolled text at its end as it grows. */
function useTail(/** @type {unknown} */ dep) {
  const ref = useRef(/** @type {HTMLDivElement | null} */ (null));
  useLayoutEffect(() => {
    if (ref.current) ref.current.scrollTop = ref.current.scrollHeight;
  }, [dep]);
  return ref;
}

/**
 * The best beam's text.
 * @param {{prompt: string, beam: import('../app/panel.js').BeamState | null, live: boolean}} props
 */
export function BeamText({ prompt, beam, live }) {
  const best = beam?.hypotheses[0];
  const ref = useTail(best?.text);
  return (
    <div ref={ref} class={`spg-output${live ? ' is-live' : ''}`} data-testid="output" tabIndex={0} role="group" aria-label="The best beam's text">
      {prompt && <span class="spg-prompt" data-testid="output-prompt">{prompt}</span>}
      {best && <span data-testid="beam-best">{best.text}</span>}
    </div>
  );
}

/**
 * The beams, best first.
 * @param {{beam: import('../app/panel.js').BeamState | null, prompt: string}} props
 */
export function BeamList({ beam, prompt }) {
  if (!beam) return <p class="spg-hint">No beams yet.</p>;
  const tail = (/** @type {string} */ t) => (t.length > 48 ? `…${t.slice(-48)}` : t);
  return (
    <div class="spg-beams">
      <p class="spg-hint" data-testid="beam-summary">
        Width {beam.width}{beam.lengthPenalty ? `, length penalty ${beam.lengthPenalty}` : ''} · {beam.live} growing ·{' '}
        {beam.expansions} step{beam.expansions === 1 ? '' : 's'}
      </p>
      <ol class="spg-beam-list">
        {beam.hypotheses.map((h, i) => (
          <li
            key={i}
            class={`spg-beam${i === 0 ? ' is-best' : ''}${h.finished ? ' is-finished' : ''}`}
            data-testid="beam"
            data-rank={String(i + 1)}
            data-logprob={String(h.logprob)}
            data-score={String(h.score)}
            data-finished={h.finished ? 'true' : 'false'}
            data-text={h.text}
          >
            <span class="spg-beam-text spg-mono">
              {prompt && !h.text.length ? <span class="spg-prompt">{prompt}</span> : null}
              {showPiece(tail(h.text)) || '∅'}
            </span>
            <span class="spg-beam-num" title="sum of ln p over the beam's tokens">ln p {h.logprob.toFixed(2)}</span>
            <span class="spg-beam-num" title="what beams are ranked by: ln p ÷ length^penalty">score {h.score.toFixed(3)}</span>
            <span class="spg-beam-tag">{h.finished ? 'ended' : i === 0 ? 'best' : ''}</span>
          </li>
        ))}
      </ol>
      <p class="spg-hint">
        Each step extends every beam by every token and keeps the best {beam.width}: no randomness, so temperature and
        truncation do not apply (bans and penalties do). A beam that emits the end-of-text token is kept as ended.
      </p>
    </div>
  );
}

const STATUS_TEXT = { accepted: 'drafted and accepted', corrected: 'the model\'s correction of a rejected draft', bonus: 'a bonus token: every draft was accepted' };

/**
 * The speculative text: just the text, laid out as the same text sampled
 * one token at a time would be; each token's fate is a mark that moves
 * nothing (accepted drafts underlined, the model's corrections wavy, bonus
 * tokens boxed).  The rejected drafts are in the rounds view.
 * @param {{prompt: string, spec: import('../app/panel.js').SpecState | null, live: boolean}} props
 */
export function SpecText({ prompt, spec, live }) {
  const tokens = spec?.tokens ?? [];
  const ref = useTail(tokens.length);
  /** the draft each corrected token replaced (for its tooltip) */
  const replaced = new Map();
  for (const r of spec?.rounds ?? []) {
    if (r.rejected) {
      const at = r.tokens.find((t) => t.status === 'corrected');
      if (at) replaced.set(at.index, r.rejected);
    }
  }
  return (
    <div ref={ref} class={`spg-output spg-spec-text${live ? ' is-live' : ''}`} data-testid="output" tabIndex={0} role="group" aria-label="Generated text, by speculative decoding">
      {prompt && <span class="spg-prompt" data-testid="output-prompt">{prompt}</span>}
      {tokens.map((t) => {
        const r = replaced.get(t.index);
        return (
          <span
            key={t.index}
            class={`spg-spec-tok is-${t.status}`}
            data-testid="spec-token"
            data-status={t.status}
            data-token={String(t.token)}
            data-rejected={r ? r.piece : undefined}
            title={`${JSON.stringify(t.piece)}: ${STATUS_TEXT[t.status]}${r ? ` (the draft was ${JSON.stringify(r.piece)})` : ''}`}
          >
            {t.piece}
          </span>
        );
      })}
    </div>
  );
}

/**
 * The running totals and the last rounds.
 * @param {{spec: import('../app/panel.js').SpecState | null, draftName: import('preact').ComponentChildren}} props
 */
export function SpecRounds({ spec, draftName }) {
  if (!spec) return <p class="spg-hint">No rounds yet.</p>;
  const t = spec.totals;
  const generated = spec.tokens.length;
  const recent = spec.rounds.slice(-8).reverse();
  return (
    <div class="spg-spec">
      <dl class="spg-readouts">
        <div>
          <dt>Acceptance rate</dt>
          <dd data-testid="spec-rate" data-accepted={String(t.accepted)} data-drafted={String(t.drafted)}>{rate(t.accepted, t.drafted)}</dd>
          <dd class="spg-sub">{t.accepted} of {t.drafted} drafts</dd>
        </div>
        <div>
          <dt>Rounds</dt>
          <dd data-testid="spec-rounds">{t.rounds}</dd>
          <dd class="spg-sub">{generated} tokens</dd>
        </div>
        <div>
          <dt>Positions verified</dt>
          <dd data-testid="spec-positions" data-value={String(t.targetPositions)}>{t.targetPositions}</dd>
          <dd class="spg-sub">by the model</dd>
        </div>
      </dl>
      <p class="spg-hint">
        {draftName} drafts {spec.n} token{spec.n === 1 ? '' : 's'} a round. A batched verifier would check a round's
        positions in one pass of the model: {t.rounds ? (generated / t.rounds).toFixed(2) : '–'} tokens per pass here.
      </p>
      <ol class="spg-rounds" reversed>
        {recent.map((r) => {
          const cut = r.tokens.findIndex((x) => x.status !== 'accepted');
          return (
            <li key={r.round} class="spg-round" data-testid="spec-round" data-round={String(r.round)}>
              <span class="spg-round-n">#{r.round}</span>
              <span class="spg-round-drafts" aria-label="drafted">
                {r.drafted.map((d, i) => {
                  const fate = i < cut || cut < 0 ? 'accepted' : i === cut && r.rejected ? 'rejected' : 'unchecked';
                  return <span key={i} class={`spg-draft is-${fate}`} title={fate === 'unchecked' ? 'not checked: an earlier draft was rejected' : fate}>{d.token < 0 ? '?' : showPiece(d.piece)}</span>;
                })}
              </span>
              <span aria-hidden="true">→</span>
              <span class="spg-round-out">
                {r.tokens.map((x) => <span key={x.index} class={`spg-spec-tok is-${x.status}`} title={STATUS_TEXT[x.status]}>{x.end ? '⏹' : showPiece(x.piece)}</span>)}
              </span>
            </li>
          );
        })}
      </ol>
      <p class="spg-legend">
        <span><i class="spg-key spg-key-accepted" /> accepted</span>
        <span><i class="spg-key spg-key-rejected" /> rejected</span>
        <span><i class="spg-key spg-key-corrected" /> corrected</span>
        <span><i class="spg-key spg-key-bonus" /> bonus</span>
      </p>
    </div>
  );
}
