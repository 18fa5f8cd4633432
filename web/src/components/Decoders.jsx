// @ts-check
/**
 * The views of the two other decoding strategies: beam search (the best
 * beam's text; the live beams with their log-probabilities and scores) and
 * speculative decoding (the text with each token's fate; the rounds with
 * what was drafted, accepted, rejected and corrected; the running totals).
 */
import { showPiece } from '../app/format.js';
import { rate } from '../app/metrics.js';
import { useTail } from './useTail.js';

/**
 * The best beam's text (under a constraint, the best complete one), one
 * span per token: hovering or clicking a token shows the distribution
 * beam search ranked it in (time travel), arrow keys step through.
 * @param {{prompt: string, beam: import('../app/panel.js').BeamState | null, live: boolean,
 *   steps: import('../worker/summary.js').StepSummary[], focus: number | null,
 *   onHover: (i: number | null) => void, onFocus: (i: number | null) => void}} props
 */
export function BeamText({ prompt, beam, live, steps, focus, onHover, onFocus }) {
  const ref = useTail(steps.length);
  /** @param {Event} e */
  const stepOf = (e) => {
    const el = /** @type {HTMLElement | null} */ (/** @type {HTMLElement} */ (e.target).closest?.('[data-step]'));
    return el ? Number(el.dataset.step) : null;
  };
  const onKeyDown = (/** @type {KeyboardEvent} */ e) => {
    if (!steps.length) return;
    let i = focus;
    if (e.key === 'ArrowLeft') i = i === null ? steps.length - 1 : Math.max(0, i - 1);
    else if (e.key === 'ArrowRight') i = i === null ? null : i + 1 >= steps.length ? null : i + 1;
    else if (e.key === 'Home') i = 0;
    else if (e.key === 'End' || e.key === 'Escape') i = null;
    else return;
    e.preventDefault();
    onFocus(i);
  };
  return (
    <div
      ref={ref} class={`spg-output${live ? ' is-live' : ''}`} data-testid="output" tabIndex={0} role="group"
      aria-label="The best beam's text (arrow keys: step through the tokens; Escape: back)"
      onMouseOver={(e) => { const i = stepOf(e); if (i !== null) onHover(i); }}
      onMouseLeave={() => onHover(null)}
      onClick={(e) => { const i = stepOf(e); if (i !== null) onFocus(i === focus ? null : i); }}
      onKeyDown={onKeyDown}
    >
      {prompt && <span class="spg-prompt" data-testid="output-prompt">{prompt}</span>}
      {beam && (
        <span data-testid="beam-best">
          {steps.map((s, i) => (
            <span key={i} class={`spg-tok${i === focus ? ' is-focus' : ''}`} data-step={String(i)} data-testid="beam-token"
              data-token={String(s.token)} title={`step ${i + 1}: ${JSON.stringify(s.piece)}, p = ${s.p.toFixed(3)}`}>{s.piece}</span>
          ))}
        </span>
      )}
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

/**
 * The last rejection: the draft the model turned down, and the residual
 * max(0, p − q) its replacement was drawn from, as bars beside p and q.
 * @param {{round: import('../worker/host.js').SpecRound}} props
 */
function Residual({ round }) {
  const res = /** @type {import('../worker/host.js').SpecResidual} */ (round.residual);
  const rejected = round.rejected;
  const top = Math.max(...res.bars.map((b) => Math.max(b.r, b.p, b.q)), 1e-9);
  const pct = (/** @type {number} */ x) => `${((100 * x) / top).toFixed(1)}%`;
  return (
    <figure class="spg-residual" data-testid="spec-residual" data-round={String(round.round)}>
      <figcaption>
        Round #{round.round}: the model turned down the draft <b class="spg-mono">{rejected ? showPiece(rejected.piece) : '?'}</b> and
        drew its replacement from the residual max(0, p − q) (total {res.mass.toFixed(3)}, rescaled to 1):
      </figcaption>
      <table class="spg-residual-bars">
        <thead><tr><th>token</th><th>p (model)</th><th>q (draft)</th><th>residual</th></tr></thead>
        <tbody>
          {res.bars.map((b) => (
            <tr key={b.token} class={rejected && b.token === rejected.token ? 'is-rejected' : ''} data-testid="residual-bar" data-token={String(b.token)} data-r={String(b.r)}>
              <td class="spg-mono">{showPiece(b.piece)}</td>
              <td><span class="spg-rbar is-p" style={{ width: pct(b.p) }} />{b.p.toFixed(3)}</td>
              <td><span class="spg-rbar is-q" style={{ width: pct(b.q) }} />{b.q.toFixed(3)}</td>
              <td><span class="spg-rbar is-r" style={{ width: pct(b.r) }} />{b.r.toFixed(3)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}

const STATUS_TEXT = { accepted: 'drafted and accepted', corrected: 'the model\'s correction of a rejected draft', bonus: 'a bonus token: every draft was accepted' };

/**
 * The speculative text: just the text, laid out as the same text sampled
 * one token at a time would be; each token's fate is a mark that moves
 * nothing (accepted drafts underlined, the model's corrections wavy, bonus
 * tokens boxed).  The rejected drafts are in the rounds view.
 * Hovering a token shows its step's distribution, a click pins it (time
 * travel), arrow keys step through the tokens, Escape goes back to the
 * live step (as OutputText).
 * @param {{prompt: string, spec: import('../app/panel.js').SpecState | null, live: boolean,
 *   focus?: number | null, onHover?: (i: number | null) => void, onFocus?: (i: number | null) => void}} props
 */
export function SpecText({ prompt, spec, live, focus = null, onHover = () => {}, onFocus = () => {} }) {
  const tokens = spec?.tokens ?? [];
  const ref = useTail(tokens.length);
  /** @param {Event} e */
  const stepOf = (e) => {
    const el = /** @type {HTMLElement | null} */ (/** @type {HTMLElement} */ (e.target).closest?.('[data-step]'));
    return el ? Number(el.dataset.step) : null;
  };
  const onKeyDown = (/** @type {KeyboardEvent} */ e) => {
    if (!tokens.length) return;
    let i = focus;
    if (e.key === 'ArrowLeft') i = i === null ? tokens.length - 1 : Math.max(0, i - 1);
    else if (e.key === 'ArrowRight') i = i === null ? null : i + 1 >= tokens.length ? null : i + 1;
    else if (e.key === 'Home') i = 0;
    else if (e.key === 'End' || e.key === 'Escape') i = null;
    else return;
    e.preventDefault();
    onFocus(i);
  };
  /** the draft each corrected token replaced (for its tooltip) */
  const replaced = new Map();
  for (const r of spec?.rounds ?? []) {
    if (r.rejected) {
      const at = r.tokens.find((t) => t.status === 'corrected');
      if (at) replaced.set(at.index, r.rejected);
    }
  }
  return (
    <div
      ref={ref} class={`spg-output spg-spec-text${live ? ' is-live' : ''}`} data-testid="output" tabIndex={0} role="group"
      aria-label="Generated text, by speculative decoding (arrow keys: step through the tokens; Escape: back to the next round)"
      onMouseOver={(e) => { const i = stepOf(e); if (i !== null) onHover(i); }}
      onMouseLeave={() => onHover(null)}
      onClick={(e) => { const i = stepOf(e); if (i !== null) onFocus(i === focus ? null : i); }}
      onKeyDown={onKeyDown}
    >
      {prompt && <span class="spg-prompt" data-testid="output-prompt">{prompt}</span>}
      {tokens.map((t) => {
        const r = replaced.get(t.index);
        return (
          <span
            key={t.index}
            class={`spg-spec-tok is-${t.status}${t.index === focus ? ' is-focus' : ''}`}
            data-step={String(t.index)}
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
  const w = spec.work;
  const generated = spec.tokens.length;
  const recent = spec.rounds.slice(-8).reverse();
  let lastRejection = null;
  for (const r of spec.rounds) if (r.residual) lastRejection = r;
  // the median of the rounds' ratios: the first rounds run the engine's
  // code cold, and other work on the machine hits single rounds
  const ratios = spec.rounds.filter((r) => r.ms > 0 && r.plainMs > 0).map((r) => r.plainMs / r.ms).sort((a, b) => a - b);
  const speedup = ratios.length ? ratios[Math.floor((ratios.length - 1) / 2)] : null;
  return (
    <div class="spg-spec">
      <dl class="spg-readouts">
        <div>
          <dt>Acceptance rate</dt>
          <dd data-testid="spec-rate" data-accepted={String(t.accepted)} data-drafted={String(t.drafted)}>{rate(t.accepted, t.drafted)}</dd>
          <dd class="spg-sub">{t.accepted} of {t.drafted} drafts</dd>
        </div>
        <div>
          <dt>Tokens per pass</dt>
          <dd data-testid="spec-per-pass" data-passes={String(w?.targetPasses ?? 0)}>{w && w.targetPasses ? (generated / w.targetPasses).toFixed(2) : '–'}</dd>
          <dd class="spg-sub">{generated} tokens, {w?.targetPasses ?? 0} passes of the model</dd>
        </div>
        <div>
          <dt>Speed-up</dt>
          <dd data-testid="spec-speedup" data-ms={String(w?.ms ?? 0)} data-plain-ms={String(w?.plainMs ?? 0)}>{speedup ? `${speedup.toFixed(2)}×` : '–'}</dd>
          <dd class="spg-sub">{w ? `measured: median of ${ratios.length} rounds; in all ${w.ms.toFixed(1)} ms vs ${w.plainMs.toFixed(1)} ms one token at a time` : ''}</dd>
        </div>
        <div>
          <dt>Positions verified</dt>
          <dd data-testid="spec-positions" data-value={String(t.targetPositions)}>{t.targetPositions}</dd>
          <dd class="spg-sub">{w ? `${w.targetFed} fed in ${t.rounds} rounds` : 'by the model'}</dd>
        </div>
      </dl>
      <p class="spg-hint">
        {draftName} drafts {spec.n} token{spec.n === 1 ? '' : 's'} a round{w && !w.matched ? ' (its tokens mapped to the model\'s by their text)' : ''}.
        The model checks them all in one batched pass, which reads each of its weights once for every position:
        a model whose weights do not fit in the processor's caches is bound by reading them, so that pass costs
        little more than one token's, and every accepted draft is a token gained. A model small enough to fit in the
        caches (this tiny transformer does) is bound by its arithmetic instead, which batching does not reduce:
        there a round can cost more than the tokens it gains. The speed-up is measured here, against the same tokens
        decoded one at a time.
      </p>
      {lastRejection && <Residual round={lastRejection} />}
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
