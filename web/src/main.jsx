// @ts-check
/**
 * The playground page (loaded by boot.js): one panel, or compare mode's
 * panels side by side, bound to the URL hash; the engine in a Web Worker.  The main thread only
 * renders.  With ?embed=1 it leaves out the page's header and footer (for
 * an iframe).  Served over http(s), it registers the offline cache (sw.js).
 */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';

import { createApp } from './app/app.js';
import { bindHash } from './app/url.js';
import { CopyLink } from './components/CopyLink.jsx';
import { EmbedCode } from './components/EmbedCode.jsx';
import { I18nContext, LanguageSwitch, Rich, langTag, useI18n } from './components/I18n.jsx';
import { decodersCode, lazy } from './components/lazy.js';
import { Playground } from './components/Playground.jsx';
import { StartHere } from './components/StartHere.jsx';
import { isFirstVisit } from './teach/teach.js';
import { withPageWords } from './i18n/index.js';
import { registerServiceWorker } from './sw/register.js';
import './styles.css';

/** compare mode's view: fetched when the page shows it */
const compareCode = lazy(() => Promise.all([import('./components/CompareView.jsx'), decodersCode.get()]).then(([m]) => m));

/** @param {{compare: import('./app/app.js').App['compare']}} props */
function Compare({ compare }) {
  const code = compareCode.use();
  return code && <code.CompareView compare={compare} />;
}

/** Focuses the Step button (the phone's strip has it there). */
function skipToStep() {
  /** @type {HTMLElement | null} */ (document.querySelector('[data-testid="step"]'))?.focus();
}

/** @param {{app: import('./app/app.js').App}} props */
function ViewSwitch({ app }) {
  const { t } = useI18n();
  const view = app.view.value;
  const views = /** @type {const} */ ([['single', t('view.single')], ['compare', t('view.compare')]]);
  return (
    <div class="spg-views" role="group" aria-label={t('view.group')}>
      {views.map(([v, label]) => (
        <button
          key={v}
          type="button"
          class={`spg-btn${view === v ? ' spg-btn-primary' : ''}`}
          aria-pressed={view === v ? 'true' : 'false'}
          data-testid={`view-${v}`}
          onClick={() => app.setView(v)}
        >
          {label}
        </button>
      ))}
    </div>
  );
}

/** Auto (the system's), light or dark: kept in the link (theme=). */
/** @param {{app: import('./app/app.js').App}} props */
function ThemeSwitch({ app }) {
  const { t } = useI18n();
  const names = /** @type {const} */ ([['auto', t('theme.auto')], ['light', t('theme.light')], ['dark', t('theme.dark')]]);
  return (
    <div class="spg-views spg-theme" role="group" aria-label={t('theme.group')}>
      {names.map(([t, label]) => (
        <button
          key={t}
          type="button"
          class={`spg-btn spg-btn-small${app.theme.value === t ? ' spg-btn-primary' : ''}`}
          aria-pressed={app.theme.value === t ? 'true' : 'false'}
          data-testid={`theme-${t}`}
          onClick={() => { app.theme.value = t; }}
        >
          {label}
        </button>
      ))}
    </div>
  );
}

/** The page's introduction. @param {{compare: boolean, className?: string}} props */
function About({ compare, className }) {
  const { t, lang } = useI18n();
  // the course (dist/learn/), in the page's language: for the learner who
  // came without a lesson around the page
  const course = `learn/${lang === 'en' ? '' : `#lang=${lang}`}`;
  return (
    <p class={className}>
      <Rich k="page.about" vars={{ more: t(compare ? 'page.aboutCompare' : 'page.aboutSingle') }} />{' '}
      <a href={course} data-testid="course-link">{t('page.course')}</a>
    </p>
  );
}

/** @param {{app: import('./app/app.js').App, embedded?: boolean, first?: boolean}} props */
function App({ app, embedded = false, first = false }) {
  const i18n = app.language.i18n.value;
  // the page's language and direction, and its title
  useEffect(() => {
    document.documentElement.lang = langTag(i18n);
    document.documentElement.dir = i18n.dir;
    document.title = i18n.t('page.title');
  }, [i18n]);
  return (
    <I18nContext.Provider value={i18n}>
      <Page app={app} embedded={embedded} first={first} />
    </I18nContext.Provider>
  );
}

/**
 * @param {{app: import('./app/app.js').App, embedded?: boolean, first?: boolean}} props
 *   first: a first visit (the "Start here" card; never in an embed)
 */
function Page({ app, embedded = false, first = false }) {
  const i18n = useI18n();
  const { t } = i18n;
  const [start, setStart] = useState(first && !embedded);
  const compare = app.view.value === 'compare';
  if (embedded) {
    return (
      <div class="spg spg-embedded" data-theme={app.theme.value} lang={langTag(i18n)} dir={i18n.dir}>
        {compare ? <Compare compare={app.compare} /> : <Playground panel={app.main} />}
      </div>
    );
  }
  return (
    <div class="spg" data-theme={app.theme.value} lang={langTag(i18n)} dir={i18n.dir}>
      {/* the first tab stop: past the settings (dozens of stops) to Step and Play */}
      <button type="button" class="spg-skip" data-testid="skip" onClick={skipToStep}>{t('page.skip')}</button>
      <header class="spg-header">
        <div class="spg-header-row">
          <h1>{t('page.title')}</h1>
          <ViewSwitch app={app} />
          <div class="spg-header-tools">
            <LanguageSwitch language={app.language} />
            <ThemeSwitch app={app} />
            <CopyLink app={app} />
            <EmbedCode app={app} />
          </div>
        </div>
        <About compare={compare} />
        {start && <StartHere onDone={() => setStart(false)} />}
      </header>
      <main>{compare ? <Compare compare={app.compare} /> : <Playground panel={app.main} />}</main>
      <footer class="spg-footer">
        {/* on a phone the introduction moves here, below the playground */}
        <About compare={compare} className="spg-about" />
        <p>{t('page.footer')}</p>
      </footer>
    </div>
  );
}

/**
 * Shows the page, with the engine Worker boot.js started before this
 * module had loaded.
 * @param {import('./app/panel.js').EngineClient} client
 */
export async function start(client) {
  const embedded = new URLSearchParams(window.location.search).get('embed') === '1';
  // before the link is bound (it writes the setup into the hash)
  const first = !embedded && isFirstVisit(window.location.hash);
  const app = createApp(client);
  // the link's language (or the browser's) is fetched before the first
  // paint, so the page does not flash English first; with it, the words
  // only the page shows (an element does without them: i18n/parts.js)
  withPageWords();
  await app.language.choose(new URLSearchParams(window.location.hash.slice(1)).get('lang') ?? '');
  render(<App app={app} embedded={embedded} first={first} />, /** @type {HTMLElement} */ (document.getElementById('app')));
  const { loaded } = bindHash(/** @type {any} */ (app), window);
  registerServiceWorker(window, loaded);
}
