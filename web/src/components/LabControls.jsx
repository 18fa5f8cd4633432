// @ts-check
/**
 * The decoding lab's controls beside the sliders: the strategy and its
 * options (beam width and length penalty; draft model and draft length),
 * the constraint, the banned tokens, the bar-click action, and the two
 * roads to greedy decoding.
 */
import { useEffect, useRef, useState } from 'preact/hooks';

import { pieceName, showPiece } from '../app/format.js';
import { BEAM_WIDTH, BIAS_RANGE, CONSTRAINT_BUDGET, DIVERSITY, LENGTH_PENALTY, LOOKUP, LOOKUP_NGRAM, SPECULATE, STRATEGIES } from '../app/lab.js';
import { teachSay, useTeach } from '../teach/teach.js';
import { Rich, Say, modelName, useI18n } from './I18n.jsx';

/** @typedef {import('../app/panel.js').Panel} Panel */

/**
 * @param {{
 *   panel: Pick<Panel, 'beamOpts' | 'busy' | 'errors' | 'models' | 'ready' | 'setBeamOpts' | 'setSpecOpts' |
 *     'setStrategy' | 'specOpts' | 'strategy'>, uid: string,
 *   onStrategy?: (s: import('../app/lab.js').Strategy) => void,
 *   onTuned?: () => void,
 * }} props
 *   onStrategy / onTuned: compare mode's way to regenerate the panel
 */
export function StrategyPicker({ panel, uid, onStrategy, onTuned }) {
  const { t } = useI18n();
  const how = panel.strategy.value;
  const busy = !!panel.busy.value && !panel.ready.value;
  return (
    <fieldset class="spg-strategy">
      <legend>{t('strategy.legend')}</legend>
      <div class="spg-seg" role="radiogroup" aria-label={t('strategy.label')}>
        {STRATEGIES.map((s) => (
          <label key={s.id} class={`spg-seg-opt${how === s.id ? ' is-on' : ''}`}>
            <input
              type="radio"
              name={`${uid}-strategy`}
              value={s.id}
              checked={how === s.id}
              disabled={busy}
              data-testid={`strategy-${s.id}`}
              onChange={() => (onStrategy ? onStrategy(s.id) : panel.setStrategy(s.id))}
            />
            <span>{t(s.label)}</span>
          </label>
        ))}
      </div>
      {how === 'beam' && <BeamOptions panel={panel} uid={uid} onTuned={onTuned} />}
      {how === 'speculative' && <SpecOptions panel={panel} uid={uid} onTuned={onTuned} />}
      {how === 'sample' && <small class="spg-hint">{t('strategy.sampleHint')}</small>}
    </fieldset>
  );
}

