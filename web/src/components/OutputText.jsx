// @ts-check
/**
 * The generated text: the prompt, then one span per token tinted by the
 * probability it was picked with.  Hovering a token shows its step's
 * distribution; clicking pins it (time travel); arrow keys move between
 * steps when the text has focus, Escape goes back to the live step.
 */
import { Component } from 'preact';

import { timeTravelHandlers } from './timeTravel.js';
import { useTail } from './useTail.js';

import { useI18n } from './I18n.jsx';

/**
 * @param {{
 *   prompt: string,
 *   steps: import('../worker/summary.js').StepSummary[],
 *   focus: number | null,
 *   live: boolean,
 *   onHover: (i: number | null) => void,
 *   onFocus: (i: number | null) => void,
 * }} props
 */
export function OutputText({ prompt, steps, focus, live, onHover, onFocus }) {
  const i18n = useI18n();
  const { t } = i18n;
  // (dir="auto" below: the model's text in its own direction, whatever the page's)
  // new tokens scroll into view (unless a past token is being looked at)
  const ref = useTail(steps.length, focus === null);
  return (
    <div
      ref={ref}
      class={`spg-output${live ? ' is-live' : ''}`}
      dir="auto"
      data-testid="output"
      tabIndex={0}
      role="group"
      aria-label={t('text.label')}
      aria-roledescription={t('text.role')}
      {...timeTravelHandlers(steps.length, focus, onHover, onFocus)}
    >
      {prompt && <span class="spg-prompt" data-testid="output-prompt">{prompt}</span>}
      {steps.map((s, i) => <Token key={i} step={s} i={i} focused={i === focus} i18n={i18n} />)}
    </div>
  );
}

/**
 * One token of the text.  It draws again only when its step, its focus or
 * the language changes: Play adds a token at a time, and redrawing every
 * token (its tooltip is a formatted sentence) made each step cost as much
 * as the text is long.
 * @extends {Component<{step: import('../worker/summary.js').StepSummary, i: number, focused: boolean,
 *   i18n: import('../i18n/index.js').I18n}>}
 */
class Token extends Component {
  /** @param {{step: unknown, i: number, focused: boolean, i18n: unknown}} next */
  shouldComponentUpdate(next) {
    const p = this.props;
    return next.step !== p.step || next.focused !== p.focused || next.i18n !== p.i18n || next.i !== p.i;
  }

  render() {
    const { step: s, i, focused, i18n } = this.props;
    return (
      <span
        class={`spg-tok${s.piece.includes('\n') ? ' is-nl' : ''}${focused ? ' is-focus' : ''}${s.forced ? ' is-forced' : ''}`}
        data-step={String(i)}
        data-testid="output-token"
        data-token={String(s.token)}
        data-p={String(s.p)}
        style={{ '--p': String(s.p) }}
        title={i18n.t(s.forced ? 'text.tokenPicked' : 'text.token', { n: i + 1, piece: JSON.stringify(s.piece), p: i18n.fixed(s.p, 3) })}
      >
        {s.piece}
      </span>
    );
  }
}
