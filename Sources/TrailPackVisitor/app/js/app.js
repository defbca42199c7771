// The visitor app: find a tour, download and check it, take it with no signal.
// Views are rendered from text with DOM calls (textContent, never innerHTML of anything a
// package or the server says). Routes are in the URL's fragment: #/ (sites), #/site/ID,
// #/package/ID, #/tours (on this phone), #/tour/SHA256 (the map), #/tour/SHA256/stop/N, #/log (My
// log: issue #51), #/map (find a tour on a map).

import * as catalog from './catalog.js';
import * as storage from './storage.js';
import * as installer from './install.js';
import { openZip } from './zip.js';
import { HttpSource } from './http.js';
import { formatBytes, compareVersions, shownType, verifiedBlob } from './tour.js';
import { showTour, showStop, leaveTour } from './walk.js';
import { localTour, langOf, languageSwitch, fallbackNote } from './language-view.js';
import { ROUTE_PATH, readRoute, routeSummary, routeLocale } from './route.js';
import { refusalOf, spaceFree, spaceUsed } from './status.js';
import { logView, mapView, leaveMap } from './own-view.js';
import { installOffer, keepWarning } from './keep.js';
import { t, setLanguage, chooseAppLanguage } from './i18n.js';
import { preferredLanguages } from './language-view.js';

const main = document.getElementById('main');

/**
 * Makes an element: attributes (on* are listeners; `text` sets textContent), then children
 * (strings become text nodes).
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on')) element.addEventListener(key.slice(2), value);
    else if (key === 'text') element.textContent = value;
    else element.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

let routeHash = null;
/**
 * How many times route() has run: a view started for one route and finished after the visitor went
 * to another (and route() ran for it, so the hash no longer tells them apart) sees it changed.
 */
let routeTurn = 0;

/** A view that finished after the visitor went elsewhere: dropped, never drawn over the new page. */
class StaleView extends Error {}

/**
 * Replaces the page's content, sets its title and moves focus to the heading (screen readers).
 * The title is words, or elements (a tour's name in its own `lang`).
 */
export function render(title, ...content) {
  if (routeHash !== null && location.hash !== routeHash) throw new StaleView();
  const parts = content.flat(Infinity).filter((part) => part !== null && part !== undefined && part !== false);
  const heading = h('h1', { tabindex: '-1', id: 'page-title' }, title);
  main.replaceChildren(heading, ...parts);
  document.title = `${heading.textContent} — Trail tours`;
  document.getElementById('page-title').focus({ preventScroll: false });
  // The menu in the app's language (the page's own words set it: tour pages speak the tour's).
  for (const link of document.querySelectorAll('[data-words]')) link.textContent = t(link.dataset.words);
  networkStatus();
  for (const link of document.querySelectorAll('nav a')) {
    link.toggleAttribute('aria-current', link.getAttribute('href') === location.hash.split('/').slice(0, 2).join('/'));
    if (link.hasAttribute('aria-current')) link.setAttribute('aria-current', 'page');
  }
}

/** A message in a box: `kind` is 'info', 'error' or 'ok'. */
export function notice(kind, ...text) {
  return h('p', { class: `notice notice-${kind}`, role: kind === 'error' ? 'alert' : 'status' }, ...text);
}

function offlineNotice() {
  return notice(
    'info', t('catalog.offlineNotice'),
    h('a', { href: '#/tours' }, t('catalog.offlineLink')), '.');
}

async function sitesView() {
  render(t('nav.find'), h('p', { class: 'muted' }, t('catalog.loadingParks')));
  let list;
  try {
    list = await catalog.sites();
  } catch (error) {
    render(t('nav.find'), error.offline ? offlineNotice() : notice('error', error.message));
    return;
  }
  const sites = list.sites.filter((s) => s.packages > 0);
  render(
    t('nav.find'),
    h('p', {}, t('catalog.intro'),
      h('a', { href: '#/map' }, t('map.title')), '.'),
    sites.length === 0
      ? notice('info', t('map.none'))
      : h('ul', { class: 'cards' }, sites.map((site) =>
        h('li', { class: 'card' },
          h('h2', {}, h('a', { href: `#/site/${encodeURIComponent(site.id)}` }, site.name || site.id)),
          h('p', { class: 'muted' }, t('catalog.tourCount', { n: site.packages }))))),
  );
}