/** @param {{panel: Pick<Panel, 'beamOpts' | 'setBeamOpts'>, uid: string, onTuned?: () => void}} props */
function BeamOptions({ panel, uid, onTuned }) {
  const i18n = useI18n();
  const { t } = i18n;
  const { width, lengthPenalty, groups = 1, diversity = 0 } = panel.beamOpts.value;
  const texts = useTeach(i18n.lang);
  /** @param {{width?: number, lengthPenalty?: number, groups?: number, diversity?: number}} o */
  const set = (o) => {
    if (onTuned) {
      const next = { ...panel.beamOpts.value, ...o };
      // the groups split the beams evenly: the nearest divisor below
      let g = Math.min(next.groups ?? 1, next.width);
      while (next.width % g) g--;
      panel.beamOpts.value = { ...next, groups: g };
      onTuned();
    } else panel.setBeamOpts(o);
  };
  /** @param {string} id @param {string} label @param {number} v @param {string} shown @param {{min: number, max: number, step: number}} r @param {(v: number) => void} on */
  const slider = (id, label, v, shown, r, on) => (
    <div class="spg-slider">
      <div class="spg-slider-head">
        <label for={`${uid}-${id}`}>{label}</label>
        <output for={`${uid}-${id}`}>{shown}</output>
      </div>
      <input type="range" id={`${uid}-${id}`} min={r.min} max={r.max} step={r.step} value={v} data-testid={id}
        onChange={(e) => on(Number(/** @type {HTMLInputElement} */ (e.currentTarget).value))} />
    </div>
  );
  return (
    <div class="spg-opts">
      <div class="spg-slider">
        <div class="spg-slider-head">
          <label for={`${uid}-beams`}>{t('beam.width')}</label>
          <output for={`${uid}-beams`}>{i18n.int(width)}</output>
        </div>
        <input
          type="range" id={`${uid}-beams`} min={BEAM_WIDTH.min} max={BEAM_WIDTH.max} step={1} value={width}
          aria-describedby={`${uid}-beams-hint`} data-testid="beam-width"
          onChange={(e) => set({ width: Number(/** @type {HTMLInputElement} */ (e.currentTarget).value) })}
        />
        <small id={`${uid}-beams-hint`} class="spg-hint">
          {width === 1 ? t('beam.widthGreedy') : t('beam.widthHint', { count: width })}
        </small>
      </div>
      <div class="spg-slider">
        <div class="spg-slider-head">
          <label for={`${uid}-lp`}>{t('beam.lengthPenalty')}</label>
          <output for={`${uid}-lp`}>{i18n.fixed(lengthPenalty, 1)}</output>
        </div>
        <input
          type="range" id={`${uid}-lp`} min={LENGTH_PENALTY.min} max={LENGTH_PENALTY.max} step={LENGTH_PENALTY.step} value={lengthPenalty}
          aria-describedby={`${uid}-lp-hint`} data-testid="length-penalty"
          onChange={(e) => set({ lengthPenalty: Number(/** @type {HTMLInputElement} */ (e.currentTarget).value) })}
        />
        <small id={`${uid}-lp-hint`} class="spg-hint" data-testid="length-penalty-hint">
          <Rich k="beam.lengthPenaltyHint" />
        </small>
      </div>
      {/* diverse beam search (HF's num_beam_groups, diversity_penalty) */}
      {slider('beam-groups', t('beam.groups'), groups, i18n.int(groups), { min: 1, max: width, step: 1 }, (g) => set({ groups: g }))}
      {slider('diversity-penalty', t('beam.diversity'), diversity, i18n.fixed(diversity, 1), DIVERSITY, (d) => set({ diversity: d }))}
      <small class="spg-hint" data-testid="diverse-hint">
        {teachSay(texts, i18n, groups > 1 ? 'strategyText.diverse' : 'strategyText.diverseOff', { groups, size: width / groups, penalty: i18n.fixed(diversity, 1) })}
      </small>
    </div>
  );
}

/** @param {{panel: Pick<Panel, 'errors' | 'models' | 'setSpecOpts' |
 *     'specOpts'>, uid: string, onTuned?: () => void}} props */
