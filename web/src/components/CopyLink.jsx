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

/**
 * Why a link to this state would not give the same text ([] when it would).
 * @param {import('../app/hash.js').HashState} state
 */
export function linkCaveats(state) {
  const why = [];
  if (state.model === 'file') why.push('The model was loaded from a file, which a link cannot carry: it opens with the bigram instead.');
  if (state.view !== 'compare' && state.strategy === 'speculative' && state.spec?.draft === 'file') {
    why.push('The draft model was loaded from a file: the link drafts with the bigram instead.');
  }
  if (state.steps > MAX_STEPS) why.push(`The text took ${state.steps} steps; a link replays at most ${MAX_STEPS}.`);
  return why;
}

/**
 * @param {{app: {hashState: import('@preact/signals').ReadonlySignal<import('../app/hash.js').HashState>}}} props
 */
export function CopyLink({ app }) {
  const [shown, setShown] = useState(/** @type {{url: string, caveats: string[], copied: string} | null} */ (null));
  const box = useRef(/** @type {HTMLInputElement | null} */ (null));

  const copy = async () => {
    const state = app.hashState.value;
    const url = new URL(location.href);
    url.hash = serializeHash(state);
    const caveats = linkCaveats(state);
    let copied;
    try {
      await navigator.clipboard.writeText(url.href);
      copied = 'Copied to the clipboard.';
    } catch {
      copied = 'Select the link and copy it (Ctrl+C or ⌘C).';
      requestAnimationFrame(() => box.current?.select());
    }
    setShown({ url: url.href, caveats, copied });
  };

  return (
    <div class="spg-embedcode spg-copylink">
      <button type="button" class="spg-btn" onClick={copy} data-testid="copy-link">Copy link</button>
      {shown && (
        <div class="spg-embedcode-box" role="group" aria-label="Link to this text">
          <label for="spg-link">A link to this text:</label>
          <input id="spg-link" ref={box} readOnly value={shown.url} spellcheck={false} data-testid="link" />
          <p class="spg-hint" role="status" data-testid="link-copied">{shown.copied}</p>
          {shown.caveats.length
            ? shown.caveats.map((c) => <p key={c} class="spg-error" data-testid="link-caveat">{c} So this link does not give the same text.</p>)
            : (
              <p class="spg-hint" data-testid="link-exact">
                It gives this text exactly: the model, seed, prompt and settings, the steps taken, your picks, and the settings each step ran with.
              </p>
            )}
          <button type="button" class="spg-btn spg-btn-small" onClick={() => setShown(null)}>Close</button>
        </div>
      )}
    </div>
  );
}
