// @ts-check
/**
 * ChapterBody.jsx — a chapter's blocks as the page shows them: its texts, its
 * playgrounds (each with "Open in the playground", carrying the widget's
 * exact state in the playground's link format), its questions and its
 * widgets.  The facts its texts state are computed by the engine as the
 * page opens.
 */
import { signal } from '@preact/signals';
import { useEffect, useMemo } from 'preact/hooks';

import { serializeHash } from '../app/hash.js';
import { SAMPLE_COUNT } from '../app/panel.js';
import { engineAnswer } from './ask.js';
import { fillAll } from './blocks.js';
import { playgroundHref } from './course.js';
import { ElementHost } from './ElementHost.jsx';
import { Text, inline } from './Text.jsx';

/** @typedef {import('./blocks.js').Block} Block */
/** @typedef {import('./words.js').Say} Say */

/**
 * What a widget gets: the words, and the attributes of the page's
 * playgrounds (a widget sets some; the chapter declares the rest).
 * @typedef {Object} ChapterContext
 * @property {Say} say
 * @property {string} chosen  the language the link chose ('' = the browser's): links keep it
 * @property {(key: string) => string} word  the chapter's word for a key
 * @property {string[]} examples  the course's example words
 * @property {import('@preact/signals').Signal<Record<string, Record<string, string>>>} overrides
 *   the attributes widgets set, by playground id
 * @property {(id: string, patch: Record<string, string | null>) => void} setAttrs  a widget sets a playground's attributes (null: back to the chapter's)
 */

/**
 * A playground's link: its setup now, in the playground's link format.
 * @param {string} id the element's id
 */
export function playgroundLink(id) {
  const el = /** @type {import('../embed/embed.jsx').SamplerPlayground | null} */ (document.getElementById(id));
  const state = el?.app?.hashState.value;
  return playgroundHref(state ? serializeHash(state).slice(1) : '');
}

/**
 * "Open in the playground": the link is made when it is about to be
 * followed (pointed at, focused, clicked, or its menu opened), so it
 * carries what the widget shows at that moment.
 * @param {{target: string, say: Say}} props
 */
export function OpenInPlayground({ target, say }) {
  const update = (/** @type {Event} */ e) => {
    /** @type {HTMLAnchorElement} */ (e.currentTarget).href = playgroundLink(target);
  };
  return (
    <a
      class="learn-open" href={playgroundHref()} target="_blank" rel="noopener" data-testid="open-playground" data-for={target}
      onPointerEnter={update} onFocus={update} onPointerDown={update} onClick={update} onContextMenu={update}
    >
      {say.t('learn.open')}<span aria-hidden="true"> ↗</span><span class="learn-sr">{say.t('learn.newTab')}</span>
    </a>
  );
}

/**
 * The engine's facts of a chapter, each a number in the learner's
 * language ("…" until the engine answers).
 * @param {Record<string, import('./blocks.js').Attrs> | undefined} facts
 * @param {ChapterContext} ctx
 */
function useFacts(facts, ctx) {
  const values = useMemo(() => signal(/** @type {Record<string, number | string | Error>} */ ({})), []);
  const wanted = JSON.stringify(Object.entries(facts ?? {}).map(([k, a]) => [k, fillAll(a, ctx.word, ctx.examples)]));
  useEffect(() => {
    let live = true;
    for (const [name, attrs] of /** @type {Array<[string, Record<string, string>]>} */ (JSON.parse(wanted))) {
      engineAnswer(attrs).then(
        (v) => { if (live) values.value = { ...values.value, [name]: v }; },
        (err) => { if (live) values.value = { ...values.value, [name]: err instanceof Error ? err : new Error(String(err)) }; },
      );
    }
    return () => { live = false; };
  }, [wanted]);
  /** @type {Record<string, import('preact').ComponentChildren>} the example's words, then the facts */
  const vars = Object.fromEntries(ctx.examples.map((w, i) => [`w${i}`, w]));
  vars.example = ctx.say.template('learn.examplePrompt');
  // the playground's buttons, as the widgets name them
  const ui = ctx.say.i18n;
  Object.assign(vars, {
    step: ui.t('transport.step'), play: ui.t('transport.play'), reset: ui.t('transport.reset'),
    draw: ui.t('samples.draw', { n: String(SAMPLE_COUNT) }),
  });
  for (const [name, attrs] of Object.entries(facts ?? {})) {
    const v = values.value[name];
    const digits = Number(attrs.digits ?? 3);
    vars[name] = v === undefined
      ? <span class="learn-fact is-pending" data-fact={name} aria-busy="true">…</span>
      : v instanceof Error
        ? <span class="learn-fact is-error" data-fact={name} title={v.message}>?</span>
        : <span class="learn-fact" data-fact={name} data-value={String(v)}>{typeof v === 'string' ? v : ctx.say.i18n.fixed(v, digits)}</span>;
  }
  return vars;
}

/**
 * @param {{chapter: import('./blocks.js').Chapter, ctx: ChapterContext}} props
 */
export function ChapterBody({ chapter, ctx }) {
  const vars = useFacts(chapter.facts, ctx);
  const { say, chosen } = ctx;
  const tag = say.lang === 'zh' ? 'zh-Hans' : say.lang;
  return (
    <>
      {chapter.blocks.map((b, i) => {
        switch (b.kind) {
          case 'text':
            return <div key={i} class="learn-text"><Text text={say.template(b.key)} vars={vars} lang={chosen} /></div>;
          case 'points':
            return (
              <aside key={i} class="learn-points" aria-labelledby={`learn-points-${i}`}>
                <h2 id={`learn-points-${i}`}>{say.t('learn.points')}</h2>
                <Text text={say.template(b.key)} vars={vars} lang={chosen} />
              </aside>
            );
          case 'playground': {
            const attrs = { ...fillAll(b.attrs, ctx.word, ctx.examples), ...ctx.overrides.value[b.id] };
            return (
              <figure key={b.id} class={`learn-widget${b.wide ? ' is-wide' : ''}`} data-testid="learn-widget">
                {b.note && <figcaption class="learn-try"><Text text={say.template(b.note)} vars={vars} lang={chosen} /></figcaption>}
                {b.control?.kind === 'widget' && <b.control.component {...b.control.props} ctx={ctx} />}
                <ElementHost tag="sampler-playground" attrs={{ id: b.id, lang: tag, ...attrs }} />
                <p class="learn-widget-foot"><OpenInPlayground target={b.id} say={say} /></p>
              </figure>
            );
          }
          case 'question':
            return (
              <ElementHost key={b.id} tag={b.tag} attrs={{ id: b.id, lang: tag, ...fillAll(b.attrs, ctx.word, ctx.examples) }} class="learn-question" testid="learn-question">
                {inline(say.template(b.id), { vars, lang: chosen })}
              </ElementHost>
            );
          case 'widget': {
            const W = b.component;
            return <W key={i} {...b.props} ctx={ctx} />;
          }
          default:
            return null;
        }
      })}
    </>
  );
}
