// @ts-check
/**
 * The decoding lab's controls beside the sliders: the strategy and its
 * options (beam width and length penalty; draft model and draft length),
 * the constraint, the banned tokens, the bar-click action, and the two
 * roads to greedy decoding.
 */
import { useEffect, useState } from 'preact/hooks';

import { pieceName, showPiece } from '../app/format.js';
import { BEAM_WIDTH, BIAS_RANGE, CONSTRAINT_BUDGET, LENGTH_PENALTY, SPECULATE, STRATEGIES } from '../app/lab.js';

/**
 * @param {{
 *   panel: import('../app/panel.js').Panel, uid: string,
 *   onStrategy?: (s: import('../app/lab.js').Strategy) => void,
 *   onTuned?: () => void,
 * }} props
 *   onStrategy / onTuned: compare mode's way to regenerate the panel
 */
export function StrategyPicker({ panel, uid, onStrategy, onTuned }) {
  const how = panel.strategy.value;
  const busy = !!panel.busy.value && !panel.ready.value;
  return (
    <fieldset class="spg-strategy">
      <legend>Decoding</legend>
      <div class="spg-seg" role="radiogroup" aria-label="Decoding strategy">
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
            <span>{s.label}</span>
          </label>
        ))}
      </div>
      {how === 'beam' && <BeamOptions panel={panel} uid={uid} onTuned={onTuned} />}
      {how === 'speculative' && <SpecOptions panel={panel} uid={uid} onTuned={onTuned} />}
      {how === 'sample' && <small class="spg-hint">One token at a time, drawn from the sampler's distribution.</small>}
    </fieldset>
  );
}

/** @param {{panel: import('../app/panel.js').Panel, uid: string, onTuned?: () => void}} props */
function BeamOptions({ panel, uid, onTuned }) {
  const { width, lengthPenalty } = panel.beamOpts.value;
  /** @param {{width?: number, lengthPenalty?: number}} o */
  const set = (o) => {
    if (onTuned) {
      panel.beamOpts.value = { ...panel.beamOpts.value, ...o };
      onTuned();
    } else panel.setBeamOpts(o);
  };
  return (
    <div class="spg-opts">
      <div class="spg-slider">
        <div class="spg-slider-head">
          <label for={`${uid}-beams`}>Beam width</label>
          <output for={`${uid}-beams`}>{width}</output>
        </div>
        <input
          type="range" id={`${uid}-beams`} min={BEAM_WIDTH.min} max={BEAM_WIDTH.max} step={1} value={width}
          aria-describedby={`${uid}-beams-hint`} data-testid="beam-width"
          onChange={(e) => set({ width: Number(/** @type {HTMLInputElement} */ (e.currentTarget).value) })}
        />
        <small id={`${uid}-beams-hint`} class="spg-hint">
          {width === 1 ? 'Width 1 keeps one text: that is greedy decoding.' : `Keeps the ${width} most likely texts at every step.`}
        </small>
      </div>
      <div class="spg-slider">
        <div class="spg-slider-head">
          <label for={`${uid}-lp`}>Length penalty</label>
          <output for={`${uid}-lp`}>{lengthPenalty.toFixed(1)}</output>
        </div>
        <input
          type="range" id={`${uid}-lp`} min={LENGTH_PENALTY.min} max={LENGTH_PENALTY.max} step={LENGTH_PENALTY.step} value={lengthPenalty}
          aria-describedby={`${uid}-lp-hint`} data-testid="length-penalty"
          onChange={(e) => set({ lengthPenalty: Number(/** @type {HTMLInputElement} */ (e.currentTarget).value) })}
        />
        <small id={`${uid}-lp-hint`} class="spg-hint" data-testid="length-penalty-hint">
          Beams are ranked by ln p ÷ length<sup>penalty</sup>. At 1 (the usual default) that is the mean ln p per token; at 0
          it is the total ln p, which only falls as a text grows, so a beam that ends early tends to win: short texts.
          Above 1, longer texts are favoured.
        </small>
      </div>
    </div>
  );
}