function SpecOptions({ panel, uid, onTuned }) {
  const i18n = useI18n();
  const { t } = i18n;
  const { draft, n, ngram = LOOKUP_NGRAM.def } = panel.specOpts.value;
  const lookup = draft === LOOKUP;
  const texts = useTeach(i18n.lang);
  const error = panel.errors.value.spec;
  /** @param {{draft?: string, n?: number, ngram?: number}} o */
  const set = async (o) => {
    if (onTuned) {
      const old = panel.specOpts.value;
      panel.specOpts.value = { ...old, ...o };
      await onTuned();
      if (panel.errors.value.spec) panel.specOpts.value = old;
    } else await panel.setSpecOpts(o);
  };
  return (
    <div class="spg-opts">
      <div class="spg-field">
        <label for={`${uid}-draft`}>{t('spec.draft')}</label>
        <select
          id={`${uid}-draft`} value={draft} data-testid="draft-select"
          onChange={(e) => set({ draft: /** @type {HTMLSelectElement} */ (e.currentTarget).value })}
        >
          {panel.models.value.map((m) => <option key={m.id} value={m.id}>{modelName(i18n, m)}</option>)}
          <option value={LOOKUP}>{t('spec.lookup')}</option>
        </select>
      </div>
      <div class="spg-slider">
        <div class="spg-slider-head">
          <label for={`${uid}-spec-n`}>{t('spec.n')}</label>
          <output for={`${uid}-spec-n`}>{i18n.int(n)}</output>
        </div>
        <input
          type="range" id={`${uid}-spec-n`} min={SPECULATE.min} max={SPECULATE.max} step={1} value={n}
          data-testid="speculate"
          onChange={(e) => set({ n: Number(/** @type {HTMLInputElement} */ (e.currentTarget).value) })}
        />
      </div>
      {lookup && (
        <div class="spg-slider">
          <div class="spg-slider-head">
            <label for={`${uid}-ngram`}>{t('spec.ngram')}</label>
            <output for={`${uid}-ngram`}>{i18n.int(ngram)}</output>
          </div>
          <input
            type="range" id={`${uid}-ngram`} min={LOOKUP_NGRAM.min} max={LOOKUP_NGRAM.max} step={1} value={ngram} data-testid="lookup-ngram"
            onChange={(e) => set({ ngram: Number(/** @type {HTMLInputElement} */ (e.currentTarget).value) })}
          />
        </div>
      )}
      <small class="spg-hint">{lookup ? teachSay(texts, i18n, 'strategyText.lookup', { count: n, ngram }) : t('spec.hint', { count: n })}</small>
      {error && <p class="spg-error" role="alert" data-testid="spec-error"><Say m={error} /></p>}
    </div>
  );
}

/**
 * The constraint: none, a regex, or JSON.  Works on a panel or on compare
 * mode (both have constraint, setConstraint and errors.constraint).
 * @param {{
 *   target: {constraint: import('@preact/signals').Signal<import('../app/hash.js').ConstraintState> | import('@preact/signals').ReadonlySignal<import('../app/hash.js').ConstraintState>,
 *     setConstraint: (c: import('../app/hash.js').ConstraintState) => Promise<boolean>,
 *     errors: import('@preact/signals').ReadonlySignal<Record<string, import('../i18n/index.js').Text>>},
 *   uid: string,
 * }} props
 */
export function ConstraintField({ target, uid }) {
  const { t } = useI18n();
  const c = target.constraint.value;
  const [kind, setKind] = useState(c.kind);
  const [regex, setRegex] = useState(c.regex);
  // a constraint set from elsewhere (a link) shows up here
  useEffect(() => { setKind(c.kind); setRegex(c.regex); }, [c.kind, c.regex]);
  const error = target.errors.value.constraint;
  /** @param {import('../app/hash.js').ConstraintState['kind']} k @param {string} r */
  const apply = (k, r) => {
    setKind(k);
    if (k === 'regex' && !r) return; // waits for a pattern
    target.setConstraint({ kind: k, regex: r });
  };
  // "JSON object" first: the usual JSON mode; "Any JSON" also takes a bare null or 3
  const kinds = /** @type {const} */ ([['none', t('constraint.none')], ['regex', t('constraint.regex')], ['json_object', t('constraint.jsonObject')], ['json', t('constraint.json')]]);
  return (
    <fieldset class="spg-constraint">
      <legend>{t('constraint.legend')}</legend>
      <div class="spg-seg" role="radiogroup" aria-label={t('constraint.legend')}>
        {kinds.map(([k, label]) => (
          <label key={k} class={`spg-seg-opt${kind === k ? ' is-on' : ''}`}>
            <input type="radio" name={`${uid}-constraint`} value={k} checked={kind === k} data-testid={`constraint-${k}`} onChange={() => apply(k, regex)} />
            <span>{label}</span>
          </label>
        ))}
      </div>
      {kind === 'regex' && (
        <div class="spg-row">
          <label class="spg-sr" for={`${uid}-regex`}>{t('constraint.regexLabel')}</label>
          <input
            id={`${uid}-regex`}
            type="text"
            value={regex}
            placeholder="[A-Z][a-z]{2,6}"
            autocomplete="off"
            spellcheck={false}
            class="spg-mono"
            aria-invalid={error ? 'true' : undefined}
            aria-describedby={`${uid}-constraint-hint`}
            dir="ltr"
            data-testid="regex-input"
            onInput={(e) => setRegex(/** @type {HTMLInputElement} */ (e.currentTarget).value)}
            onKeyDown={(e) => { if (e.key === 'Enter') apply('regex', /** @type {HTMLInputElement} */ (e.currentTarget).value); }}
          />
          <button type="button" class="spg-btn spg-btn-small" data-testid="regex-apply" onClick={() => apply('regex', regex)}>{t('constraint.apply')}</button>
        </div>
      )}
      <small class="spg-hint" id={`${uid}-constraint-hint`}>
        {kind === 'none' ? t('constraint.hintNone') : t('constraint.hint', { count: CONSTRAINT_BUDGET })}
        {kind === 'json_object' && ` ${t('constraint.hintObject')}`}
        {kind === 'json' && ` ${t('constraint.hintJson')}`}
      </small>
      {(kind === 'json' || kind === 'json_object') && (
        <small class="spg-hint" data-testid="json-note">{t('constraint.jsonNote')}</small>
      )}
      {error && <p class="spg-calm" role="status" data-testid="constraint-error"><Say m={error} /></p>}
    </fieldset>
  );
}

