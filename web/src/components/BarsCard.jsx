// @ts-check
/**
 * The next-token bars of a panel and what goes with them: the heading that
 * says which step they show (the next token, or a past one), what a click
 * does, the scale, the drag hint, and samples drawn from the distribution.
 */
import { useEffect, useRef, useState } from 'preact/hooks';

import { cutLabel, showPiece } from '../app/format.js';
import { SAMPLE_COUNT } from '../app/panel.js';
import { Rich, useI18n } from './I18n.jsx';
import { EDIT_HINT, LOG_DECADES, ProbBars } from './ProbBars.jsx';

/** @typedef {import('../app/panel.js').Panel} Panel */

/** what a past step's heading says of how its token came (catalogue keys, by strategy) */
const PAST_STEP = /** @type {Record<string, string>} */ ({ sample: 'step.sampled', beam: 'step.beamHas', speculative: 'step.roundsGave' });

/**
 * What the bars show: the next token, or a past step (time travel).  On a
 * phone (compact) the live heading is one line: the click hint and its
 * toggle follow the bars (BarsHelp), so the first bars are on screen.
 * @param {{panel: Pick<Panel, 'barAction' | 'decoder' | 'focus' | 'pin' | 'session' | 'shown' | 'status' | 'steps' |
 *     'strategy' | 'viewIndex'>, compact?: boolean}} props
 */
export function StepHeading({ panel, compact = false }) {
  const i18n = useI18n();
  const { t } = i18n;
  const s = panel.shown.value;
  const i = panel.viewIndex.value;
  if (i !== null && !s) {
    return (
      <div class="spg-stephead is-past" data-testid="step-heading">
        <p><Rich k="step.asking" vars={{ n: i + 1 }} /></p>
      </div>
    );
  }
  if (i !== null && s) {
    const was = panel.steps.value[i];
    return (
      <div class="spg-stephead is-past" data-testid="step-heading">
        {s.kind === 'peek'
          ? (
            <p data-testid="peek-heading">
              <Rich k="step.peek" vars={{ n: i + 1, piece: showPiece(was.piece), was: i18n.pct(was.p), now: i18n.pct(s.p) }} />
              <span class="spg-hint"> {t('step.peekHint')}</span>
            </p>
          )
          : (
            <p>
              <Rich
                k={s.forced ? 'step.picked' : s.fastForwarded ? 'step.fastForwarded' : PAST_STEP[panel.strategy.value] ?? 'step.sampled'}
                vars={{ n: i + 1, piece: showPiece(s.piece), p: i18n.pct(s.p), u: i18n.fixed(s.u, 3) }}
              />
              <span class="spg-hint"> {t(panel.decoder.value.forcing ? 'step.pastHint' : 'step.pastHintNoForce')}</span>
            </p>
          )}
        {panel.focus.value !== null && (
          <button type="button" class="spg-btn spg-btn-small" onClick={() => panel.pin(null)} data-testid="back-live">
            {t('step.back')}
          </button>
        )}
      </div>
    );
  }
  const sampling = panel.strategy.value === 'sample';
  return (
    <div class="spg-stephead" data-testid="step-heading">
      {s && s.nKept === 1 && sampling && (
        <p class="spg-note" data-testid="seed-free">{t('step.seedFree')}</p>
      )}
      <p>
        <Rich k={panel.status.value?.nGenerated ? 'step.nextAt' : 'step.next'} vars={{ n: (panel.status.value?.nGenerated ?? 0) + 1 }} />
        {!compact && <ClickHint panel={panel} />}
      </p>
      {!compact && <BarAction panel={panel} />}
    </div>
  );
}

/**
 * What a click on a bar does now (after the live step's heading).
 * @param {{panel: Pick<Panel, 'barAction' | 'strategy'>}} props
 */
function ClickHint({ panel }) {
  const { t } = useI18n();
  const sampling = panel.strategy.value === 'sample';
  return (
    <span class="spg-hint">
      {' '}
      {t(sampling ? (panel.barAction.value === 'force' ? 'step.hintForce' : 'step.hintBan') : 'step.hintBanOnly')}
    </span>
  );
}