/** @param {{panel: import('../app/panel.js').Panel, uid: string, onTuned?: () => void}} props */
function SpecOptions({ panel, uid, onTuned }) {
  const { draft, n } = panel.specOpts.value;
  const error = panel.errors.value.spec;
  /** @param {{draft?: string, n?: number}} o */
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
        <label for={`${uid}-draft`}>Draft model</label>
        <select
          id={`${uid}-draft`} value={draft} data-testid="draft-select"
          onChange={(e) => set({ draft: /** @type {HTMLSelectElement} */ (e.currentTarget).value })}
        >
          {panel.models.value.map((m) => <option key={m.id} value={m.id}>{m.name}</option>)}
        </select>
      </div>
      <div class="spg-slider">
        <div class="spg-slider-head">
          <label for={`${uid}-spec-n`}>Draft tokens per round</label>
          <output for={`${uid}-spec-n`}>{n}</output>
        </div>
        <input
          type="range" id={`${uid}-spec-n`} min={SPECULATE.min} max={SPECULATE.max} step={1} value={n}
          data-testid="speculate"
          onChange={(e) => set({ n: Number(/** @type {HTMLInputElement} */ (e.currentTarget).value) })}
        />
      </div>
      <small class="spg-hint">
        The draft proposes {n} token{n === 1 ? '' : 's'}; the model keeps each with probability min(1, p/q) and
        replaces the first it turns down from max(0, p − q). The text is distributed exactly as the model's own.
      </small>
      {error && <p class="spg-error" role="alert" data-testid="spec-error">{error}</p>}
    </div>
  );
}

/**
 * The constraint: none, a regex, or JSON.  Works on a panel or on compare
 * mode (both have constraint, setConstraint and errors.constraint).
 * @param {{
 *   target: {constraint: import('@preact/signals').Signal<import('../app/hash.js').ConstraintState> | import('@preact/signals').ReadonlySignal<import('../app/hash.js').ConstraintState>,
 *     setConstraint: (c: import('../app/hash.js').ConstraintState) => Promise<boolean>,
 *     errors: import('@preact/signals').ReadonlySignal<Record<string, string>>},
 *   uid: string, note?: string,
 * }} props
 */
export function ConstraintField({ target, uid, note = '' }) {
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
  const kinds = /** @type {const} */ ([['none', 'None'], ['regex', 'Regex'], ['json_object', 'JSON object'], ['json', 'Any JSON']]);
  return (
    <fieldset class="spg-constraint">
      <legend>Constraint</legend>
      <div class="spg-seg" role="radiogroup" aria-label="Constraint">
        {kinds.map(([k, label]) => (
          <label key={k} class={`spg-seg-opt${kind === k ? ' is-on' : ''}`}>
            <input type="radio" name={`${uid}-constraint`} value={k} checked={kind === k} data-testid={`constraint-${k}`} onChange={() => apply(k, regex)} />
            <span>{label}</span>
          </label>
        ))}
      </div>
      {kind === 'regex' && (
        <div class="spg-row">
          <label class="spg-sr" for={`${uid}-regex`}>Regular expression</label>
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
            data-testid="regex-input"
            onInput={(e) => setRegex(/** @type {HTMLInputElement} */ (e.currentTarget).value)}
            onKeyDown={(e) => { if (e.key === 'Enter') apply('regex', /** @type {HTMLInputElement} */ (e.currentTarget).value); }}
          />
          <button type="button" class="spg-btn spg-btn-small" data-testid="regex-apply" onClick={() => apply('regex', regex)}>Apply</button>
        </div>
      )}
      <small class="spg-hint" id={`${uid}-constraint-hint`}>
        {kind === 'none'
          ? 'Force the text to match a pattern (character classes, |, ( ), ?, *, +, {m,n}) or to be JSON.'
          : `Tokens that cannot lead to a match are masked (cut by “constraint”); the text ends when it matches, within ${CONSTRAINT_BUDGET} tokens.`}
        {kind === 'json_object' && ' The text must be one JSON object, { … }.'}
        {kind === 'json' && ' Any JSON value counts: a bare null, true or 3 ends the text at once.'}
      </small>
      {(kind === 'json' || kind === 'json_object') && (
        <small class="spg-hint" data-testid="json-note">
          The constraint guarantees valid JSON, not good JSON: a tiny model never learned JSON, so its keys and values are odd.
        </small>
      )}
      {note && <small class="spg-hint">{note}</small>}
      {error && <p class="spg-calm" role="status" data-testid="constraint-error">{error}</p>}
    </fieldset>
  );
}

