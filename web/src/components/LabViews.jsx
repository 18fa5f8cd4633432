// @ts-check
/**
 * The lab's measurement views: the text metrics with the entropy and
 * nucleus chart, and the KV-cache view with its cost chart.  They draw the
 * engine's numbers (session.metrics(), stats(), counters()); the geometry
 * is app/chart.js's.
 */
import { costChart, stepChart } from '../app/chart.js';
import { showPiece } from '../app/format.js';
import { METRICS, compact, repeatedText, times } from '../app/metrics.js';
import { useI18n } from './I18n.jsx';

const W = 300;
const H = 100;

/**
 * Entropy (line) and nucleus size (bars, log2 scale) per step, in bits.
 * @param {{stats: Array<{entropyBits: number, nKept: number}>, vocab: number, label?: string}} props
 */
export function StepChart({ stats, vocab, label }) {
  const i18n = useI18n();
  const { t } = i18n;
  const c = stepChart(stats, vocab, { width: W, height: H });
  return (
    <figure class="spg-chart" data-testid="step-chart" data-steps={String(stats.length)}>
      <div class="spg-chart-plot">
        <svg viewBox={`0 0 ${W} ${H}`} preserveAspectRatio="none" role="img" aria-label={t('chart.stepsLabel', { label: label ?? t('chart.steps'), count: stats.length })}>
          {c.bitTicks.map((k) => <line key={k.bits} class="spg-grid" x1="0" x2={W} y1={k.y} y2={k.y} vector-effect="non-scaling-stroke" />)}
          <path class="spg-chart-bars" d={c.bars} />
          {c.count > 0 && <polyline class="spg-chart-line" points={c.line} vector-effect="non-scaling-stroke" />}
        </svg>
        <div class="spg-chart-yl" aria-hidden="true">
          {c.bitTicks.map((k) => <span key={k.bits} style={{ top: `${k.y}%` }}>{i18n.num(k.bits)}</span>)}
        </div>
        <div class="spg-chart-yr" aria-hidden="true">
          {c.sizeTicks.map((k) => <span key={k.size} style={{ top: `${k.y}%` }}>{compact(k.size, i18n)}</span>)}
        </div>
      </div>
      <figcaption class="spg-axis">
        <span>{c.count ? t('chart.range', { from: c.from + 1, to: c.from + c.count }) : t('chart.none')}</span>
        <span class="spg-legend">
          <span><i class="spg-key spg-key-line" /> {t('chart.entropy')}</span>
          <span><i class="spg-key spg-key-bar" /> {t('chart.size')}</span>
        </span>
      </figcaption>
    </figure>
  );
}

/**
 * @param {{
 *   lab: import('../app/panel.js').LabState | null, text: string, vocab: number,
 *   compact?: boolean, uid: string, note?: string,
 * }} props
 */
export function Metrics({ lab, text, vocab, compact: small = false, uid, note = '' }) {
  const i18n = useI18n();
  const { t } = i18n;
  const m = lab?.metrics;
  const repeat = m ? repeatedText(text, m) : '';
  return (
    <div class={`spg-metrics${small ? ' is-compact' : ''}`} data-testid="metrics" data-tokens={m ? String(m.tokens) : '0'}>
      <dl class="spg-readouts spg-metric-list">
        {METRICS.map((d) => (
          <div key={d.key} title={t(d.explain)}>
            <dt>{t(d.label)}</dt>
            <dd data-testid={`metric-${d.key}`} data-value={m ? String(m[d.key]) : ''}>
              {m ? d.format(m[d.key], m, i18n) : '–'}
            </dd>
            {d.key === 'longestRepeat' && repeat && <dd class="spg-sub spg-mono spg-repeat" data-testid="metric-repeat" title={repeat}>{showPiece(repeat)}</dd>}
          </div>
        ))}
      </dl>
      {note && <p class="spg-hint">{note}</p>}
      <StepChart stats={lab?.stats ?? []} vocab={vocab} />
      {!small && (
        <details class="spg-explain">
          <summary>{t('metrics.explain')}</summary>
          <dl id={`${uid}-metrics-explain`}>
            {METRICS.map((d) => (
              <div key={d.key}>
                <dt>{t(d.label)}</dt>
                <dd>{t(d.explain)}</dd>
              </div>
            ))}
            <div>
              <dt>{t('metrics.chart')}</dt>
              <dd>{t('metrics.chartExplain')}</dd>
            </div>
          </dl>
        </details>
      )}
    </div>
  );
}

/**
 * Cumulative work with and without a KV cache.
 * @param {{costs: Array<{n: number, flops: number, flopsNoCache: number}>}} props
 */