/**
 * A token's piece when the step on hand lists it (a large vocabulary's
 * summary lists the top tokens only), else null.
 * @param {Pick<Panel, 'next' | 'steps'>} panel
 */
function piecesOf(panel) {
  const s = panel.next.value ?? panel.steps.value[panel.steps.value.length - 1] ?? null;
  return {
    step: s,
    /** @param {number} id */
    pieceOf: (id) => {
      const i = s ? Array.prototype.indexOf.call(s.ids, id) : -1;
      return i >= 0 ? s?.pieces[i] ?? null : null;
    },
  };
}

/**
 * The banned tokens (logit bias −∞), each with a button that lifts the ban.
 * @param {{panel: Pick<Panel, 'bans' | 'errors' | 'next' | 'session' | 'steps' |
 *     'toggleBan'>, onChanged?: () => void}} props
 */
export function BanList({ panel, onChanged }) {
  const i18n = useI18n();
  const { t } = i18n;
  const bans = panel.bans.value;
  const error = panel.errors.value.bans;
  const { pieceOf } = piecesOf(panel);
  return (
    <div class="spg-field spg-bans" data-testid="bans">
      <span class="spg-label" id={`${panel.session}-bans-label`}>{t('bans.label')}</span>
      {bans.length === 0
        ? <small class="spg-hint">{t('bans.hint')}</small>
        : (
          <ul class="spg-chips" aria-labelledby={`${panel.session}-bans-label`}>
            {bans.map((id) => {
              const piece = pieceOf(id);
              const label = piece === null ? `#${id}` : showPiece(piece);
              return (
                <li key={id}>
                  <button
                    type="button"
                    class="spg-chip"
                    data-testid="ban-chip"
                    data-token={String(id)}
                    aria-label={t('bans.lift', { name: piece === null ? t('bans.token', { id: String(id) }) : pieceName(piece, i18n) })}
                    title={t('bans.liftTitle')}
                    onClick={() => { panel.toggleBan(id); onChanged?.(); }}
                  >
                    <span class="spg-mono">{label}</span> <span aria-hidden="true">×</span>
                  </button>
                </li>
              );
            })}
          </ul>
        )}
      {error && <p class="spg-calm" role="status"><Say m={error} /></p>}
    </div>
  );
}

