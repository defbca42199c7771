// Taking a tour: the map from the package's own tiles, the stops in order, the visitor's position
// and heading, and the arrival announcement that opens a stop. A stop shows its text, images with
// alt text, audio with its transcript and video with its captions, each read from the stored
// package and checked before it is shown. A tour with a route (format 1.2, map/route.geojson)
// draws it and says its length and climb; a tour without one, or whose route cannot be used, joins
// its stops with straight lines.
//
// The map leads (guide.js): it follows the visitor (a control that is on or off, and off as soon
// as the visitor moves the map by hand), says how far it is along the route to the next stop and
// what is left of the tour, with times at walking pace and the direction of the next stop, warns
// off the trail, opens on the visitor and the next stop (else the start), and groups or spreads
// markers that overlap. The narration (narration.js) plays each stop's recording on arrival when
// the visitor asked for it: one player outside the page, so that moving between pages never cuts
// it off, with the Media Session API for the lock screen and the Screen Wake Lock while following.

import * as storage from './storage.js';
import { discardBody, readBlob } from './http.js';
import {
  openTour, openMap, previewBase, verifiedBlob, shownType, orderedStops,
} from './tour.js';
import { localTour, langOf, languageSwitch, fallbackNote } from './language-view.js';
import {
  readRoute, routeSummary, formatLength, stopDistance, unwrapPoints, nearLongitude, mapFrame, routeLocale,
} from './route.js';
import {
  TARGET_PIXELS, compassWord, firstView, formatDuration, groupLabel, guidance, overlappingGroups, spreadOffsets,
  trackOf,
} from './guide.js';
import { Narration, arrivalAt, recordingOf } from './narration.js';
import { journal, recordVisit, learnChecklists, stopTimes, tourProgress } from './journal.js';
import { t, setLanguage, chooseAppLanguage, appLocale } from './i18n.js';
import { preferredLanguages } from './language-view.js';
import { markEditor, progressWords, timesWords } from './own-view.js';

let opened = null; // { key, tour, map: tiles|null, route: {route, reason}, track, hint, local: {manifest, stops} in the visitor's language }
let watch = null; // geolocation watch id
let position = null; // last position {latitude, longitude, accuracy, heading}
let leaflet = null; // the L.Map on screen
let positionMarker = null;
let mapLongitude = NaN; // the longitude the map's drawing is near (a tour across 180° runs past it)
let urls = []; // blob: URLs of the page on screen, revoked when it goes
let statusLine = null;
let guideLines = null; // {left, offTrail, arrow} of the map page
let followButtons = []; // the page's follow button and the map's centre control
let centring = false; // whether the map keeps the visitor in its centre
let fitOnFix = false; // the first fix after following starts frames the visitor and the next stop
let stopMarkers = []; // {marker, number, latlng} of the map on screen
let groupMarkers = []; // markers standing for overlapping stops
let wakeLock = null;

const settingsKey = 'trailpack.arrival-alerts';
const narrateKey = 'trailpack.narrate';
const visitedKey = (sha) => `trailpack.visited.${sha}`;

function setting(key) {
  try {
    return localStorage.getItem(key) === 'on';
  } catch {
    return false;
  }
}

function visited(sha) {
  try {
    return new Set(JSON.parse(localStorage.getItem(visitedKey(sha)) ?? '[]'));
  } catch {
    return new Set();
  }
}

function markVisited(sha, order) {
  const set = visited(sha);
  set.add(order);
  localStorage.setItem(visitedKey(sha), JSON.stringify([...set]));
}

/** The most the control panel's preview reads of a package the server sends with no length. */
const PREVIEW_LIMIT = 4 * 2 ** 30;

/**
 * The package a route names: `tour/<sha256>` (installed on this phone) or `preview/<id>/<version>`
 * (a version under review, read through the control panel's session, for "preview as a visitor").
 */
async function installed(key) {
  const library = await storage.readLibrary();
  return library.tours.some((t) => `tour/${t.sha256}` === key);
}

async function packageFor(key) {
  const [kind, first, second] = key.split('/');
  if (kind === 'tour') {
    const library = await storage.readLibrary();
    const tour = library.tours.find((t) => t.sha256 === first);
    if (!tour) throw new Error('This tour is not on this phone. Find it under "Find a tour" to download it.');
    return storage.packageFile(tour);
  }
  const response = await fetch(
    `/packages/${first}/versions/${second}/package.zip`, // (already encoded in the key)
    { credentials: 'same-origin', cache: 'no-store' });
  if (!response.ok || !(response.headers.get('Content-Type') ?? '').startsWith('application/zip')) {
    await discardBody(response);
    throw new Error('The preview needs you signed in to the control panel with access to this version.');
  }
  // Read no further than the server said it would send (PREVIEW_LIMIT without a length).
  const declared = (response.headers.get('Content-Length') ?? '').trim();
  return readBlob(response, /^\d+$/.test(declared) ? Number(declared) : PREVIEW_LIMIT, 'application/zip');
}

/** Where the visitor is taken to be along the track before a fix: the last stop visited, else the start. */
function startHint(track, seen) {
  const last = Math.max(0, ...[...seen].filter((n) => Number.isInteger(n) && n >= 1 && n <= track.stops.length));
  return last > 0 ? track.stops[last - 1] ?? 0 : 0;
}

