// @ts-check
/**
 * stages.js — which of the chain's stages are on, as the engine says: the
 * page asks the Worker (request `stages`) whenever the settings change,
 * and keeps no rule of its own (XTC with its switch set but a threshold
 * above 0.5 is off: the engine's chain would cut nothing).  A switch the
 * learner just flipped shows as flipped until the engine's answer for the
 * settings it made arrives; one turned on that the engine still calls off
 * gets its other settings' typical values too (settings.js).
 */
import { batch, computed, signal } from '@preact/signals';

/**
 * @param {import('./core.js').Core & import('./view.js').View} p
 * @param {(stage: string) => void} stillOff  a stage the learner turned on
 *   that the engine says is still off (its other settings keep it off)
 */
export function createStages(p, stillOff) {
  const { client, session, engineParams, paramsKey } = p;
  /** the engine's last answer: the stages on under the settings `key` */
  const answer = signal({ key: '', on: /** @type {string[]} */ ([]) });
  /** switches flipped since the last answer (stage -> on), shown until the next one */
  const flipped = signal(/** @type {Record<string, boolean>} */ ({}));
  /** the stages on (names; 'mirostat' too) */
  const stagesOn = computed(() => {
    const on = new Set(answer.value.on);
    for (const [stage, v] of Object.entries(flipped.value)) {
      if (v) on.add(stage);
      else on.delete(stage);
    }
    return on;
  });

  let asking = false;
  let again = false;
  let force = false;
  /**
   * Asks the engine which stages the settings now turn on (one request at
   * a time, the last settings last; unless `ask`, not again for settings it
   * has answered).
   * @param {boolean} [ask] ask even if the settings are those of the last answer (a switch flipped)
   */
  async function askStages(ask = false) {
    if (ask) force = true;
    if (asking) {
      again = true;
      return;
    }
    asking = true;
    try {
      do {
        again = false;
        const key = paramsKey.peek();
        if (key === answer.peek().key && !force) continue;
        force = false;
        let on;
        try {
          ({ on } = await client.request('stages', { session, params: engineParams.peek() }));
        } catch {
          // settings the engine refuses: the step's own request says why
          continue;
        }
        if (key === paramsKey.peek()) {
          const off = Object.entries(flipped.peek()).filter(([stage, v]) => v && !on.includes(stage)).map(([stage]) => stage);
          batch(() => {
            answer.value = { key, on };
            flipped.value = {};
          });
          for (const stage of off) stillOff(stage);
        }
      } while (again);
    } finally {
      asking = false;
    }
  }

  /**
   * A switch flipped (after the settings it changed): shown so until the
   * engine answers for them.
   * @param {string} stage @param {boolean} on
   */
  function flipStage(stage, on) {
    flipped.value = { ...flipped.value, [stage]: on };
    askStages(true);
  }

  return { stagesOn, askStages, flipStage };
}
