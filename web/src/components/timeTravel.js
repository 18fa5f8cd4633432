// @ts-check
/**
 * What a generated text does with the pointer and the keys, whichever way
 * it was decoded (sampled, beam search, speculative): hovering a token shows
 * its step's distribution, a click pins it (time travel) or unpins it,
 * and, with the text focused, ← / → move between steps, Home goes to the
 * first, End or Escape back to the live step.  Each token is an element
 * with data-step="its index".
 */

/** The step of the token an event came from, or null. @param {Event} e */
function stepOf(e) {
  const el = /** @type {HTMLElement | null} */ (/** @type {HTMLElement} */ (e.target).closest?.('[data-step]'));
  return el ? Number(el.dataset.step) : null;
}

/**
 * The text element's handlers.
 * @param {number} count the tokens in the text
 * @param {number | null} focus the pinned step, or null (live)
 * @param {(i: number | null) => void} onHover
 * @param {(i: number | null) => void} onFocus
 */
export function timeTravelHandlers(count, focus, onHover, onFocus) {
  return {
    onMouseOver: (/** @type {MouseEvent} */ e) => { const i = stepOf(e); if (i !== null) onHover(i); },
    onMouseLeave: () => onHover(null),
    onClick: (/** @type {MouseEvent} */ e) => { const i = stepOf(e); if (i !== null) onFocus(i === focus ? null : i); },
    onKeyDown: (/** @type {KeyboardEvent} */ e) => {
      if (!count) return;
      let i = focus;
      if (e.key === 'ArrowLeft') i = i === null ? count - 1 : Math.max(0, i - 1);
      else if (e.key === 'ArrowRight') i = i === null ? null : i + 1 >= count ? null : i + 1;
      else if (e.key === 'Home') i = 0;
      else if (e.key === 'End' || e.key === 'Escape') i = null;
      else return;
      e.preventDefault();
      onFocus(i);
    },
  };
}
