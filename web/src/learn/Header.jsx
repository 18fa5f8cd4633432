// @ts-check
/**
 * Header.jsx — the top of every course page: the way back to the course's
 * index, the chapters as a row of dots (each says where the learner stands
 * with it), the language menu and the playground; and a link that skips
 * them to the page's text.
 */
import { LANGUAGES, languageName } from '../i18n/index.js';
import { CHAPTERS, chapterHref, indexHref, playgroundHref } from './course.js';
import { chapterState } from './progress.js';

/** @typedef {import('./words.js').Say} Say */

/**
 * A chapter's state as a short text ("done", "1 of 2 questions").
 * @param {Say} say @param {ReturnType<typeof chapterState>} s
 */
export function stateText(say, s) {
  if (s.state === 'done') return say.t('learn.stateDone');
  if (s.state === 'started') return s.questions ? say.t('learn.stateSolved', { solved: s.solved, count: s.questions }) : say.t('learn.stateStarted');
  return say.t('learn.stateNew');
}

/**
 * @param {{say: Say, chosen: string, current?: string, progress: import('./progress.js').Progress, onLanguage: (code: string) => void}} props
 *   current: the chapter shown (none on the index)
 */
export function Header({ say, chosen, current = '', progress, onLanguage }) {
  return (
    <header class="learn-head">
      <a class="learn-skip" href="#learn-main">{say.t('learn.skip')}</a>
      <div class="learn-bar">
        <a class="learn-home" href={indexHref(chosen)} data-testid="learn-home">{say.t('learn.course')}</a>
        <div class="learn-tools">
          <label class="learn-sr" for="learn-lang">{say.t('learn.language')}</label>
          <select id="learn-lang" value={say.lang} data-testid="learn-lang" onChange={(e) => onLanguage(/** @type {HTMLSelectElement} */ (e.currentTarget).value)}>
            {LANGUAGES.map((l) => <option key={l.code} value={l.code} lang={l.code === 'zh' ? 'zh-Hans' : l.code}>{languageName(l.code)}</option>)}
          </select>
          <a class="learn-btn" href={playgroundHref(chosen ? `lang=${chosen}` : '')} data-testid="learn-playground">{say.t('learn.playground')}</a>
        </div>
      </div>
      <nav class="learn-dots-nav" aria-label={say.t('learn.chapters')}>
        <ol class="learn-dots">
          {CHAPTERS.map((c) => {
            const s = chapterState(progress, c.slug);
            const here = c.slug === current;
            return (
              <li key={c.slug}>
                <a
                  href={chapterHref(c.slug, chosen)} class={`learn-dot is-${s.state}${here ? ' is-here' : ''}`}
                  aria-current={here ? 'page' : undefined} data-testid="learn-dot" data-state={s.state}
                  title={`${c.number}. ${say.t(`title.${c.slug}`)} — ${stateText(say, s)}`}
                >
                  <span aria-hidden="true">{s.state === 'done' ? '✓' : c.number}</span>
                  <span class="learn-sr">{`${say.t('learn.chapterN', { n: c.number })}: ${say.t(`title.${c.slug}`)} — ${stateText(say, s)}`}</span>
                </a>
              </li>
            );
          })}
        </ol>
      </nav>
    </header>
  );
}
