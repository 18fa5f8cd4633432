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
import { Rich, useI18n } from './I18n.jsx';

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
  const { t } = useI18n();
  const best = beam?.hypotheses[0];
  const ref = useTail(best?.text);
  return (
    <div ref={ref} class={`spg-output${live ? ' is-live' : ''}`} dir="auto" data-testid="output" tabIndex={0} role="group" aria-label={t('beams.textLabel')}>
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
  const i18n = useI18n();
  const { t } = i18n;
  if (!beam) return <p class="spg-hint">{t('beams.none')}</p>;
  const tail = (/** @type {string} */ t) => (t.length > 48 ? `…${t.slice(-48)}` : t);
  return (
    <div class="spg-beams">
      <p class="spg-hint" data-testid="beam-summary">
        {t(beam.lengthPenalty ? 'beams.summaryPenalty' : 'beams.summary', {
          width: beam.width, penalty: beam.lengthPenalty, live: beam.live, count: beam.expansions,
        })}
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
            <span class="spg-beam-num" title={t('beams.logpTitle')}>{t('beams.logp', { v: i18n.fixed(h.logprob, 2) })}</span>
            <span class="spg-beam-num" title={t('beams.scoreTitle')}>{t('beams.score', { v: i18n.fixed(h.score, 3) })}</span>
            <span class="spg-beam-tag">{h.finished ? t('beams.ended') : i === 0 ? t('beams.best') : ''}</span>
          </li>
        ))}
      </ol>
      <p class="spg-hint">{t('beams.hint', { count: beam.width })}</p>
    </div>
  );
}

/** what each fate of a speculative token means (catalogue keys) */
const STATUS_TEXT = { accepted: 'spec.accepted', corrected: 'spec.corrected', bonus: 'spec.bonus' };

/**
 * The speculative text: just the text, laid out as the same text sampled
 * one token at a time would be; each token's fate is a mark that moves
 * nothing (accepted drafts underlined, the model's corrections wavy, bonus
 * tokens boxed).  The rejected drafts are in the rounds view.
 * @param {{prompt: string, spec: import('../app/panel.js').SpecState | null, live: boolean}} props
 */
export function SpecText({ prompt, spec, live }) {
  const { t } = useI18n();
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
    <div ref={ref} class={`spg-output spg-spec-text${live ? ' is-live' : ''}`} dir="auto" data-testid="output" tabIndex={0} role="group" aria-label={t('spec.textLabel')}>
      {prompt && <span class="spg-prompt" data-testid="output-prompt">{prompt}</span>}
      {tokens.map((x) => {
        const r = replaced.get(x.index);
        const fate = t(STATUS_TEXT[x.status]);
        return (
          <span
            key={x.index}
            class={`spg-spec-tok is-${x.status}`}
            data-testid="spec-token"
            data-status={x.status}
            data-token={String(x.token)}
            data-rejected={r ? r.piece : undefined}
            title={r ? t('spec.tokenWasTitle', { piece: JSON.stringify(x.piece), fate, draft: JSON.stringify(r.piece) }) : t('spec.tokenTitle', { piece: JSON.stringify(x.piece), fate })}
          >
            {x.piece}
          </span>
        );
      })}
    </div>
  );
}

/** a drafted token's fate in the rounds view (catalogue keys) */
const FATE_TEXT = { accepted: 'spec.keyAccepted', rejected: 'spec.keyRejected', unchecked: 'spec.unchecked' };

/**
 * The running totals and the last rounds.
 * @param {{spec: import('../app/panel.js').SpecState | null, draftName: import('preact').ComponentChildren}} props
 */
export function SpecRounds({ spec, draftName }) {
  const i18n = useI18n();
  const { t } = i18n;
  if (!spec) return <p class="spg-hint">{t('spec.none')}</p>;
  const tot = spec.totals;
  const generated = spec.tokens.length;
  const recent = spec.rounds.slice(-8).reverse();
  return (
    <div class="spg-spec">
      <dl class="spg-readouts">
        <div>
          <dt>{t('spec.rate')}</dt>
          <dd data-testid="spec-rate" data-accepted={String(tot.accepted)} data-drafted={String(tot.drafted)}>{rate(tot.accepted, tot.drafted, i18n)}</dd>
          <dd class="spg-sub">{t('spec.ofDrafts', { accepted: tot.accepted, count: tot.drafted })}</dd>
        </div>
        <div>
          <dt>{t('spec.rounds')}</dt>
          <dd data-testid="spec-rounds" data-value={String(tot.rounds)}>{i18n.int(tot.rounds)}</dd>
          <dd class="spg-sub">{t('spec.tokens', { count: generated })}</dd>
        </div>
        <div>
          <dt>{t('spec.positions')}</dt>
          <dd data-testid="spec-positions" data-value={String(tot.targetPositions)}>{i18n.int(tot.targetPositions)}</dd>
          <dd class="spg-sub">{t('spec.byModel')}</dd>
        </div>
      </dl>
      <p class="spg-hint">
        <Rich k="spec.perPass" vars={{ draft: <>{draftName}</>, count: spec.n, perPass: tot.rounds ? i18n.fixed(generated / tot.rounds, 2) : '–' }} />
      </p>
      <ol class="spg-rounds" reversed>
        {recent.map((r) => {
          const cut = r.tokens.findIndex((x) => x.status !== 'accepted');
          return (
            <li key={r.round} class="spg-round" data-testid="spec-round" data-round={String(r.round)}>
              <span class="spg-round-n">#{r.round}</span>
              <span class="spg-round-drafts" aria-label={t('spec.drafted')}>
                {r.drafted.map((d, i) => {
                  const fate = i < cut || cut < 0 ? 'accepted' : i === cut && r.rejected ? 'rejected' : 'unchecked';
                  return <span key={i} class={`spg-draft is-${fate}`} title={t(FATE_TEXT[fate])}>{d.token < 0 ? '?' : showPiece(d.piece)}</span>;
                })}
              </span>
              <span aria-hidden="true">→</span>
              <span class="spg-round-out">
                {r.tokens.map((x) => <span key={x.index} class={`spg-spec-tok is-${x.status}`} title={t(STATUS_TEXT[x.status])}>{x.end ? '⏹' : showPiece(x.piece)}</span>)}
              </span>
            </li>
          );
        })}
      </ol>
      <p class="spg-legend">
        <span><i class="spg-key spg-key-accepted" /> {t('spec.keyAccepted')}</span>
        <span><i class="spg-key spg-key-rejected" /> {t('spec.keyRejected')}</span>
        <span><i class="spg-key spg-key-corrected" /> {t('spec.keyCorrected')}</span>
        <span><i class="spg-key spg-key-bonus" /> {t('spec.keyBonus')}</span>
      </p>
    </div>
  );
}
