// @ts-check
/**
 * The views of the two other decoding strategies: beam search (the best
 * beam's text; the live beams with their log-probabilities and scores) and
 * speculative decoding (the text with each token's fate; the rounds with
 * what was drafted, accepted, rejected and corrected; the running totals).
 */
import { showPiece } from '../app/format.js';
import { rate } from '../app/metrics.js';
import { timeTravelHandlers } from './timeTravel.js';
import { useTail } from './useTail.js';
import { teachSay, useTeach } from '../teach/teach.js';
import { Rich, useI18n } from './I18n.jsx';

/**
 * The best beam's text (under a constraint, the best complete one), one
 * span per token: hovering or clicking a token shows the distribution
 * beam search ranked it in (time travel), arrow keys step through.
 * @param {{prompt: string, beam: import('../app/panel.js').BeamState | null, live: boolean,
 *   steps: import('../worker/summary.js').StepSummary[], focus: number | null,
 *   onHover: (i: number | null) => void, onFocus: (i: number | null) => void}} props
 */
export function BeamText({ prompt, beam, live, steps, focus, onHover, onFocus }) {
  const i18n = useI18n();
  const { t } = i18n;
  const ref = useTail(steps.length);
  return (
    <div
      ref={ref} class={`spg-output${live ? ' is-live' : ''}`} dir="auto" data-testid="output" tabIndex={0} role="group"
      aria-label={t('beams.textLabel')}
      {...timeTravelHandlers(steps.length, focus, onHover, onFocus)}
    >
      {prompt && <span class="spg-prompt" data-testid="output-prompt">{prompt}</span>}
      {beam && (
        <span data-testid="beam-best">
          {steps.map((s, i) => (
            <span key={i} class={`spg-tok${i === focus ? ' is-focus' : ''}`} data-step={String(i)} data-testid="beam-token"
              data-token={String(s.token)} title={t('beams.tokenTitle', { n: i + 1, piece: JSON.stringify(s.piece), p: i18n.fixed(s.p, 3) })}>{s.piece}</span>
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
  const i18n = useI18n();
  const { t } = i18n;
  const texts = useTeach(i18n.lang);
  if (!beam) return <p class="spg-hint">{t('beams.none')}</p>;
  // diverse beam search: each hypothesis's group, and what it paid
  const groups = beam.groups ?? 1;
  const tail = (/** @type {string} */ t) => (t.length > 48 ? `…${t.slice(-48)}` : t);
  return (
    <div class="spg-beams">
      <p class="spg-hint" data-testid="beam-summary">
        {t(beam.lengthPenalty ? 'beams.summaryPenalty' : 'beams.summary', {
          width: beam.width, penalty: beam.lengthPenalty, live: beam.live, count: beam.expansions,
        })}
      </p>
      {groups > 1 && (
        <p class="spg-hint" data-testid="beam-groups-summary" data-groups={String(groups)} data-diversity={String(beam.diversity ?? 0)}>
          {teachSay(texts, i18n, 'strategyText.diverse', { groups, size: beam.width / groups, penalty: i18n.fixed(beam.diversity ?? 0, 1) })}
        </p>
      )}
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
            data-group={String(h.group ?? 0)}
            data-penalty={String(h.penalty ?? 0)}
          >
            <span class="spg-beam-text spg-mono">
              {groups > 1 && (
                <span class={`spg-beam-group is-g${(h.group ?? 0) % 4}`} title={h.penalty ? teachSay(texts, i18n, 'diverse.penaltyTitle', { v: i18n.fixed(h.penalty, 2) }) : undefined}>
                  {teachSay(texts, i18n, 'diverse.group', { n: (h.group ?? 0) + 1 }) || `${(h.group ?? 0) + 1}`}
                  {h.penalty ? ` −${i18n.fixed(h.penalty, 1)}` : ''}
                </span>
              )}
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

/**
 * The last rejection: the draft the model turned down, and the residual
 * max(0, p − q) its replacement was drawn from, as bars beside p and q.
 * @param {{round: import('../worker/protocol.js').SpecRound}} props
 */
function Residual({ round }) {
  const i18n = useI18n();
  const { t } = i18n;
  const res = /** @type {import('../worker/protocol.js').SpecResidual} */ (round.residual);
  const rejected = round.rejected;
  const top = Math.max(...res.bars.map((b) => Math.max(b.r, b.p, b.q)), 1e-9);
  const pct = (/** @type {number} */ x) => `${((100 * x) / top).toFixed(1)}%`;
  return (
    <figure class="spg-residual" data-testid="spec-residual" data-round={String(round.round)}>
      <figcaption>
        <Rich k="spec.residualCaption" vars={{ round: round.round, draft: <b class="spg-mono">{rejected ? showPiece(rejected.piece) : '?'}</b>, mass: i18n.fixed(res.mass, 3) }} />
      </figcaption>
      <table class="spg-residual-bars">
        <thead><tr><th>{t('spec.residualToken')}</th><th>{t('spec.residualP')}</th><th>{t('spec.residualQ')}</th><th>{t('spec.residual')}</th></tr></thead>
        <tbody>
          {res.bars.map((b) => (
            <tr key={b.token} class={rejected && b.token === rejected.token ? 'is-rejected' : ''} data-testid="residual-bar" data-token={String(b.token)} data-r={String(b.r)}>
              <td class="spg-mono">{showPiece(b.piece)}</td>
              <td><span class="spg-rbar is-p" style={{ width: pct(b.p) }} />{i18n.fixed(b.p, 3)}</td>
              <td><span class="spg-rbar is-q" style={{ width: pct(b.q) }} />{i18n.fixed(b.q, 3)}</td>
              <td><span class="spg-rbar is-r" style={{ width: pct(b.r) }} />{i18n.fixed(b.r, 3)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}

/** what each fate of a speculative token means (catalogue keys) */
const STATUS_TEXT = { accepted: 'spec.accepted', corrected: 'spec.corrected', bonus: 'spec.bonus' };

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
  const { t } = useI18n();
  const tokens = spec?.tokens ?? [];
  const ref = useTail(tokens.length);
  /** the draft each corrected token replaced (for its tooltip) */
  const replaced = new Map();
  for (const r of spec?.rounds ?? []) {
    if (r.rejected) {
      const at = r.tokens.find((x) => x.status === 'corrected');
      if (at) replaced.set(at.index, r.rejected);
    }
  }
  return (
    <div
      ref={ref} class={`spg-output spg-spec-text${live ? ' is-live' : ''}`} dir="auto" data-testid="output" tabIndex={0} role="group"
      aria-label={t('spec.textLabel')}
      {...timeTravelHandlers(tokens.length, focus, onHover, onFocus)}
    >
      {prompt && <span class="spg-prompt" data-testid="output-prompt">{prompt}</span>}
      {tokens.map((x) => {
        const r = replaced.get(x.index);
        const fate = t(STATUS_TEXT[x.status]);
        return (
          <span
            key={x.index}
            class={`spg-spec-tok is-${x.status}${x.index === focus ? ' is-focus' : ''}`}
            data-step={String(x.index)}
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
  const texts = useTeach(i18n.lang);
  if (!spec) return <p class="spg-hint">{t('spec.none')}</p>;
  // prompt lookup: the text drafts (where each round's draft came from)
  const lookup = (spec.ngram ?? 0) > 0;
  /** @param {import('../worker/protocol.js').SpecRound} r */
  const matchText = (r) => {
    const m = r.match;
    if (!m) return '';
    if (m.at === null) return teachSay(texts, i18n, 'lookup.noMatch');
    return m.at < 0 ? teachSay(texts, i18n, 'lookup.matchPrompt', { ngram: m.ngram }) : teachSay(texts, i18n, 'lookup.match', { at: m.at + 1, ngram: m.ngram });
  };
  const tot = spec.totals;
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
          <dt>{t('spec.rate')}</dt>
          <dd data-testid="spec-rate" data-accepted={String(tot.accepted)} data-drafted={String(tot.drafted)}>{rate(tot.accepted, tot.drafted, i18n)}</dd>
          <dd class="spg-sub">{t('spec.ofDrafts', { accepted: tot.accepted, count: tot.drafted })}</dd>
        </div>
        <div>
          <dt>{t('spec.perPassLabel')}</dt>
          <dd data-testid="spec-per-pass" data-passes={String(w?.targetPasses ?? 0)}>{w && w.targetPasses ? i18n.fixed(generated / w.targetPasses, 2) : '–'}</dd>
          <dd class="spg-sub">{t('spec.tokensPasses', { tokens: t('spec.tokens', { count: generated }), count: w?.targetPasses ?? 0 })}</dd>
        </div>
        <div>
          <dt>{t('spec.speedup')}</dt>
          <dd data-testid="spec-speedup" data-ms={String(w?.ms ?? 0)} data-plain-ms={String(w?.plainMs ?? 0)}>{speedup ? t('spec.times', { x: i18n.fixed(speedup, 2) }) : '–'}</dd>
          <dd class="spg-sub">{w ? t('spec.measured', { count: ratios.length, ms: i18n.fixed(w.ms, 1), plainMs: i18n.fixed(w.plainMs, 1) }) : ''}</dd>
        </div>
        <div>
          <dt>{t('spec.positions')}</dt>
          <dd data-testid="spec-positions" data-value={String(tot.targetPositions)}>{i18n.int(tot.targetPositions)}</dd>
          <dd class="spg-sub">{w ? t('spec.fedIn', { fed: w.targetFed, count: tot.rounds }) : t('spec.byModel')}</dd>
        </div>
      </dl>
      <p class="spg-hint">
        <Rich k={w && !w.matched ? 'spec.perRoundMapped' : 'spec.perRound'} vars={{ draft: <>{lookup ? teachSay(texts, i18n, 'lookup.name') : draftName}</>, count: spec.n }} />
        {' '}{t('spec.batched')}
      </p>
      {lastRejection && <Residual round={lastRejection} />}
      <ol class="spg-rounds" reversed>
        {recent.map((r) => {
          const cut = r.tokens.findIndex((x) => x.status !== 'accepted');
          return (
            <li key={r.round} class="spg-round" data-testid="spec-round" data-round={String(r.round)}
              {...(r.match ? { 'data-match': String(r.match.at), 'data-ngram': String(r.match.ngram), title: matchText(r) } : {})}>
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
              {lookup && <small class="spg-round-match" data-testid="spec-match">{matchText(r)}</small>}
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