async function siteView(siteId) {
  render(t('catalog.tours'), h('p', { class: 'muted' }, t('catalog.loadingTours')));
  let page;
  let siteName = siteId;
  try {
    page = await catalog.sitePackages(siteId);
    siteName = (await catalog.sites()).sites.find((s) => s.id === siteId)?.name || siteId;
  } catch (error) {
    render(t('catalog.tours'), error.offline ? offlineNotice() : notice('error', error.message));
    return;
  }
  const library = await storage.readLibrary();
  const card = (entry) => {
    const installed = library.tours.find((t) => t.id === entry.id);
    const stops = h('span', { class: 'muted' });
    catalog.manifest(entry.id, entry.version).then((m) => {
      const n = Array.isArray(m.waypoints) ? m.waypoints.length : 0;
      stops.textContent = t('catalog.stopCount', { n });
    }).catch(() => {});
    return h('li', { class: 'card' },
      h('h2', {}, h('a', { href: `#/package/${encodeURIComponent(entry.id)}` }, entry.name || entry.id)),
      h('p', {}, entry.description ?? ''),
      h('p', { class: 'muted' }, t('catalog.sizeVersion', { size: formatBytes(entry.size), version: entry.version }), stops),
      installed ? h('p', {}, h('a', { href: `#/tour/${installed.sha256}` }, t('catalog.onPhone'))) : null);
  };
  const list = h('ul', { class: 'cards' }, page.packages.map(card));
  const more = h('p');
  // The server lists 50 tours a page: the next ones are fetched on request.
  const offerMore = (next) => {
    const after = next ? new URL(next, location.origin).searchParams.get('after') : null;
    more.replaceChildren(after ? h('button', {
      type: 'button', class: 'secondary',
      onclick: async () => {
        try {
          const nextPage = await catalog.sitePackages(siteId, after);
          list.append(...nextPage.packages.map(card));
          offerMore(nextPage.next);
        } catch (error) {
          more.replaceChildren(notice('error', error.message));
        }
      },
    }, t('catalog.more')) : '');
  };
  offerMore(page.next);
  render(siteName, list, more);
}

/** The tour's first photo, as the visitor's language gets it (`local`: the localized manifest). */
async function firstPhoto(entry, local) {
  const stop = (local.waypoints ?? []).find((w) => (w.assets ?? []).some(isPreviewPhoto));
  const photo = stop?.assets.find(isPreviewPhoto);
  if (!photo) return null;
  // The same checked read as an installed tour's assets, over ranges of the server's copy.
  const archive = await openZip(new HttpSource(entry.download, entry.size));
  const url = URL.createObjectURL(await verifiedBlob(archive, photo));
  const img = h('img', {
    src: url, alt: photo.alt ?? '', class: 'preview-photo', lang: langOf(local, stop.order, 'alt', photo),
  });
  img.addEventListener('load', () => URL.revokeObjectURL(url), { once: true });
  img.addEventListener('error', () => URL.revokeObjectURL(url), { once: true });
  return h('figure', {}, img,
    photo.title ? h('figcaption', { lang: langOf(local, stop.order, 'title', photo) }, photo.title) : null);
}

/**
 * The tour's route for its catalog page (its length and climb before the download), read by
 * ranges out of the server's copy and checked as an installed tour's is; null for a tour without
 * one, a route over 2 MiB (not fetched to show one line) or one that cannot be used.
 */
async function catalogRoute(entry, manifest) {
  const asset = (Array.isArray(manifest?.mapAssets) ? manifest.mapAssets : []).find((a) => a?.path === ROUTE_PATH);
  if (!asset || !Number.isSafeInteger(asset.size) || asset.size > 2 << 20) return null;
  const archive = await openZip(new HttpSource(entry.download, entry.size));
  return (await readRoute(archive, manifest)).route;
}

function isPreviewPhoto(a) {
  return a?.kind === 'image' && shownType(a.mediaType) !== 'application/octet-stream' && a.size < 4 << 20;
}

