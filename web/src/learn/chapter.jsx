// @ts-check
/**
 * A chapter's page (dist/learn/SLUG.html, made from web/learn/chapter.html
 * with the chapter's name in its <meta name="spg-chapter">): the chapter
 * in the link's language (#lang=de) or the browser's, Back / Next, and the
 * learner's progress, remembered on the device.  The playgrounds and the
 * questions are the project's elements (embed.js); the engine runs in
 * their Workers.
 */
import { signal } from '@preact/signals';
import { render } from 'preact';

import '../embed/embed.jsx'; // <sampler-playground>, <sampler-question>
import { ANSWERED_EVENT } from '../embed/question.js';
import { registerServiceWorker } from '../sw/register.js';
import { CHAPTERS, chapterHref, chapterInfo, chapterModule, chapterWords, courseWords, indexHref, noSuchChapter, pageLanguage } from './course.js';
import { ChapterBody } from './ChapterBody.jsx';
import { Header, stateText } from './Header.jsx';
import { chapterState, markOpened, markSolved, readProgress } from './progress.js';
import { makeSay } from './words.js';
import './course.css';

/** @typedef {import('./words.js').Say} Say */

const slug = document.querySelector('meta[name="spg-chapter"]')?.getAttribute('content') ?? '';
const info = chapterInfo(slug);
const root = /** @type {HTMLElement} */ (document.getElementById('course'));

/** the learner's progress, redrawn when a question is answered right */
const progress = signal(readProgress());
/** the attributes the chapter's widgets set, by playground id (kept across a change of language) */
const overrides = signal(/** @type {Record<string, Record<string, string>>} */ ({}));

/**
 * Back and Next: the chapters before and after, by their titles (the
 * index before the first and after the last).
 * @param {{say: Say, chosen: string}} props
 */
function Pager({ say, chosen }) {
  const at = CHAPTERS.findIndex((c) => c.slug === slug);
  const prev = CHAPTERS[at - 1];
  const next = CHAPTERS[at + 1];
  return (
    <nav class="learn-pager" aria-label={say.t('learn.pager')}>
      {prev
        ? <a class="learn-page-link is-back" rel="prev" href={chapterHref(prev.slug, chosen)} data-testid="learn-back"><span class="learn-page-dir">{say.t('learn.back')}</span> {say.t(`title.${prev.slug}`)}</a>
        : <a class="learn-page-link is-back" href={indexHref(chosen)} data-testid="learn-back"><span class="learn-page-dir">{say.t('learn.back')}</span> {say.t('learn.index')}</a>}
      {next
        ? <a class="learn-page-link is-next" rel="next" href={chapterHref(next.slug, chosen)} data-testid="learn-next"><span class="learn-page-dir">{say.t('learn.next')}</span> {say.t(`title.${next.slug}`)}</a>
        : <a class="learn-page-link is-next" href={indexHref(chosen)} data-testid="learn-next"><span class="learn-page-dir">{say.t('learn.finished')}</span> {say.t('learn.index')}</a>}
    </nav>
  );
}

/**
 * @param {{say: Say, chosen: string, chapter: import('./blocks.js').Chapter, onLanguage: (code: string) => void}} props
 */
function ChapterPage({ say, chosen, chapter, onLanguage }) {
  const p = progress.value;
  const c = /** @type {NonNullable<typeof info>} */ (info);
  const examples = say.template('learn.exampleWords').split(',').map((w) => w.trim());
  /** @type {import('./ChapterBody.jsx').ChapterContext} */
  const ctx = {
    say, chosen, examples, overrides,
    word: (key) => say.template(key === 'example' ? 'learn.examplePrompt' : key),
    setAttrs(id, patch) {
      const now = { ...overrides.value[id] };
      for (const [k, v] of Object.entries(patch)) {
        if (v === null) delete now[k];
        else now[k] = v;
      }
      overrides.value = { ...overrides.value, [id]: now };
    },
  };
  return (
    <div class="learn" lang={say.lang === 'zh' ? 'zh-Hans' : say.lang} dir={say.i18n.dir}>
      <Header say={say} chosen={chosen} current={slug} progress={p} onLanguage={onLanguage} />
      <main id="learn-main" class="learn-main" tabIndex={-1} data-testid="learn-chapter" data-chapter={slug}>
        <p class="learn-kicker">
          {say.t('learn.chapterOf', { n: c.number, count: CHAPTERS.length })} · {say.t(`part.${c.part}`)}
        </p>
        <h1>{say.t(`title.${slug}`)}</h1>
        <p class="learn-state" data-testid="learn-state" data-state={chapterState(p, slug).state}>{stateText(say, chapterState(p, slug))}</p>
        <ChapterBody chapter={chapter} ctx={ctx} />
        <Pager say={say} chosen={chosen} />
      </main>
    </div>
  );
}

/** @type {import('./blocks.js').Chapter | null} */
let chapter = null;

/** Shows the chapter in the link's language (again, when it changes). */
async function show() {
  const { chosen, lang } = pageLanguage(location.hash);
  const [mod, words, course] = await Promise.all([chapter ?? chapterModule(slug), chapterWords(slug, lang), courseWords(lang)]);
  chapter = mod;
  const say = await makeSay(lang, [words, course]);
  document.documentElement.lang = lang === 'zh' ? 'zh-Hans' : lang;
  document.documentElement.dir = say.i18n.dir;
  document.title = `${say.t(`title.${slug}`)} · ${say.t('learn.course')}`;
  const onLanguage = (/** @type {string} */ code) => {
    history.replaceState(history.state, '', `#lang=${code}`);
    show();
  };
  render(<ChapterPage say={say} chosen={chosen} chapter={/** @type {import('./blocks.js').Chapter} */ (chapter)} onLanguage={onLanguage} />, root);
  return chapter;
}

if (info) {
  show().then((ch) => {
    const questions = ch ? ch.blocks.filter((b) => b.kind === 'question').length : 0;
    progress.value = markOpened(slug, questions);
    // the page is ready: the offline copy (dist/sw.js, one folder up) may now fill its cache
    registerServiceWorker(window, Promise.resolve(), '../sw.js');
  });
  document.addEventListener(ANSWERED_EVENT, (e) => {
    const { correct } = /** @type {CustomEvent} */ (e).detail;
    const id = /** @type {HTMLElement} */ (e.target).id;
    if (correct && id) progress.value = markSolved(slug, id);
  });
  window.addEventListener('hashchange', () => { show(); });
} else {
  throw noSuchChapter(slug);
}
