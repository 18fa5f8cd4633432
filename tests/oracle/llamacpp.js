// @ts-check
/**
 * llama.cpp itself as the tests' oracle: @wllama/wllama (llama.cpp and its
 * server's completion code compiled to WebAssembly; a devDependency, never
 * part of the page) in Debian's Chromium, driven by playwright-core.
 *
 * wllama needs a cross-origin-isolated page (its memory is shared), so the
 * page is served with COOP/COEP headers from 127.0.0.1; the GGUF files come
 * from build/gguf/ (gguf-files.js) over the same server.  Nothing is
 * downloaded: the npm package carries its .wasm.
 *
 *   const oracle = await startOracle();
 *   await oracle.load('stories260K-f32', { cache_type_k: 'f32', cache_type_v: 'f32' });
 *   const steps = await oracle.greedy([1], 8, { nProbs: 512 });   // llama.cpp's tokens and log-probabilities
 *   const ids = await oracle.tokenize('ids-llama3', 'Hello world');
 *   await oracle.close();
 *
 * What llama.cpp gives through it (wllama 3 is llama-server's completion
 * API; it has no raw-logits call):
 *  - completion(): llama-server's /completion on token ids or text, with
 *    its sampler fields (`samplers`, `temperature`, `top_k`, ..., `n_probs`,
 *    `post_sampling_probs`); each generated token's id and, with n_probs,
 *    the probabilities of the n most likely tokens (all of them when n_probs
 *    is the vocabulary's size).
 *  - greedy(): the argmax text and, at each step, the log-probabilities
 *    log softmax(logits): the logits up to one constant per step, which is
 *    how logitsAgreement() compares them.
 *  - tokenize(): llama.cpp's tokenizer, read back through an embedding
 *    request on an `ids-*` model (gguf-models.js: idModel).
 */
import fs from 'node:fs';
import path from 'node:path';

import { chromium } from 'playwright-core';

import { serveStatic } from '../e2e/server.js';
import { GGUF_DIR, ROOT, ggufPath } from '../helpers/gguf-files.js';

export const CHROMIUM = '/usr/bin/chromium';
const WLLAMA = path.join(ROOT, 'node_modules/@wllama/wllama');

/** Why the oracle cannot run here ('' when it can). */
export function oracleMissing() {
  if (!fs.existsSync(CHROMIUM)) return `${CHROMIUM} is missing (sudo apt-get install chromium)`;
  if (!fs.existsSync(path.join(WLLAMA, 'esm/wasm/wllama.wasm'))) return '@wllama/wllama is missing (npm ci)';
  return '';
}