function progressView(entry) {
  const bar = h('progress', { max: entry.size, value: 0, 'aria-label': t('progress.label') });
  const words = h('p', { 'aria-live': 'polite', class: 'progress-words' });
  const samples = [];
  const update = (event) => {
    if (event.phase === 'retry') {
      words.textContent = t('progress.retry', { received: formatBytes(event.received), seconds: event.seconds });
      return;
    }
    if (event.phase === 'check') {
      bar.value = entry.size;
      words.textContent = t('progress.checking');
      return;
    }
    if (event.phase !== 'download') return;
    bar.value = event.received;
    const now = performance.now();
    samples.push([now, event.received]);
    while (samples.length > 2 && now - samples[0][0] > 4000) samples.shift();
    const [t0, b0] = samples[0];
    const rate = now > t0 ? ((event.received - b0) * 1000) / (now - t0) : 0;
    const left = rate > 0 ? Math.ceil((entry.size - event.received) / rate) : null;
    const percent = Math.floor((event.received * 100) / entry.size);
    words.textContent = t('progress.received', { received: formatBytes(event.received), size: formatBytes(entry.size), percent }) +
      (rate > 0 ? t('progress.rate', { rate: formatBytes(Math.round(rate)) }) : '') +
      (left !== null && left > 0
        ? (left < 60 ? t('progress.leftSeconds', { n: left }) : t('progress.leftMinutes', { n: Math.ceil(left / 60) })) : '');
  };
  return { element: h('div', { class: 'progress' }, bar, words), update };
}