export function CostChart({ costs }) {
  const i18n = useI18n();
  const { t } = i18n;
  const c = costChart(costs, { width: W, height: H });
  return (
    <figure class="spg-chart" data-testid="cost-chart" data-points={String(costs.length)}>
      <div class="spg-chart-plot">
        <svg viewBox={`0 0 ${W} ${H}`} preserveAspectRatio="none" role="img" aria-label={t('kv.chartLabel')}>
          {c.ticks.map((k) => <line key={k} class="spg-grid" x1="0" x2={W} y1={H - (k / c.yMax) * H} y2={H - (k / c.yMax) * H} vector-effect="non-scaling-stroke" />)}
          {costs.length > 0 && <polyline class="spg-chart-line spg-line-nocache" points={c.uncached} vector-effect="non-scaling-stroke" />}
          {costs.length > 0 && <polyline class="spg-chart-line spg-line-cache" points={c.cached} vector-effect="non-scaling-stroke" />}
        </svg>
        <div class="spg-chart-yl" aria-hidden="true">
          {c.ticks.map((k) => <span key={k} style={{ top: `${100 - (k / c.yMax) * 100}%` }}>{compact(k, i18n)}</span>)}
        </div>
      </div>
      <figcaption class="spg-axis">
        <span>{t('kv.axis', { n: c.xMax })}</span>
        <span class="spg-legend">
          <span><i class="spg-key spg-key-nocache" /> {t('kv.nocache')}</span>
          <span><i class="spg-key spg-key-cache" /> {t('kv.cache')}</span>
        </span>
      </figcaption>
    </figure>
  );
}

/**
 * The KV-cache view: per step and in all, the engine's FLOP counts with
 * and without the cache, and the key/value rows computed and reused.
 * @param {{
 *   lab: import('../app/panel.js').LabState | null,
 *   model: import('../worker/protocol.js').ModelInfo | null,
 *   strategy: import('../app/lab.js').Strategy,
 * }} props
 */
export function KVView({ lab, model, strategy }) {
  const i18n = useI18n();
  const { t } = i18n;
  if (strategy === 'beam') {
    return <p class="spg-hint" data-testid="kv-note">{t('kv.beam')}</p>;
  }
  const costs = lab?.costs ?? [];
  const last = costs[costs.length - 1];
  const prev = costs.length > 1 ? costs[costs.length - 2] : null;
  if (model?.kind !== 'transformer' || (last && last.flops === 0)) {
    return (
      <p class="spg-note" data-testid="kv-note">{t(model?.kind === 'handmade' ? 'kv.handmade' : 'kv.bigram', { count: last ? last.tokens : 0 })}</p>
    );
  }
  if (!last) return <p class="spg-hint">{t('kv.none')}</p>;
  /** @param {keyof typeof last} k */
  const delta = (k) => (prev ? /** @type {number} */ (last[k]) - /** @type {number} */ (prev[k]) : NaN);
  const cell = (/** @type {string} */ id, /** @type {number} */ v) => <td data-testid={id} data-value={String(v)}>{compact(v, i18n)}</td>;
  return (
    <div class="spg-kv" data-testid="kv-view">
      <table class="spg-table">
        <thead>
          <tr><th scope="col" /><th scope="col">{t('kv.last')}</th><th scope="col">{t('kv.soFar')}</th></tr>
        </thead>
        <tbody>
          <tr><th scope="row">{t('kv.flops')}</th>{cell('kv-flops-step', delta('flops'))}{cell('kv-flops', last.flops)}</tr>
          <tr><th scope="row">{t('kv.flopsNoCache')}</th>{cell('kv-nocache-step', delta('flopsNoCache'))}{cell('kv-nocache', last.flopsNoCache)}</tr>
          <tr>
            <th scope="row">{t('kv.ratio')}</th>
            <td>{times(delta('flopsNoCache'), delta('flops'), i18n)}</td>
            <td data-testid="kv-ratio">{times(last.flopsNoCache, last.flops, i18n)}</td>
          </tr>
          <tr><th scope="row">{t('kv.written')}</th>{cell('kv-written-step', delta('kvWritten'))}{cell('kv-written', last.kvWritten)}</tr>
          <tr><th scope="row">{t('kv.reused')}</th>{cell('kv-reused-step', delta('kvReused'))}{cell('kv-reused', last.kvReused)}</tr>
          <tr><th scope="row">{t('kv.tokens')}</th>{cell('kv-tokens-step', delta('tokens'))}{cell('kv-tokens', last.tokens)}</tr>
        </tbody>
      </table>
      <CostChart costs={costs} />
      <p class="spg-hint">{t('kv.hint')}</p>
    </div>
  );
}
