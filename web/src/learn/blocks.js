// @ts-check
/**
 * blocks.js — what a chapter is made of, in order (its chapter.js lists
 * them; its words are in its language files):
 *
 *   text(key)                 the words of `key`: paragraphs, headings, lists (Text.jsx)
 *   playground(id, attrs, o)  a <sampler-playground> with these attributes,
 *                             "Open in the playground" under it, o.note (the
 *                             key of a line saying what to do with it) and
 *                             o.control (a widget of the course's driving it)
 *   question(id, attrs)       a question the engine grades (<sampler-question>,
 *                             or <course-question> for the course's own asks);
 *                             its words are the key `id`
 *   widget(Component, props)  a control of the course's own (widgets/), which
 *                             sets attributes of a playground of the page
 *   points(key)               the chapter's points to remember, in a box
 *
 * An attribute's value may name words: "{key}" is the chapter's word for
 * key (a prompt in the learner's language), {w0} … {w5} the course's
 * example words ("mat", "sofa", …, the tokens of its hand-made models).
 *
 * A chapter's `facts` are numbers its text states (the softmax of 2, 1,
 * 0 …): each is a question's attributes, and the engine computes its value
 * when the page opens, as it computes a question's answer; the text names
 * it {fact}.  No number the engine computes is written in a text.
 */

/** @typedef {Record<string, string | number>} Attrs */
/**
 * @typedef {{kind: 'text', key: string}
 *   | {kind: 'points', key: string}
 *   | {kind: 'playground', id: string, attrs: Attrs, note: string, wide: boolean, control: Block | null}
 *   | {kind: 'question', id: string, attrs: Attrs, tag: string}
 *   | {kind: 'widget', component: import('preact').FunctionComponent<any>, props: Record<string, any>}} Block
 */
/**
 * @typedef {Object} Chapter
 * @property {Block[]} blocks
 * @property {Record<string, Attrs>} [facts]  numbers the text states, computed by the engine
 */

/** @param {string} key @returns {Block} */
export const text = (key) => ({ kind: 'text', key });
/** @param {string} key @returns {Block} */
export const points = (key) => ({ kind: 'points', key });
/**
 * @param {string} id @param {Attrs} attrs
 * @param {{note?: string, wide?: boolean, control?: Block}} [o]  wide: the page's whole width (compare
 *   mode's panels); control: a widget of the course's that drives it, drawn between the note and it
 * @returns {Block}
 */
export const playground = (id, attrs, { note = '', wide = false, control } = {}) => ({ kind: 'playground', id, attrs, note, wide, control: control ?? null });
/**
 * @param {string} id @param {Attrs} attrs
 * @param {{course?: boolean}} [o]  course: the course's own asks (question.js)
 * @returns {Block}
 */
export const question = (id, attrs, { course = false } = {}) => ({ kind: 'question', id, attrs, tag: course ? 'course-question' : 'sampler-question' });
/** @param {import('preact').FunctionComponent<any>} component @param {Record<string, any>} [props] @returns {Block} */
export const widget = (component, props = {}) => ({ kind: 'widget', component, props });

/**
 * An attribute's value with its words put in.
 * @param {string | number} value
 * @param {(key: string) => string} word  the chapter's word for a key
 * @param {string[]} examples  the course's example words
 */
export function fill(value, word, examples) {
  if (typeof value !== 'string') return String(value);
  return value.replace(/\{(\w+)\}/g, (all, name) => {
    const m = /^w(\d)$/.exec(name);
    if (m) return examples[Number(m[1])] ?? all;
    const w = word(name);
    return w || all;
  });
}

/**
 * Every attribute with its words put in.
 * @param {Attrs} attrs @param {(key: string) => string} word @param {string[]} examples
 * @returns {Record<string, string>}
 */
export function fillAll(attrs, word, examples) {
  return Object.fromEntries(Object.entries(attrs).map(([k, v]) => [k, fill(v, word, examples)]));
}