// The page: wllama's ES module, and a few calls the driver evaluates.
const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>llama.cpp oracle</title>
<script type="module">
import { Wllama } from '/wllama/esm/index.js';
const CONFIG = { default: '/wllama/esm/wasm/wllama.wasm' };
let w = null;
const quiet = { debug() {}, log() {}, warn: (...a) => console.warn(...a), error: (...a) => console.error(...a) };
window.oracle = {
  isolated: () => self.crossOriginIsolated,
  async load(url, params) {
    if (w) await w.exit();
    w = new Wllama(CONFIG, { logger: quiet, suppressNativeLog: true });
    const blob = await (await fetch(url)).blob();
    await w.loadModel([blob], { n_threads: 1, n_gpu_layers: 0, warmup: false, ...params });
    const info = w.getLoadedContextInfo();
    return { n_vocab: info.n_vocab, n_embd: info.n_embd, n_layer: info.n_layer, n_ctx_train: info.n_ctx_train, token_bos: info.token_bos, token_eos: info.token_eos, add_bos_token: info.add_bos_token, metadata: info.metadata };
  },
  async completion(body) {
    return await w.createCompletion({ ...body, stream: false });
  },
  async embedding(body) {
    return await w.createEmbedding(body);
  },
  async exit() { if (w) await w.exit(); w = null; },
};
window.oracleReady = true;
</script>`;

/**
 * @typedef {Object} Step  one generated token
 * @property {number} id
 * @property {string} token  its text as llama.cpp writes it
 * @property {Map<number, number>} [logprobs]  token id -> log-probability (the n_probs most likely)
 */

/**
 * Starts Chromium and the page.
 * @param {{log?: (line: string) => void}} [o]
 */
export async function startOracle({ log } = {}) {
  const why = oracleMissing();
  if (why) throw new Error(`llama.cpp oracle: ${why}`);
  const server = await serveStatic(null, {
    mounts: { '/wllama/': WLLAMA, '/gguf/': GGUF_DIR },
    files: { '/oracle.html': PAGE },
    types: { '.html': 'text/html; charset=utf-8' },
    headers: { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp', 'cross-origin-resource-policy': 'same-origin' },
  });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
  const page = await browser.newPage();
  /** @type {string[]} */
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
    log?.(`[${m.type()}] ${m.text()}`);
  });
  await page.goto(`${server.url}oracle.html`);
  await page.waitForFunction(() => /** @type {any} */ (window).oracleReady === true, null, { timeout: 30000 });
  if (!(await page.evaluate(() => /** @type {any} */ (window).oracle.isolated()))) throw new Error('llama.cpp oracle: the page is not cross-origin isolated');
  /** @type {string | null} */
  let loaded = null;
  /** @type {string} */
  let loadedKey = '';

  /**
   * @param {string} fn @param {any[]} args
   * @returns {Promise<any>}
   */
  const call = async (fn, ...args) => {
    try {
      return await page.evaluate(([f, a]) => /** @type {any} */ (window).oracle[/** @type {string} */ (f)](...a), /** @type {[string, any[]]} */ ([fn, args]));
    } catch (e) {
      throw new Error(`llama.cpp oracle: ${fn} failed: ${/** @type {Error} */ (e).message}${errors.length ? `\n${errors.slice(-5).join('\n')}` : ''}`);
    }
  };

  const oracle = {
    page,
    errors,
    /**
     * Loads a test GGUF (by name, gguf-files.js) into llama.cpp; it stays
     * loaded while the same name and parameters are asked for.
     * @param {string} name
     * @param {Record<string, any>} [params]  wllama's LoadModelParams (cache_type_k/v: 'f32' for exact logits; embeddings, pooling_type; n_ctx)
     */
    async load(name, params = {}) {
      const key = `${name} ${JSON.stringify(params)}`;
      if (loaded && loadedKey === key) return loaded;
      const file = ggufPath(name);
      loaded = await call('load', `/gguf/${path.basename(file)}?${fs.statSync(file).mtimeMs}`, { n_ctx: 512, ...params });
      loadedKey = key;
      return loaded;
    },
    /**
     * llama-server's completion on the loaded model, as-is (its JSON answer).
     * @param {Record<string, any>} body  prompt (text or token ids), max_tokens, the sampler fields, n_probs, post_sampling_probs, ...
     */
    async completion(body) {
      return call('completion', { cache_prompt: false, ...body });
    },
    /**
     * The generated tokens of a completion, each with its id and, when
     * n_probs was asked for, the probabilities llama.cpp reports (logprob,
     * or prob with post_sampling_probs).
     * @param {Record<string, any>} body
     * @returns {Promise<{steps: Array<{id: number, token: string, top: Array<{id: number, token: string, logprob?: number, prob?: number}>}>, text: string, raw: any}>}
     */
    async generate(body) {
      const r = await oracle.completion({ return_tokens: true, ...body });
      const choice = r.choices[0];
      const content = choice.logprobs?.content ?? [];
      const ids = r.tokens ?? choice.tokens ?? content.map((/** @type {any} */ c) => c.id);
      return {
        text: choice.text,
        raw: r,
        steps: ids.map((/** @type {number} */ id, /** @type {number} */ i) => ({
          id,
          token: content[i]?.token ?? '',
          top: (content[i]?.top_logprobs ?? content[i]?.top_probs ?? []).map((/** @type {any} */ t) => ({ id: t.id, token: t.token, logprob: t.logprob, prob: t.prob })),
        })),
      };
    },
    /**
     * Greedy decoding from `prompt` (token ids, BOS included if wanted):
     * the argmax tokens and, with nProbs, each step's log-probabilities.
     * @param {number[]} prompt @param {number} n @param {{nProbs?: number}} [o]
     */
    async greedy(prompt, n, { nProbs = 0 } = {}) {
      return oracle.generate({
        prompt, max_tokens: n, samplers: [], temperature: 0, top_k: 1, n_probs: nProbs, ignore_eos: true,
      });
    },
    /**
     * llama.cpp's tokens for a text, on an `ids-*` model (loaded here with
     * embeddings and pooling none): each token's hidden state is (1, id, 0...)
     * scaled by the final norm, so id = round(h[1] / h[0]).
     * @param {string} model  e.g. 'ids-llama3'
     * @param {string} text
     * @returns {Promise<number[]>}
     */
    async tokenize(model, text) {
      await oracle.load(model, { embeddings: true, pooling_type: 'none', n_ctx: 4096, n_batch: 4096, n_ubatch: 4096 });
      const r = await call('embedding', { input: text, embd_normalize: -1 });
      const rows = /** @type {number[][]} */ (r.data[0].embedding);
      return rows.map((h) => Math.round(h[1] / h[0]));
    },
    async close() {
      await call('exit').catch(() => {});
      await browser.close();
      await server.close();
    },
  };
  return oracle;
}
