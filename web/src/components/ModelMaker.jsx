// @ts-check
/**
 * Models a learner makes: the hand-made model's table (labels with logits
 * or probabilities, and the lessons' presets) and a bigram trained on the
 * learner's own text (the "edited" badge of a model whose bars were
 * dragged is BarsCard.jsx's).  The engine makes each model and computes every
 * number shown here (the table's logits are the engine's row, its
 * probabilities the engine's distribution).
 */
import { useEffect, useState } from 'preact/hooks';

import { useI18n } from './I18n.jsx';

/** @typedef {import('../app/panel.js').Panel} Panel */

/** The lessons' examples and two shapes to compare in the nucleus view (label: a catalogue key). */
export const PRESETS = [
  { id: 'worked-t', label: 'handmade.presetLogits', spec: 'logits:2,1,0' },
  { id: 'worked-p', label: 'handmade.presetProbs', spec: 'probs:0.50,0.20,0.15,0.08,0.05,0.02' },
  { id: 'confident', label: 'handmade.presetConfident', spec: 'logits:yes=6,no=2,maybe=1.5,sure=1,never=0.5,perhaps=0,later=0,why=-0.5' },
  {
    id: 'long-tailed',
    label: 'handmade.presetLongTailed',
    // 24 tokens, logit -0.6 ln(rank): a Zipf-like tail
    spec: `logits:${Array.from({ length: 24 }, (_, i) => `${String.fromCharCode(97 + i)}=${(-0.6 * Math.log(i + 1)).toFixed(2)}`).join(',')}`,
  },
];

/**
 * The rows of a spec as the table edits them.
 * @param {string} spec @returns {{mode: 'logits' | 'probs', rows: Array<{label: string, value: string}>}}
 */
export function rowsOfSpec(spec) {
  const mode = spec.startsWith('probs:') ? 'probs' : 'logits';
  const list = spec.slice(mode === 'probs' ? 6 : 7).split(',');
  const rows = list.map((e, i) => {
    const eq = e.indexOf('=');
    return eq >= 0 ? { label: e.slice(0, eq).trim(), value: e.slice(eq + 1).trim() }
      : { label: list.length <= 26 ? String.fromCharCode(97 + i) : `t${i}`, value: e.trim() };
  });
  return { mode, rows };
}

/**
 * A spec from the table's rows (the engine checks it).
 * @param {'logits' | 'probs'} mode @param {Array<{label: string, value: string}>} rows
 */
export function specOfRows(mode, rows) {
  return `${mode}:${rows.map((r) => `${r.label.trim()}=${r.value.trim()}`).join(',')}`;
}

/** the two forms the table edits */
const MODES = /** @type {const} */ (['logits', 'probs']);

