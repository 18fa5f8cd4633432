// @ts-check
/**
 * The tests' references from the engine itself (in Node, WASM SIMD): the
 * text a model gives for a setup — what a page, an element or a panel must
 * show — and a client whose Worker host runs in process, behind a queue
 * that clones every message both ways as postMessage does.
 */
import fs from 'node:fs';
import path from 'node:path';

import { loadEngineNode } from '../../web/src/engine/node.js';
import { EngineHost, errorOf } from '../../web/src/worker/host.js';
import { MODELS } from '../e2e/fixtures.js';

const BIGRAM = path.join(MODELS, 'bigram.bin');

/** @type {Map<string, {m: import('../../web/src/engine/engine.js').Model, tok: import('../../web/src/engine/engine.js').Tokenizer | null, e: import('../../web/src/engine/engine.js').Engine}>} */
const loaded = new Map();

/**
 * A shipped model's generated text for a setup (the prompt excluded; it
 * stops early when the text finishes).
 * @param {{prompt?: string, seed?: number | string, params?: Record<string, any>, steps: number, model?: 'bigram' | 'transformer'}} setup
 */
export async function engineText({ prompt = '', seed = 1, params = {}, steps, model = 'bigram' }) {
  let entry = loaded.get(model);
  if (!entry) {
    const e = await loadEngineNode('simd');
    const m = e.loadModel(new Uint8Array(fs.readFileSync(path.join(MODELS, `${model}.bin`))));
    const tok = model === 'transformer' ? e.loadTokenizer(new Uint8Array(fs.readFileSync(path.join(MODELS, 'transformer_tokenizer.bin')))) : null;
    entry = { e, m, tok };
    loaded.set(model, entry);
  }
  const s = entry.e.createSession(entry.m, entry.tok);
  s.start(prompt, seed);
  let text = '';
  for (let i = 0; i < steps && !s.finished; i++) text += s.step(params).piece;
  s.free();
  return text;
}

/** The page's Worker protocol, in process (the shipped bigram; no transformer). */
export function inProcessClient() {
  const host = new EngineHost(loadEngineNode('simd'), {
    builtins: {
      bigram: { name: 'Bigram names', url: BIGRAM, missing: 'no bigram' },
      transformer: { name: 'Tiny transformer', url: '/nonexistent/t.bin', tokenizerUrl: '/nonexistent/tt.bin', missing: 'The tiny transformer is not in this build yet.' },
    },
    fetchBytes: async (url) => (url && fs.existsSync(url) ? new Uint8Array(fs.readFileSync(url)) : null),
  });
  let queue = Promise.resolve();
  return {
    host,
    /**
     * As the Worker does: one request at a time, in order, progress to
     * onProgress, and stopGenerate answered at once (outside the queue).
     * @param {string} op @param {any} [args] @param {Transferable[]} [_transfer]
     * @param {{onProgress?: (p: {loaded: number, total: number}) => void}} [options]
     * @returns {Promise<any>}
     */
    request(op, args = {}, _transfer = [], { onProgress } = {}) {
      if (op === 'stopGenerate') return Promise.resolve(host.stopGenerate(args.session));
      const progress = onProgress ? (/** @type {number} */ loaded, /** @type {number} */ total) => onProgress({ loaded, total }) : undefined;
      const run = queue.then(async () => structuredClone(await host.handle(op, structuredClone(args), { progress })));
      queue = run.catch(() => {});
      // a failure as the page's client rebuilds it from the Worker's message (client.js)
      return run.catch((err) => {
        const e = errorOf(err);
        throw Object.assign(new Error(e.message), { name: e.name, code: e.code, reason: e.reason, vars: e.vars, part: e.part });
      });
    },
  };
}

/**
 * The elements' Worker clients, in process: every client the element
 * registry asks for (`setClientFactory` of web/src/embed/registry.js) is an
 * in-process one; `made` and `terminated` record the models' keys.
 * @param {(factory: (key: string) => {request: Function, terminate: () => void}) => void} setClientFactory
 */
export function inProcessClients(setClientFactory) {
  /** @type {string[]} */
  const made = [];
  /** @type {string[]} */
  const terminated = [];
  setClientFactory((key) => {
    made.push(key);
    const client = inProcessClient();
    return { request: (/** @type {string} */ op, /** @type {any} */ args) => client.request(op, args), terminate: () => terminated.push(key) };
  });
  return { made, terminated };
}

/**
 * A link's settings as the page opens them: parsed (hash.js), then asked
 * of the engine (linkCheck.js, the Worker's checkParams over the engine in
 * Node): the state the page uses and every notice, the parser's first.
 * @param {string} hash @param {{source?: 'link' | 'element', name?: (key: string) => string}} [options]
 */
export async function openedLink(hash, options) {
  const { parseHash } = await import('../../web/src/app/hash.js');
  const { state, notices, present } = parseHash(hash, options);
  return { ...(await engineSays(state, notices)), present };
}

/**
 * A parsed state's settings asked of the engine (linkCheck.js): the state
 * the page uses and the notices (those given, then the engine's).
 * @param {import('../../web/src/app/hash.js').HashState} state @param {import('../../web/src/i18n/index.js').Msg[]} [notices]
 */
export async function engineSays(state, notices = []) {
  const { engineChecked, panelChecked } = await import('../../web/src/app/linkCheck.js');
  const { msg } = await import('../../web/src/i18n/index.js');
  const e = await loadEngineNode('simd');
  /** @type {import('../../web/src/app/linkCheck.js').AskEngine} */
  const ask = async (values, samplers) => ({ refused: e.paramRefusals(values, samplers) });
  if (state.view === 'compare') {
    // compare mode: each panel's (compare.js load)
    const out = [...notices];
    const panels = [];
    for (const [i, spec] of state.panels.entries()) {
      const checked = await panelChecked(spec, ask);
      for (const why of checked.whys) out.push(msg('notice.panel', { n: i + 1, why }));
      panels.push(checked.spec);
    }
    return { state: { ...state, panels }, notices: out };
  }
  const checked = await engineChecked(state, ask);
  return { state: checked.state, notices: [...notices, ...checked.notices] };
}
