// @ts-check
/**
 * sampler-playground — the npm package's module.  Importing it defines the
 * elements (one line each below) and gives the API for a lesson's own
 * script.  Types: ../sampler-playground.d.ts.
 */
import './worker.js';

export { SamplerPlayground } from '../../web/src/embed/embed.jsx';
export { SETTINGS_EVENT, TOKEN_EVENT } from '../../web/src/embed/events.js';
export { ANSWERED_EVENT, SamplerQuestion } from '../../web/src/embed/question.js';
export { Session, createSession } from '../../web/src/embed/session.js';
