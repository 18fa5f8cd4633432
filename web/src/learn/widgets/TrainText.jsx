// @ts-check
/**
 * TrainText.jsx — a bigram trained on the learner's own text: a text box
 * (one word a line; the chapter's example words to start with) and a
 * button that has the playground beside it train a bigram on it in the
 * engine (its panel's trainOn, as the playground's "Your text" does) and
 * switch to it.  What the engine counted is said under it, in the
 * playground's words; a text the engine refuses keeps the old model and
 * the element says why.
 */
import { useEffect, useState } from 'preact/hooks';

/**
 * The element's panel once it has one.
 * @param {string} target
 * @returns {import('../../app/panel.js').Panel | null}
 */
function usePanel(target) {
  const [panel, setPanel] = useState(/** @type {import('../../app/panel.js').Panel | null} */ (null));
  useEffect(() => {
    if (panel) return undefined;
    const find = () => {
      const el = /** @type {import('../../embed/embed.jsx').SamplerPlayground | null} */ (document.getElementById(target));
      if (el?.app) setPanel(el.app.main);
      return !!el?.app;
    };
    if (find()) return undefined;
    const timer = setInterval(() => { if (find()) clearInterval(timer); }, 100);
    return () => clearInterval(timer);
  }, [panel, target]);
  return panel;
}

/**
 * @param {{ctx: import('../ChapterBody.jsx').ChapterContext, target: string, sample: string, legend: string, label: string,
 *   go: string, words?: string[]}} props
 *   sample: the chapter's key of the text the box starts with; legend, label, go: keys of its title, the box's name and the button's
 */
export function TrainText({ ctx, target, sample, legend, label, go }) {
  const { say } = ctx;
  const [text, setText] = useState(() => say.t(sample));
  const [busy, setBusy] = useState(false);
  const panel = usePanel(target);
  const trained = panel && panel.modelId.value === 'text' ? panel.model.value?.trained : undefined;
  const train = async () => {
    if (!panel || !text.trim()) return;
    setBusy(true);
    try {
      await panel.trainOn(text);
    } finally {
      setBusy(false);
    }
  };
  return (
    <fieldset class="learn-control learn-train" data-testid="train-text" data-for={target}>
      <legend>{say.t(legend)}</legend>
      <label for={`${target}-train`} class="learn-train-label">{say.t(label)}</label>
      <textarea
        id={`${target}-train`} rows={6} value={text} spellcheck={false} data-testid="train-box"
        onInput={(e) => setText(/** @type {HTMLTextAreaElement} */ (e.currentTarget).value)}
      />
      <p class="learn-train-go">
        <button type="button" class="learn-btn learn-btn-primary" data-testid="train-go" disabled={!panel || busy || !text.trim()} onClick={train}>{say.t(go)}</button>
        {trained && (
          <span data-testid="train-done" data-chars={String(trained.chars)}>
            {say.i18n.t('train.done', { bytes: say.i18n.int(trained.bytes), count: trained.chars })}
          </span>
        )}
      </p>
    </fieldset>
  );
}
