// @ts-check
/**
 * registry.js — the engine Workers of the embedded elements: one per model
 * for the whole page, however many elements show it (each element has its
 * own sessions in it).  A Worker stops when the last element using it
 * goes away.
 */
import { EngineClient, createEngineWorker } from '../worker/client.js';

/** @type {Map<string, {client: EngineClient, users: number}>} */
const workers = new Map();

/** How many Workers run now (for tests). */
export const workerCount = () => workers.size;

/**
 * The client of the Worker for a model (started on first use).
 * @param {string} key the model ('bigram', 'transformer', or a file's URL)
 * @param {() => Worker} [make]
 */
export function acquireClient(key, make = createEngineWorker) {
  let w = workers.get(key);
  if (!w) {
    w = { client: new EngineClient(make()), users: 0 };
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