async function load(key) {
  if (opened?.key === key && (!key.startsWith('tour/') || (await installed(key)))) return opened;
  if (opened?.key !== key) narration.clearQueue(); // a queue belongs to one tour
  opened = null;
  const tour = await openTour(await packageFor(key));
  let map = null;
  try {
    map = await openMap(tour.archive, tour.manifest);
  } catch {
    map = null; // the tour is still taken without a base map
  }
  // The route is read once per opening; a route that cannot be used is no route (straight lines).
  const route = await readRoute(tour.archive, tour.manifest);
  if (route.reason) console.warn(`trailpack: the tour's route is not drawn: ${route.reason}`);
  const track = trackOf(route.route, tour.stops);
  // A version under review without its own map: the site's region map under it, in the preview only.
  const base = !map && key.startsWith('preview/') ? await previewBase(tour.manifest) : null;
  opened = { key, tour, map, base, route, track, hint: startHint(track, visited(key)), local: null };
  if (key.startsWith('tour/')) {
    journal().update((log) => learnChecklists(log, tour.manifest.id, tour.manifest)).catch(() => {});
  }
  return opened;
}

/** A direction in the app's words ("north-east", "al noreste"), for a bearing in degrees. */
function compassText(degrees) {
  const words = {
    north: () => t('walk.compass.north'), 'north-east': () => t('walk.compass.northEast'),
    east: () => t('walk.compass.east'), 'south-east': () => t('walk.compass.southEast'),
    south: () => t('walk.compass.south'), 'south-west': () => t('walk.compass.southWest'),
    west: () => t('walk.compass.west'), 'north-west': () => t('walk.compass.northWest'),
  };
  return words[compassWord(degrees)]?.() ?? '';
}

/**
 * The tour in the visitor's language (chosen again at each page: a switch on another page or
 * tour applies here too): the localized manifest and its stops in order, the same order as the
 * stored tour's (`localize` keeps each stop's `order`).
 */
function localized(state) {
  const manifest = localTour(state.tour.manifest);
  setLanguage(chooseAppLanguage([manifest.language, ...preferredLanguages()].filter(Boolean)));
  state.local = { manifest, stops: orderedStops(manifest) };
  return state.local;
}

/** A stop's name as an element in its language (the app's words around it are in the app's language). */
function stopName(stop) {
  const local = opened?.local?.manifest;
  const lang = local ? langOf(local, stop.order, 'name') : undefined;
  const span = document.createElement('span');
  span.textContent = stop.name;
  if (lang) span.lang = lang;
  return span;
}

function revokeAll() {
  for (const url of urls) URL.revokeObjectURL(url);
  urls = [];
}

function objectURL(blob) {
  const url = URL.createObjectURL(blob);
  urls.push(url);
  return url;
}

function dropMap() {
  leaflet?.remove();
  leaflet = null;
  positionMarker = null;
  stopMarkers = [];
  groupMarkers = [];
  followButtons = [];
  guideLines = null;
}

/** Leaves the tour: the position is no longer watched, the map and the media are let go. A recording playing ends as it is. */
export function leaveTour() {
  opened = null;
  if (watch !== null) navigator.geolocation.clearWatch(watch);
  watch = null;
  centring = false;
  keepAwake();
  dropMap();
  mapLongitude = NaN;
  statusLine = null;
  narration.clearQueue();
  revokeAll();
}

let announceTimer = null;

/** Announces `words` (text and elements, a stop's name in its language), with a link if given. */
function announce(words, link = null) {
  const region = document.getElementById('announce');
  region.textContent = '';
  clearTimeout(announceTimer);
  // Fresh nodes, so that screen readers announce the same words twice in a row too. The
  // banner covers the bottom of the screen: it goes after 12 s, or at once when tapped.
  setTimeout(() => {
    region.replaceChildren(...words);
    if (link) {
      const a = Object.assign(document.createElement('a'), { href: link.href, textContent: link.text });
      region.append(' ', a);
    }
  }, 50);
  announceTimer = setTimeout(() => { region.textContent = ''; }, 12000);
  region.onclick = () => { region.textContent = ''; };
}

function alertSenses() {
  if (!setting(settingsKey)) return;
  navigator.vibrate?.([200, 100, 200]);
  try {
    const audio = new AudioContext();
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.frequency.value = 880;
    gain.gain.setValueAtTime(0.2, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.6);
    tone.connect(gain).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.6);
  } catch {
    // no sound on this phone: the words and the vibration remain
  }
}

// MARK: the narration player

const narration = new Narration({ enabled: setting(narrateKey) });
let narrated = null; // {key, number, urls} of the recording in the player

const player = () => /** @type {HTMLAudioElement|null} */ (document.getElementById('narration-player'));

/** Whether a recording or a video of the page plays (the narration player is not on the page). */
function pagePlaying() {
  return [...document.querySelectorAll('main audio, main video')].some((m) => !m.paused && !m.ended);
}

function letRecordingGo() {
  for (const url of narrated?.urls ?? []) URL.revokeObjectURL(url);
  narrated = null;
  const audio = player();
  if (audio) {
    audio.pause();
    audio.removeAttribute('src');
    audio.load();
  }
  const bar = document.getElementById('narration');
  if (bar) bar.hidden = true;
  if ('mediaSession' in navigator) navigator.mediaSession.metadata = null;
  keepAwake();
}

