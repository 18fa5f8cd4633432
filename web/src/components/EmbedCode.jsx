// @ts-check
/**
 * "Copy embed code": the <sampler-playground> tag for the page's current
 * setup (and an iframe of ?embed=1 as the alternative), put on the
 * clipboard when the browser allows it and always shown in a text box.
 */
import { useRef, useState } from 'preact/hooks';

import { serializeHash } from '../app/hash.js';
import { embedCode } from '../embed/attrs.js';

/**
 * @param {{app: {hashState: import('@preact/signals').ReadonlySignal<import('../app/hash.js').HashState>}, base?: string}} props
 *   base: the URL of dist/ (the page's)
 */
export function EmbedCode({ app, base = typeof document !== 'undefined' ? document.baseURI : 'http://localhost/' }) {
  const [shown, setShown] = useState(/** @type {{code: string, iframe: string, notes: string[]} | null} */ (null));
  const [copied, setCopied] = useState('');
  const box = useRef(/** @type {HTMLTextAreaElement | null} */ (null));

  const make = async () => {
    const state = app.hashState.value;
    const { code, notes } = embedCode(state, new URL('embed.js', base).href);
    const page = new URL(base);
    page.search = '?embed=1';
    page.hash = serializeHash(state);
    const iframe = `<iframe src="${page.href.replace(/"/g, '&quot;')}" title="Sampler playground" style="width: 100%; height: 720px; border: 0"></iframe>`;
    setShown({ code, iframe, notes });
    setCopied('');
    try {
      await navigator.clipboard.writeText(code);
      setCopied('Copied to the clipboard.');
    } catch {
      setCopied('Select the code and copy it (Ctrl+C or ⌘C).');
      requestAnimationFrame(() => box.current?.select());
    }
  };

  return (
    <div class="spg-embedcode">
      <button type="button" class="spg-btn" onClick={make} data-testid="copy-embed">Copy embed code</button>
      {shown && (
        <div class="spg-embedcode-box" role="group" aria-label="Embed code">
          <label for="spg-embed-code">Put this in a lesson page:</label>
          <textarea id="spg-embed-code" ref={box} readOnly rows={3} spellcheck={false} data-testid="embed-code" value={shown.code} />
          <p class="spg-hint" role="status" data-testid="embed-copied">{copied}</p>
          <p class="spg-hint">
            The element shows the text and the bars with Step, Play and Reset. Add <code>controls="temperature,top-p"</code> (or <code>"all"</code>)
            for sliders the reader can move, and <code>view="bars"</code>, <code>"nucleus"</code>, <code>"text"</code> or <code>"compare"</code> to choose what it shows.
          </p>
          {shown.notes.map((n) => <p key={n} class="spg-hint">{n}</p>)}
          <label for="spg-embed-iframe">Or, the whole playground in an iframe:</label>
          <textarea id="spg-embed-iframe" readOnly rows={2} spellcheck={false} data-testid="embed-iframe" value={shown.iframe} />
          <button type="button" class="spg-btn spg-btn-small" onClick={() => setShown(null)}>Close</button>
        </div>
      )}
    </div>
  );
}
