// @ts-check
/**
 * The cards the page's panel and an element both show: the nucleus view
 * with its readouts, the text metrics, and the draft model's name.  Apart
 * from Playground.jsx so an element (embed.js, the course's chapters) loads
 * them without the page's panel, its chain editor and its lab controls.
 */
import { modelName, useI18n } from './I18n.jsx';
import { Metrics } from './LabViews.jsx';
import { NucleusView, Readouts } from './NucleusView.jsx';
import { useHeldOutOfSight } from './sight.js';
import { useRef } from 'preact/hooks';

/** @typedef {import('../app/panel.js').Panel} Panel */

/** @param {{panel: Pick<Panel, 'setParam' | 'shown' | 'topP' | 'viewIndex'>, uid: string}} props */
export function Nucleus({ panel, uid }) {
  const shown = panel.shown.value;
  const live = panel.viewIndex.value === null;
  const topP = panel.topP.value;
  return (
    <>
      <Readouts summary={shown} uid={uid} />
      <NucleusView
        uid={uid}
        summary={shown}
        topP={live || shown?.kind === 'peek' ? topP : (shown?.params.top_p ?? topP)}
        onTopP={(p) => panel.setParam('top_p', p)}
      />
    </>
  );
}

/**
 * The text metrics (out of sight while Play runs: not redrawn at every token, sight.js).
 * @param {{panel: Pick<Panel, 'lab' | 'model' | 'strategy' | 'text'> & Partial<Pick<Panel, 'playing'>>, uid: string}} props
 */
export function MetricsCard({ panel: live, uid }) {
  const { t } = useI18n();
  const ref = useRef(/** @type {HTMLElement | null} */ (null));
  const panel = useHeldOutOfSight(ref, live, ['lab', 'text']);
  const how = panel.strategy.value;
  return (
    <section class="spg-card spg-metrics-card" aria-labelledby={`${uid}-metrics-h`} ref={ref}>
      <div class="spg-card-head">
        <h2 id={`${uid}-metrics-h`}>{t('metrics.heading')}</h2>
      </div>
      <Metrics
        lab={panel.lab.value}
        text={panel.text.value}
        vocab={panel.model.value?.vocab ?? 2}
        uid={uid}
        note={how === 'beam' ? t('metrics.beamNote') : ''}
      />
    </section>
  );
}

/** @param {{panel: Pick<Panel, 'models' | 'spec' | 'specOpts'>}} props */
export function DraftName({ panel }) {
  const i18n = useI18n();
  const id = panel.spec.value?.draft ?? panel.specOpts.value.draft;
  const m = panel.models.value.find((x) => x.id === id);
  return <>{m ? modelName(i18n, m) : id}</>;
}
