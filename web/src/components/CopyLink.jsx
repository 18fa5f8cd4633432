// @ts-check
/**
 * "Copy link": the page's URL with its setup in the hash — model, seed,
 * prompt, settings, the steps taken, the learner's picks and the settings
 * each step ran with — so the link gives this very text.  What a link
 * cannot carry (a model loaded from a file, more steps than a link
 * replays) is said right here, where the link is copied.
 */
import { useRef, useState } from 'preact/hooks';

import { MAX_STEPS, serializeHash } from '../app/hash.js';
import { msg } from '../i18n/index.js';
import { Say, useI18n } from './I18n.jsx';

/**
 * Why a link to this state would not give the same text ([] when it would).
 * @param {import('../app/hash.js').HashState} state
 * @returns {import('../i18n/index.js').Msg[]}
 */
export function linkCaveats(state) {
  const why = [];
  if (state.model === 'file') why.push(msg('link.fileModel'));
  if (state.view !== 'compare' && state.strategy === 'speculative' && state.spec?.draft === 'file') why.push(msg('link.fileDraft'));
  if (state.steps > MAX_STEPS) why.push(msg('link.tooLong', { count: state.steps, max: MAX_STEPS }));
  return why;
}

/**
 * @param {{app: {hashState: import('@preact/signals').ReadonlySignal<import('../app/hash.js').HashState>}}} props
 */
export function CopyLink({ app }) {
  const { t } = useI18n();
  const [shown, setShown] = useState(/** @type {{url: string, caveats: import('../i18n/index.js').Msg[], copied: string} | null} */ (null));
  const box = useRef(/** @type {HTMLInputElement | null} */ (null));

  const copy = async () => {
    const state = app.hashState.value;
    const url = new URL(location.href);
    url.hash = serializeHash(state);
    const caveats = linkCaveats(state);
    let copied;
    try {
      await navigator.clipboard.writeText(url.href);
      copied = 'copy.done';
    } catch {
      copied = 'copy.selectLink';
      requestAnimationFrame(() => box.current?.select());
    }
    setShown({ url: url.href, caveats, copied });
  };

  return (
    <div class="spg-embedcode spg-copylink">
      <button type="button" class="spg-btn" onClick={copy} data-testid="copy-link">{t('link.copy')}</button>
      {shown && (
        <div class="spg-embedcode-box" role="group" aria-label={t('link.label')}>
          <label for="spg-link">{t('link.box')}</label>
          <input id="spg-link" ref={box} readOnly value={shown.url} spellcheck={false} data-testid="link" />
          <p class="spg-hint" role="status" data-testid="link-copied">{t(shown.copied)}</p>
          {shown.caveats.length
            ? shown.caveats.map((c) => <p key={c.key} class="spg-error" data-testid="link-caveat"><Say m={c} suffix={` ${t('link.notSame')}`} /></p>)
            : <p class="spg-hint" data-testid="link-exact">{t('link.exact')}</p>}
          <button type="button" class="spg-btn spg-btn-small" onClick={() => setShown(null)}>{t('copy.close')}</button>
        </div>
      )}
    </div>
  );
}
