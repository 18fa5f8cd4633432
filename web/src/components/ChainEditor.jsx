// @ts-check
/**
 * The sampler chain: its stages as a list in the order they run, each with
 * an on/off switch, the number of tokens it cut at the step shown (the
 * engine's count) and its settings; reordered by dragging a stage's handle
 * (mouse, touch or pen) or, with the handle focused, by the arrow keys;
 * the three presets one click away (the default, Hugging Face's and
 * llama.cpp's orders).  Everything it lists comes from the engine's
 * registry (params.js); whether a stage is on, from the engine (it asks
 * whenever the settings change: panel/stages.js); everything it counts,
 * from the step record.
 */
import { useComputed, useSignalEffect } from '@preact/signals';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';

import { ORDER_PRESETS, PARAM_SPECS, STAGE, STAGES, TERMINAL, orderOf } from '../app/params.js';
import { chapterOf, chapterUrl, teachSay, useTeach, wantTeach } from '../teach/teach.js';
import { ParamSlider } from './Controls.jsx';
import { useI18n } from './I18n.jsx';
import { BanList, BiasList, BreakerList } from './LabControls.jsx';
import { lazy } from './lazy.js';

/** the words stages' field (Words.jsx): fetched when one of them is opened */
const wordsCode = lazy(() => import('./Words.jsx'));
/** classifier-free guidance's negative prompt and view (Cfg.jsx): fetched when its stage is opened */
const cfgCode = lazy(() => import('./Cfg.jsx'));
/** the stages whose settings are a list of words, not numbers: their kind */
const WORD_STAGES = /** @type {Record<string, 'bad' | 'bias'>} */ ({ bad_words: 'bad', sequence_bias: 'bias' });

/** @typedef {import('../app/panel.js').Panel} Panel */

/** the order's presets: the engine's name and the button's (catalogue key) */
const PRESET_BUTTONS = /** @type {const} */ ([['', 'chain.default'], ['hf', 'chain.hf'], ['llama.cpp', 'chain.llamacpp']]);

/** the stages whose settings show without a click: the ones every lesson uses */
const OPEN_AT_FIRST = new Set(['temperature', 'top_k', 'top_p', 'min_p']);
/** the stages that reshape the scores and cut only now and then (a ban, T = 0): "cut nothing" says nothing about them (nor about a stage the registry says never cuts) */
const RESHAPERS = new Set(['bias', 'temperature']);
/** whether "cut nothing" is worth saying of a stage: one that cuts, as its trade */
const cutter = (/** @type {string} */ name) => !RESHAPERS.has(name) && (name === 'mirostat' || (STAGE[name]?.cut ?? 'kept') !== 'kept');
/** a stage's settings folded under a name of their own (the catalogue's key): a beginner needs the stage's first one only */
const FOLDED = /** @type {Record<string, string>} */ ({ temperature: 'stageText.dynatemp' });

/**
 * @param {{panel: Pick<Panel, 'askStages' | 'negativePrompt' | 'setNegativePrompt' | 'bans' | 'biases' | 'dryBreakers' | 'badWords' | 'seqBias' | 'errors' | 'model' | 'next' | 'params' |
 *     'paramsKey' | 'playing' | 'samplers' | 'session' | 'setBias' | 'setDryBreakers' | 'setWords' | 'setOrder' | 'setParam' | 'setStageOn' |
 *     'shown' | 'stagesOn' | 'steps' | 'strategy' | 'toggleBan'>, uid: string, onChanged?: () => void}} props
 *   onChanged: after a change (compare mode regenerates the panel)
 */
