// @ts-check
/**
 * Text.jsx — a chapter's text as elements.  The words are plain text with
 * a little markup, the same in every language's file:
 *
 *   a blank line        a new paragraph
 *   ## Heading          a heading (the chapter's title is the page's h1)
 *   - item              a list (each line one item)
 *   <em> <strong> <code> <sub> <sup> <kbd>   as in HTML
 *   <a href="top-p">    a link to another chapter (its folder's name), or
 *                       href="playground" (the playground)
 *   {name}              a value: an engine fact (a number the engine
 *                       computed, written the language's way) or a word
 *
 * Nothing is parsed as HTML: the text becomes Preact elements, so a
 * translation cannot inject markup.
 */
import { h } from 'preact';

import { chapterHref, chapterInfo, playgroundHref } from './course.js';

const TAGS = new Set(['em', 'strong', 'code', 'sub', 'sup', 'kbd']);

/**
 * @typedef {Object} TextContext
 * @property {Record<string, import('preact').ComponentChildren>} vars  the values of {name}
 * @property {string} lang  the language chosen in the link ('' when none): links keep it
 */

/**
 * One line's inline markup as elements.
 * @param {string} text @param {TextContext} ctx
 * @returns {import('preact').ComponentChildren[]}
 */
export function inline(text, ctx) {
  /** @type {Array<{tag: string, props: Record<string, string> | null, children: any[]}>} */
  const stack = [{ tag: '', props: null, children: [] }];
  const close = () => {
    const done = /** @type {(typeof stack)[number]} */ (stack.pop());
    stack[stack.length - 1].children.push(h(done.tag, done.props, ...done.children));
  };
  for (const part of text.split(/(<\/?\w+(?:\s+href="[^"]*")?>|\{\w+\})/)) {
    if (!part) continue;
    const top = stack[stack.length - 1];
    let m;
    if ((m = /^<(\w+)>$/.exec(part)) && TAGS.has(m[1])) stack.push({ tag: m[1], props: null, children: [] });
    else if ((m = /^<a\s+href="([^"]*)">$/.exec(part))) {
      const href = m[1] === 'playground' ? playgroundHref() : chapterInfo(m[1]) ? chapterHref(m[1], ctx.lang) : null;
      stack.push({ tag: href ? 'a' : 'span', props: href ? { href } : null, children: [] });
    } else if ((m = /^<\/(\w+)>$/.exec(part)) && stack.length > 1 && (TAGS.has(m[1]) || m[1] === 'a')) close();
    else if ((m = /^\{(\w+)\}$/.exec(part)) && Object.hasOwn(ctx.vars, m[1])) top.children.push(ctx.vars[m[1]]);
    else top.children.push(part);
  }
  while (stack.length > 1) close();
  return stack[0].children;
}

/**
 * A text of paragraphs, headings and lists.
 * @param {{text: string, vars?: TextContext['vars'], lang?: string}} props
 */
export function Text({ text, vars = {}, lang = '' }) {
  const ctx = { vars, lang };
  const blocks = text.split(/\n\s*\n/).map((b) => b.trim()).filter(Boolean);
  return (
    <>
      {blocks.map((block, i) => {
        const lines = block.split('\n').map((l) => l.trim());
        if (lines[0].startsWith('## ')) return <h2 key={i}>{inline(lines.join(' ').slice(3), ctx)}</h2>;
        if (lines.every((l) => l.startsWith('- '))) {
          return <ul key={i}>{lines.map((l, j) => <li key={j}>{inline(l.slice(2), ctx)}</li>)}</ul>;
        }
        return <p key={i}>{inline(lines.join(' '), ctx)}</p>;
      })}
    </>
  );
}
