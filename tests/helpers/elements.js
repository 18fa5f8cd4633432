/**
 * The <sampler-playground> element in happy-dom, over the Worker's host in
 * process (inProcessClients): the tests of the element and of what it
 * tells its page share this set-up.  `clients.made` and
 * `clients.terminated` record the models' keys of the Workers asked for
 * and let go.
 */
import { afterEach, beforeAll } from 'vitest';

import { setClientFactory } from '../../web/src/embed/registry.js';
import { inProcessClients } from './engine.js';

/** @param {() => void} [after] run after each test, once the page is emptied */
export function useElements(after = () => {}) {
  const clients = inProcessClients(setClientFactory);
  beforeAll(async () => {
    await import('../../web/src/embed/embed.jsx');
  });
  afterEach(() => {
    document.body.innerHTML = '';
    after();
  });
  return clients;
}

/** The first node under an element's shadow root that matches. @param {Element} host @param {string} sel */
export const $ = (host, sel) => /** @type {ShadowRoot} */ (host.shadowRoot).querySelector(sel);
/** Whether an element has shown its first distribution. @param {Element} host */
export const ready = (host) => $(host, '[data-testid="embed"]')?.getAttribute('data-ready') === 'true';