function showQueue() {
  const line = document.getElementById('narration-queue');
  if (!line) return;
  const waiting = narration.queue;
  line.textContent = waiting.length ? t('walk.then', { n: waiting.length, stops: waiting.join(', ') }) : '';
  const next = document.getElementById('narration-next');
  if (next) next.hidden = narration.current === null || waiting.length === 0;
}

/** Carries out what the narration queue asked for, in order. */
async function carry(actions) {
  for (const action of actions) {
    const audio = player();
    if (!audio) return;
    if (action.type === 'pause') audio.pause();
    else if (action.type === 'resume') audio.play().catch(() => {});
    else if (action.type === 'stop') letRecordingGo();
    else if (action.type === 'play') await playStop(action.stop);
  }
  showQueue();
}

/** Loads a stop's recording (checked as every asset is) into the player and plays it. */
async function playStop(number) {
  letRecordingGo();
  const state = opened;
  const stop = state?.local?.stops[number - 1] ?? state?.tour.stops[number - 1];
  const asset = recordingOf(stop);
  if (!state || !asset) {
    await carry(narration.ended());
    return;
  }
  const own = [];
  try {
    const blob = await verifiedBlob(state.tour.archive, asset);
    own.push(URL.createObjectURL(blob));
  } catch {
    await carry(narration.ended()); // a recording that cannot be checked is not played
    return;
  }
  const audio = player();
  narrated = { key: state.key, number, urls: own };
  audio.src = own[0];
  if (asset.title) audio.setAttribute('aria-label', asset.title);
  const title = document.getElementById('narration-title');
  title.replaceChildren(t('stop.title', { number }), stopName(stop));
  document.getElementById('narration').hidden = false;
  // The page of what is heard, when the visitor is on this tour's pages.
  if (location.hash.startsWith(`#/${state.key}`) && location.hash !== `#/${state.key}/stop/${number}`) {
    location.hash = `#/${state.key}/stop/${number}`;
  }
  await mediaSession(state, stop, number, asset, own);
  try {
    await audio.play();
  } catch {
    // Refused (no gesture on this page yet): the player shows it ready; the visitor presses play.
    narration.pauseByVisitor();
  }
  keepAwake();
}

/** The lock screen's card: the recording, the stop, the tour, the stop's first photo. */
async function mediaSession(state, stop, number, asset, own) {
  if (!('mediaSession' in navigator) || typeof MediaMetadata === 'undefined') return;
  const artwork = [];
  const photo = (stop.assets ?? []).find((a) => a?.kind === 'image' && shownType(a.mediaType).startsWith('image/')
    && a.size < 4 << 20);
  if (photo) {
    try {
      const url = URL.createObjectURL(await verifiedBlob(state.tour.archive, photo));
      own.push(url);
      artwork.push({ src: url, type: shownType(photo.mediaType) });
    } catch {
      // no artwork: the words remain
    }
  }
  navigator.mediaSession.metadata = new MediaMetadata({
    title: asset.title || stop.name, artist: state.local?.manifest.name ?? state.tour.manifest.name,
    album: t('stop.title', { number }) + stop.name, artwork,
  });
}

function wirePlayer() {
  const audio = player();
  if (!audio || audio.dataset.wired) return;
  audio.dataset.wired = 'yes';
  audio.addEventListener('ended', () => carry(narration.ended()));
  audio.addEventListener('error', () => {
    if (audio.getAttribute('src')) carry(narration.ended());
  });
  // The player's own controls (and the lock screen's, through them): the visitor's pause and play.
  audio.addEventListener('pause', () => {
    if (narration.playing && !audio.ended) narration.pauseByVisitor();
    showQueue();
  });
  audio.addEventListener('play', () => {
    // The visitor chose the narration: a page's recording gives way (never two at once).
    for (const m of document.querySelectorAll('main audio, main video')) if (!m.paused) m.pause();
    narration.pagePlaying(false);
    narration.playByVisitor();
    showQueue();
  });
  document.getElementById('narration-next')?.addEventListener('click', () => carry(narration.skip()));
  // A page's recording or video holds the narration, which carries on when it stops.
  document.addEventListener('play', (event) => {
    if (event.target !== audio && event.target.closest?.('main')) carry(narration.pagePlaying(true));
  }, true);
  const pageStopped = (event) => {
    if (event.target !== audio && event.target.closest?.('main') && !pagePlaying()) carry(narration.pagePlaying(false));
  };
  document.addEventListener('pause', pageStopped, true);
  document.addEventListener('ended', pageStopped, true);
  if ('mediaSession' in navigator) {
    const handle = (name, fn) => {
      try {
        navigator.mediaSession.setActionHandler(name, fn);
      } catch {
        // an action this browser does not offer
      }
    };
    handle('play', () => audio.play().catch(() => {}));
    handle('pause', () => audio.pause());
    handle('nexttrack', () => carry(narration.skip()));
    handle('stop', () => carry(narration.reset()));
  }
}

// MARK: following