/**
 * How to read and use the bars: the scale, and what dragging a bar does;
 * on a phone also what a click does (compact), all after the bars.
 * @param {{panel: Pick<Panel, 'barAction' | 'barScale' | 'canEdit' | 'session' | 'strategy' |
 *     'viewIndex'>, compact?: boolean}} props
 */
export function BarsHelp({ panel, compact = false }) {
  const live = panel.viewIndex.value === null;
  return (
    <div class={`spg-bars-help${compact ? ' is-after' : ''}`}>
      {compact && live && <p class="spg-click-hint"><ClickHint panel={panel} /></p>}
      {compact && live && <BarAction panel={panel} />}
      <ScaleSwitch panel={panel} />
      <EditHint panel={panel} />
    </div>
  );
}

/** @param {{panel: Pick<Panel, 'clearSamples' | 'drawSamples' | 'focus' | 'next' | 'shownSamples' |
 *     'viewIndex'>}} props */
export function SampleControls({ panel }) {
  const i18n = useI18n();
  const { t } = i18n;
  const s = panel.shownSamples.value;
  const live = panel.viewIndex.value === null;
  const pinned = panel.focus.value !== null && !live;
  return (
    <div class="spg-samples">
      <button type="button" class="spg-btn" onClick={() => panel.drawSamples()} disabled={!panel.next.value && !pinned} data-testid="draw-samples">
        {t('samples.draw', { n: String(SAMPLE_COUNT) })}
      </button>
      {s && (
        <>
          <span class="spg-kl">
            <Rich k="samples.kl" vars={{ kl: <strong data-testid="kl" data-value={String(s.kl)}>{i18n.fixed(s.kl, 4)}</strong> }} />
          </span>
          <button type="button" class="spg-btn spg-btn-small" onClick={() => panel.clearSamples()}>{t('samples.clear')}</button>
        </>
      )}
      {!s && !live && !pinned && <span class="spg-hint">{t('samples.pinFirst')}</span>}
    </div>
  );
}

/**
 * @param {{panel: Pick<Panel, 'barAction' | 'barScale' | 'canEdit' | 'clickBar' | 'editProb' | 'edits' | 'playing' |
 *     'resetModel' | 'shown' | 'shownSamples' | 'strategy' |
 *     'viewIndex'>, onBan?: ((token: number) => void) | null, playing?: boolean,
 *   onClicked?: (click: SaidClick) => void}} props
 *   playing: Play runs (a compare panel is played by compare mode; by default the panel's own Play)
 *   onBan: compare mode (a click bans; no forcing, so the panels stay in step); null: a click does nothing
 *   onClicked: what a click did (an element says it, with Undo: ClickNote)
 */
export function Bars({ panel, onBan, playing, onClicked }) {
  const { t } = useI18n();
  const live = panel.viewIndex.value === null;
  const force = panel.barAction.value === 'force' && panel.strategy.value === 'sample';
  // click="none" (an element's default): a click on a bar does nothing (onBan null: a compare panel's element says so)
  const clicks = onBan !== null && (!!onBan || panel.barAction.value !== 'none');
  const editable = !onBan && panel.canEdit.value;
  return (
    <>
    <EditedBadge panel={panel} />
    <ProbBars
      summary={panel.shown.value}
      samples={panel.shownSamples.value}
      scale={panel.barScale.value}
      windowed={playing ?? !!panel.playing?.value}
      onEdit={editable ? (token, p) => { panel.editProb(token, p); } : null}
      onPick={clicks ? (token, e) => {
        if (onBan && live) return onBan(token);
        // (the token's text as the bars show it now: after a pick, the next bars are another step's)
        const s = panel.shown.value;
        const at = s ? Array.prototype.indexOf.call(s.ids, token) : -1;
        const did = panel.clickBar(token, { force: !onBan && !!e?.shiftKey });
        if (did) onClicked?.({ ...did, piece: at >= 0 && s ? s.pieces[at] : null });
        return undefined;
      } : undefined}
      pickHint={clicks ? t(!live ? 'bars.hintBranch' : onBan ? 'bars.hintBan' : force ? 'bars.hintPick' : 'bars.hintBanShift') : ''}
    />
    </>
  );
}

