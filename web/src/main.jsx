import { render } from 'preact';
import { useState } from 'preact/hooks';
import { loadEngineBrowser, MODEL_URLS } from './engine/browser.js';

function App() {
  const [text, setText] = useState('');
  async function sample() {
    const engine = await loadEngineBrowser();
    const model = engine.loadModel(new Uint8Array(await (await fetch(MODEL_URLS.bigram)).arrayBuffer()));
    const session = engine.createSession(model);
    session.start('', 42);
    let out = '';
    for (let i = 0; i < 60; i++) out += session.step({ temperature: 1 }).piece;
    setText(out);
  }
  return (
    <main>
      <h1>Sampler playground</h1>
      <button onClick={sample}>Sample names</button>
      <pre data-testid="output">{text}</pre>
    </main>
  );
}

render(<App />, document.getElementById('app'));