/** The screen stays on while the visitor follows the tour and the page is seen; let go otherwise. */
async function keepAwake() {
  const wanted = watch !== null && document.visibilityState === 'visible' && opened !== null
    && (nextStop(opened.local?.stops ?? opened.tour.stops, opened.key) !== null || narration.current !== null);
  if (!wanted) {
    const lock = wakeLock;
    wakeLock = null;
    await lock?.release().catch(() => {});
    return;
  }
  if (wakeLock || !navigator.wakeLock) return;
  try {
    wakeLock = await navigator.wakeLock.request('screen');
    wakeLock.addEventListener('release', () => { wakeLock = null; });
  } catch {
    wakeLock = null; // refused (battery saver): the note on the page says what that means
  }
}

document.addEventListener('visibilitychange', () => keepAwake());

function nextStop(stops, sha) {
  const seen = visited(sha);
  return stops.find((s, i) => !seen.has(i + 1)) ?? null;
}

/** The follow controls show whether following (and centring) is on. */
function showFollowing() {
  for (const button of followButtons) {
    const on = button.dataset.role === 'centre' ? watch !== null && centring : watch !== null;
    button.setAttribute('aria-pressed', on ? 'true' : 'false');
    const state = button.querySelector('.state');
    if (state) state.textContent = on ? t('walk.on') : t('walk.off');
  }
}

function setCentring(on) {
  centring = on;
  showFollowing();
  if (on && position && leaflet) leaflet.panTo(visitorLatLng(position));
}

function visitorLatLng(p) {
  return [p.latitude, nearLongitude(p.longitude, mapLongitude)];
}

let closestZoom = 16; // the closest the map frames by itself: zoom 16, or the tour's map's most detailed

/** Frames the points (Leaflet `[lat, lng]`) on the map, no closer than the map's own detail. */
function frame(points) {
  if (!leaflet || points.length === 0) return;
  const L = globalThis.L;
  const unwrapped = unwrapPoints(points, mapLongitude);
  const bounds = L.latLngBounds(unwrapped);
  if (bounds.getNorthEast().distanceTo(bounds.getSouthWest()) < 50) leaflet.setView(bounds.getCenter(), closestZoom);
  else leaflet.fitBounds(bounds, { padding: [TARGET_PIXELS + 8, TARGET_PIXELS + 8], maxZoom: closestZoom });
}

function onPosition(coords) {
  if (!opened) return;
  position = coords;
  const stops = opened.local?.stops ?? opened.tour.stops;
  const sha = opened.key;
  if (leaflet && positionMarker) {
    positionMarker.setLatLng(visitorLatLng(coords));
    positionMarker.setOpacity(1);
    const arrow = positionMarker.getElement()?.querySelector('.heading');
    if (arrow) {
      arrow.hidden = !Number.isFinite(coords.heading);
      if (Number.isFinite(coords.heading)) arrow.style.transform = `rotate(${coords.heading}deg)`;
    }
    if (fitOnFix) {
      fitOnFix = false;
      frame(firstView({ track: opened.track, stops, visited: visited(sha), position: coords }).points);
    } else if (centring) {
      leaflet.panTo(visitorLatLng(coords));
    }
  }
  // Arrival: the nearest stop within its own radius not announced on this walk.
  const arrived = arrivalAt(stops, coords, visited(sha));
  if (arrived !== null) {
    markVisited(sha, arrived);
    if (sha.startsWith('tour/')) logVisit(opened, stops[arrived - 1], 'arrival', coords);
    opened.hint = opened.track.stops[arrived - 1] ?? opened.hint;
    alertSenses();
    const words = [t('walk.arrived', { number: arrived }), stopName(stops[arrived - 1]), '.'];
    const actions = narration.arrive(arrived, { hasRecording: recordingOf(stops[arrived - 1]) !== null });
    const starts = actions.some((a) => a.type === 'play' && a.stop === arrived);
    // A recording or a video playing is not cut off: the stop is offered instead of opened (and
    // its recording waits its turn).
    if (pagePlaying() || (narration.current !== null && !starts)) {
      announce(words, { href: `#/${sha}/stop/${arrived}`, text: t('walk.openStop', { number: arrived }) });
    } else {
      announce(words);
      if (!starts) location.hash = `#/${sha}/stop/${arrived}`; // (playStop opens the page itself)
    }
    carry(actions);
    return;
  }
  updateStatus();
}