async function packageView(id) {
  // Drawn again for a language switched here (not by route()): a drawing the visitor left before it
  // finished draws nothing and starts no worker (it drew this page over My tours, and kept a spare
  // download worker running there, when the visitor left just after switching).
  const turn = routeTurn;
  const left = () => turn !== routeTurn;
  render(t('package.title'), h('p', { class: 'muted' }, t('package.loading')));
  let versions;
  let manifest;
  try {
    versions = await catalog.versions(id);
    manifest = await catalog.manifest(id, versions.latest.version);
  } catch (error) {
    if (left()) return;
    render(t('package.title'), error.offline ? offlineNotice() : notice('error', error.message));
    return;
  }
  if (left()) return;
  // The page speaks the tour's language, as the tour's own pages do (walk.js), else the phone's.
  const speakTour = () => setLanguage(chooseAppLanguage([localTour(manifest).language, ...preferredLanguages()].filter(Boolean)));
  speakTour();
  const entry = versions.latest;
  const library = await storage.readLibrary();
  if (left()) return;
  const installed = library.tours.find((t) => t.id === id);
  const photo = h('div', { class: 'photo-slot' });
  const routeLine = h('p', { class: 'route-summary' });
  routeLine.hidden = true;
  catalogRoute(entry, manifest).then((route) => {
    if (!route) return;
    routeLine.textContent = routeSummary(route, routeLocale());
    routeLine.hidden = false;
  }).catch(() => {});
  const status = h('div', { class: 'install-status' });
  const action = h('div', { class: 'actions' });
  const partial = await storage.partSize(entry.sha256);
  if (left()) return;

  // A download under way, started here or found running: its progress, Pause, and Cancel.
  const follow = async (job, progress) => {
    const promise = job.promise;
    // What the app kept of its own trust settings (a threshold the server lowered): said beside the result.
    const trustWords = () => (job.trustNotices ?? []).map((words) => notice('info', words));
    const pause = () => installer.pause(entry.sha256);
    const cancel = async () => {
      if (!confirm(t('package.cancelConfirm'))) return;
      await installer.cancel(entry.sha256);
      status.replaceChildren(notice('info', t('download.stopped')));
      action.replaceChildren(h('button', { type: 'button', onclick: start }, t('package.download', { size: formatBytes(entry.size) })));
    };
    status.replaceChildren(progress.element);
    action.replaceChildren(h('button', { type: 'button', class: 'secondary', onclick: pause }, t('package.pause')),
      h('button', { type: 'button', class: 'secondary', onclick: cancel }, t('package.cancel')));
    try {
      const record = await promise;
      const part = record.update?.mode === 'by-part'
        ? t('package.byPart', { size: formatBytes(record.update.fetchedBytes) }) : '';
      status.replaceChildren(notice('ok', t('package.done', { part })), ...trustWords());
      // The browser was asked to keep the tours: where it will not, the visitor is told what to do.
      const warning = await keepWarning(h, notice).catch(() => null);
      if (warning) status.append(warning, installOffer(h));
      action.replaceChildren(h('a', { class: 'button', href: `#/tour/${record.sha256}` }, t('package.take')));
    } catch (error) {
      if (!status.isConnected) return;
      status.replaceChildren(notice(error.code === 'aborted' ? 'info' : 'error', error.message), ...trustWords());
      // A refused file is not offered again (until the catalog names another).
      const refusedNow = refusalOf(await storage.readLibrary().catch(() => ({ refused: [] })), entry);
      if (installer.activeDownload(entry.sha256)) return; // the app continued it already: followJob shows it
      action.replaceChildren(refusedNow ? '' : h('button', { type: 'button', onclick: start },
        error.kept ? t('package.continue') : t('package.again')));
    }
  };
  // Every download of this tour is followed here, the visitor's and the ones the app continued
  // by itself (after the connection came back): the page never says "lost" of a download under way.
  let followed = null;
  const followJob = () => {
    if (!action.isConnected && followed !== null) {
      stopFollowing();
      return;
    }
    const job = installer.activeDownload(entry.sha256);
    if (!job || job === followed) return;
    followed = job;
    const progress = progressView(entry);
    job.listeners.add(progress.update);
    follow(job, progress);
  };
  const stopFollowing = installer.onDownloadsChange(followJob);
  // The site's name as the server's catalog gives it, for My tours and the map of tours (the entry
  // names the site by its id; the package's own words are its publisher's): asked while the visitor
  // reads the page, the id until it comes.
  let siteName = entry.site;
  catalog.sites().then(({ sites }) => {
    siteName = sites.find((s) => s.id === entry.site)?.name || siteName;
  }).catch(() => {});
  const start = () => {
    installer.install(entry, { name: siteName }).catch(() => {}); // (followJob shows how it goes)
    followJob();
  };

  const refused = refusalOf(library, entry);
  if (installed && installed.sha256 === entry.sha256) {
    action.append(h('a', { class: 'button', href: `#/tour/${installed.sha256}` }, t('package.take')));
  } else if (refused) {
    // Not offered again until the catalog names another file.
    status.append(notice('error', installer.refusedWords(refused)));
    if (installed) action.append(h('a', { class: 'button', href: `#/tour/${installed.sha256}` }, t('package.takeVersion', { version: installed.version })));
  } else {
    const label = installed
      ? t('package.update', { version: entry.version, size: formatBytes(entry.size) })
      : partial > 0 ? t('package.continueHere', { partial: formatBytes(partial), size: formatBytes(entry.size) })
        : t('package.download', { size: formatBytes(entry.size) });
    action.append(h('button', { type: 'button', onclick: start }, label));
    // Not for a page the visitor has already left (route() let its spare go): no worker for nothing.
    if (!left() && location.hash === routeHash) installer.prepareDownload();
    const space = await installer.room(entry).catch(() => null);
    if (space && !space.fits) {
      status.append(notice('error', t('package.noRoom', { needed: formatBytes(space.needed), free: formatBytes(space.free) })));
    }
  }
  if (left()) {
    stopFollowing();
    return;
  }
  followJob();
  // Drawn again in another language when the visitor switches (the download's parts stay as they
  // are): the whole page in the app's new words, or, with a download under way, all but its buttons.
  const switched = () => (installer.activeDownload(entry.sha256) ? draw() : packageView(id));
  let drawn = 0;
  const draw = () => {
    const local = localTour(manifest);
    speakTour();
    const stops = [...(local.waypoints ?? [])].sort((a, b) => (a.order ?? 0) - (b.order ?? 0));
    const tourLang = (field) => langOf(local, null, field);
    render(h('span', { lang: tourLang('name') }, local.name || id),
      languageSwitch(h, local, switched),
      h('p', { class: 'muted' }, local.park ? [h('span', { lang: tourLang('park') }, local.park), ' · '] : null,
        t('package.versionSize', { version: entry.version, size: formatBytes(entry.size) })),
      h('p', { lang: tourLang('description') }, local.description ?? ''),
      fallbackNote(h, local, (f) => f.stop === null || (f.field === 'name' && f.asset === undefined)),
      routeLine, photo, action, status,
      h('h2', {}, t('package.stops', { n: stops.length })),
      h('ol', { class: 'stop-list' }, stops.map((s) => h('li', { lang: langOf(local, s.order, 'name') }, s.name ?? ''))));
    const turn = ++drawn;
    firstPhoto(entry, local).then((figure) => {
      if (turn === drawn) photo.replaceChildren(figure ?? '');
    }).catch(() => {});
  };
  draw();
}

