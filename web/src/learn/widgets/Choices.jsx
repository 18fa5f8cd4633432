// @ts-check
/**
 * Choices.jsx — a few setups of a playground, one chosen at a time (radio
 * buttons): each option sets some of its attributes (null removes one: the
 * chapter's setup), and the element writes its text again with them.
 * The first option is the playground's setup when the page opens (set
 * here, so that "no pattern" can remove what it sets: the chapter's own
 * attributes leave it out).  An optional field lets the learner type a
 * value of one attribute (a regular expression of their own).  The option's names are the chapter's
 * words (`words` lists them, for the course's tests).
 */
import { useLayoutEffect, useState } from 'preact/hooks';

/**
 * @typedef {Object} Option
 * @property {string} label  the chapter's key of its name
 * @property {Record<string, string | null>} attrs  what it sets (null: removes)
 */

/**
 * Sets a playground's attributes now, and has it write its text again.
 * @param {import('../ChapterBody.jsx').ChapterContext} ctx @param {string} target @param {Record<string, string | null>} attrs
 */
function apply(ctx, target, attrs) {
  ctx.setAttrs(target, attrs);
  const el = /** @type {import('../../embed/embed.jsx').SamplerPlayground | null} */ (document.getElementById(target));
  if (!el) return;
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null) el.removeAttribute(k);
    else el.setAttribute(k, v);
  }
  el.rewrite();
}

/**
 * @param {{ctx: import('../ChapterBody.jsx').ChapterContext, target: string, options: Option[], legend: string,
 *   own?: {attr: string, label: string, apply: string}, words?: string[]}} props
 *   own: a field for a value of the learner's own (its label's and its button's keys)
 */
export function Choices({ ctx, target, options, legend, own }) {
  const { say } = ctx;
  const [chosen, setChosen] = useState(0);
  const [text, setText] = useState('');
  const name = `${target}-choice`;
  // the first option, before the element is made (effects run in order: this control comes before its playground)
  useLayoutEffect(() => { ctx.setAttrs(target, options[0].attrs); }, []);
  return (
    <fieldset class="learn-control learn-pick" data-testid="choices" data-for={target}>
      <legend>{say.t(legend)}</legend>
      <div class="learn-choices">
        {options.map((o, i) => (
          <label key={o.label}>
            <input
              type="radio" name={name} checked={chosen === i} data-testid="choice"
              onChange={() => { setChosen(i); apply(ctx, target, o.attrs); }}
            />
            <span>{say.t(o.label)}</span>
          </label>
        ))}
      </div>
      {own && (
        <form
          class="learn-own" onSubmit={(e) => {
            e.preventDefault();
            if (!text.trim()) return;
            setChosen(-1);
            apply(ctx, target, { [own.attr]: text.trim() });
          }}
        >
          <label for={`${target}-own`}>{say.t(own.label)}</label>
          <input id={`${target}-own`} value={text} spellcheck={false} autocomplete="off" data-testid="choice-own" onInput={(e) => setText(/** @type {HTMLInputElement} */ (e.currentTarget).value)} />
          <button type="submit" class="learn-btn learn-btn-small" data-testid="choice-apply">{say.t(own.apply)}</button>
        </form>
      )}
    </fieldset>
  );
}