function updateStatus() {
  if (!statusLine || !opened) return;
  const stops = opened.local?.stops ?? opened.tour.stops;
  const seen = visited(opened.key);
  const next = nextStop(stops, opened.key);
  const { left, offTrail, arrow } = guideLines ?? {};
  if (!next) {
    statusLine.textContent = t('walk.allVisited');
    if (left) left.textContent = '';
    if (offTrail) offTrail.hidden = true;
    if (arrow) arrow.hidden = true;
    keepAwake();
    return;
  }
  const number = stops.indexOf(next) + 1;
  if (!position) {
    statusLine.replaceChildren(t('walk.next', { number }), stopName(next), '.');
    return;
  }
  const locale = routeLocale();
  const track = opened.track;
  const g = guidance({ track, stops, visited: seen, position, hint: opened.hint });
  if (g.located) opened.hint = g.located.alongMetres;
  const words = [t('walk.next', { number }), stopName(next)];
  if (g.next) {
    const crow = `${formatLength(g.next.straightMetres, locale)} ${compassText(g.next.bearing)}`;
    const time = formatDuration(g.next.seconds, appLocale());
    if (g.next.alongMetres === null || !track.route) {
      words.push(time ? t('walk.crowTime', { crow, time }) : t('walk.crow', { crow }));
    } else if (g.next.alongMetres >= 0) {
      words.push(t('walk.along', { along: formatLength(g.next.alongMetres, locale), time, crow }));
    } else {
      words.push(t('walk.back', { along: formatLength(-g.next.alongMetres, locale), crow }));
    }
  } else {
    words.push('.');
  }
  statusLine.replaceChildren(...words);
  if (arrow) {
    arrow.hidden = !g.next;
    if (g.next) arrow.style.transform = `rotate(${Math.round(g.next.bearing)}deg)`;
  }
  if (left) {
    left.textContent = g.leftMetres === null ? ''
      : t(track.route ? 'walk.left' : 'walk.leftStraight',
        { length: formatLength(g.leftMetres, locale), time: formatDuration(g.leftSeconds, appLocale()) });
  }
  if (offTrail) {
    const was = !offTrail.hidden;
    offTrail.hidden = !g.offTrail;
    if (g.offTrail) {
      offTrail.textContent = t('walk.offTrail', { distance: formatLength(g.located.offsetMetres, locale) });
      if (!was) offTrail.setAttribute('role', 'alert');
    }
  }
}

function startWatching() {
  if (!('geolocation' in navigator)) {
    if (statusLine) statusLine.textContent = t('walk.noGeolocation');
    return;
  }
  if (watch !== null) {
    // A second press stops following (and saves the battery).
    navigator.geolocation.clearWatch(watch);
    watch = null;
    centring = false;
    showFollowing();
    keepAwake();
    return;
  }
  centring = true;
  fitOnFix = true;
  watch = navigator.geolocation.watchPosition(
    (p) => onPosition({
      latitude: p.coords.latitude, longitude: p.coords.longitude, accuracy: p.coords.accuracy,
      heading: p.coords.heading,
    }),
    (error) => {
      if (statusLine) {
        statusLine.textContent = error.code === 1
          ? t('walk.positionRefused')
          : t('walk.noFix');
      }
    },
    { enableHighAccuracy: true, maximumAge: 5000, timeout: 60000 },
  );
  showFollowing();
  keepAwake();
}

export function tileLayer(tiles) {
  const L = globalThis.L;
  const header = tiles.header;
  const type = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp', avif: 'image/avif' }[header.tileType];
  const Layer = L.GridLayer.extend({
    createTile(coords, done) {
      const img = document.createElement('img');
      img.alt = '';
      img.setAttribute('role', 'presentation');
      tiles.getTile(coords.z, coords.x, coords.y).then((bytes) => {
        if (!bytes || !type) {
          done(null, img);
          return;
        }
        const url = URL.createObjectURL(new Blob([bytes], { type }));
        img.onload = () => {
          URL.revokeObjectURL(url);
          done(null, img);
        };
        img.onerror = () => {
          URL.revokeObjectURL(url);
          done(new Error('tile'), img);
        };
        img.src = url;
      }, (error) => done(error, img));
      return img;
    },
  });
  return new Layer({
    minZoom: Math.max(0, header.minZoom - 2), maxNativeZoom: header.maxZoom, maxZoom: header.maxZoom + 2,
    minNativeZoom: header.minZoom, tileSize: 256,
  });
}


/** A stop's marker on the map: 44 px, its number, a link to its page. */
function stopMarker(L, key, latlng, number, stop) {
  const marker = L.marker(latlng, {
    title: t('stop.title', { number }) + stop.name, alt: t('stop.title', { number }) + stop.name, keyboard: true,
    icon: L.divIcon({ className: 'stop-marker', html: '', iconSize: [TARGET_PIXELS, TARGET_PIXELS] }),
  }).addTo(leaflet);
  const element = marker.getElement();
  element.textContent = String(number);
  element.setAttribute('role', 'link');
  element.setAttribute('aria-label', t('stop.title', { number }) + stop.name);
  marker.on('click', () => { location.hash = `#/${key}/stop/${number}`; });
  element.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' || e.key === ' ') location.hash = `#/${key}/stop/${number}`;
  });
  return { marker, number, latlng };
}

/**
 * Stops whose markers overlap at this zoom: one marker for the group ("2–5", which zooms in to
 * them) while the map can zoom in further, else spread around their place. Drawn again at each zoom.
 */
function layoutMarkers() {
  const L = globalThis.L;
  if (!leaflet || !L) return;
  for (const g of groupMarkers) g.remove();
  groupMarkers = [];
  const points = stopMarkers.map((s) => leaflet.latLngToContainerPoint(s.latlng));
  const canZoomIn = leaflet.getZoom() < leaflet.getMaxZoom();
  for (const group of overlappingGroups(points)) {
    const members = group.map((i) => stopMarkers[i]);
    const offsets = canZoomIn || group.length === 1 ? group.map(() => ({ x: 0, y: 0 })) : spreadOffsets(group.length);
    members.forEach((s, i) => {
      const element = s.marker.getElement();
      if (!element) return;
      element.hidden = canZoomIn && group.length > 1;
      element.style.marginLeft = `${offsets[i].x - TARGET_PIXELS / 2}px`;
      element.style.marginTop = `${offsets[i].y - TARGET_PIXELS / 2}px`;
    });
    if (!canZoomIn || group.length === 1) continue;
    const label = groupLabel(members.map((s) => s.number));
    groupMarkers.push(groupMarker(L, leaflet, members.map((s) => s.latlng), label, t('walk.group', { label })));
  }
}