/**
 * What dragging a bar's handle does, where the bars can edit the model.
 * @param {{panel: Pick<Panel, 'canEdit'>}} props
 */
export function EditHint({ panel }) {
  const { t } = useI18n();
  return panel.canEdit.value ? <small class="spg-hint" data-testid="edit-hint">{t(EDIT_HINT)}</small> : null;
}

/** each scale: its name and what it means (catalogue keys) */
const SCALES = /** @type {const} */ ([
  ['linear', 'scale.linear', 'scale.linearNote'],
  ['max', 'scale.max', 'scale.maxNote'],
  ['log', 'scale.log', 'scale.logNote'],
]);

/**
 * How long a bar is for its probability: linear, relative to the largest
 * bar, or log (the sample ticks follow).
 * @param {{panel: {barScale: import('@preact/signals').Signal<import('../app/hash.js').BarScale>, session: string}}} props
 */
export function ScaleSwitch({ panel }) {
  const i18n = useI18n();
  const { t } = i18n;
  const scale = panel.barScale.value;
  const note = SCALES.find(([k]) => k === scale)?.[2] ?? 'scale.linearNote';
  return (
    <div class="spg-scale">
      <div class="spg-seg spg-seg-small" role="radiogroup" aria-label={t('scale.label')}>
        <span class="spg-hint" aria-hidden="true">{t('scale.prefix')}</span>
        {SCALES.map(([k, label]) => (
          <label key={k} class={`spg-seg-opt${scale === k ? ' is-on' : ''}`}>
            <input
              type="radio" name={`${panel.session}-bar-scale`} value={k} checked={scale === k}
              data-testid={`scale-${k}`} onChange={() => { panel.barScale.value = k; }}
            />
            <span>{t(label)}</span>
          </label>
        ))}
      </div>
      <small class="spg-hint" data-testid="scale-note">{t(note, { low: i18n.pct(10 ** -LOG_DECADES), high: i18n.pct(1) })}</small>
    </div>
  );
}

/**
 * Find a token by its text, where the bars show only the top tokens of a
 * large vocabulary: the tokens the model's tokenizer makes of the text, and
 * each one's model and final probability of being next (the engine's,
 * asked again as the text grows or the settings change).
 * @param {{panel: Pick<Panel, 'findToken' | 'shown' | 'strategy' | 'viewIndex'>, uid: string}} props
 */
