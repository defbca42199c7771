// The visitor app's service worker: keeps the app's own files so that it starts with no
// network (airplane mode) and answers them from that copy. The server writes the app's version (a
// hash of all its files) into CACHE below, so any change to the app changes this file: the browser
// then installs the new worker, which fetches every file into a new cache at once, and the old
// cache goes when it takes over — one start never mixes old and new files. The catalog API and
// downloads always go to the network: tours live in the Origin Private File System, not here.

const CACHE = 'trailpack-visitor-__APP_VERSION__';
// Every file of the app (a test checks this list against what the server serves).
const SHELL = [
  './', 'index.html', 'app.css', 'manifest.webmanifest', 'config.json',
  'icons/icon.svg', 'icons/icon-192.png', 'icons/icon-512.png', 'icons/icon-maskable-192.png', 'icons/icon-maskable-512.png',
  'vendor/leaflet/leaflet.js', 'vendor/leaflet/leaflet.css',
  'vendor/leaflet/images/marker-icon.png', 'vendor/leaflet/images/marker-shadow.png',
  'js/app.js', 'js/blake2b.js', 'js/boot.js', 'js/bytes.js', 'js/catalog.js', 'js/download-worker.js', 'js/downloader.js',
  'js/ed25519.js', 'js/fasthash.js', 'js/guide.js', 'js/hash-worker.js', 'js/hashes.wasm', 'js/i18n.js', 'js/install.js',
  'js/journal.js', 'js/keep.js', 'js/language.js', 'js/language-view.js', 'js/log-io.js', 'js/messages-en.js',
  'js/messages-es.js', 'js/minisign.js', 'js/narration.js', 'js/own-view.js',
  'js/pmtiles.js', 'js/route.js', 'js/sha256.js', 'js/status.js', 'js/storage.js', 'js/tour.js', 'js/update-plan.js', 'js/updater.js', 'js/walk.js',
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
  // The app's copy first; what it does not hold (or cannot give: a damaged cache) from the network.
  event.respondWith((async () => {
    const key = url.pathname === scope.pathname ? './' : request;
    const cached = await caches.open(CACHE)
      .then((cache) => cache.match(key, { ignoreSearch: true }))
      .catch(() => undefined);
    return cached ?? fetch(request);
  })());
});
