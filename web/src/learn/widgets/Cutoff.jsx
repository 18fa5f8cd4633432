// @ts-check
/**
 * Cutoff.jsx — one cutoff set on several playgrounds at once (a confident
 * step and a flat one, one above the other): a choice of the method
 * (min-p and the others the chapter offers) when there is more than one, and a slider for its
 * value.  Each playground takes it as an attribute of a sampler setting
 * and re-warps its bars; every count and probability shown is the
 * engine's.  Its labels are the playground's own words (param.NAME.label).
 */
import { useState } from 'preact/hooks';

/**
 * @typedef {Object} Method
 * @property {string} attr   the setting's attribute (its CLI flag)
 * @property {string} label  the playground's catalogue key of its name
 * @property {number} value  the value it starts at
 * @property {number} off    the value that switches it off (set when another method is chosen)
 * @property {number} min @property {number} max @property {number} step
 */

/**
 * @param {{ctx: import('../ChapterBody.jsx').ChapterContext, targets: string[], methods: Method[], legend: string}} props
 *   legend: the chapter's key of the control's title
 */
export function Cutoff({ ctx, targets, methods, legend }) {
  const { say } = ctx;
  const [current, setCurrent] = useState(0);
  const [values, setValues] = useState(() => methods.map((m) => m.value));
  const name = (/** @type {Method} */ m) => say.i18n.t(m.label);
  /** the playgrounds take method i at value v (the method before switched off) */
  const apply = (/** @type {number} */ i, /** @type {number} */ v, /** @type {number} */ before) => {
    /** @type {Record<string, string>} */
    const patch = {};
    if (before !== i) patch[methods[before].attr] = String(methods[before].off);
    patch[methods[i].attr] = String(v);
    for (const t of targets) ctx.setAttrs(t, patch);
  };
  const choose = (/** @type {number} */ i) => {
    apply(i, values[i], current);
    setCurrent(i);
  };
  const slide = (/** @type {number} */ v) => {
    setValues((now) => now.map((x, j) => (j === current ? v : x)));
    apply(current, v, current);
  };
  const m = methods[current];
  const id = `${targets[0]}-cutoff`;
  const digits = m.step < 0.01 ? 3 : m.step < 0.1 ? 2 : 1;
  return (
    <fieldset class="learn-control learn-setter" data-testid="cutoff" data-for={targets.join(' ')}>
      <legend>{say.t(legend)}</legend>
      {methods.length > 1 && (
        <div class="learn-choices" role="radiogroup" aria-label={say.t(legend)}>
          {methods.map((x, i) => (
            <label key={x.attr}>
              <input type="radio" name={id} value={x.attr} checked={i === current} onChange={() => choose(i)} data-testid="cutoff-method" />
              {name(x)}
            </label>
          ))}
        </div>
      )}
      <div class="learn-slider">
        <label for={id}>{name(m)}</label>
        <input
          id={id} key={m.attr} type="range" min={m.min} max={m.max} step={m.step} value={values[current]} data-testid="cutoff-value"
          onInput={(e) => slide(Number(/** @type {HTMLInputElement} */ (e.currentTarget).value))}
        />
        <output for={id} data-testid="cutoff-shown">{say.i18n.fixed(values[current], digits)}</output>
      </div>
    </fieldset>
  );
}
