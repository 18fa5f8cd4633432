// @ts-check
/**
 * The playground page: one panel bound to the URL hash, the engine in a
 * Web Worker.  The main thread only renders.
 */
import { render } from 'preact';

import { createPanel } from './app/panel.js';
import { bindHash } from './app/url.js';
import { Playground } from './components/Playground.jsx';
import { createEngineClient } from './worker/client.js';
import './styles.css';

function App({ panel }) {
  return (
    <div class="spg">
      <header class="spg-header">
        <h1>Sampler playground</h1>
        <p>
          A language model gives a probability to every possible next token; a <em>sampler</em> reshapes those
          probabilities and draws one. Move the sliders and watch the distribution change, step through the text,
          and click any token to see how it was picked.
        </p>
      </header>
      <Playground panel={panel} />
      <footer class="spg-footer">
        <p>Everything runs in your browser: a C engine compiled to WebAssembly, in a Web Worker. Settings are kept in the address bar, so a link reproduces the text.</p>
      </footer>
    </div>
  );
}

const client = createEngineClient();
const panel = createPanel(client, { session: 'main' });
render(<App panel={panel} />, /** @type {HTMLElement} */ (document.getElementById('app')));
bindHash(panel, window);
