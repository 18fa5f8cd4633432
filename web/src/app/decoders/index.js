// @ts-check
/**
 * The page's side of each decoding strategy (the Worker's side:
 * worker/sample.js, beam.js, speculative.js): how a panel starts a text
 * with it, takes a Step, counts its Steps, and reads its text.  A panel
 * holds the state (panel.js); a decoder says what a strategy does with it.
 *
 * A decoder's `start` and `step` ask the Worker; `began` and `stepped` fold
 * the answer into the panel (inside one batch); `ran` is how many Steps an
 * answer took.
 */
import { beam } from './beam.js';
import { sample } from './sample.js';
import { speculative } from './speculative.js';

/**
 * What a decoder may touch of a panel: its signals and the helpers that
 * fold an answer in.
 * @typedef {Object} PanelState
 * @property {import('../panel.js').EngineClient} client
 * @property {string} session
 * @property {import('@preact/signals').Signal<string>} seed
 * @property {import('@preact/signals').Signal<import('../../worker/summary.js').StepSummary[]>} steps
 * @property {import('@preact/signals').Signal<Array<[number, number]>>} forced
 * @property {import('@preact/signals').Signal<import('../../worker/summary.js').StepSummary | null>} next
 * @property {import('@preact/signals').Signal<any>} samples
 * @property {import('@preact/signals').Signal<import('../panel.js').BeamState | null>} beam
 * @property {import('@preact/signals').Signal<import('../panel.js').SpecState | null>} spec
 * @property {import('@preact/signals').Signal<import('../../worker/protocol.js').Status | null>} status
 * @property {import('@preact/signals').Signal<{width: number, lengthPenalty: number, groups?: number, diversity?: number}>} beamOpts
 * @property {import('@preact/signals').Signal<{draft: string, n: number, ngram?: number}>} specOpts
 * @property {import('@preact/signals').Signal<import('../hash.js').ConstraintState>} constraint
 * @property {(res: any) => void} applyNext  the next token, status, samples and lab of an answer
 * @property {(lab: import('../../worker/protocol.js').Lab, n: number) => void} applyLab
 * @property {() => {n: number, seed: number} | undefined} sampleArg
 * @property {(id: string, why: 'spec') => Promise<void>} ensureModel
 * @property {(key: string, message?: string) => void} setError
 */

/**
 * What a new text starts from.
 * @typedef {{prompt: string, count: number, params: Record<string, any>, schedule: import('../../worker/schedule.js').Schedule,
 *   forced: Array<[number, number]>, constraint: import('../hash.js').ConstraintState,
 *   engineConstraint: import('../../engine/engine.js').Constraint | null}} Run
 */

/**
 * @typedef {Object} Decoder
 * @property {boolean} timeTravel  a past step can be looked at and branched from
 * @property {boolean} forcing     the learner can pick the next token
 * @property {boolean} constrains  a regex or JSON constraint applies
 * @property {boolean} previews    a slider move re-warps a next token
 * @property {(p: PanelState) => number} count  Steps taken (what a link's `steps` replays)
 * @property {(p: PanelState) => number} generated  tokens generated so far
 * @property {(p: PanelState) => string} text   the generated text
 * @property {(p: PanelState, run: Run) => Promise<any>} start
 * @property {(p: PanelState, res: any, run: Run) => void} began
 * @property {(p: PanelState, params: Record<string, any>, force: number) => Promise<any>} step
 * @property {(p: PanelState, res: any, force: number) => void} stepped
 * @property {(res: any) => number} ran    Steps an answer took
 */

/** @type {Record<import('../lab.js').Strategy, Decoder>} */
export const DECODERS = { sample, beam, speculative };
