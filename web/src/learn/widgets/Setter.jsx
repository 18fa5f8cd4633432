// @ts-check
/**
 * Setter.jsx — settings of a playground that rewrite its text: each field
 * sets one of its attributes (a seed, a temperature, a penalty), and the
 * element writes its `steps` tokens again with the new value (its
 * rewrite(): a slider inside the element only re-warps the next token).  Its labels are the
 * playground's own words (its catalogue: seed.label, param.NAME.label).
 */
import { useState } from 'preact/hooks';

/**
 * @typedef {Object} Field
 * @property {string} attr   the attribute it sets
 * @property {string} label  the playground's catalogue key of its name
 * @property {'range' | 'whole'} kind  a slider, or a whole number (a seed)
 * @property {number} value  the chapter's value
 * @property {number} [min] @property {number} [max] @property {number} [step]
 */

/**
 * @param {{ctx: import('../ChapterBody.jsx').ChapterContext, target: string, fields: Field[], legend?: string}} props
 *   legend: the chapter's key of the fields' title
 */
export function Setter({ ctx, target, fields, legend = '' }) {
  const { say } = ctx;
  const [values, setValues] = useState(() => Object.fromEntries(fields.map((f) => [f.attr, f.value])));
  /** the value shown (a slider while it is dragged) */
  const show = (/** @type {string} */ attr, /** @type {number} */ v) => setValues((now) => ({ ...now, [attr]: v }));
  /** the value the playground takes (a slider let go, a number entered) */
  const set = (/** @type {string} */ attr, /** @type {number} */ v) => {
    if (!Number.isFinite(v)) return;
    show(attr, v);
    ctx.setAttrs(target, { [attr]: String(v) });
    // the element takes it now, and writes its text again
    const el = /** @type {import('../../embed/embed.jsx').SamplerPlayground | null} */ (document.getElementById(target));
    el?.setAttribute(attr, String(v));
    el?.rewrite();
  };
  return (
    <fieldset class="learn-control learn-setter" data-testid="setter" data-for={target}>
      <legend>{legend ? say.t(legend) : say.t('learn.setterLegend')}</legend>
      {fields.map((f) => {
        const id = `${target}-set-${f.attr}`;
        const v = values[f.attr];
        return (
          <div key={f.attr} class="learn-slider">
            <label for={id}>{say.i18n.t(f.label)}</label>
            {f.kind === 'whole'
              ? (
                <span class="learn-whole">
                  <button type="button" class="learn-btn learn-btn-small" aria-label={say.t('learn.less', { name: say.i18n.t(f.label) })} onClick={() => set(f.attr, Math.max(f.min ?? 0, v - 1))} data-testid={`less-${f.attr}`}>−</button>
                  <input
                    id={id} type="number" inputMode="numeric" min={f.min ?? 0} max={f.max} step="1" value={v} data-testid={`set-${f.attr}`}
                    onChange={(e) => set(f.attr, Math.round(Number(/** @type {HTMLInputElement} */ (e.currentTarget).value)))}
                  />
                  <button type="button" class="learn-btn learn-btn-small" aria-label={say.t('learn.more', { name: say.i18n.t(f.label) })} onClick={() => set(f.attr, Math.min(f.max ?? Infinity, v + 1))} data-testid={`more-${f.attr}`}>+</button>
                </span>
              )
              : (
                <input
                  id={id} type="range" min={f.min} max={f.max} step={f.step} value={v} data-testid={`set-${f.attr}`}
                  onInput={(e) => show(f.attr, Number(/** @type {HTMLInputElement} */ (e.currentTarget).value))}
                  onChange={(e) => set(f.attr, Number(/** @type {HTMLInputElement} */ (e.currentTarget).value))}
                />
              )}
            {f.kind === 'range' && <output for={id}>{say.i18n.num(v)}</output>}
          </div>
        );
      })}
    </fieldset>
  );
}