/** @param {{panel: Pick<Panel, 'modelId' | 'modelRow' | 'models' | 'next' | 'setHandmade'>, uid: string}} props */
export function HandmadeEditor({ panel, uid }) {
  const i18n = useI18n();
  const { t } = i18n;
  const entry = panel.models.value.find((m) => m.id === panel.modelId.value);
  const spec = entry?.handmade ?? '';
  const row = panel.modelRow.value;
  const next = panel.next.value;
  const [draft, setDraft] = useState(() => rowsOfSpec(spec || PRESETS[0].spec));
  // the engine's row after every load or edit: the table shows its logits
  useEffect(() => {
    if (!row) return;
    if (draft.mode === 'logits') setDraft({ mode: 'logits', rows: row.pieces.map((label, i) => ({ label, value: fmt(row.logits[i]) })) });
    else setDraft(rowsOfSpec(spec));
  }, [row]);
  if (!entry?.handmade) return null;
  /** the engine's model probability of token i (the raw distribution) */
  const modelP = (/** @type {number} */ i) => {
    if (!next) return NaN;
    const at = Array.prototype.indexOf.call(next.ids, i);
    return at >= 0 ? next.raw[at] : NaN;
  };
  const setRow = (/** @type {number} */ i, /** @type {'label' | 'value'} */ key, /** @type {string} */ v) =>
    setDraft({ ...draft, rows: draft.rows.map((r, j) => (j === i ? { ...r, [key]: v } : r)) });
  const switchMode = (/** @type {'logits' | 'probs'} */ mode) => {
    if (mode === draft.mode) return;
    // the engine's numbers in the other form: its probabilities, or its logits
    const rows = draft.rows.map((r, i) => ({ label: r.label, value: mode === 'probs' ? fmt(modelP(i)) : fmt(row?.logits[i] ?? NaN) }));
    setDraft({ mode, rows });
  };
  const apply = () => panel.setHandmade(specOfRows(draft.mode, draft.rows));
  return (
    <section class="spg-handmade" data-testid="handmade" aria-labelledby={`${uid}-hm-h`}>
      <h3 id={`${uid}-hm-h`} class="spg-sub">{t('handmade.table')}</h3>
      {/* the presets as choices that wrap: a menu cut its entries short ("Worked example: logits 2, 1, (") */}
      <div class="spg-field" role="radiogroup" aria-labelledby={`${uid}-hm-preset`} data-testid="handmade-preset">
        <label id={`${uid}-hm-preset`}>{t('handmade.preset')}</label>
        <div class="spg-seg spg-seg-small">
          {PRESETS.map((p) => (
            <label key={p.id} class={`spg-seg-opt${p.spec === spec ? ' is-on' : ''}`}>
              <input
                type="radio" name={`${uid}-hm-preset`} value={p.id} checked={p.spec === spec} data-testid={`handmade-preset-${p.id}`}
                onChange={() => {
                  setDraft(rowsOfSpec(p.spec));
                  panel.setHandmade(p.spec);
                }}
              />
              <span>{t(p.label)}</span>
            </label>
          ))}
        </div>
      </div>
      <div class="spg-seg spg-seg-small" role="radiogroup" aria-label={t('handmade.editAs')}>
        <span class="spg-hint" aria-hidden="true">{t('handmade.editAsColon')}</span>
        {MODES.map((m) => (
          <label key={m} class={`spg-seg-opt${draft.mode === m ? ' is-on' : ''}`}>
            <input type="radio" name={`${uid}-hm-mode`} checked={draft.mode === m} data-testid={`handmade-as-${m}`} onChange={() => switchMode(m)} />
            <span>{t(m === 'logits' ? 'handmade.asLogits' : 'handmade.asProbs')}</span>
          </label>
        ))}
      </div>
      <table class="spg-hm-table" data-testid="handmade-table">
        <thead><tr><th>{t('handmade.label')}</th><th>{t(draft.mode === 'logits' ? 'handmade.logit' : 'handmade.prob')}</th><th>{t('handmade.modelP')}</th><th /></tr></thead>
        <tbody>
          {draft.rows.map((r, i) => (
            <tr key={i} data-testid="handmade-row">
              <td><input aria-label={t('handmade.labelN', { n: i + 1 })} value={r.label} size={6} data-testid="handmade-label" onInput={(e) => setRow(i, 'label', /** @type {HTMLInputElement} */ (e.currentTarget).value)} /></td>
              <td><input aria-label={t(draft.mode === 'logits' ? 'handmade.logitN' : 'handmade.probN', { n: i + 1 })} value={r.value} size={9} inputMode="decimal" data-testid="handmade-value" onInput={(e) => setRow(i, 'value', /** @type {HTMLInputElement} */ (e.currentTarget).value)} /></td>
              <td class="spg-num" data-testid="handmade-p" data-value={String(modelP(i))}>{Number.isNaN(modelP(i)) ? '' : i18n.pct(modelP(i))}</td>
              <td>{draft.rows.length > 2 && <button type="button" class="spg-btn spg-btn-small" aria-label={t('handmade.remove', { name: r.label })} onClick={() => setDraft({ ...draft, rows: draft.rows.filter((_, j) => j !== i) })}>×</button>}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div class="spg-row">
        <button type="button" class="spg-btn spg-btn-small" onClick={() => setDraft({ ...draft, rows: [...draft.rows, { label: `t${draft.rows.length}`, value: draft.mode === 'logits' ? '0' : '0.1' }] })}>{t('handmade.add')}</button>
        <button type="button" class="spg-btn" data-testid="handmade-apply" onClick={apply}>{t('handmade.apply')}</button>
      </div>
      <small class="spg-hint">{t('handmade.hint')}</small>
    </section>
  );
}

/** a logit or probability as the table shows it: the engine's float, to 6 digits */
function fmt(/** @type {number} */ x) {
  if (x === -Infinity) return '-inf';
  if (!Number.isFinite(x)) return '';
  return String(Number(x.toPrecision(6)));
}

/** @param {{panel: Pick<Panel, 'model' | 'modelId' | 'models' | 'trainOn'>, uid: string}} props */
export function TextTrainer({ panel, uid }) {
  const i18n = useI18n();
  const { t } = i18n;
  const [text, setText] = useState('');
  // a model trained from a link's text (train=): its text in the box, to read and change
  const bytes = panel.models.value.find((m) => m.id === 'text')?.text;
  useEffect(() => {
    if (bytes && !text) setText(new TextDecoder().decode(bytes));
  }, [bytes]);
  const [over, setOver] = useState(false);
  const info = panel.model.value;
  const trained = panel.modelId.value === 'text' ? info?.trained : undefined;
  const train = (/** @type {string | Blob} */ src) => panel.trainOn(src);
  return (
    <details class="spg-files spg-train" data-testid="train" open={panel.modelId.value === 'text' || undefined}>
      <summary>{t('model.yourText')}</summary>
      <p class="spg-hint">{t('train.hint')}</p>
      <label for={`${uid}-train-text`}>{t('train.textArea')}</label>
      <textarea
        id={`${uid}-train-text`} rows={4} value={text} data-testid="train-text" class={over ? 'is-over' : ''}
        onInput={(e) => setText(/** @type {HTMLTextAreaElement} */ (e.currentTarget).value)}
        onDragOver={(e) => { e.preventDefault(); setOver(true); }}
        onDragLeave={() => setOver(false)}
        onDrop={(e) => {
          e.preventDefault();
          setOver(false);
          const f = e.dataTransfer?.files?.[0];
          if (f) train(f);
        }}
      />
      <div class="spg-row">
        <button type="button" class="spg-btn" data-testid="train-go" disabled={!text} onClick={() => train(text)}>{t('train.go')}</button>
        <label class="spg-hint">
          {t('train.file')}{' '}
          <input
            type="file" accept=".txt,text/plain" data-testid="train-file"
            onChange={(e) => {
              const input = /** @type {HTMLInputElement} */ (e.currentTarget);
              const f = input.files?.[0];
              if (f) train(f);
              input.value = '';
            }}
          />
        </label>
      </div>
      {trained && <small class="spg-hint" data-testid="train-info" data-bytes={String(trained.bytes)} data-chars={String(trained.chars)}>{t('train.done', { bytes: i18n.int(trained.bytes), count: trained.chars })}</small>}
    </details>
  );
}
