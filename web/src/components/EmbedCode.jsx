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
    // paths on this site, not this computer's address: the code works
    // wherever the playground is hosted, from any lesson page of the site
    const { code, notes } = embedCode(state, new URL('embed.js', base).pathname);
    const page = new URL(base);
    page.search = '?embed=1';
    page.hash = serializeHash(state);
    const iframeSrc = page.pathname + page.search + page.hash;
    const iframe = `<iframe src="${iframeSrc.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}" title="Sampler playground" style="width: 100%; height: 720px; border: 0"></iframe>`;
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
            The paths are on this site: a lesson page elsewhere needs the playground's full address, or its own copy of dist/.
            The element shows the text and the bars with Step, Play, Reset and the page's controls; keep fewer with
            {' '}<code>controls="temperature,top-p"</code> (none: remove the attribute), and choose what it shows with <code>view="bars"</code>,
            {' '}<code>"nucleus"</code>, <code>"text"</code> or <code>"compare"</code>.
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
