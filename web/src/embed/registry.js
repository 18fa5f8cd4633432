// @ts-check
/**
 * registry.js — the engine Workers of the embedded elements: one per model
 * for the whole page, however many elements show it (each element has its
 * own sessions in it).  A Worker stops when the last element using it
 * goes away.
 */
import { EngineClient, createEngineWorker } from '../worker/client.js';
import { SHIPPED } from '../shared/manifest.js';
import { HANDMADE_ID } from '../app/models.js';

/** @typedef {{request: EngineClient['request'], terminate: () => void}} Client */

/** @type {Map<string, {client: Client, users: number}>} */
const workers = new Map();

/**
 * The models the lesson engine runs (no GGUF reader: engine/browser.js):
 * the shipped ones and hand-made distributions.  A model file named by URL
 * may be a GGUF file: its Worker runs the whole engine.
 */
const LITE_KEYS = new Set([...SHIPPED.map((m) => m.name), HANDMADE_ID]);
/** Which engine a model's Worker runs. @param {string} key */
export const engineFor = (key) => (LITE_KEYS.has(key) ? 'lite' : 'full');

/** @type {(key: string) => Client} */
let makeClient = (key) => new EngineClient(createEngineWorker({ engine: engineFor(key) }));

/** How many Workers run now (for tests). */
export const workerCount = () => workers.size;

/** Replaces how clients are made (component tests use the host in process). @param {(key: string) => Client} make */
export function setClientFactory(make) {
  makeClient = make;
}

/**
 * The client of the Worker for a model (started on first use).
 * @param {string} key the model ('bigram', 'transformer', or a file's URL)
 * @returns {Client}
 */
export function acquireClient(key) {
  let w = workers.get(key);
  if (!w) {
    w = { client: makeClient(key), users: 0 };
    workers.set(key, w);
  }
  w.users++;
  return w.client;
}

/** An element is done with a model's Worker. @param {string} key */
export function releaseClient(key) {
  const w = workers.get(key);
  if (!w) return;
  w.users--;
  if (w.users <= 0) {
    workers.delete(key);
    w.client.terminate();
  }
}