export function FindToken({ panel, uid }) {
  const i18n = useI18n();
  const { t } = i18n;
  const [text, setText] = useState('');
  const [answer, setAnswer] = useState(/** @type {{count: number, found: import('../worker/find.js').FoundToken[]} | {error: string} | null} */ (null));
  const asked = useRef(0);
  const shown = panel.shown.value;
  const live = panel.viewIndex.value === null && panel.strategy.value === 'sample';
  const show = !!shown && !shown.full && live;
  // the next token changed (a step, a slider): ask again
  useEffect(() => {
    if (!show || text === '') {
      setAnswer(null);
      return undefined;
    }
    const n = ++asked.current;
    const timer = setTimeout(() => {
      panel.findToken(text).then(
        (r) => { if (n === asked.current) setAnswer(r); },
        (err) => { if (n === asked.current) setAnswer({ error: err?.message ?? String(err) }); },
      );
    }, 250);
    return () => clearTimeout(timer);
  }, [text, shown, show]);
  if (!show) return null;
  return (
    <div class="spg-find" data-testid="find-token">
      <label for={`${uid}-find`}>{t('find.label')}</label>
      <input
        id={`${uid}-find`}
        type="text"
        value={text}
        autocomplete="off"
        spellcheck={false}
        dir="auto"
        placeholder={t('find.placeholder')}
        aria-describedby={`${uid}-find-hint`}
        data-testid="find-input"
        onInput={(e) => setText(/** @type {HTMLInputElement} */ (e.currentTarget).value)}
      />
      <small class="spg-hint" id={`${uid}-find-hint`}>{t('find.hint')}</small>
      {answer && 'error' in answer && <p class="spg-error" role="alert" data-testid="find-error">{answer.error}</p>}
      {answer && 'found' in answer && (
        <div aria-live="polite">
          <p class="spg-hint">{t('find.count', { count: answer.count })}</p>
          <ul class="spg-find-list">
            {answer.found.map((f) => (
              <li key={f.token} data-testid="found-token" data-token={String(f.token)} data-raw={String(f.raw)} data-final={String(f.final)}>
                <code>{showPiece(f.piece)}</code>{' '}
                {t('find.row', { token: i18n.int(f.token), raw: i18n.pct(f.raw), final: i18n.pct(f.final) })}
                {f.cut !== 'kept' && <span class="spg-hint"> {t('find.cut', { by: cutLabel(f.cut, i18n) })}</span>}
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}

/** what a click on a live bar can do, and its words (catalogue keys) */
const BAR_ACTIONS = /** @type {const} */ ([['ban', 'action.ban'], ['force', 'action.force']]);

/** What a click on a live bar does: ban the token, or pick it as the next one. */
/** @param {{panel: Pick<Panel, 'barAction' | 'session' | 'strategy'>}} props */
export function BarAction({ panel }) {
  const { t } = useI18n();
  const action = panel.barAction.value;
  const sampling = panel.strategy.value === 'sample';
  return (
    <div class="spg-seg spg-seg-small" role="radiogroup" aria-label={t('action.label')}>
      <span class="spg-hint">{t('action.prefix')}</span>
      {BAR_ACTIONS.map(([k, key]) => (
        <label key={k} class={`spg-seg-opt${action === k ? ' is-on' : ''}`}>
          <input
            type="radio" name={`${panel.session}-bar-action`} value={k} checked={action === k}
            disabled={k === 'force' && !sampling}
            data-testid={`bar-action-${k}`}
            onChange={() => { panel.barAction.value = k; }}
          />
          <span>{t(key)}</span>
        </label>
      ))}
    </div>
  );
}

/** The "edited" badge and "Reset model", when the model has edits. @param {{panel: Pick<Panel, 'edits' |
 *     'resetModel'>}} props */
export function EditedBadge({ panel }) {
  const { t } = useI18n();
  const n = panel.edits.value.length;
  if (!n) return null;
  return (
    <p class="spg-edited" data-testid="edited" data-edits={String(n)}>
      <span class="spg-badge" title={t('edited.hint')}>{t('edited.badge')}</span>
      <button type="button" class="spg-btn spg-btn-small" data-testid="reset-model" onClick={() => panel.resetModel()}>{t('edited.reset')}</button>
    </p>
  );
}

/** a click and its token's text @typedef {import('../app/panel/timeTravel.js').Click & {piece: string | null}} SaidClick */

/**
 * What the last click on a bar did, while it holds (the token is still
 * banned; the forced token is still in the text), with Undo: an element
 * whose author lets a click ban or force says so where the reader looks.
 * @param {{panel: Pick<Panel, 'bans' | 'forced' | 'unclick'>, click: SaidClick | null,
 *   onDone: () => void}} props
 */
export function ClickNote({ panel, click, onDone }) {
  const i18n = useI18n();
  const { t } = i18n;
  if (!click || click.did === 'unban') return null;
  const holds = click.did === 'ban'
    ? panel.bans.value.includes(click.token)
    : panel.forced.value.some(([i, tok]) => i === click.index && tok === click.token);
  if (!holds) return null;
  const piece = click.piece !== null ? JSON.stringify(click.piece) : `#${click.token}`;
  return (
    <p class="spg-click-note" role="status" data-testid="click-note" data-did={click.did} data-token={String(click.token)}>
      {t(click.did === 'ban' ? 'click.banned' : 'click.picked', { piece, n: click.index + 1 })}{' '}
      <button type="button" class="spg-btn spg-btn-small" data-testid="click-undo" onClick={() => { panel.unclick(click); onDone(); }}>
        {t('click.undo')}
      </button>
    </p>
  );
}