export function ChainEditor({ panel, uid, onChanged }) {
  const i18n = useI18n();
  const { t } = i18n;
  const label = (/** @type {string} */ name) => t(`stage.${name}.label`);
  const samplers = panel.samplers.value;
  const order = orderOf(samplers);
  // the settings changed: ask the engine which stages they turn on (an
  // effect of its own: the chain is not redrawn for every setting)
  useSignalEffect(() => {
    panel.paramsKey.value;
    panel.askStages();
  });
  const outside = STAGES.filter((s) => !order.includes(s.name));
  /** a drag in progress: the stage and the place it would go */
  const [drag, setDrag] = useState(/** @type {{name: string, to: number} | null} */ (null));
  const [said, setSaid] = useState('');
  const list = useRef(/** @type {HTMLOListElement | null} */ (null));
  /** a stage moved from the keyboard: its handle keeps the focus */
  const refocus = useRef(/** @type {string | null} */ (null));
  useLayoutEffect(() => {
    const name = refocus.current;
    if (!name || !list.current) return;
    refocus.current = null;
    /** @type {HTMLElement | null} */ (list.current.querySelector(`[data-stage="${name}"] [data-testid="stage-handle"]`))?.focus();
  });

  const changed = () => onChanged?.();
  /** @param {string[]} stages */
  const reorder = (stages) => {
    panel.setOrder(stages);
    changed();
  };
  /** @param {string} name @param {number} to its index in the new order */
  const moveTo = (name, to) => {
    const rest = order.filter((s) => s !== name);
    const at = Math.max(0, Math.min(rest.length, to));
    rest.splice(at, 0, name);
    if (rest.join() !== order.join()) {
      reorder(rest);
      setSaid(t('chain.moved', { name: label(name), n: at + 1, count: rest.length }));
    }
  };
  /** where a pointer at clientY would drop a stage: its index in the order without it */
  const dropIndex = (/** @type {string} */ name, /** @type {number} */ y) => {
    const rows = [...(list.current?.querySelectorAll('[data-testid="stage"]') ?? [])].filter((r) => /** @type {HTMLElement} */ (r).dataset.stage !== name);
    const i = rows.findIndex((r) => { const b = r.getBoundingClientRect(); return y < b.top + b.height / 2; });
    return i < 0 ? rows.length : i;
  };
  const presetOn = samplers === '' ? '' : ORDER_PRESETS[samplers] ? samplers : null;
  /** while dragging: the stage the dragged one would land before ('' = at the end) */
  const dropBefore = drag ? order.filter((s) => s !== drag.name)[drag.to] ?? '' : null;

  return (
    <fieldset class="spg-chain" data-testid="chain" data-order={order.join(',')}>
      <legend>{t('chain.legend')}</legend>
      <div class="spg-chain-presets" role="group" aria-label={t('chain.order')}>
        <span class="spg-hint">{t('chain.orderShort')}</span>
        {PRESET_BUTTONS.map(([name, key]) => (
          <button
            key={name}
            type="button"
            class={`spg-btn spg-btn-small${presetOn === name ? ' spg-btn-primary' : ''}`}
            aria-pressed={presetOn === name ? 'true' : 'false'}
            data-testid={`order-${name || 'default'}`}
            title={ORDER_PRESETS[name || 'default'].map((s) => label(s)).join(' → ')}
            onClick={() => {
              reorder(ORDER_PRESETS[name || 'default']);
              setSaid(t('chain.orderIs', { name: t(key) }));
            }}
          >
            {t(key)}
          </button>
        ))}
        {presetOn === null && <span class="spg-hint" data-testid="order-own">{t('chain.own')}</span>}
      </div>
      <ol class={`spg-chain-list${drag ? ' is-dragging' : ''}${dropBefore === '' ? ' is-drop-end' : ''}`} ref={list} aria-label={t('chain.list')}>
        {order.map((name, i) => (
          <StageRow
            key={name}
            panel={panel}
            uid={uid}
            name={name}
            index={i}
            count={order.length}
            dragging={drag?.name === name}
            dropHere={dropBefore === name}
            onDragTo={(y) => setDrag(y === null ? null : { name, to: dropIndex(name, y) })}
            onDrop={() => {
              if (drag) moveTo(name, drag.to);
              setDrag(null);
            }}
            onKeyMove={(to) => {
              refocus.current = name;
              moveTo(name, to);
            }}
            onRemove={order.length > 1 ? () => {
              if (panel.stagesOn.peek().has(name)) panel.setStageOn(name, false);
              reorder(order.filter((s) => s !== name));
              setSaid(t('chain.out', { name: label(name) }));
            } : undefined}
            onChanged={changed}
          />
        ))}
      </ol>
      {outside.length > 0 && (
        <p class="spg-chain-out" data-testid="chain-outside">
          <span class="spg-hint">{t('chain.outside')}</span>{' '}
          {outside.map((s) => (
            <button
              key={s.name}
              type="button"
              class="spg-chip"
              data-testid="stage-add"
              data-stage={s.name}
              title={t('chain.addTitle', { doc: t(`stage.${s.name}.doc`) })}
              onClick={() => reorder([...order, s.name])}
            >
              + {label(s.name)}
            </button>
          ))}
        </p>
      )}
      {TERMINAL.map((s) => <Terminal key={s.name} stage={s.name} panel={panel} uid={uid} onChanged={changed} />)}
      <small class="spg-hint">{t('chain.hint')}</small>
      <span class="spg-sr" role="status" aria-live="polite">{said}</span>
    </fieldset>
  );
}

