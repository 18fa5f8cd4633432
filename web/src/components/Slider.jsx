// @ts-check
/**
 * A labelled range input: <label> (its accessible name starts with the
 * label), the value as text, a hint.  Values are clamped onto the range and
 * its grid before they reach onChange.  Keyboard and touch are the native
 * range input's.
 */
import { clampParam } from '../app/params.js';
import { useI18n } from './I18n.jsx';

/**
 * @param {{
 *   id: string, spec: import('../app/params.js').ParamSpec, value: number,
 *   max?: number, vocab?: number, onChange: (v: number) => void,
 *   disabled?: boolean, note?: string,
 * }} props
 *   note: said instead of the hint (why a disabled slider does not apply)
 */
export function Slider({ id, spec, value, max = spec.max, vocab, onChange, disabled = false, note = '' }) {
  const i18n = useI18n();
  const text = spec.format(value, vocab, i18n);
  const onInput = (/** @type {Event} */ e) => {
    const input = /** @type {HTMLInputElement} */ (e.currentTarget);
    onChange(clampParam(spec, Number(input.value), max));
  };
  return (
    <div class={`spg-slider${disabled ? ' is-disabled' : ''}`} data-param={spec.key}>
      <div class="spg-slider-head">
        <label for={id}>{i18n.t(`param.${spec.key}.label`)}</label>
        <output for={id} data-testid={`value-${spec.key}`}>{text}</output>
      </div>
      <input
        type="range"
        id={id}
        name={spec.key}
        min={spec.min}
        max={max}
        step={spec.step}
        value={value}
        aria-valuetext={text}
        aria-describedby={`${id}-hint`}
        disabled={disabled}
        onInput={onInput}
      />
      <small id={`${id}-hint`} class="spg-hint" data-testid={note ? `why-${spec.key}` : undefined}>{note || i18n.t(`param.${spec.key}.doc`)}</small>
    </div>
  );
}
