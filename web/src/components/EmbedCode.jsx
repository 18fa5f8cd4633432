// @ts-check
/**
 * "Copy embed code": the <sampler-playground> tag for the page's current
 * setup (and an iframe of ?embed=1 as the alternative), put on the
 * clipboard when the browser allows it and always shown in a text box.
 */
import { useRef, useState } from 'preact/hooks';

import { serializeHash } from '../app/hash.js';
import { Rich, Say, useI18n } from './I18n.jsx';

/**
 * @param {{app: {hashState: import('@preact/signals').ReadonlySignal<import('../app/hash.js').HashState>}, base?: string}} props
 *   base: the URL of dist/ (the page's)
 */
export function EmbedCode({ app, base = typeof document !== 'undefined' ? document.baseURI : 'http://localhost/' }) {
  const { t } = useI18n();
  const [shown, setShown] = useState(/** @type {{code: string, iframe: string, notes: import('../i18n/index.js').Text[]} | null} */ (null));
  const [copied, setCopied] = useState('');
  const box = useRef(/** @type {HTMLTextAreaElement | null} */ (null));

  const make = async () => {
    const state = app.hashState.value;
    // (the element's attributes: fetched on the first click, the page needs them for nothing else)
    const { embedCode } = await import('../embed/attrs.js');
    // paths on this site, not this computer's address: the code works
    // wherever the playground is hosted, from any lesson page of the site
    const { code, notes } = embedCode(state, new URL('embed.js', base).pathname);
    const page = new URL(base);
    page.search = '?embed=1';
    page.hash = serializeHash(state);
    const iframeSrc = page.pathname + page.search + page.hash;
    const title = t('page.title').replace(/&/g, '&amp;').replace(/"/g, '&quot;');
    const iframe = `<iframe src="${iframeSrc.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}" title="${title}" style="width: 100%; height: 720px; border: 0"></iframe>`;
    setShown({ code, iframe, notes });
    setCopied('');
    try {
      await navigator.clipboard.writeText(code);
      setCopied('copy.done');
    } catch {
      setCopied('copy.selectCode');
      requestAnimationFrame(() => box.current?.select());
    }
  };

  return (
    <div class="spg-embedcode">
      <button type="button" class="spg-btn" onClick={make} data-testid="copy-embed">{t('embed.copy')}</button>
      {shown && (
        <div class="spg-embedcode-box" role="group" aria-label={t('embed.label')}>
          <label for="spg-embed-code">{t('embed.box')}</label>
          <textarea id="spg-embed-code" ref={box} readOnly rows={3} spellcheck={false} data-testid="embed-code" value={shown.code} />
          <p class="spg-hint" role="status" data-testid="embed-copied">{copied ? t(copied) : ''}</p>
          <p class="spg-hint"><Rich k="embed.help" /></p>
          {shown.notes.map((n, i) => <p key={i} class="spg-hint"><Say m={n} /></p>)}
          <label for="spg-embed-iframe">{t('embed.iframe')}</label>
          <textarea id="spg-embed-iframe" readOnly rows={2} spellcheck={false} data-testid="embed-iframe" value={shown.iframe} />
          <button type="button" class="spg-btn spg-btn-small" onClick={() => setShown(null)}>{t('copy.close')}</button>
        </div>
      )}
    </div>
  );
}
