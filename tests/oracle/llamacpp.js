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
 *   await oracle.load('stories260K-f32');                  // F32 KV cache, no flash attention (EXACT)
 *   const g = await oracle.greedy('Once upon', 64);        // llama.cpp's argmax tokens
 *   const logits = await oracle.logits('stories260K-f32', [1, 403]);
 *   const ids = await oracle.tokenize('qwen2', 'Hello');   // through the id model ids-qwen2
 *   await oracle.close();
 *
 * What llama.cpp gives through it (wllama 3 wraps llama-server's request
 * handling; there is no raw-logits call, completions take text prompts
 * only, and n_probs is at most 20):
 *  - completion() / generate(): llama-server's completion on a text prompt
 *    with its sampler fields (`samplers`, `temperature`, `top_k`, ...,
 *    `n_probs`, `post_sampling_probs`): each generated token's id and the
 *    probabilities of the n_probs most likely tokens, before or after the
 *    sampler chain.
 *  - greedy(): the argmax continuation of a text prompt.
 *  - hidden() / logits(): llama.cpp's last hidden state at the end of any
 *    token-id sequence (an embedding request, pooling 'last', F32 KV
 *    cache), and the next-token logits it gives with the file's output
 *    matrix (float64 here): every layer is llama.cpp's.
 *  - tokenize(): llama.cpp's tokens of a text, read back from the hidden
 *    state of an id model (gguf-models.js: idModel).
 *  - the logits model (gguf-models.js) makes llama.cpp's completion run its
 *    sampler chain on logits of the test's choice.
 * wllama's limits met here: a token-id prompt, n_probs above 20, or a top-n
 * list holding a byte token (not whole UTF-8) or a -inf logit makes the
 * request fail ("Invalid typed array length").
 */
import fs from 'node:fs';
import path from 'node:path';

import { chromium } from 'playwright-core';