/**
 * A token's piece when the step on hand lists it (a large vocabulary's
 * summary lists the top tokens only), else null.
 * @param {import('../app/panel.js').Panel} panel
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
 * @param {{panel: import('../app/panel.js').Panel, onChanged?: () => void}} props
 */
export function BanList({ panel, onChanged }) {
  const bans = panel.bans.value;
  const error = panel.errors.value.bans;
  const { pieceOf } = piecesOf(panel);
  return (
    <div class="spg-field spg-bans" data-testid="bans">
      <span class="spg-label" id={`${panel.session}-bans-label`}>Banned tokens</span>
      {bans.length === 0
        ? <small class="spg-hint">Click a bar to ban its token (logit bias −∞).</small>
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
                    aria-label={`Lift the ban on ${piece === null ? `token ${id}` : pieceName(piece)}`}
                    title="Lift the ban"
                    onClick={() => { panel.toggleBan(id); onChanged?.(); }}
                  >
                    <span class="spg-mono">{label}</span> <span aria-hidden="true">×</span>
                  </button>
                </li>
              );
            })}
          </ul>
        )}
      {error && <p class="spg-calm" role="status">{error}</p>}
    </div>
  );
}

/** What a click on a live bar does: ban the token, or pick it as the next one. */
/** @param {{panel: import('../app/panel.js').Panel}} props */
export function BarAction({ panel }) {
  const action = panel.barAction.value;
  const sampling = panel.strategy.value === 'sample';
  return (
    <div class="spg-seg spg-seg-small" role="radiogroup" aria-label="A click on a bar">
      <span class="spg-hint">A click on a bar:</span>
      {(/** @type {const} */ ([['ban', 'bans it'], ['force', 'picks it next']])).map(([k, label]) => (
        <label key={k} class={`spg-seg-opt${action === k ? ' is-on' : ''}`}>
          <input
            type="radio" name={`${panel.session}-bar-action`} value={k} checked={action === k}
            disabled={k === 'force' && !sampling}
            data-testid={`bar-action-${k}`}
            onChange={() => { panel.barAction.value = k; }}
          />
          <span>{label}</span>
        </label>
      ))}
    </div>
  );
}

/** Temperature 0 and top-k 1: two roads to the same greedy text. */
/** @param {{panel: import('../app/panel.js').Panel}} props */
export function GreedyRoads({ panel }) {
  const disabled = !panel.ready.value || (!!panel.busy.value);
  return (
    <div class="spg-greedy">
      <span class="spg-label">Two roads to greedy</span>
      <div class="spg-row">
        <button type="button" class="spg-btn spg-btn-small" disabled={disabled} data-testid="greedy-t0" onClick={() => panel.greedyVia('temperature')}>
          T = 0
        </button>
        <button type="button" class="spg-btn spg-btn-small" disabled={disabled} data-testid="greedy-k1" onClick={() => panel.greedyVia('top_k')}>
          top-k = 1
        </button>
      </div>
      <small class="spg-hint">
        Each regenerates the text from the prompt. Temperature 0 and top-k 1 both keep only the most likely token,
        so both give the same text.
      </small>
    </div>
  );
}

/**
 * The finite logit biases: each token with a slider for the value added
 * to its logit (0 removes it), and a menu to give one more token a bias
 * (the tokens of the step on hand, most likely first).
 * @param {{panel: import('../app/panel.js').Panel, uid: string, onChanged?: () => void}} props
 */
