// @ts-check
/**
 * fetch.js — the Worker's downloads: a shipped model's files (a 404 or an
 * HTML page means "not in this build") and a lesson's model named by URL
 * (a failure says which file and why), with progress as the bytes arrive.
 */
import { reasoned } from './protocol.js';

/**
 * @typedef {Object} Builtin
 * @property {string} name
 * @property {URL | string | null} url  null: not in this build
 * @property {URL | string | null} [tokenizerUrl]
 * @property {string} missing  the message when the files are not there
 */

/** @typedef {(loaded: number, total: number) => void} OnProgress  total 0: unknown */

/**
 * @typedef {Object} Fetched
 * @property {number} status @property {string} type  the Content-Type
 * @property {() => Promise<Uint8Array>} bytes
 */

/**
 * GETs a URL.  With onProgress (in a Worker or page), an XMLHttpRequest
 * reports the bytes as they arrive (total: Content-Length when the body is
 * not compressed, else 0); a stream reader would do too, but Chromium may
 * log a finished request read that way as aborted.
 * @param {URL | string} url @param {OnProgress} [onProgress]
 * @returns {Promise<Fetched>}
 */
export function get(url, onProgress) {
  if (!onProgress || typeof XMLHttpRequest === 'undefined') {
    return fetch(url).then((res) => ({
      status: res.status,
      type: res.headers.get('content-type') || '',
      bytes: async () => new Uint8Array(await res.arrayBuffer()),
    }));
  }
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('GET', String(url));
    xhr.responseType = 'arraybuffer';
    xhr.onprogress = (e) => onProgress(e.loaded, e.lengthComputable ? e.total : 0);
    xhr.onload = () => {
      const data = new Uint8Array(/** @type {ArrayBuffer} */ (xhr.response ?? new ArrayBuffer(0)));
      onProgress(data.length, data.length);
      resolve({ status: xhr.status, type: xhr.getResponseHeader('content-type') || '', bytes: async () => data });
    };
    xhr.onerror = () => reject(new TypeError('network error'));
    xhr.onabort = xhr.onerror;
    onProgress(0, 0);
    xhr.send();
  });
}

/**
 * Fetches a shipped file's bytes.  A 404, or an HTML page where a binary
 * file should be (a single-page-app fallback), means "not in this build".
 * @param {URL | string | null} url @param {OnProgress} [onProgress]
 */
export async function fetchBytes(url, onProgress) {
  if (!url) return null; // the file was not there when the page was built
  const res = await get(url, onProgress);
  if (res.status < 200 || res.status >= 300 || res.type.includes('text/html')) return null;
  return res.bytes();
}

/**
 * Fetches a model file a page named by URL (a lesson's llama2.c
 * checkpoint); a failure says which file and why.
 * @param {string} url @param {OnProgress} [onProgress]
 */
export async function fetchUrl(url, onProgress) {
  const name = url.replace(/[?#].*$/, '').replace(/.*\//, '') || url;
  /** @type {Fetched} */
  let res;
  try {
    res = await get(url, onProgress);
  } catch {
    throw reasoned(`${name} could not be fetched (offline, or another site that does not allow it)`, 'fetch', { file: name });
  }
  if (res.status < 200 || res.status >= 300) throw reasoned(`${name} could not be fetched (HTTP ${res.status})`, 'http', { file: name, status: res.status });
  if (res.type.includes('text/html')) throw reasoned(`${name} is a web page, not a model file`, 'html', { file: name });
  return res.bytes();
}