/** Temperature 0 and top-k 1: two roads to the same greedy text. */
/** @param {{panel: Pick<Panel, 'busy' | 'greedyVia' | 'ready'>}} props */
export function GreedyRoads({ panel }) {
  const { t } = useI18n();
  const disabled = !panel.ready.value || (!!panel.busy.value);
  return (
    <div class="spg-greedy">
      <span class="spg-label">{t('greedy.label')}</span>
      <div class="spg-row">
        <button type="button" class="spg-btn spg-btn-small" disabled={disabled} data-testid="greedy-t0" onClick={() => panel.greedyVia('temperature')}>
          {t('greedy.t0')}
        </button>
        <button type="button" class="spg-btn spg-btn-small" disabled={disabled} data-testid="greedy-k1" onClick={() => panel.greedyVia('top_k')}>
          {t('greedy.k1')}
        </button>
      </div>
      <small class="spg-hint">{t('greedy.hint')}</small>
    </div>
  );
}

/**
 * The finite logit biases: each token with a slider for the value added
 * to its logit (0 removes it), and a menu to give one more token a bias
 * (the tokens of the step on hand, most likely first).
 * @param {{panel: Pick<Panel, 'bans' | 'biases' | 'next' | 'playing' | 'setBias' |
 *     'steps'>, uid: string, onChanged?: () => void}} props
 */
