// sw.js — the playground's service worker, so it works offline after the
// first visit.  Written into dist/ by the build (vite.config.js), which
// puts the build's file list and version in place of the placeholder
// below: {version, precache: [files], lazy: [large files]}.
//
// - install: caches every file of the build but the large models, in a
//   cache named after this dist/ folder and the build's version;
// - activate: deletes this folder's caches of older builds, and takes
//   control of the open pages;
// - fetch: the build's files (and the large models, cached on first use)
//   come from the cache first; anything else goes to the network as usual.
// All URLs are relative to this file, so dist/ works under any sub-path.
/* eslint-env serviceworker */
const BUILD = self.__SPG_BUILD__;
const SCOPE = new URL('./', self.location.href).href;
const PREFIX = `spg:${new URL(SCOPE).pathname}:`;
const CACHE = PREFIX + BUILD.version;
const INDEX = new URL('index.html', SCOPE).href;
const abs = (f) => new URL(f, SCOPE).href;
const KNOWN = new Set([...BUILD.precache, ...BUILD.lazy].map(abs));

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    await cache.addAll(BUILD.precache.map((f) => new Request(abs(f), { cache: 'reload' })));
    await self.skipWaiting();
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith(PREFIX) && name !== CACHE) await caches.delete(name);
    }
    await self.clients.claim();
  })());
});

/** a cached response a navigation can use (not marked as redirected) */
function plain(res) {
  if (!res.redirected) return res;
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers: res.headers });
}

async function cacheFirst(key, request) {
  const cache = await caches.open(CACHE);
  const hit = await cache.match(key);
  if (hit) return request.mode === 'navigate' ? plain(hit) : hit;
  const res = await fetch(request);
  if (res.ok && res.type === 'basic' && !res.redirected) await cache.put(key, res.clone());
  return res;
}

self.addEventListener('fetch', (event) => {
  const { request } = event;
  if (request.method !== 'GET' || request.headers.has('range')) return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin || !url.href.startsWith(SCOPE)) return;
  let key = url.origin + url.pathname;
  // a folder is its index.html (dist/ itself, and the course's dist/learn/)
  if (request.mode === 'navigate' && key.endsWith('/')) key = key === SCOPE ? INDEX : `${key}index.html`;
  if (KNOWN.has(key)) event.respondWith(cacheFirst(key, request));
});
