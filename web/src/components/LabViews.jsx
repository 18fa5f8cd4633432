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

const W = 300;
const H = 100;

/**
 * Entropy (line) and nucleus size (bars, log2 scale) per step, in bits.
 * @param {{stats: Array<{entropyBits: number, nKept: number}>, vocab: number, label?: string}} props
 */
export function StepChart({ stats, vocab, label = 'Entropy and nucleus size per step' }) {
  const c = stepChart(stats, vocab, { width: W, height: H });
  return (
    <figure class="spg-chart" data-testid="step-chart" data-steps={String(stats.length)}>
      <div class="spg-chart-plot">
        <svg viewBox={`0 0 ${W} ${H}`} preserveAspectRatio="none" role="img" aria-label={`${label}: ${stats.length} steps`}>
          {c.bitTicks.map((t) => <line key={t.bits} class="spg-grid" x1="0" x2={W} y1={t.y} y2={t.y} vector-effect="non-scaling-stroke" />)}
          <path class="spg-chart-bars" d={c.bars} />
          {c.count > 0 && <polyline class="spg-chart-line" points={c.line} vector-effect="non-scaling-stroke" />}
        </svg>
        <div class="spg-chart-yl" aria-hidden="true">
          {c.bitTicks.map((t) => <span key={t.bits} style={{ top: `${t.y}%` }}>{t.bits}</span>)}
        </div>
        <div class="spg-chart-yr" aria-hidden="true">
          {c.sizeTicks.map((t) => <span key={t.size} style={{ top: `${t.y}%` }}>{compact(t.size)}</span>)}
        </div>
      </div>
      <figcaption class="spg-axis">
        <span>{c.count ? `steps ${c.from + 1}–${c.from + c.count}` : 'no steps yet'}</span>
        <span class="spg-legend">
          <span><i class="spg-key spg-key-line" /> entropy (bits, left)</span>
          <span><i class="spg-key spg-key-bar" /> nucleus size (right)</span>
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
  const m = lab?.metrics;
  const repeat = m ? repeatedText(text, m) : '';
  return (
    <div class={`spg-metrics${small ? ' is-compact' : ''}`} data-testid="metrics" data-tokens={m ? String(m.tokens) : '0'}>
      <dl class="spg-readouts spg-metric-list">
        {METRICS.map((d) => (
          <div key={d.key} title={d.explain}>
            <dt>{d.label}</dt>
            <dd data-testid={`metric-${d.key}`} data-value={m ? String(m[d.key]) : ''}>
              {m ? d.format(m[d.key], m) : '–'}
            </dd>
            {d.key === 'longestRepeat' && repeat && <dd class="spg-sub spg-mono spg-repeat" data-testid="metric-repeat" title={repeat}>{showPiece(repeat)}</dd>}
          </div>
        ))}
      </dl>
      {note && <p class="spg-hint">{note}</p>}
      <StepChart stats={lab?.stats ?? []} vocab={vocab} />
      {!small && (
        <details class="spg-explain">
          <summary>What these measure</summary>
          <dl id={`${uid}-metrics-explain`}>
            {METRICS.map((d) => (
              <div key={d.key}>
                <dt>{d.label}</dt>
                <dd>{d.explain}</dd>
              </div>
            ))}
            <div>
              <dt>The chart</dt>
              <dd>
                For each step, a bar for the nucleus (the tokens the sampler kept), drawn log₂(size) bits high: the
                entropy those tokens would have if they were equally likely. The line is the entropy the step really
                had; it never rises above its bar.
              </dd>
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
  const c = costChart(costs, { width: W, height: H });
  return (
    <figure class="spg-chart" data-testid="cost-chart" data-points={String(costs.length)}>
      <div class="spg-chart-plot">
        <svg viewBox={`0 0 ${W} ${H}`} preserveAspectRatio="none" role="img" aria-label="Cumulative FLOPs with and without the KV cache">
          {c.ticks.map((t) => <line key={t} class="spg-grid" x1="0" x2={W} y1={H - (t / c.yMax) * H} y2={H - (t / c.yMax) * H} vector-effect="non-scaling-stroke" />)}
          {costs.length > 0 && <polyline class="spg-chart-line spg-line-nocache" points={c.uncached} vector-effect="non-scaling-stroke" />}
          {costs.length > 0 && <polyline class="spg-chart-line spg-line-cache" points={c.cached} vector-effect="non-scaling-stroke" />}
        </svg>
        <div class="spg-chart-yl" aria-hidden="true">
          {c.ticks.map((t) => <span key={t} style={{ top: `${100 - (t / c.yMax) * 100}%` }}>{compact(t)}</span>)}
        </div>
      </div>
      <figcaption class="spg-axis">
        <span>tokens generated → {c.xMax}</span>
        <span class="spg-legend">
          <span><i class="spg-key spg-key-nocache" /> without a cache: O(T²)</span>
          <span><i class="spg-key spg-key-cache" /> with the KV cache: O(T)</span>
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
 *   model: import('../worker/host.js').ModelInfo | null,
 *   strategy: import('../app/lab.js').Strategy,
 * }} props
 */
export function KVView({ lab, model, strategy }) {
  if (strategy === 'beam') {
    return <p class="spg-hint" data-testid="kv-note">Beam search runs a model state per beam, apart from the text's session: the KV view follows sampling and speculative decoding.</p>;
  }
  const costs = lab?.costs ?? [];
  const last = costs[costs.length - 1];
  const prev = costs.length > 1 ? costs[costs.length - 2] : null;
  if (model?.kind !== 'transformer' || (last && last.flops === 0)) {
    return (
      <p class="spg-note" data-testid="kv-note">
        {model?.kind === 'handmade'
          ? 'A hand-made distribution has no attention and no KV cache: it gives the same probabilities at every step,'
          : 'The bigram has no attention and no KV cache: each next character is looked up in a table from the one before,'}
        {' '}so there is nothing to keep and nothing to compute again. The engine counts its forward calls only
        ({last ? last.tokens : 0} so far) and no FLOPs. Choose the tiny transformer (or load a llama2.c model) to see the cache at work.
      </p>
    );
  }
  if (!last) return <p class="spg-hint">No forward passes yet.</p>;
  /** @param {keyof typeof last} k */
  const delta = (k) => (prev ? /** @type {number} */ (last[k]) - /** @type {number} */ (prev[k]) : NaN);
  const cell = (/** @type {string} */ id, /** @type {number} */ v) => <td data-testid={id} data-value={String(v)}>{compact(v)}</td>;
  return (
    <div class="spg-kv" data-testid="kv-view">
      <table class="spg-table">
        <thead>
          <tr><th scope="col" /><th scope="col">last step</th><th scope="col">so far</th></tr>
        </thead>
        <tbody>
          <tr><th scope="row">FLOPs with the KV cache</th>{cell('kv-flops-step', delta('flops'))}{cell('kv-flops', last.flops)}</tr>
          <tr><th scope="row">FLOPs without a cache</th>{cell('kv-nocache-step', delta('flopsNoCache'))}{cell('kv-nocache', last.flopsNoCache)}</tr>
          <tr>
            <th scope="row">Without ÷ with</th>
            <td>{times(delta('flopsNoCache'), delta('flops'))}</td>
            <td data-testid="kv-ratio">{times(last.flopsNoCache, last.flops)}</td>
          </tr>
          <tr><th scope="row">Key/value rows computed</th>{cell('kv-written-step', delta('kvWritten'))}{cell('kv-written', last.kvWritten)}</tr>
          <tr><th scope="row">Key/value rows reused</th>{cell('kv-reused-step', delta('kvReused'))}{cell('kv-reused', last.kvReused)}</tr>
          <tr><th scope="row">Positions fed to the model</th>{cell('kv-tokens-step', delta('tokens'))}{cell('kv-tokens', last.tokens)}</tr>
        </tbody>
      </table>
      <CostChart costs={costs} />
      <p class="spg-hint">
        With the cache, each new token computes its own keys and values once and reads the earlier ones back: the cost per
        token barely grows. Without it, every token would recompute the whole prefix: the total grows with the square of
        the length. (The counts include the prompt; looking at a past step under new settings recomputes it, and counts.)
      </p>
    </div>
  );
}
