// @ts-check
/**
 * The playground page: one panel, or compare mode's panels side by side,
 * bound to the URL hash; the engine in a Web Worker.  The main thread only
 * renders.  With ?embed=1 it leaves out the page's header and footer (for
 * an iframe).  Served over http(s), it registers the offline cache (sw.js).
 */
import { render } from 'preact';

import { createApp } from './app/app.js';
import { bindHash } from './app/url.js';
import { CompareView } from './components/CompareView.jsx';
import { CopyLink } from './components/CopyLink.jsx';
import { EmbedCode } from './components/EmbedCode.jsx';
import { Playground } from './components/Playground.jsx';
import { registerServiceWorker } from './sw/register.js';
import { createEngineClient } from './worker/client.js';
import './styles.css';

/** @param {{app: import('./app/app.js').App}} props */
function ViewSwitch({ app }) {
  const view = app.view.value;
  const views = /** @type {const} */ ([['single', 'One sampler'], ['compare', 'Compare side by side']]);
  return (
    <div class="spg-views" role="group" aria-label="View">
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
  const names = /** @type {const} */ ([['auto', 'Auto'], ['light', 'Light'], ['dark', 'Dark']]);
  return (
    <div class="spg-views spg-theme" role="group" aria-label="Theme">
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
  return (
    <p class={className}>
      A language model gives a probability to every possible next token; a <em>sampler</em> reshapes those
      probabilities and draws one. Move the sliders and watch the distribution change, step through the text,
      and click any token to see how it was picked.
      {compare ? ' Compare mode runs several settings side by side on the same random numbers.' : ' Try beam search and speculative decoding, constrain the text, or compare settings side by side.'}
    </p>
  );
}

/** @param {{app: import('./app/app.js').App, embedded?: boolean}} props */
function App({ app, embedded = false }) {
  const compare = app.view.value === 'compare';
  if (embedded) {
    return (
      <div class="spg spg-embedded" data-theme={app.theme.value}>
        {compare ? <CompareView compare={app.compare} /> : <Playground panel={app.main} />}
      </div>
    );
  }
  return (
    <div class="spg" data-theme={app.theme.value}>
      <header class="spg-header">
        <div class="spg-header-row">
          <h1>Sampler playground</h1>
          <ViewSwitch app={app} />
          <div class="spg-header-tools">
            <ThemeSwitch app={app} />
            <CopyLink app={app} />
            <EmbedCode app={app} />
          </div>
        </div>
        <About compare={compare} />
      </header>
      <main>{compare ? <CompareView compare={app.compare} /> : <Playground panel={app.main} />}</main>
      <footer class="spg-footer">
        {/* on a phone the introduction moves here, below the playground */}
        <About compare={compare} className="spg-about" />
        <p>Everything runs in your browser: a C engine compiled to WebAssembly, in a Web Worker. Settings are kept in the address bar, so a link reproduces the text.</p>
      </footer>
    </div>
  );
}

const embedded = new URLSearchParams(window.location.search).get('embed') === '1';
const client = createEngineClient();
const app = createApp(client);
render(<App app={app} embedded={embedded} />, /** @type {HTMLElement} */ (document.getElementById('app')));
const { loaded } = bindHash(/** @type {any} */ (app), window);
registerServiceWorker(window, loaded);
