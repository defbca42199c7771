// The visitor app's service worker: keeps the app's own files so that it starts with no
// network (airplane mode) and answers them from that copy. The server writes the app's version (a
// hash of all its files) into CACHE below, so any change to the app changes this file: the browser
// then installs the new worker, which fetches every file into a new cache at once, and the old
// cache goes when it takes over — one start never mixes old and new files. The catalog API and
// downloads always go to the network: tours live in the Origin Private File System, not here.
// The settings that decide which downloads to trust (config.json: the reviewers' keys and how
// many must have signed) are the one file asked of the network first, even while this version
// of the app stays open: the copy kept here answers only when the network fails, marked so
// (header X-TrailPack-Copy: offline) for the app's trust.js, which takes no new key from it.

const CACHE = 'trailpack-visitor-__APP_VERSION__';
// The trust settings (network first: settingsFirstFromNetwork), and the most of them kept (as
// much as the app reads: catalog.js).
const SETTINGS = 'config.json';
const SETTINGS_LIMIT = 1 << 20;
// Every file of the app (a test checks this list against what the server serves).
const SHELL = [
  './', 'index.html', 'app.css', 'manifest.webmanifest', 'config.json',
  'icons/icon.svg', 'icons/icon-192.png', 'icons/icon-512.png', 'icons/icon-maskable-192.png', 'icons/icon-maskable-512.png',
  'vendor/leaflet/leaflet.js', 'vendor/leaflet/leaflet.css',
  'vendor/leaflet/images/marker-icon.png', 'vendor/leaflet/images/marker-shadow.png',
  'js/app.js', 'js/blake2b.js', 'js/boot.js', 'js/bytes.js', 'js/catalog.js', 'js/download-worker.js', 'js/downloader.js',
  'js/ed25519.js', 'js/fasthash.js', 'js/guide.js', 'js/hash-worker.js', 'js/hashes.wasm', 'js/http.js', 'js/i18n.js', 'js/install.js',
  'js/journal.js', 'js/keep.js', 'js/language.js', 'js/language-view.js', 'js/log-io.js', 'js/messages-en.js',
  'js/messages-es.js', 'js/minisign.js', 'js/narration.js', 'js/own-view.js',
  'js/pmtiles.js', 'js/route.js', 'js/sha256.js', 'js/status.js', 'js/storage.js', 'js/tour.js', 'js/trust.js', 'js/update-plan.js', 'js/updater.js', 'js/walk.js',
  'js/zip.js',
];

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    await cache.addAll(SHELL.map((path) => new Request(path, { cache: 'no-cache' })));
    // No skipWaiting: a new version takes over when no page of the old one is open (a page never
    // loads its workers and modules from another version than its own).
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name !== CACHE && name.startsWith('trailpack-visitor-')) await caches.delete(name);
    }
    await self.clients.claim();
  })());
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  const scope = new URL(self.registration.scope);
  if (request.method !== 'GET' || url.origin !== scope.origin || !url.pathname.startsWith(scope.pathname)) return;
  if (url.pathname === `${scope.pathname}${SETTINGS}`) {
    event.respondWith(settingsFirstFromNetwork(event));
    return;
  }
  // The app's copy first; what it does not hold (or cannot give: a damaged cache) from the network.
  event.respondWith((async () => {
    const key = url.pathname === scope.pathname ? './' : request;
    const cached = await caches.open(CACHE)
      .then((cache) => cache.match(key, { ignoreSearch: true }))
      .catch(() => undefined);
    return cached ?? fetch(request);
  })());
});

/**
 * The trust settings from the network; the kept copy, marked `X-TrailPack-Copy: offline`, only
 * when the network fails. An answer of 200 that says its length, at most SETTINGS_LIMIT, also
 * brings the kept copy up to date (one without a length, or longer, is passed on as it is, for
 * the app to cut off: the worker reads none of it). An answer of the server that is not 200 is
 * passed on as it is: the app then refuses to install (fails closed) rather than take an older
 * copy for the server's word.
 * @param {FetchEvent} event
 * @returns {Promise<Response>}
 */
async function settingsFirstFromNetwork(event) {
  const key = new URL(SETTINGS, self.registration.scope).href;
  let response;
  try {
    response = await fetch(event.request, { cache: 'no-cache' });
  } catch (failure) {
    const kept = await caches.open(CACHE)
      .then((cache) => cache.match(key, { ignoreSearch: true }))
      .catch(() => undefined);
    if (!kept) throw failure;
    const headers = new Headers(kept.headers);
    headers.set('X-TrailPack-Copy', 'offline');
    return new Response(kept.body, { status: kept.status, statusText: kept.statusText, headers });
  }
  const declared = response.headers.get('Content-Length');
  if (response.status === 200 && /^\d+$/.test(declared ?? '') && Number(declared) <= SETTINGS_LIMIT) {
    const copy = response.clone();
    event.waitUntil(caches.open(CACHE).then((cache) => cache.put(key, copy)).catch(() => {}));
  }
  return response;
}