import { serveStatic } from '../e2e/server.js';
import { GGUF_DIR, ROOT, ggufBytes, ggufPath } from '../helpers/gguf-files.js';
import { ID_MODEL_TOKENS } from '../helpers/gguf-models.js';
import { dequantize, readGguf } from '../helpers/gguf.js';

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
 * llama.cpp's load parameters for exact logits: an F32 KV cache (its
 * default F16 cache moves logits ~1e-2) and no flash attention (its CPU
 * kernel, on by default here, rounds the queries to F16: 3e-3 to 1e-2 off
 * run.c's logits on stories260K; without it 1.2e-5).
 */
export const EXACT = Object.freeze({ cache_type_k: 'f32', cache_type_v: 'f32', flash_attn: false });

/** the load parameters of every model here: EXACT, and embeddings on (the hidden state; completions work as well) */
const PARAMS = Object.freeze({ ...EXACT, embeddings: true, pooling_type: 'last' });

/** @type {Map<string, {n: number, dim: number, w: Float32Array}>} */
const outputs = new Map();

/**
 * A test GGUF's output matrix (output.weight, or token_embd.weight when the
 * embeddings are tied), dequantized.
 * @param {string} model
 */
export function outputMatrix(model) {
  let m = outputs.get(model);
  if (!m) {
    const bytes = ggufBytes(model);
    const { tensors, dataStart } = readGguf(bytes);
    const t = tensors.find((x) => x.name === 'output.weight') ?? tensors.find((x) => x.name === 'token_embd.weight');
    if (!t || !t.type) throw new Error(`${model}: no output matrix of a known type`);
    const [dim, n] = t.shape;
    m = { n, dim, w: dequantize(t.type, bytes.subarray(dataStart + t.offset), n * dim) };
    outputs.set(model, m);
  }
  const { n, dim, w } = m;
  return {
    /** @param {ArrayLike<number>} h @returns {Float64Array} */
    times(h) {
      const out = new Float64Array(n);
      for (let v = 0; v < n; v++) {
        let s = 0;
        for (let k = 0; k < dim; k++) s += w[v * dim + k] * h[k];
        out[v] = s;
      }
      return out;
    },
  };
}

/**
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
     * Loads a test GGUF (by name, gguf-files.js) into llama.cpp, for exact
     * logits (EXACT) with embeddings on (hidden() and completions alike);
     * it stays loaded while the same name and parameters are asked for.
     * @param {string} name
     * @param {Record<string, any>} [extra]  more of wllama's LoadModelParams (n_ctx, ...)
     */
    async load(name, extra = {}) {
      const params = { ...PARAMS, ...extra };
      const key = `${name} ${JSON.stringify(params)}`;
      if (loaded && loadedKey === key) return loaded;
      const file = ggufPath(name);
      loaded = await call('load', `/gguf/${path.basename(file)}?${fs.statSync(file).mtimeMs}`, { n_ctx: 512, ...params });
      loadedKey = key;
      return loaded;
    },
    /**
     * llama-server's completion on the loaded model, as-is (its JSON answer).
     * @param {Record<string, any>} body  prompt (text), max_tokens, the sampler fields, n_probs, post_sampling_probs, ...
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
     * Greedy decoding after a text prompt (llama.cpp tokenizes it; wllama's
     * completion takes no token ids; '' is BOS alone): the argmax tokens
     * and, with nProbs (at most 20: llama-server's limit), each step's most
     * likely tokens' log-probabilities.
     * @param {string} prompt @param {number} n @param {{nProbs?: number}} [o]
     */
    async greedy(prompt, n, { nProbs = 0 } = {}) {
      return oracle.generate({
        prompt, max_tokens: n, temperature: 0, top_k: 1, n_probs: Math.max(1, nProbs), ignore_eos: true,
      });
    },
    /**
     * llama.cpp's tokens for a text (BOS and special tokens as llama-server
     * tokenizes a prompt: add_special and parse_special), read back through
     * the `ids-*` model of the vocabulary (gguf-models.js: idModel).
     * @param {string} vocab  spm, llama-bpe, gpt-2, smollm, qwen2
     * @param {string} text
     * @returns {Promise<number[]>}
     */
    async tokenize(vocab, text) {
      /** @type {{hidden: Float64Array, nTokens: number}} */
      let r;
      try {
        r = await oracle.hidden(`ids-${vocab}`, text);
      } catch (e) {
        // no tokens at all (an empty text, no BOS): llama-server refuses the request
        if (/cannot be empty/.test(/** @type {Error} */ (e).message)) return [];
        throw e;
      }
      const { hidden, nTokens } = r;
      if (nTokens > ID_MODEL_TOKENS) throw new Error(`llama.cpp oracle: ${JSON.stringify(text.slice(0, 40))}... is ${nTokens} tokens; the id model reads back ${ID_MODEL_TOKENS}`);
      const ids = [];
      for (let h = nTokens - 1; h >= 0; h--) ids.push(Math.round((2048 * hidden[4 + 2 * h]) / hidden[3 + 2 * h]));
      return ids;
    },
    /**
     * llama.cpp's last hidden state (after the final norm: what the output
     * matrix multiplies) at the end of `input` (token ids, taken as they
     * are, or a text that llama.cpp tokenizes), F32 KV cache.
     * @param {string} model @param {number[] | string} input
     * @returns {Promise<{hidden: Float64Array, nTokens: number}>}
     */
    async hidden(model, input) {
      await oracle.load(model);
      const r = await call('embedding', { input, embd_normalize: -1 });
      return { hidden: Float64Array.from(r.data[0].embedding), nTokens: r.usage.prompt_tokens };
    },
    /**
     * llama.cpp's next-token logits after `input`: its hidden state times the
     * file's output matrix (token_embd when tied), in float64.  For an F32
     * output matrix that is llama.cpp's own last matmul to ~1e-6 (float32
     * sums); a quantized one it would multiply with activations rounded to
     * 8 bits, which this leaves out (the layers before it are llama.cpp's).
     * @param {string} model @param {number[] | string} input
     */
    async logits(model, input) {
      const { hidden } = await oracle.hidden(model, input);
      return outputMatrix(model).times(hidden);
    },
    async close() {
      await call('exit').catch(() => {});
      await browser.close();
      await server.close();
    },
  };
  return oracle;
}
