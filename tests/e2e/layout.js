// Text that does not fit, found from the page's own boxes (run in the page
// with page.evaluate(textProblems)): every piece of text on screen — each
// text node's rectangles (Range.getClientRects), each <select>'s chosen
// option, measured in its font — must be
//   - inside the viewport (no horizontal scroll, nothing off the edge);
//   - inside its own element's box (a label that spills out of its button);
//   - inside every ancestor that clips (overflow hidden or clip; a
//     scrolling box scrolls, it does not clip);
//   - not cut short by its own element (overflow hidden: scrollWidth >
//     clientWidth, the ellipsis case);
//   - clear of every other element's text (no two texts overlap).
// Left out: what is hidden or visually hidden on purpose (.spg-sr, a
// closed <details>, text scrolled out of its scrolling box), the
// generated text itself (token pieces, repeats, beams: content that is cut
// on purpose), and a layer over the page (the phone's strip, a popover)
// against the page under it (each layer's own texts are checked).

/**
 * @param {{root?: string, tolerance?: number}} [options]
 * @returns {string[]} one line per problem
 */
export function textProblems({ root = 'body', tolerance = 1 } = {}) {
  const CONTENT = '.spg-bar-tok, .spg-repeat, .spg-beam-text, .spg-output, .spg-round-drafts, .spg-round-out, textarea, .spg-chart-yl, .spg-chart-yr';
  const problems = [];
  const vw = document.documentElement.clientWidth;
  const tol = tolerance;
  /** every element, shadow roots included */
  const elements = [];
  const walk = (node) => {
    for (const el of node.querySelectorAll('*')) {
      elements.push(el);
      if (el.shadowRoot) walk(el.shadowRoot);
    }
  };
  walk(document.querySelector(root) ?? document.body);

  const name = (el) => {
    const cls = typeof el.className === 'string' && el.className ? `.${el.className.trim().split(/\s+/).join('.')}` : '';
    const id = el.dataset?.testid ? `[data-testid=${el.dataset.testid}]` : '';
    return `${el.tagName.toLowerCase()}${cls}${id}`;
  };
  const hidden = (el) => {
    if (el.closest('.spg-sr, .learn-sr, [hidden], svg') || el.closest(CONTENT)) return true;
    // a closed <details> shows its own summary only (a <details> inside a
    // closed one shows nothing, its summary neither)
    for (let d = el.closest('details:not([open])'); d; d = d.parentElement?.closest('details:not([open])')) {
      const summary = el.closest('summary');
      if (!summary || summary.parentElement !== d) return true;
    }
    return false;
  };
  const shown = (el) => {
    const s = getComputedStyle(el);
    return s.visibility !== 'hidden' && s.display !== 'none' && el.getClientRects().length > 0;
  };
  const inside = (r, b) => r.left >= b.left - tol && r.right <= b.right + tol && r.top >= b.top - tol && r.bottom <= b.bottom + tol;
  /** the ancestors that clip (across shadow boundaries), and the nearest scrolling box */
  const clippers = (el) => {
    const out = [];
    let scroller = null;
    for (let p = el.parentElement ?? el.getRootNode().host; p; p = p.parentElement ?? p.getRootNode()?.host) {
      const s = getComputedStyle(p);
      if (/auto|scroll/.test(s.overflowX) || /auto|scroll/.test(s.overflowY)) {
        scroller = p; // a scrolling box: its content scrolls, it is not cut
        break;
      }
      if (/hidden|clip/.test(s.overflowX) || /hidden|clip/.test(s.overflowY)) out.push(p);
    }
    return { clip: out, scroller };
  };

  /**
   * The layer over the page an element is in (null: the page): one fixed
   * or stuck to the screen (the phone's strip: the page scrolls under it),
   * or a popover (positioned, with a z-index: the link and embed code).
   */
  const layer = (el) => {
    let top = null;
    for (let p = el; p; p = p.parentElement ?? p.getRootNode()?.host) {
      const s = getComputedStyle(p);
      if (/fixed|sticky/.test(s.position) || (s.position === 'absolute' && Number(s.zIndex) > 0)) top = p;
    }
    return top;
  };
  /** @type {Array<{el: Element, rect: DOMRect, text: string, fixed: Element | null}>} */
  const texts = [];
  const canvas = document.createElement('canvas').getContext('2d');
  for (const el of elements) {
    if (hidden(el) || !shown(el)) continue;
    const own = [...el.childNodes].filter((n) => n.nodeType === 3 && n.textContent.trim());
    let rects = [];
    let text = own.map((n) => n.textContent.trim()).join(' ');
    if (el.tagName === 'SELECT') {
      // the chosen option, in the select's font, must fit beside its arrow
      const s = getComputedStyle(el);
      canvas.font = `${s.fontStyle} ${s.fontWeight} ${s.fontSize} ${s.fontFamily}`;
      text = el.selectedOptions[0]?.textContent ?? '';
      const room = el.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight) - 16;
      if (canvas.measureText(text).width > room + tol) problems.push(`cut short: ${name(el)} "${text}"`);
      const b = el.getBoundingClientRect();
      rects = [b];
    } else {
      for (const n of own) {
        const range = document.createRange();
        range.selectNodeContents(n);
        rects.push(...[...range.getClientRects()].filter((r) => r.width > 0.5 && r.height > 0.5));
      }
    }
    if (!rects.length) continue;
    const box = el.getBoundingClientRect();
    const s = getComputedStyle(el);
    const label = `${name(el)} "${text.slice(0, 60)}"`;
    if (/hidden|clip/.test(s.overflowX) && el.scrollWidth > el.clientWidth + tol && el.tagName !== 'SELECT') problems.push(`cut short: ${label}`);
    const { clip: cutBy, scroller } = clippers(el);
    const clip = cutBy.map((p) => p.getBoundingClientRect());
    const view = scroller && scroller !== document.documentElement && scroller !== document.body ? scroller.getBoundingClientRect() : null;
    for (const r of rects) {
      // scrolled out of its scrolling box: not on screen now
      if (view && (r.bottom <= view.top || r.top >= view.bottom || r.right <= view.left || r.left >= view.right)) continue;
      if (r.left < -tol || r.right > vw + tol) problems.push(`off screen: ${label} (${Math.round(r.left)}–${Math.round(r.right)} of ${vw})`);
      else if (el.tagName !== 'SELECT' && s.display !== 'inline' && !inside(r, box)) problems.push(`out of its box: ${label}`);
      else if (clip.some((c) => !inside(r, c))) problems.push(`clipped: ${label}`);
      texts.push({ el, rect: r, text, fixed: layer(el) });
    }
  }
  // two texts on top of each other (not an element and its own descendant)
  const seen = new Set();
  for (let i = 0; i < texts.length; i++) {
    for (let j = i + 1; j < texts.length; j++) {
      const a = texts[i];
      const b = texts[j];
      if (a.el === b.el || a.el.contains(b.el) || b.el.contains(a.el) || a.fixed !== b.fixed) continue;
      const w = Math.min(a.rect.right, b.rect.right) - Math.max(a.rect.left, b.rect.left);
      const h = Math.min(a.rect.bottom, b.rect.bottom) - Math.max(a.rect.top, b.rect.top);
      if (w > 2 && h > 2) {
        const line = `overlap: ${name(a.el)} "${a.text.slice(0, 30)}" and ${name(b.el)} "${b.text.slice(0, 30)}"`;
        if (!seen.has(line)) problems.push(line);
        seen.add(line);
      }
    }
  }
  return problems;
}

