// @ts-check
/**
 * registry.js — the engine Workers of the embedded elements: one per model
 * for the whole page, however many elements show it (each element has its
 * own sessions in it).  A Worker stops when the last element using it
 * goes away.
 */
import { EngineClient, createEngineWorker } from '../worker/client.js';

/** @typedef {{request: EngineClient['request'], terminate: () => void}} Client */

/** @type {Map<string, {client: Client, users: number}>} */
const workers = new Map();

/** @type {(key: string) => Client} */
let makeClient = () => new EngineClient(createEngineWorker());

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