/**
 * One marker standing for markers that would overlap ("2–5", `label`), at their middle; choosing it
 * (a tap, Enter or Space) zooms in to them. `words` name it for the screen reader and the tooltip.
 * Walk's stops and the map of tours both use it.
 */
export function groupMarker(L, map, latlngs, label, words) {
  const bounds = L.latLngBounds(latlngs);
  const marker = L.marker(bounds.getCenter(), {
    title: words, keyboard: true,
    icon: L.divIcon({ className: 'stop-group', html: '', iconSize: [TARGET_PIXELS * 1.5, TARGET_PIXELS] }),
  }).addTo(map);
  const element = marker.getElement();
  element.textContent = label;
  element.setAttribute('role', 'button');
  element.setAttribute('aria-label', words);
  const zoomIn = () => {
    const zoom = Math.min(map.getMaxZoom(), Math.max(map.getZoom() + 1,
      map.getBoundsZoom(bounds, false, L.point(TARGET_PIXELS * 2, TARGET_PIXELS * 2))));
    map.setView(bounds.getCenter(), zoom);
  };
  marker.on('click', zoomIn);
  element.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' || e.key === ' ') zoomIn();
  });
  return marker;
}

/** A button for the map's corner, 44 px, inside Leaflet's bar. */
function mapControl(L, position, make) {
  const Control = L.Control.extend({
    onAdd() {
      const bar = L.DomUtil.create('div', 'leaflet-bar map-buttons');
      for (const button of make()) bar.append(button);
      L.DomEvent.disableClickPropagation(bar);
      return bar;
    },
  });
  return new Control({ position });
}