/**
 * One stage of the chain: a line (handle, place, switch, what it is set
 * to, its cut) and, opened, its doc and settings.
 * @param {{
 *   panel: Pick<Panel, 'negativePrompt' | 'setNegativePrompt' | 'bans' | 'biases' | 'dryBreakers' | 'badWords' | 'seqBias' | 'errors' | 'model' | 'next' | 'params' | 'playing' |
 *     'session' | 'setBias' | 'setDryBreakers' | 'setWords' | 'setParam' | 'setStageOn' | 'shown' | 'stagesOn' | 'steps' | 'strategy' |
 *     'toggleBan'>, uid: string, name: string, index: number, count: number,
 *   dragging: boolean, dropHere: boolean,
 *   onDragTo: (clientY: number | null) => void, onDrop: () => void, onKeyMove: (to: number) => void,
 *   onRemove?: () => void, onChanged: () => void,
 * }} props
 */
function StageRow({ panel, uid, name, index, count, dragging, dropHere, onDragTo, onDrop, onKeyMove, onRemove, onChanged }) {
  const i18n = useI18n();
  const { t } = i18n;
  const stageLabel = t(`stage.${name}.label`);
  const texts = useTeach(i18n.lang);
  // the plain sentence (teach/texts, once fetched), else the engine's one line
  const stageDoc = teachSay(texts, i18n, `plain.${name}`) || t(`stage.${name}.doc`);
  const bias = name === 'bias';
  const words = WORD_STAGES[name];
  const wordList = () => (words === 'bad' ? panel.badWords : panel.seqBias);
  const specs = PARAM_SPECS.filter((s) => s.stage === name);
  // the row subscribes to its own stage's settings only (a slider of
  // another stage dragged does not redraw it) and to whether the engine
  // says it is on; what it shows is read from them as they are now (peek:
  // no subscription to every setting)
  useComputed(() => (words ? JSON.stringify(wordList().value) : bias
    ? `${panel.bans.value.length} ${panel.biases.value.length}`
    : specs.map((s) => panel.params.value[s.key]).join(' '))).value;
  const on = useComputed(() => panel.stagesOn.value.has(name)).value;
  const params = panel.params.peek();
  const vocab = panel.model.value?.vocab ?? 1;
  const value = words
    ? wordList().peek().map((w) => (typeof w === 'string' ? JSON.stringify(w) : `${JSON.stringify(w[0])} ${w[1] > 0 ? '+' : ''}${w[1]}`)).join(' · ') || t('chain.none')
    : bias
    ? [
      panel.bans.peek().length ? t('chain.banned', { count: panel.bans.peek().length }) : '',
      panel.biases.peek().length ? t('chain.biased', { count: panel.biases.peek().length }) : '',
    ].filter(Boolean).join(' · ') || t('chain.none')
    : on ? specs.filter((s) => s.isSwitch && params[s.key] !== s.def).map((s) => s.format(params[s.key], vocab, i18n)).join(' · ') : t('chain.off');
  /** null: as the stage is (open when on, or one of the lessons' four) */
  const [open, setOpen] = useState(/** @type {boolean | null} */ (null));
  const shown = open ?? (on || OPEN_AT_FIRST.has(name));
  const id = `${uid}-stage-${name}`;

  const onKeyDown = (/** @type {KeyboardEvent} */ e) => {
    const to = { ArrowUp: index - 1, ArrowDown: index + 1, Home: 0, End: count - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    if (to >= 0 && to < count && to !== index) onKeyMove(to);
  };
  return (
    <li
      class={`spg-stage${on ? ' is-on' : ''}${dragging ? ' is-dragging' : ''}${dropHere ? ' is-drop' : ''}`}
      data-testid="stage"
      data-stage={name}
      data-on={on ? 'true' : 'false'}
      title={stageDoc}
    >
      <div class="spg-stage-head">
        <button
          type="button"
          class="spg-stage-handle"
          aria-label={t('chain.handle', { name: stageLabel, n: index + 1, count })}
          aria-roledescription={t('chain.handleRole')}
          data-testid="stage-handle"
          onKeyDown={onKeyDown}
          onPointerDown={(e) => {
            if (e.button !== 0) return;
            e.preventDefault();
            /** @type {HTMLElement} */ (e.currentTarget).setPointerCapture(e.pointerId);
            onDragTo(e.clientY);
          }}
          onPointerMove={(e) => { if (dragging) onDragTo(e.clientY); }}
          onPointerUp={() => { if (dragging) onDrop(); }}
          onPointerCancel={() => onDragTo(null)}
        >
          <span aria-hidden="true">⋮⋮</span>
        </button>
        <span class="spg-stage-n" aria-hidden="true">{index + 1}</span>
        {bias || words ? (
          <span class="spg-stage-label">{stageLabel}</span>
        ) : (
          <label class="spg-stage-label">
            <input
              type="checkbox"
              checked={on}
              data-testid={`stage-on-${name}`}
              onChange={(e) => {
                panel.setStageOn(name, /** @type {HTMLInputElement} */ (e.currentTarget).checked);
                onChanged();
              }}
            />
            {stageLabel}
          </label>
        )}
        {!shown && <span class="spg-stage-value" data-testid="stage-value">{value}</span>}
        <StageCut panel={panel} name={name} title={t('chain.cutTitle')} />
        <button
          type="button"
          class="spg-stage-more"
          aria-expanded={shown ? 'true' : 'false'}
          aria-controls={`${id}-settings`}
          aria-label={t(shown ? 'chain.hide' : 'chain.show', { name: stageLabel })}
          data-testid="stage-more"
          onClick={() => setOpen(!shown)}
        >
          <span aria-hidden="true">{shown ? '▾' : '▸'}</span>
        </button>
      </div>
      {shown && (
        <div class="spg-stage-settings" id={`${id}-settings`}>
          <p class="spg-hint spg-stage-doc">{stageDoc}</p>
          <StageLive panel={panel} name={name} on={on} label={stageLabel} />
          <StageMore name={name} />
          {bias && <BanList panel={panel} onChanged={onChanged} />}
          {bias && <BiasList panel={panel} uid={uid} onChanged={onChanged} />}
          {specs.filter((spec) => !FOLDED[name] || spec.key === name).map((spec) => (
            <ParamSlider key={spec.key} panel={panel} uid={uid} spec={spec} onChanged={onChanged} />
          ))}
          {FOLDED[name] && specs.some((spec) => spec.key !== name) && (
            <details class="spg-stage-fold" open={specs.some((spec) => spec.key !== name && params[spec.key] !== spec.def)} data-testid="stage-fold">
              <summary>{teachSay(texts, i18n, FOLDED[name]) || t(`param.${specs.find((spec) => spec.key !== name)?.key}.label`)}</summary>
              {specs.filter((spec) => spec.key !== name).map((spec) => (
                <ParamSlider key={spec.key} panel={panel} uid={uid} spec={spec} onChanged={onChanged} />
              ))}
            </details>
          )}
          {name === 'dry' && <BreakerList panel={panel} uid={uid} onChanged={onChanged} />}
          {words && <WordsLazy panel={panel} kind={words} uid={uid} onChanged={onChanged} />}
          {name === 'cfg' && <CfgLazy panel={panel} uid={uid} onChanged={onChanged} />}
          {onRemove && (
            <button type="button" class="spg-link" data-testid="stage-remove" onClick={onRemove}>
              {t('chain.remove', { name: stageLabel })}
            </button>
          )}
        </div>
      )}
    </li>
  );
}

/**
 * A words stage's field, once its code is here (Words.jsx).
 * @param {{panel: Pick<Panel, 'badWords' | 'seqBias' | 'setWords'>, kind: 'bad' | 'bias', uid: string, onChanged: () => void}} props
 */
function WordsLazy(props) {
  const mod = wordsCode.use();
  return mod ? <mod.WordsField {...props} /> : <p class="spg-hint" aria-busy="true">…</p>;
}

/**
 * Classifier-free guidance's negative prompt and its view, once its code
 * is here (Cfg.jsx).
 * @param {{panel: Pick<Panel, 'negativePrompt' | 'setNegativePrompt' | 'shown'>, uid: string, onChanged: () => void}} props
 */
function CfgLazy(props) {
  const mod = cfgCode.use();
  return mod ? <mod.CfgField {...props} /> : <p class="spg-hint" aria-busy="true">…</p>;
}

/**
 * A terminal stage — mirostat, adaptive-p: after the chain, when on (each
 * picks the token its own way and learns from it; one at a time).
 * @param {{stage: string, panel: Pick<Panel, 'model' | 'params' | 'setParam' | 'setStageOn' | 'shown' | 'stagesOn' |
 *     'strategy'>, uid: string, onChanged: () => void}} props
 */
function Terminal({ stage, panel, uid, onChanged }) {
  const i18n = useI18n();
  const { t } = i18n;
  const specs = PARAM_SPECS.filter((s) => s.stage === stage);
  const on = panel.stagesOn.value.has(stage);
  const texts = useTeach(i18n.lang);
  if (!specs.length) return null;
  const mirostat = stage === 'mirostat';
  // Mirostat's version: off, 1 or 2 (the link's mirostat= number), a choice rather than a slider
  const version = mirostat ? specs.find((s) => s.key === 'mirostat') : undefined;
  const value = version ? Number(panel.params.value.mirostat) : 0;
  const label = t(mirostat ? 'param.mirostat.label' : `stage.${stage}.label`);
  const plain = teachSay(texts, i18n, `plain.${stage}`);
  const choices = version ? Array.from({ length: version.max - version.min + 1 }, (_, i) => version.min + i) : [];
  return (
    <div class={`spg-stage spg-stage-last${on ? ' is-on' : ''}`} data-testid="stage" data-stage={stage} data-on={on ? 'true' : 'false'}>
      <div class="spg-stage-head">
        <span class="spg-stage-n" aria-hidden="true">⤓</span>
        {version ? (
          <span class="spg-stage-label" id={`${uid}-${stage}-l`} title={plain || t('param.mirostat.doc')}>
            {label} <span class="spg-hint">{t('chain.mirostatLast')}</span>
          </span>
        ) : (
          <label class="spg-stage-label" title={plain || t(`param.${specs[0].key}.doc`)}>
            <input
              type="checkbox"
              checked={on}
              data-testid={`stage-on-${stage}`}
              onChange={(e) => {
                panel.setStageOn(stage, /** @type {HTMLInputElement} */ (e.currentTarget).checked);
                onChanged();
              }}
            />
            {label} <span class="spg-hint">{t('chain.mirostatLast')}</span>
          </label>
        )}
        <StageCut panel={panel} name={stage} />
      </div>
      {version && (
        <div class="spg-choices spg-mirostat-version" role="radiogroup" aria-labelledby={`${uid}-${stage}-l`} data-testid="mirostat-version">
          <span class="spg-hint" aria-hidden="true">{t('chain.mirostatVersion')}</span>
          {choices.map((v) => (
            <label key={v} class={`spg-choice${value === v ? ' is-on' : ''}`}>
              <input
                type="radio"
                name={`${uid}-mirostat`}
                value={String(v)}
                checked={value === v}
                data-testid={`mirostat-${v}`}
                onChange={() => {
                  if (v === 0) panel.setStageOn('mirostat', false);
                  else panel.setParam('mirostat', v);
                  onChanged();
                }}
              />
              {v === version.def ? t('chain.off') : i18n.int(v)}
            </label>
          ))}
        </div>
      )}
      {on && (
        <div class="spg-stage-settings">
          <p class="spg-hint spg-stage-doc">{plain || t(mirostat ? 'chain.mirostatDoc' : `stage.${stage}.doc`)}</p>
          <StageLive panel={panel} name={stage} on={on} label={label} />
          <StageMore name={stage} />
          {specs.filter((spec) => spec !== version).map((spec) => <ParamSlider key={spec.key} panel={panel} uid={uid} spec={spec} onChanged={onChanged} />)}
        </div>
      )}
    </div>
  );
}

/**
 * Tokens a stage cut at the step shown (the engine's count).  Read by the
 * small components below, not by the chain: a new step redraws the counts,
 * not every stage's settings.
 * @param {Pick<Panel, 'shown'>} panel @param {string} name
 */
function useCut(panel, name) {
  return panel.shown.value?.cuts?.find((c) => c.stage === name)?.cut;
}

/** @param {{panel: Pick<Panel, 'shown'>, name: string, title?: string}} props */
function StageCut({ panel, name, title }) {
  const i18n = useI18n();
  const cut = useCut(panel, name);
  return (
    <span class="spg-stage-cut" data-testid="stage-cut" data-cut={String(cut ?? 0)} title={title}>
      {cut ? `−${i18n.int(cut)}` : null /* not '': Preact rewrites an empty text at every render */}
    </span>
  );
}

/**
 * What a stage did to the step shown, live: "Top-k cut 13 tokens holding
 * 8.2 % of the model's probability" — the engine's count and sum (the step
 * record's cuts), never the page's.
 * @param {{panel: Pick<Panel, 'shown'>, name: string, on: boolean, label: string}} props
 */
function StageLive({ panel, name, on, label }) {
  const i18n = useI18n();
  const { t } = i18n;
  const texts = useTeach(i18n.lang);
  const shown = panel.shown.value;
  const c = shown?.cuts?.find((x) => x.stage === name);
  let text = '';
  if (c) {
    text = (Number.isFinite(c.mass) && teachSay(texts, i18n, 'stageText.cutLive', { name: label, count: c.cut, mass: i18n.pct(c.mass) }))
      || t('chain.cutHere', { count: c.cut });
  } else if (shown && !shown.lazy && on && cutter(name)) {
    text = teachSay(texts, i18n, 'stageText.cutNothing', { name: label });
  }
  if (!text) return null;
  return <p class="spg-stage-live" data-testid="stage-live" data-cut={String(c?.cut ?? 0)}>{text}</p>;
}

/**
 * "Why and when" (teach/texts, fetched when opened) and the stage's
 * chapter in the course.
 * @param {{name: string}} props
 */
function StageMore({ name }) {
  const i18n = useI18n();
  const texts = useTeach(i18n.lang);
  if (!texts) return null; // (until the learner's first move)
  const why = teachSay(texts, i18n, `whyWhen.${name}`) || i18n.t(`stage.${name}.doc`);
  return (
    <div class="spg-stage-more-info">
      <details class="spg-why" data-testid="stage-why" onToggle={(e) => { if (/** @type {HTMLDetailsElement} */ (e.currentTarget).open) wantTeach(); }}>
        <summary>{teachSay(texts, i18n, 'stageText.why')}</summary>
        <p>{why}</p>
      </details>
      <a class="spg-chapter-link" href={chapterUrl(chapterOf(name), i18n.lang)} data-testid="stage-chapter">{teachSay(texts, i18n, 'stageText.chapter')} →</a>
    </div>
  );
}
