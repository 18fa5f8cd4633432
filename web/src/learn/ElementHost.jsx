// @ts-check
/**
 * ElementHost.jsx — one of the project's elements (<sampler-playground>,
 * <sampler-question>) in a Preact page, by its attributes alone.
 *
 * Preact would set a prop as a property when the element has one of that
 * name (<sampler-playground> has a `view`), so the element is made here:
 * created with all its attributes before it enters the page (it reads
 * them once, when connected), then given each attribute whose value here
 * changes.  An attribute changed from elsewhere (a question's "Show me"
 * sets up its playground) stays until the page changes that one.
 * Its light-DOM content (a question's words) is rendered into it.
 */
import { render } from 'preact';
import { useLayoutEffect, useRef } from 'preact/hooks';

/**
 * @param {{tag: string, attrs: Record<string, string>, children?: import('preact').ComponentChildren,
 *   class?: string, testid?: string}} props  class: the wrapper's; testid: the element's data-testid
 */
export function ElementHost({ tag, attrs, children = null, class: cls = '', testid = '' }) {
  const host = useRef(/** @type {HTMLDivElement | null} */ (null));
  const el = useRef(/** @type {HTMLElement | null} */ (null));
  const last = useRef(/** @type {Record<string, string>} */ ({}));

  useLayoutEffect(() => {
    const made = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) made.setAttribute(k, v);
    last.current = attrs;
    if (testid) made.dataset.testid = testid;
    el.current = made;
    /** @type {HTMLDivElement} */ (host.current).appendChild(made);
    return () => {
      render(null, made);
      made.remove();
      el.current = null;
    };
  }, [tag]);

  // the attributes that changed here (one no longer given is removed)
  useLayoutEffect(() => {
    const e = el.current;
    if (!e) return;
    const before = last.current;
    for (const [k, v] of Object.entries(attrs)) if (before[k] !== v) e.setAttribute(k, v);
    for (const k of Object.keys(before)) if (!Object.hasOwn(attrs, k)) e.removeAttribute(k);
    last.current = attrs;
  });

  // its content
  useLayoutEffect(() => {
    if (el.current) render(<>{children}</>, el.current);
  });

  return <div ref={host} class={`learn-host${cls ? ` ${cls}` : ''}`} />;
}