/** The tour's map page. */
export async function showTour(view, key) {
  const { h, render, notice } = view;
  wirePlayer();
  const state = await load(key);
  const { manifest, stops } = localized(state);
  const L = globalThis.L;
  dropMap();
  revokeAll();
  const mapBox = h('div', {
    id: 'tour-map', class: 'tour-map', role: 'region', 'aria-label': t('walk.mapOf', { name: manifest.name }),
  });
  statusLine = h('p', { class: 'next-stop' });
  const arrow = h('span', { class: 'direction', 'aria-hidden': 'true', hidden: true }, '↑');
  guideLines = {
    arrow,
    left: h('p', { class: 'tour-left' }),
    offTrail: h('p', { class: 'notice notice-error off-trail', hidden: true }),
  };
  const follow = h('button', {
    type: 'button', id: 'follow', 'data-role': 'follow', onclick: () => startWatching(),
  }, t('walk.follow'), h('span', { class: 'state' }, t('walk.off')));
  followButtons = [follow];
  const alerts = h('input', { type: 'checkbox', id: 'arrival-alerts' });
  alerts.checked = setting(settingsKey);
  alerts.addEventListener('change', () => localStorage.setItem(settingsKey, alerts.checked ? 'on' : 'off'));
  const narrate = h('input', { type: 'checkbox', id: 'narrate' });
  narrate.checked = setting(narrateKey);
  narrate.addEventListener('change', () => {
    localStorage.setItem(narrateKey, narrate.checked ? 'on' : 'off');
    narration.setEnabled(narrate.checked);
    showQueue();
  });
  const seen = visited(key);
  const ownProgress = h('p', { class: 'log-progress' });
  if (key.startsWith('tour/')) {
    logging.then(() => journal().read()).then((log) => {
      const progress = tourProgress(log, manifest.id, stops.map((s) => s.slug));
      ownProgress.replaceChildren(progressWords(progress), ' ', h('a', { href: '#/log' }, t('log.open')));
    }).catch(() => {});
  }
  const { route, reason } = state.route;
  const locale = routeLocale();
  const along = (s) => {
    const d = stopDistance(route, s);
    return d === null ? null : h('span', { class: 'muted route-distance' }, t('walk.stopAlong', { along: formatLength(d, locale) }));
  };
  const list = h('ol', { class: 'stop-list' }, stops.map((s, i) => h('li', {},
    h('a', { href: `#/${key}/stop/${i + 1}`, lang: langOf(manifest, s.order, 'name') }, s.name),
    along(s),
    seen.has(i + 1) ? h('span', { class: 'visited' }, t('walk.visited')) : null)));
  render(h('span', { lang: langOf(manifest, null, 'name') }, manifest.name),
    languageSwitch(h, manifest, () => showTour(view, key)),
    fallbackNote(h, manifest, (f) => f.stop === null || (f.field === 'name' && f.asset === undefined)),
    route ? h('p', { class: 'route-summary' }, routeSummary(route, locale)) : null,
    reason ? h('p', { class: 'muted' }, t('walk.noRoute', { reason }))
      : null,
    state.map ? null : notice('info', t(state.base ? 'walk.previewBase' : 'walk.noMap')),
    mapBox, guideLines.offTrail, h('div', { class: 'guide' }, arrow, statusLine), guideLines.left,
    h('div', { class: 'actions' }, follow,
      h('label', { class: 'check' }, narrate, ` ${t('walk.narrate')}`),
      h('label', { class: 'check' }, alerts, ` ${t('walk.alerts')}`)),
    h('p', { class: 'muted screen-note' }, t('walk.screenNote')),
    ownProgress,
    h('h2', {}, t('walk.stops')), list,
    h('p', {}, h('button', {
      type: 'button', class: 'secondary',
      onclick: () => {
        localStorage.removeItem(visitedKey(key));
        state.hint = 0;
        carry(narration.reset());
        showTour(view, key);
      },
    }, t('walk.again'))));
  if (L) {
    leaflet = L.map(mapBox, { zoomControl: true, attributionControl: false, keyboard: true });
    // The stops near the route's start, each unwrapped against the one before: a tour across the
    // antimeridian is drawn in one piece (Leaflet draws longitudes as given, past 180° too).
    const points = unwrapPoints(stops.map((s) => [s.coordinate.latitude, s.coordinate.longitude]),
      route ? route.lines[0][0][1] : undefined);
    mapLongitude = points[0][1];
    // The route when the tour has one; else straight lines from stop to stop.
    const line = L.polyline(route ? route.lines : points,
      { color: '#1b4332', weight: 5, opacity: 0.8, interactive: false });
    const whole = line.getBounds().extend(L.latLngBounds(points));
    // The view first (Leaflet adds markers to a map only once it has one): the visitor and the
    // next stop when the visitor is on the tour, else its start.
    closestZoom = Math.min(16, Math.max(10, state.map?.tiles.header.maxZoom ?? state.base?.maxZoom ?? 16));
    frame(firstView({ track: state.track, stops, visited: seen, position }).points);
    if (state.map) {
      tileLayer(state.map.tiles).addTo(leaflet);
    } else if (state.base) {
      L.tileLayer(state.base.tiles, {
        minNativeZoom: state.base.minZoom, maxNativeZoom: state.base.maxZoom,
        minZoom: Math.max(0, state.base.minZoom - 2), maxZoom: state.base.maxZoom + 2, tileSize: 256,
      }).addTo(leaflet);
    }
    line.addTo(leaflet);
    stopMarkers = stops.map((s, i) => stopMarker(L, key, points[i], i + 1, s));
    positionMarker = L.marker([0, 0], {
      interactive: false, keyboard: false,
      icon: L.divIcon({ className: 'me-marker', html: '', iconSize: [22, 22] }),
    });
    positionMarker.addTo(leaflet);
    const me = positionMarker.getElement();
    me.setAttribute('aria-hidden', 'true');
    me.append(Object.assign(document.createElement('span'), { className: 'heading', hidden: true }));
    if (position) positionMarker.setLatLng(visitorLatLng(position));
    else positionMarker.setOpacity(0);
    const bounds = mapFrame(manifest.bounds, mapLongitude);
    leaflet.setMaxBounds((bounds ? L.latLngBounds(bounds) : whole).pad(0.5));
    const centre = h('button', {
      type: 'button', class: 'map-button', 'data-role': 'centre', title: t('walk.centre'),
      'aria-label': t('walk.centre'),
      onclick: () => (watch === null ? startWatching() : setCentring(!centring)),
    }, '◎');
    const overview = h('button', {
      type: 'button', class: 'map-button', title: t('walk.whole'), 'aria-label': t('walk.whole'),
      onclick: () => {
        setCentring(false);
        leaflet.fitBounds(whole, { padding: [TARGET_PIXELS, TARGET_PIXELS] });
      },
    }, '⤢');
    mapControl(L, 'topright', () => [centre, overview]).addTo(leaflet);
    followButtons.push(centre);
    // Moving the map by hand stops centring it (following goes on; the control turns it back on).
    leaflet.on('dragstart', () => { if (centring) setCentring(false); });
    leaflet.on('zoomend', layoutMarkers);
    layoutMarkers();
    const container = leaflet.getContainer();
    container.setAttribute('aria-label',
      t(route ? 'walk.mapLabelRoute' : 'walk.mapLabel', { name: manifest.name, n: stops.length }));
  }
  showFollowing();
  updateStatus();
}

function paragraphs(h, text) {
  return text.split(/\n\s*\n/).map((block) => block.trim()).filter(Boolean)
    .map((block) => {
      const heading = /^#{1,6}\s+(.*)$/s.exec(block);
      return heading ? h('h2', {}, heading[1]) : h('p', {}, block.replace(/\s*\n\s*/g, ' '));
    });
}

/**
 * One asset of a stop, its texts each in their language (`local`: the localized manifest;
 * `stored`: the stop as stored, which still lists every captions file).
 */