export function BiasList({ panel, uid, onChanged }) {
  const i18n = useI18n();
  const { t } = i18n;
  const biases = panel.biases.value;
  const { step, pieceOf } = piecesOf(panel);
  const label = (/** @type {number} */ id) => { const p = pieceOf(id); return p === null ? `#${id}` : showPiece(p); };
  const taken = new Set([...biases.map(([t]) => t), ...panel.bans.value]);
  /**
   * candidates to add: the step's tokens by probability, not already biased
   * or banned.  While Play runs the menu keeps the order it had when Play
   * began: a menu whose options jump at every token cannot be used (and
   * rebuilding it per token is work Play does not need).
   */
  const ranked = useRef(/** @type {{step: unknown, order: number[]}} */ ({ step: null, order: [] }));
  if (!step) ranked.current = { step: null, order: [] };
  else if (ranked.current.step !== step && !(panel.playing.value && ranked.current.order.length)) {
    const order = [...step.ids.keys()].sort((a, b) => step.raw[b] - step.raw[a] || step.ids[a] - step.ids[b]);
    ranked.current = { step, order: order.map((i) => step.ids[i]) };
  }
  const candidates = ranked.current.order.filter((id) => !taken.has(id)).slice(0, 60);
  const [pick, setPick] = useState(/** @type {number | null} */ (null));
  const chosen = pick !== null && candidates.includes(pick) ? pick : candidates[0] ?? null;
  const set = (/** @type {number} */ id, /** @type {number} */ v) => { panel.setBias(id, v); onChanged?.(); };
  return (
    <div class="spg-field spg-biases" data-testid="biases">
      <span class="spg-label" id={`${uid}-biases-label`}>{t('biases.label')}</span>
      {biases.length > 0 && (
        <ul class="spg-bias-list" aria-labelledby={`${uid}-biases-label`}>
          {biases.map(([id, v]) => (
            <li key={id} class="spg-bias" data-testid="bias" data-token={String(id)}>
              <label class="spg-mono" for={`${uid}-bias-${id}`}>{label(id)}</label>
              <input
                type="range"
                id={`${uid}-bias-${id}`}
                min={BIAS_RANGE.min}
                max={BIAS_RANGE.max}
                step={BIAS_RANGE.step}
                value={v}
                aria-valuetext={`${v > 0 ? '+' : ''}${i18n.num(v)}`}
                data-testid="bias-slider"
                onInput={(e) => {
                  const x = Number(/** @type {HTMLInputElement} */ (e.currentTarget).value);
                  if (x !== 0) set(id, x); // 0 would remove it mid-drag: the × does that
                }}
              />
              <output for={`${uid}-bias-${id}`}>{v > 0 ? '+' : ''}{i18n.num(v)}</output>
              <button type="button" class="spg-chip" aria-label={t('biases.remove', { name: label(id) })} title={t('biases.removeTitle')} onClick={() => set(id, 0)}>
                <span aria-hidden="true">×</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      {chosen !== null && (
        <div class="spg-row">
          <label class="spg-sr" for={`${uid}-bias-pick`}>{t('biases.pick')}</label>
          <select id={`${uid}-bias-pick`} value={String(chosen)} data-testid="bias-pick" onChange={(e) => setPick(Number(/** @type {HTMLSelectElement} */ (e.currentTarget).value))}>
            {candidates.map((id) => <option key={id} value={String(id)}>{label(id)}</option>)}
          </select>
          <button type="button" class="spg-btn spg-btn-small" data-testid="bias-add" onClick={() => set(chosen, 2)}>{t('biases.add', { value: `+${i18n.num(2)}` })}</button>
        </div>
      )}
      <small class="spg-hint">{t('biases.hint')}</small>
    </div>
  );
}

/** llama.cpp's default DRY sequence breakers */
const LLAMA_CPP_BREAKERS = ['\n', ':', '"', '*'];

/**
 * DRY's sequence breakers: texts that end a repeat (the engine makes each
 * the model's tokens, 1 to 8 of them).  Each is a chip that removes it; a
 * field adds one (\n for a newline); one click sets llama.cpp's.
 * @param {{panel: Pick<Panel, 'dryBreakers' | 'errors' | 'setDryBreakers'>, uid: string, onChanged?: () => void}} props
 */
export function BreakerList({ panel, uid, onChanged }) {
  const i18n = useI18n();
  const { t } = i18n;
  const list = panel.dryBreakers.value;
  const [text, setText] = useState('');
  const set = (/** @type {string[]} */ next) => { panel.setDryBreakers(next); onChanged?.(); };
  const add = () => {
    const v = text.replace(/\\n/g, '\n').replace(/\\t/g, '\t');
    if (v) set([...list, v]);
    setText('');
  };
  const same = list.length === LLAMA_CPP_BREAKERS.length && list.every((x, i) => x === LLAMA_CPP_BREAKERS[i]);
  return (
    <div class="spg-field spg-breakers" data-testid="dry-breakers">
      <span class="spg-label" id={`${uid}-breakers-label`}>{t('dry.breakers')}</span>
      {list.length > 0 && (
        <ul class="spg-chips" aria-labelledby={`${uid}-breakers-label`}>
          {list.map((b) => (
            <li key={b}>
              <button type="button" class="spg-chip" data-testid="dry-breaker" aria-label={t('dry.remove', { name: pieceName(b, i18n) })} onClick={() => set(list.filter((x) => x !== b))}>
                <span class="spg-mono">{showPiece(b)}</span> <span aria-hidden="true">×</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <div class="spg-row">
        <label class="spg-sr" for={`${uid}-breaker-new`}>{t('dry.new')}</label>
        <input
          id={`${uid}-breaker-new`}
          type="text"
          size={6}
          value={text}
          placeholder={t('dry.placeholder')}
          autocomplete="off"
          spellcheck={false}
          data-testid="dry-breaker-text"
          onInput={(e) => setText(/** @type {HTMLInputElement} */ (e.currentTarget).value)}
          onKeyDown={(e) => { if (e.key === 'Enter') add(); }}
        />
        <button type="button" class="spg-btn spg-btn-small" data-testid="dry-breaker-add" disabled={!text} onClick={add}>{t('dry.add')}</button>
        <button type="button" class="spg-btn spg-btn-small" data-testid="dry-breakers-llama" disabled={same} onClick={() => set(LLAMA_CPP_BREAKERS)}>
          {t('dry.llama')}
        </button>
      </div>
      <small class="spg-hint">{t('dry.hint')}</small>
      {panel.errors.value.dry && <p class="spg-calm" role="status" data-testid="dry-error"><Say m={panel.errors.value.dry} /></p>}
    </div>
  );
}