export function BiasList({ panel, uid, onChanged }) {
  const biases = panel.biases.value;
  const { step, pieceOf } = piecesOf(panel);
  const label = (/** @type {number} */ id) => { const p = pieceOf(id); return p === null ? `#${id}` : showPiece(p); };
  const taken = new Set([...biases.map(([t]) => t), ...panel.bans.value]);
  /** candidates to add: the step's tokens by probability, not already biased or banned */
  const order = step ? [...step.ids.keys()].sort((a, b) => step.raw[b] - step.raw[a] || step.ids[a] - step.ids[b]) : [];
  const candidates = order.map((i) => step?.ids[i] ?? 0).filter((id) => !taken.has(id)).slice(0, 60);
  const [pick, setPick] = useState(/** @type {number | null} */ (null));
  const chosen = pick !== null && candidates.includes(pick) ? pick : candidates[0] ?? null;
  const set = (/** @type {number} */ id, /** @type {number} */ v) => { panel.setBias(id, v); onChanged?.(); };
  return (
    <div class="spg-field spg-biases" data-testid="biases">
      <span class="spg-label" id={`${uid}-biases-label`}>Biased tokens</span>
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
                aria-valuetext={`${v > 0 ? '+' : ''}${v}`}
                data-testid="bias-slider"
                onInput={(e) => {
                  const x = Number(/** @type {HTMLInputElement} */ (e.currentTarget).value);
                  if (x !== 0) set(id, x); // 0 would remove it mid-drag: the × does that
                }}
              />
              <output for={`${uid}-bias-${id}`}>{v > 0 ? '+' : ''}{v}</output>
              <button type="button" class="spg-chip" aria-label={`Remove the bias on ${label(id)}`} title="Remove the bias" onClick={() => set(id, 0)}>
                <span aria-hidden="true">×</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      {chosen !== null && (
        <div class="spg-row">
          <label class="spg-sr" for={`${uid}-bias-pick`}>A token to give a bias</label>
          <select id={`${uid}-bias-pick`} value={String(chosen)} data-testid="bias-pick" onChange={(e) => setPick(Number(/** @type {HTMLSelectElement} */ (e.currentTarget).value))}>
            {candidates.map((id) => <option key={id} value={String(id)}>{label(id)}</option>)}
          </select>
          <button type="button" class="spg-btn spg-btn-small" data-testid="bias-add" onClick={() => set(chosen, 2)}>Add +2</button>
        </div>
      )}
      <small class="spg-hint">A bias is added to the token's logit before every other stage: + makes it likelier, − rarer.</small>
    </div>
  );
}

/** llama.cpp's default DRY sequence breakers */
const LLAMA_CPP_BREAKERS = ['\n', ':', '"', '*'];

/**
 * DRY's sequence breakers: texts that end a repeat (the engine makes each
 * the model's tokens, 1 to 8 of them).  Each is a chip that removes it; a
 * field adds one (\n for a newline); one click sets llama.cpp's.
 * @param {{panel: import('../app/panel.js').Panel, uid: string, onChanged?: () => void}} props
 */
export function BreakerList({ panel, uid, onChanged }) {
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
      <span class="spg-label" id={`${uid}-breakers-label`}>Sequence breakers</span>
      {list.length > 0 && (
        <ul class="spg-chips" aria-labelledby={`${uid}-breakers-label`}>
          {list.map((b) => (
            <li key={b}>
              <button type="button" class="spg-chip" data-testid="dry-breaker" aria-label={`Remove the breaker ${pieceName(b)}`} onClick={() => set(list.filter((x) => x !== b))}>
                <span class="spg-mono">{showPiece(b)}</span> <span aria-hidden="true">×</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <div class="spg-row">
        <label class="spg-sr" for={`${uid}-breaker-new`}>A new sequence breaker</label>
        <input
          id={`${uid}-breaker-new`}
          type="text"
          size={6}
          value={text}
          placeholder="\n"
          autocomplete="off"
          spellcheck={false}
          data-testid="dry-breaker-text"
          onInput={(e) => setText(/** @type {HTMLInputElement} */ (e.currentTarget).value)}
          onKeyDown={(e) => { if (e.key === 'Enter') add(); }}
        />
        <button type="button" class="spg-btn spg-btn-small" data-testid="dry-breaker-add" disabled={!text} onClick={add}>Add</button>
        <button type="button" class="spg-btn spg-btn-small" data-testid="dry-breakers-llama" disabled={same} onClick={() => set(LLAMA_CPP_BREAKERS)}>
          llama.cpp's
        </button>
      </div>
      <small class="spg-hint">A repeat ends at a breaker: DRY does not punish repeats that run across one. \n is a newline.</small>
      {panel.errors.value.dry && <p class="spg-calm" role="status" data-testid="dry-error">{panel.errors.value.dry}</p>}
    </div>
  );
}
