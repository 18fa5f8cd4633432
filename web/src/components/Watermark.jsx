// @ts-check
/**
 * The watermark's view (fetched when a learner turns the watermark stage
 * on: lazy.js): the text's tokens green or red as the engine's detector
 * judges them with the key, the running z-score, what the last step could
 * carry, and a box where the learner edits the text and detects it again.
 * Every number is the engine's (the Worker's `watermark` request).
 */
import { useEffect, useState } from 'preact/hooks';

import { useI18n } from './I18n.jsx';
import { wt } from './watermarkTexts.js';
// its styles with it, in the card itself: the same in the page and in an
// element's shadow root (whose sheet is the page's styles.css, without it)
import css from './watermark.css?inline';

/** @typedef {import('../worker/watermark.js').WatermarkAnswer} WatermarkAnswer */

/**
 * @param {{panel: import('../app/panel.js').Panel, uid: string}} props
 */
export function WatermarkCard({ panel, uid }) {
  const i18n = useI18n();
  const lang = i18n.lang;
  const params = panel.params.value;
  const gamma = params.watermark_gamma, key = params.watermark_key;
  const steps = panel.steps.value;
  const [score, setScore] = useState(/** @type {WatermarkAnswer | null} */ (null));
  const [text, setText] = useState('');
  const [detected, setDetected] = useState(/** @type {WatermarkAnswer | null} */ (null));
  const [failed, setFailed] = useState('');
  // the generated text judged again at every token and at every change of the key or gamma
  useEffect(() => {
    let live = true;
    panel.client.request('watermark', { session: panel.session, gamma, key }).then(
      (/** @type {WatermarkAnswer} */ r) => { if (live) setScore(r); },
      () => { if (live) setScore(null); },
    );
    return () => { live = false; };
  }, [steps, gamma, key, panel.session]);
  const generated = steps.map((s) => s.piece).join('');
  const detect = () => {
    setFailed('');
    panel.client.request('watermark', { session: panel.session, gamma, key, text, prompt: panel.prompt.value }).then(
      (/** @type {WatermarkAnswer} */ r) => setDetected(r),
      (/** @type {Error} */ err) => { setDetected(null); setFailed(err.message); },
    );
  };
  const last = steps.length ? steps[steps.length - 1].watermark : null;
  const num = (/** @type {number} */ x, /** @type {number} */ d) => i18n.fixed(x, d);
  const pOf = (/** @type {number} */ p) => (p < 1e-4 ? p.toExponential(1) : num(p, 4));
  return (
    <section class="spg-card spg-wm" aria-labelledby={`${uid}-wm-h`} data-testid="wm-card">
      <style>{css}</style>
      <div class="spg-card-head"><h2 id={`${uid}-wm-h`}>{wt(lang, 'heading')}</h2></div>
      <p class="spg-hint">{wt(lang, 'intro')}</p>
      {score && <Marked answer={score} lang={lang} num={num} testid="wm-text" spikes={steps.map((s) => s.watermark?.spike)} />}
      <p class="spg-wm-score" data-testid="wm-z" data-z={score ? String(score.z) : ''}>
        {score && score.tokens > 0
          ? <>
              {wt(lang, 'score', { green: score.green, tokens: score.tokens, expected: num(gamma * score.tokens, 1), z: num(score.z, 2), p: pOf(score.pValue) })}
              {' '}<strong>{wt(lang, score.z > 4 ? 'verdict' : 'verdictNo')}</strong>
            </>
          : wt(lang, 'none')}
      </p>
      {last && (
        <p class="spg-hint" data-testid="wm-step">
          {wt(lang, 'step', { n: steps.length, mass: num(last.mass, 3), spike: num(last.spike, 3) })}
        </p>
      )}
      <p class="spg-hint">{wt(lang, 'why')}</p>
      <label class="spg-wm-edit" for={`${uid}-wm-box`}>{wt(lang, 'editLabel')}</label>
      <textarea id={`${uid}-wm-box`} class="spg-wm-box" rows={3} dir="auto" value={text} data-testid="wm-box"
        onInput={(e) => setText(/** @type {HTMLTextAreaElement} */ (e.currentTarget).value)} />
      <div class="spg-wm-actions">
        <button type="button" class="spg-btn spg-btn-small" data-testid="wm-copy" onClick={() => setText(generated)}>{wt(lang, 'copy')}</button>
        <button type="button" class="spg-btn spg-btn-small" data-testid="wm-detect" onClick={detect}>{wt(lang, 'detect')}</button>
      </div>
      {failed && <p class="spg-error" role="alert">{failed}</p>}
      {detected && (
        <div role="status" data-testid="wm-detected" data-z={String(detected.z)}>
          <Marked answer={detected} lang={lang} num={num} testid="wm-detected-text" />
          <p class="spg-wm-score">{wt(lang, 'detected', { green: detected.green, tokens: detected.tokens, z: num(detected.z, 2), p: pOf(detected.pValue) })}</p>
          <p class="spg-hint">{wt(lang, 'hint')}</p>
        </div>
      )}
    </section>
  );
}

/**
 * Tokens green or red, each titled with its colour, the z after it and,
 * when the page has its step's record, the step's spike entropy; a line
 * break is drawn (↵) so its colour shows, as every token counts.
 * @param {{answer: WatermarkAnswer, lang: string, num: (x: number, d: number) => string, testid: string, spikes?: Array<number | undefined>}} props
 */
function Marked({ answer, lang, num, testid, spikes = [] }) {
  return (
    <p class="spg-wm-text" dir="auto" data-testid={testid}>
      {answer.pieces.map((piece, i) => {
        const m = answer.marks[i];
        const cls = `${m === 1 ? ' is-green' : m === 0 ? ' is-red' : ''}${piece.includes('\n') ? ' is-nl' : ''}`;
        const spike = spikes[i];
        const title = m < 0 ? undefined : wt(lang, 'token', { n: i + 1, colour: wt(lang, m ? 'green' : 'red'), z: num(answer.running[i], 2) })
          + (spike === undefined ? '' : `; ${wt(lang, 'tokenSpike', { spike: num(spike, 3) })}`);
        return (
          <span key={i} class={`spg-wm-tok${cls}`} data-testid="wm-token" data-green={String(m)} title={title}>
            {piece}
          </span>
        );
      })}
    </p>
  );
}
