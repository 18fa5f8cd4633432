// @ts-check
/**
 * "Start here": on a first visit (no setup in the link, nothing
 * remembered; never in an embed) a small card offers the course's first
 * chapter or a three-step tour of the page — the bars, one slider, Play.
 * Dismissed (or either offer taken) it never comes back on this device.
 * Its words come with the teaching texts, at the learner's first move on
 * the page (a pointer, a key, a touch, a scroll); the tour (Tour.jsx) is a
 * chunk of its own, fetched when asked for.
 */
import { useState } from 'preact/hooks';

import { chapterUrl, dismissStart, teachSay, useTeach, wantTeach } from '../teach/teach.js';
import { useI18n } from './I18n.jsx';

/** @param {{onDone: () => void}} props */
export function StartHere({ onDone }) {
  const i18n = useI18n();
  const { lang } = i18n;
  const texts = useTeach(lang);
  const t = (/** @type {string} */ key) => teachSay(texts, i18n, key);
  /** the tour, once its code is here */
  const [tour, setTour] = useState(/** @type {{Tour: (props: {onDone: () => void}) => import('preact').JSX.Element} | null} */ (null));
  if (tour) return <tour.Tour onDone={onDone} />;
  // its words are the teaching texts': it shows at the learner's first move
  if (!texts) return null;
  const close = () => {
    dismissStart();
    onDone();
  };
  return (
    <section class="spg-start" aria-labelledby="spg-start-h" data-testid="start-here">
      <h2 id="spg-start-h">{t('start.heading')}</h2>
      <p>{t('start.text')}</p>
      <div class="spg-start-actions">
        <a class="spg-btn spg-btn-primary" href={chapterUrl('distribution', lang)} data-testid="start-course" onClick={dismissStart}>
          {t('start.course')}
        </a>
        <button
          type="button"
          class="spg-btn"
          data-testid="start-tour"
          onClick={() => {
            dismissStart();
            wantTeach();
            import('./Tour.jsx').then((m) => setTour({ Tour: m.Tour }), () => {});
          }}
        >
          {t('start.tour')}
        </button>
        <button type="button" class="spg-btn spg-btn-small spg-start-close" data-testid="start-close" onClick={close}>
          {t('start.close')}
        </button>
      </div>
    </section>
  );
}