/** Each drawing of My tours has a number: one that finishes after a newer one started is dropped. */
let toursTurn = 0;

async function toursView() {
  const turn = ++toursTurn;
  const library = await storage.readLibrary();
  const list = library.tours.map((tour) => {
    const update = h('p', { class: 'update' });
    const remove = async () => {
      if (!confirm(t('tours.deleteConfirm', { name: tour.name }))) return;
      const freed = await installer.remove(tour.sha256);
      await toursView();
      main.prepend(notice('ok', freed > 0 ? t('tours.deletedFreed', { name: tour.name, size: formatBytes(freed) })
        : t('tours.deleted', { name: tour.name })));
    };
    if (navigator.onLine) {
      catalog.versions(tour.id).then((v) => {
        if (compareVersions(v.latest.version, tour.version) > 0) {
          update.replaceChildren(h('a', { href: `#/package/${encodeURIComponent(tour.id)}` },
            t('tours.updateAvailable', { version: v.latest.version })));
        }
      }).catch(() => {});
    }
    return h('li', { class: 'card' },
      h('h2', {}, h('a', { href: `#/tour/${tour.sha256}` }, tour.name)),
      h('p', { class: 'muted' }, [tour.park, t('tours.stops', { n: tour.stops }), t('tours.version', { version: tour.version }), formatBytes(tour.size)]
        .filter(Boolean).join(' · ')),
      update,
      h('div', { class: 'actions' },
        h('a', { class: 'button', href: `#/tour/${tour.sha256}` }, t('package.take')),
        h('button', { type: 'button', class: 'secondary', onclick: remove, 'aria-label': t('tours.deleteNamed', { name: tour.name }) },
          t('tours.delete'))));
  });
  const sizes = await Promise.all(library.downloads.map((d) => storage.partSize(d.sha256)));
  // The app's own count of what it stored; the browser's estimate (padded, late) only for what is free.
  const used = spaceUsed(library, sizes);
  const free = spaceFree(await storage.estimate());
  if (turn !== toursTurn) return;
  // Whether each download is under way is read now, as the view is drawn (not before the waits
  // above): a download that starts or ends later draws the view again (onDownloadsChange).
  const downloads = library.downloads.map((d, index) => {
    const remove = async () => {
      if (!confirm(t('tours.cancelConfirm', { name: d.name || d.id }))) return;
      await installer.cancel(d.sha256);
      await toursView();
    };
    const running = installer.activeDownload(d.sha256) !== undefined;
    return h('li', { class: 'card' },
      h('h2', {}, h('a', { href: `#/package/${encodeURIComponent(d.id)}` }, d.name || d.id)),
      h('p', { class: 'muted' }, t('tours.partHere', { received: formatBytes(sizes[index]), size: formatBytes(d.size) }) +
        (running ? t('tours.downloading') : d.paused ? t('tours.paused') : t('tours.stopped'))),
      h('div', { class: 'actions' },
        h('a', { class: 'button', href: `#/package/${encodeURIComponent(d.id)}` },
          running ? t('tours.showDownload') : t('package.continue')),
        h('button', { type: 'button', class: 'secondary', onclick: remove,
          'aria-label': t('tours.deleteDownload', { name: d.name || d.id }) }, t('tours.delete'))));
  });
  const warning = list.length ? await keepWarning(h, notice).catch(() => null) : null;
  if (turn !== toursTurn) return;
  render(t('tours.title'),
    warning,
    installOffer(h),
    list.length === 0 && downloads.length === 0
      ? notice('info', t('tours.none'), h('a', { href: '#/' }, t('tours.noneLink')),
        t('tours.noneAfter'))
      : null,
    list.length ? h('ul', { class: 'cards' }, list) : null,
    downloads.length ? [h('h2', {}, t('tours.downloads')), h('ul', { class: 'cards' }, downloads)] : null,
    h('p', { class: 'muted space-used' }, t('tours.stored', { total: formatBytes(used.total) }) +
      (used.downloads > 0
        ? t('tours.storedSplit', { tours: formatBytes(used.tours), downloads: formatBytes(used.downloads) }) : '') +
      (free > 0 ? t('tours.free', { free: formatBytes(free) }) : t('tours.storedEnd'))));
}