/**
 * Words broken across two lines in the labels and readouts (run in the
 * page with page.evaluate(wordBreaks)): each text's words, as the
 * browser's word segmenter finds them in the text's language
 * (Intl.Segmenter: "Nukleusgröße", "保留" and "质量"), must each lie on one
 * line — each character's box (Range.getClientRects) on the line of the
 * one before it.  A break at a soft hyphen is a hyphenation, not a break
 * inside a word; a compound's own hyphen ends a word.  Prose (a hint, a
 * paragraph) is left out: Chinese prose breaks between any two characters.
 * @param {{root?: string}} [options]
 * @returns {string[]} one line per broken word
 */
export function wordBreaks({ root = 'body' } = {}) {
  const LABELS = '.spg-readouts dt, .spg-readouts dd, label, legend, summary, button, th, h1, h2, h3';
  const problems = [];
  const elements = [];
  const walk = (node) => {
    for (const el of node.querySelectorAll('*')) {
      elements.push(el);
      if (el.shadowRoot) walk(el.shadowRoot);
    }
  };
  walk(document.querySelector(root) ?? document.body);
  /** @type {Record<string, Intl.Segmenter>} */
  const segmenters = {};
  const range = document.createRange();
  for (const el of elements) {
    if (!el.matches(LABELS) || el.closest('.spg-sr, .learn-sr, [hidden], svg') || !el.getClientRects().length) continue;
    const texts = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let n = texts.nextNode(); n; n = texts.nextNode()) {
      const lang = n.parentElement?.closest('[lang]')?.getAttribute('lang') || document.documentElement.lang || 'en';
      const words = (segmenters[lang] ??= new Intl.Segmenter(lang, { granularity: 'word' })).segment(n.textContent ?? '');
      for (const { segment, index, isWordLike } of words) {
        if (!isWordLike || segment.length < 2) continue;
        let top = null;
        for (let i = 0; i < segment.length; i++) {
          range.setStart(n, index + i);
          range.setEnd(n, index + i + 1);
          const box = [...range.getClientRects()].find((r) => r.width > 0);
          if (!box) continue;
          if (top !== null && box.top > top + box.height / 2 && segment[i - 1] !== '\u00AD') {
            const cls = typeof el.className === 'string' && el.className ? `.${el.className.trim().split(/\s+/).join('.')}` : '';
            problems.push(`word broken: ${el.tagName.toLowerCase()}${cls} "${segment.slice(0, i)} / ${segment.slice(i)}"`);
          }
          top = box.top;
        }
      }
    }
  }
  return problems;
}
