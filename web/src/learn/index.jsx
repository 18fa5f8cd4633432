// @ts-check
/**
 * The course's index (dist/learn/index.html): its parts and chapters,
 * each with where the learner stands (remembered on this device), a
 * button to go on where they left off, and a way to start over.  No
 * engine here: the page is words and links.
 */
import { signal } from '@preact/signals';
import { render } from 'preact';

import { registerServiceWorker } from '../sw/register.js';
import { CHAPTERS, PARTS, chapterHref, courseWords, pageLanguage, playgroundHref } from './course.js';
import { Header, stateText } from './Header.jsx';
import { chapterState, nextChapter, readProgress, resetProgress } from './progress.js';
import { Text } from './Text.jsx';
import { makeSay } from './words.js';
import './course.css';

/** @typedef {import('./words.js').Say} Say */

const root = /** @type {HTMLElement} */ (document.getElementById('course'));
const progress = signal(readProgress());

/** @param {{say: Say, chosen: string, onLanguage: (code: string) => void}} props */
function IndexPage({ say, chosen, onLanguage }) {
  const p = progress.value;
  const order = CHAPTERS.map((c) => c.slug);
  const next = nextChapter(p, order);
  const done = order.filter((s) => chapterState(p, s).state === 'done').length;
  const started = Object.keys(p.chapters).length > 0;
  const forget = () => {
    if (confirm(say.t('learn.resetConfirm'))) progress.value = resetProgress();
  };
  return (
    <div class="learn" lang={say.lang === 'zh' ? 'zh-Hans' : say.lang} dir={say.i18n.dir}>
      <Header say={say} chosen={chosen} progress={p} onLanguage={onLanguage} />
      <main id="learn-main" class="learn-main" tabIndex={-1} data-testid="learn-index">
        <h1>{say.t('learn.indexTitle')}</h1>
        <div class="learn-text learn-intro"><Text text={say.template('learn.indexIntro')} lang={chosen} /></div>
        <div class="learn-continue">
          {next && (
            <a class="learn-btn learn-btn-primary" href={chapterHref(next, chosen)} data-testid="learn-continue">
              {started ? say.t('learn.continue', { title: say.t(`title.${next}`) }) : say.t('learn.start')}
            </a>
          )}
          <p class="learn-count" data-testid="learn-count">{say.t('learn.doneCount', { done, count: order.length })}</p>
        </div>
        {PARTS.map((part) => (
          <section key={part.id} class="learn-part" aria-labelledby={`learn-part-${part.id}`}>
            <h2 id={`learn-part-${part.id}`}>{say.t(`part.${part.id}`)}</h2>
            <ol class="learn-cards">
              {part.chapters.map((slug) => {
                const c = /** @type {import('./course.js').ChapterInfo} */ (CHAPTERS.find((x) => x.slug === slug));
                const s = chapterState(p, slug);
                return (
                  <li key={slug} class={`learn-card is-${s.state}`} data-testid="learn-card" data-chapter={slug} data-state={s.state}>
                    <a href={chapterHref(slug, chosen)}>
                      <span class="learn-card-n" aria-hidden="true">{s.state === 'done' ? '✓' : c.number}</span>
                      <span class="learn-card-body">
                        <span class="learn-card-title"><span class="learn-sr">{say.t('learn.chapterN', { n: c.number })}: </span>{say.t(`title.${slug}`)}</span>
                        <span class="learn-card-sum">{say.t(`summary.${slug}`)}</span>
                        <span class="learn-card-state">{stateText(say, s)}</span>
                      </span>
                    </a>
                  </li>
                );
              })}
            </ol>
          </section>
        ))}
        <footer class="learn-foot">
          <Text text={say.template('learn.indexFoot')} lang={chosen} />
          <p>
            <a href={playgroundHref(chosen ? `lang=${chosen}` : '')}>{say.t('learn.playground')}</a>
            {started && <> · <button type="button" class="learn-link-btn" onClick={forget} data-testid="learn-reset">{say.t('learn.reset')}</button></>}
          </p>
        </footer>
      </main>
    </div>
  );
}

async function show() {
  const { chosen, lang } = pageLanguage(location.hash);
  const say = await makeSay(lang, [await courseWords(lang)]);
  document.documentElement.lang = lang === 'zh' ? 'zh-Hans' : lang;
  document.documentElement.dir = say.i18n.dir;
  document.title = say.t('learn.indexTitle');
  const onLanguage = (/** @type {string} */ code) => {
    history.replaceState(history.state, '', `#lang=${code}`);
    show();
  };
  render(<IndexPage say={say} chosen={chosen} onLanguage={onLanguage} />, root);
}

show().then(() => registerServiceWorker(window, Promise.resolve(), '../sw.js'));
window.addEventListener('hashchange', () => { show(); });
// back from a chapter (the page restored from the browser's cache): what the learner did there shows
window.addEventListener('pageshow', () => { progress.value = readProgress(); });