async function route() {
  const parts = location.hash.replace(/^#\/?/, '').split('/').map((p) => {
    try {
      return decodeURIComponent(p);
    } catch {
      return '';
    }
  });
  routeHash = location.hash;
  routeTurn += 1;
  // The position is followed, and arrivals announced, on the tour's map and its stops' pages.
  if (parts[0] !== 'tour' && parts[0] !== 'preview') leaveTour();
  if (parts[0] !== 'map') leaveMap();
  // A download is offered only on a package's page: elsewhere its spare worker is let go.
  if (parts[0] !== 'package') installer.releaseSpare();
  // The app's pages speak the visitor's language (the phone's, or the one chosen); a tour's pages
  // speak the tour's (walk.js), and so does a tour's page before install (packageView).
  setLanguage(chooseAppLanguage(preferredLanguages()));
  try {
    if (parts[0] === 'site' && parts[1]) await siteView(parts[1]);
    else if (parts[0] === 'log') await logView({ render, h, notice });
    else if (parts[0] === 'map') await mapView({ render, h, notice });
    else if (parts[0] === 'package' && parts[1]) await packageView(parts[1]);
    else if (parts[0] === 'tours') await toursView();
    else if (parts[0] === 'tour' && /^[0-9a-f]{64}$/.test(parts[1] ?? '')) {
      const key = `tour/${parts[1]}`;
      if (parts[2] === 'stop' && parts[3]) await showStop({ render, h, notice }, key, Number(parts[3]));
      else await showTour({ render, h, notice }, key);
    } else if (parts[0] === 'preview' && parts[1] && parts[2]) {
      // A version under review, as visitors will get it (the control panel's "preview as a visitor").
      const key = `preview/${encodeURIComponent(parts[1])}/${encodeURIComponent(parts[2])}`;
      document.body.classList.add('preview');
      if (parts[3] === 'stop' && parts[4]) await showStop({ render, h, notice }, key, Number(parts[4]));
      else await showTour({ render, h, notice }, key);
    } else await sitesView();
  } catch (error) {
    if (error instanceof StaleView || location.hash !== routeHash) return;
    render(t('error.title'), notice('error', error.message ?? String(error)),
      h('p', {}, h('a', { href: '#/tours' }, t('error.back'))));
  }
}

function networkStatus() {
  const status = document.getElementById('net-status');
  status.textContent = navigator.onLine ? '' : t('net.offline');
  status.hidden = navigator.onLine;
}

window.addEventListener('hashchange', route);
// My tours says which downloads are under way: it is drawn again when one starts or ends.
installer.onDownloadsChange(() => {
  if (location.hash === '#/tours') route();
});
window.addEventListener('online', networkStatus);
window.addEventListener('offline', networkStatus);
networkStatus();
if ('serviceWorker' in navigator) {
  navigator.serviceWorker.register('sw.js', { scope: './' }).catch(() => {});
}
installer.removeStrays().catch(() => {});

/** Automatic tries of each download that failed in a way that keeps its bytes: sha256 → count. */
const resumeFailures = new Map();

/**
 * Downloads a closed tab or a lost connection interrupted continue where they stopped. One that
 * fails and keeps what arrived (the connection, the app's settings not loaded, the file still held
 * by a page closed a moment ago) is tried again 5, 10 and 15 s later; after that it waits for the
 * visitor's Continue, or for the connection or the app to come back.
 */
async function resumeDownloads() {
  if (!navigator.onLine) return;
  const library = await storage.readLibrary();
  for (const download of library.downloads) {
    if (installer.activeDownload(download.sha256) || download.paused) continue;
    installer.install(download, { name: download.siteName }).then(() => {
      resumeFailures.delete(download.sha256);
    }, (error) => {
      const failures = (resumeFailures.get(download.sha256) ?? 0) + 1;
      resumeFailures.set(download.sha256, failures);
      if (error?.kept && error.code !== 'aborted' && failures <= 3) {
        setTimeout(() => resumeDownloads().catch(() => {}), 5000 * failures);
      }
    });
  }
}
window.addEventListener('online', () => resumeDownloads().catch(() => {}));
// A server that was unreachable (the phone itself online) is tried again when the app comes back to the front.
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible') resumeDownloads().catch(() => {});
});
resumeDownloads().catch(() => {});
if (!location.hash) {
  storage.readLibrary().then((lib) => {
    if (lib.tours.length > 0 || !navigator.onLine) history.replaceState(null, '', '#/tours');
    route();
  }, () => route());
} else {
  route();
}
