// A tiny static file server for dist/ (the e2e tests and the screenshot
// script use it): 127.0.0.1 on a free port, correct MIME types, 404s for
// missing files (no single-page fallback), and a log of every request.
//
// Options for the lesson-author tests: `mounts` serves other folders under
// URL prefixes (dist/ under /some/deep/path/), `files` serves strings at
// exact paths (a lesson page), `types` overrides MIME types (.wasm as
// application/octet-stream), `cors` adds Access-Control-Allow-Origin: *,
// `throttle` sends matching files slowly (a progress bar to see), and
// `headers` adds headers to every answer (COOP/COEP: a cross-origin
// isolated page, as llama.cpp's WebAssembly build needs).
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.bin': 'application/octet-stream',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
};

/**
 * @typedef {Object} ServeOptions
 * @property {Record<string, string>} [mounts]  URL prefix ('/a/b/') -> folder
 * @property {Record<string, string | Buffer>} [files]  URL path -> contents
 * @property {Record<string, string>} [types]  extension -> MIME type
 * @property {boolean} [cors]
 * @property {{match: RegExp, chunk: number, ms: number}} [throttle]
 * @property {Record<string, string>} [headers]
 */

/**
 * @param {string | null} root directory to serve at / (null: none)
 * @param {ServeOptions} [options]
 * @returns {Promise<{url: string, requests: string[], close: () => Promise<void>}>}
 */
export function serveStatic(root, { mounts = {}, files = {}, types = {}, cors = false, throttle, headers: extra = {} } = {}) {
  const requests = [];
  const prefixes = Object.keys(mounts).sort((a, b) => b.length - a.length);
  /** the file behind a URL path, or null */
  const locate = (/** @type {string} */ pathname) => {
    const prefix = prefixes.find((p) => pathname.startsWith(p));
    const base = prefix ? mounts[prefix] : root;
    if (!base) return null;
    const rest = prefix ? pathname.slice(prefix.length) : pathname;
    let file = path.join(base, rest);
    if (!file.startsWith(path.resolve(base))) return null;
    if (pathname.endsWith('/')) file = path.join(file, 'index.html');
    return file;
  };
  const server = http.createServer((req, res) => {
    requests.push(req.url);
    const url = new URL(req.url, 'http://localhost');
    const pathname = decodeURIComponent(url.pathname);
    const headers = { 'cache-control': 'no-store', ...extra };
    if (cors) headers['access-control-allow-origin'] = '*';
    const send = (/** @type {Buffer} */ data, /** @type {string} */ name) => {
      const ext = path.extname(name);
      res.writeHead(200, { ...headers, 'content-type': types[ext] || TYPES[ext] || 'application/octet-stream', 'content-length': data.length });
      if (!throttle || !throttle.match.test(pathname)) {
        res.end(data);
        return;
      }
      let at = 0;
      const next = () => {
        if (res.destroyed) return;
        const end = Math.min(data.length, at + throttle.chunk);
        res.write(data.subarray(at, end));
        at = end;
        if (at < data.length) setTimeout(next, throttle.ms);
        else res.end();
      };
      next();
    };
    if (Object.hasOwn(files, pathname)) {
      send(Buffer.from(files[pathname]), pathname);
      return;
    }
    const file = locate(pathname);
    if (!file) {
      res.writeHead(404, { ...headers, 'content-type': 'text/plain' }).end('not found');
      return;
    }
    fs.readFile(file, (err, data) => {
      if (err) {
        res.writeHead(404, { ...headers, 'content-type': 'text/plain' }).end('not found');
        return;
      }
      send(data, file);
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
      resolve({
        url: `http://127.0.0.1:${port}/`,
        requests,
        close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(() => r()); }),
      });
    });
  });
}
