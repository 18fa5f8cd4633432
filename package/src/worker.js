// @ts-check
/**
 * The elements' engine Worker is this package's own, started from the
 * files next to the package's module (files.js), wherever a bundler put
 * them.  Imported first, before any element is defined: an element
 * already in the page starts its Worker the moment it is defined.
 */
import { engineFor, setClientFactory } from '../../web/src/embed/registry.js';
import { EngineClient, createEngineWorker } from '../../web/src/worker/client.js';
import { WORKER_URL } from './files.js';

// the lesson engine for the shipped and hand-made models, as on the site
setClientFactory((key) => new EngineClient(createEngineWorker({ url: WORKER_URL, engine: engineFor(key) })));
