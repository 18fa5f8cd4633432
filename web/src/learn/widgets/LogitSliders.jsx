// @ts-check
/**
 * LogitSliders.jsx — one slider per token of a hand-made model: each sets
 * that token's logit, and the playground beside it (its `model`
 * attribute, "logits:mat=2,sofa=1,floor=0") shows the engine's softmax.
 * The sliders hold the logits the learner chose; every probability on the
 * page is the engine's.
 */
import { useState } from 'preact/hooks';

/**
 * @param {{ctx: import('../ChapterBody.jsx').ChapterContext, target: string, logits: number[],
 *   min?: number, max?: number, step?: number}} props
 *   target: the playground's id; logits: the first ones, one per example word
 */
export function LogitSliders({ ctx, target, logits, min = -4, max = 6, step = 0.5 }) {
  const { say, examples } = ctx;
  const [values, setValues] = useState(logits);
  const words = examples.slice(0, values.length);
  const set = (/** @type {number} */ i, /** @type {number} */ v) => {
    const next = values.map((x, j) => (j === i ? v : x));
    setValues(next);
    ctx.setAttrs(target, { model: `logits:${words.map((w, j) => `${w}=${next[j]}`).join(',')}` });
  };
  return (
    <fieldset class="learn-control learn-logits" data-testid="logit-sliders">
      <legend>{say.t('learn.logitsLegend')}</legend>
      {words.map((w, i) => (
        <div key={w} class="learn-slider">
          <label for={`${target}-logit-${i}`}>{say.t('learn.logitOf', { word: w })}</label>
          <input
            id={`${target}-logit-${i}`} type="range" min={min} max={max} step={step} value={values[i]}
            data-testid="logit-slider" onInput={(e) => set(i, Number(/** @type {HTMLInputElement} */ (e.currentTarget).value))}
          />
          <output for={`${target}-logit-${i}`} data-testid="logit-value">{say.i18n.fixed(values[i], 1)}</output>
        </div>
      ))}
    </fieldset>
  );
}