async function assetView(h, archive, local, stop, stored, asset) {
  const blob = await verifiedBlob(archive, asset);
  const lang = (field) => langOf(local, stop.order, field, asset);
  switch (asset.kind) {
    case 'text': {
      const text = new TextDecoder('utf-8').decode(await blob.arrayBuffer());
      // A text in a language says so; a shared one's language is not named.
      return h('div', { class: 'asset-text', lang: asset.language || undefined }, paragraphs(h, text));
    }
    case 'image': {
      if (shownType(asset.mediaType) === 'application/octet-stream') return null;
      return h('figure', {},
        h('img', { src: objectURL(blob), alt: asset.alt ?? '', loading: 'lazy', lang: lang('alt') }),
        asset.title ? h('figcaption', { lang: lang('title') }, asset.title) : null);
    }
    case 'audio':
    case 'video': {
      const media = h(asset.kind, { controls: true, preload: 'metadata', src: objectURL(blob) });
      if (asset.title) {
        media.setAttribute('aria-label', asset.title);
        if (lang('title')) media.setAttribute('lang', lang('title'));
      }
      if (asset.kind === 'video' && asset.captions) {
        // The captions file in the visitor's language may not be among the assets a language
        // keeps (a stop with a Spanish text and English captions only): it is looked up in the stop as stored.
        const captions = [...(stop.assets ?? []), ...(stored?.assets ?? [])].find((a) => a.path === asset.captions);
        if (captions) {
          const vtt = await verifiedBlob(archive, { ...captions, mediaType: 'text/vtt' });
          media.append(h('track', {
            kind: 'captions', src: objectURL(new Blob([vtt], { type: 'text/vtt' })), default: true,
            srclang: captions.language || lang('captions') || document.documentElement.lang || 'en', label: t('stop.captions'),
          }));
        }
      }
      return h('figure', { class: `asset-${asset.kind}` },
        asset.title ? h('figcaption', { lang: lang('title') }, asset.title) : null, media,
        asset.transcript
          ? h('details', {}, h('summary', {}, t('stop.transcript')), h('p', { lang: lang('transcript') }, asset.transcript))
          : null);
    }
    default:
      return null;
  }
}

/** The last visit being written to the log (a stop's page opened on arrival reads the log after it). */
let logging = Promise.resolve();

/** A visit in the log: the stop by its slug (stable across updates), the names as shown, the time and place. */
function logVisit(state, stop, how, coords = null) {
  const manifest = state.local?.manifest ?? state.tour.manifest;
  const at = Date.now();
  logging = journal().update((log) => recordVisit(log, {
    tour: state.tour.manifest.id, stop: stop.slug, at, how, tourName: manifest.name, stopName: stop.name,
    latitude: coords?.latitude ?? stop.coordinate?.latitude, longitude: coords?.longitude ?? stop.coordinate?.longitude,
  })).catch((error) => console.warn(`trailpack: the visit was not logged: ${error.message}`));
  return logging;
}

/** The stop in My log: how often reached, "I was here", a note and the favourite mark. */
async function stopLog(h, state, stop, redraw) {
  let log;
  try {
    await logging;
    log = await journal().read();
  } catch (error) {
    return h('p', { class: 'muted' }, error.message);
  }
  const tour = state.tour.manifest.id;
  return h('section', { class: 'stop-log', 'aria-labelledby': 'stop-log-title' },
    h('h2', { id: 'stop-log-title' }, t('log.title')),
    h('p', { class: 'stop-times' }, timesWords(stopTimes(log, tour, stop.slug))),
    h('button', {
      type: 'button', id: 'i-was-here',
      onclick: async () => {
        await logVisit(state, stop, 'hand');
        await redraw();
        document.getElementById('i-was-here')?.focus();
      },
    }, t('log.here')),
    markEditor(h, { tour, stop: stop.slug, name: stop.name, log, idPrefix: 'stop' }));
}

/** One stop's page. */
export async function showStop(view, key, number) {
  const { h, render, notice } = view;
  const state = await load(key);
  const { archive } = state.tour;
  const { manifest: local, stops } = localized(state);
  const stop = stops[number - 1];
  if (!stop) throw new Error(t('stop.none', { number }));
  const stored = state.tour.stops[number - 1];
  wirePlayer();
  dropMap();
  statusLine = null;
  revokeAll();
  const body = h('div', { class: 'stop-assets' });
  const nav = h('nav', { class: 'stop-nav', 'aria-label': t('walk.stops') },
    h('a', { href: `#/${key}` }, t('stop.back')),
    number > 1 ? h('a', { href: `#/${key}/stop/${number - 1}` }, t('stop.previous')) : null,
    number < stops.length ? h('a', { href: `#/${key}/stop/${number + 1}` }, t('stop.next')) : null);
  const own = key.startsWith('tour/') ? await stopLog(h, state, stop, () => showStop(view, key, number)) : null;
  render([t('stop.title', { number }), h('span', { lang: langOf(local, stop.order, 'name') }, stop.name)],
    languageSwitch(h, local, () => showStop(view, key, number)),
    stop.description ? h('p', { class: 'lead', lang: langOf(local, stop.order, 'description') }, stop.description) : null,
    fallbackNote(h, local, (f) => f.stop === stop.order),
    body, own, nav);
  const shown = (stop.assets ?? []).filter((a) => a.kind !== 'captions' && shownType(a.mediaType) !== 'text/vtt');
  for (const asset of shown) {
    const slot = h('div', { class: 'asset' }, h('p', { class: 'muted' }, t('stop.opening')));
    body.append(slot);
    try {
      const element = await assetView(h, archive, local, stop, stored, asset);
      if (element) slot.replaceChildren(element);
      else slot.remove();
    } catch (error) {
      slot.replaceChildren(notice('error', error.message));
    }
  }
}

wirePlayer();
