// Taking a tour: the map from the package's own tiles, the stops in order, the visitor's position
// and heading, the distance to the next stop, and the arrival announcement that opens a stop.
// A stop shows its text, images with alt text, audio with its transcript and video with its
// captions, each read from the stored package and checked before it is shown. A tour with a route
// (format 1.2, map/route.geojson) draws it and says its length and climb; a tour without one, or
// whose route cannot be used, joins its stops with straight lines.

import * as storage from './storage.js';
import {
  openTour, openMap, verifiedBlob, distanceMetres, arrivalRadius, formatDistance, shownType, orderedStops,
} from './tour.js';
import { localTour, langOf, languageSwitch, fallbackNote } from './language-view.js';
import {
  readRoute, routeSummary, formatLength, stopDistance, unwrapPoints, nearLongitude, mapFrame, routeLocale,
} from './route.js';

let opened = null; // { key, tour, map: tiles|null, route: {route, reason}, local: {manifest, stops} in the visitor's language }
let watch = null; // geolocation watch id
let position = null; // last position {latitude, longitude, accuracy, heading}
let leaflet = null; // the L.Map on screen
let positionMarker = null;
let mapLongitude = NaN; // the longitude the map's drawing is near (a tour across 180° runs past it)
let urls = []; // blob: URLs of the page on screen, revoked when it goes
let statusLine = null;

const settingsKey = 'trailpack.arrival-alerts';
const visitedKey = (sha) => `trailpack.visited.${sha}`;

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
    throw new Error('The preview needs you signed in to the control panel with access to this version.');
  }
  return response.blob();
}

async function load(key) {
  if (opened?.key === key && (!key.startsWith('tour/') || (await installed(key)))) return opened;
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
  opened = { key, tour, map, route, local: null };
  return opened;
}

/**
 * The tour in the visitor's language (chosen again at each page: a switch on another page or
 * tour applies here too): the localized manifest and its stops in order, the same order as the
 * stored tour's (`localize` keeps each stop's `order`).
 */
function localized(state) {
  const manifest = localTour(state.tour.manifest);
  state.local = { manifest, stops: orderedStops(manifest) };
  return state.local;
}

/** A stop's name as an element in its language (words of the app around it stay English). */
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

/** Leaves the tour: the position is no longer watched, the map and the media are let go. */
export function leaveTour() {
  opened = null;
  if (watch !== null) navigator.geolocation.clearWatch(watch);
  watch = null;
  leaflet?.remove();
  leaflet = null;
  positionMarker = null;
  mapLongitude = NaN;
  statusLine = null;
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
  if (localStorage.getItem(settingsKey) !== 'on') return;
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

function nextStop(stops, sha) {
  const seen = visited(sha);
  return stops.find((s, i) => !seen.has(i + 1)) ?? null;
}

function onPosition(coords) {
  if (!opened) return;
  position = coords;
  const stops = opened.local?.stops ?? opened.tour.stops;
  const sha = opened.key;
  if (leaflet && positionMarker) {
    positionMarker.setLatLng([coords.latitude, nearLongitude(coords.longitude, mapLongitude)]);
    positionMarker.setOpacity(1);
    const arrow = positionMarker.getElement()?.querySelector('.heading');
    if (arrow) {
      arrow.hidden = !Number.isFinite(coords.heading);
      if (Number.isFinite(coords.heading)) arrow.style.transform = `rotate(${coords.heading}deg)`;
    }
  }
  // Arrival: the nearest stop within its radius that was not announced yet, from a fix good enough
  // to tell (a position known only to 200 m announces nothing).
  const seen = visited(sha);
  let arrived = null;
  let best = Infinity;
  stops.forEach((stop, i) => {
    const d = distanceMetres(coords, stop.coordinate);
    const good = !Number.isFinite(coords.accuracy) || coords.accuracy <= Math.max(50, arrivalRadius(stop));
    if (good && d <= arrivalRadius(stop) && !seen.has(i + 1) && d < best) {
      best = d;
      arrived = i + 1;
    }
  });
  if (arrived !== null) {
    markVisited(sha, arrived);
    alertSenses();
    const words = [`You have arrived at stop ${arrived}: `, stopName(stops[arrived - 1]), '.'];
    // A recording or a video playing is not cut off: the stop is offered instead of opened.
    const playing = [...document.querySelectorAll('main audio, main video')].some((m) => !m.paused && !m.ended);
    if (playing) {
      announce(words, { href: `#/${sha}/stop/${arrived}`, text: `Open stop ${arrived}` });
    } else {
      announce(words);
      location.hash = `#/${sha}/stop/${arrived}`;
    }
    return;
  }
  updateStatus();
}

function updateStatus() {
  if (!statusLine || !opened) return;
  const stops = opened.local?.stops ?? opened.tour.stops;
  const next = nextStop(stops, opened.key);
  if (!next) {
    statusLine.textContent = 'You have visited every stop of this tour.';
    return;
  }
  const number = stops.indexOf(next) + 1;
  statusLine.replaceChildren(`Next: stop ${number}, `, stopName(next), position
    ? ` — ${formatDistance(distanceMetres(position, next.coordinate))} away.` : '.');
}

function startWatching(button) {
  if (!('geolocation' in navigator)) {
    statusLine.textContent = 'This browser cannot tell where you are; choose the stops from the list.';
    return;
  }
  if (watch !== null) {
    // A second press stops following (and saves the battery).
    navigator.geolocation.clearWatch(watch);
    watch = null;
    button?.setAttribute('aria-pressed', 'false');
    return;
  }
  button?.setAttribute('aria-pressed', 'true');
  watch = navigator.geolocation.watchPosition(
    (p) => onPosition({
      latitude: p.coords.latitude, longitude: p.coords.longitude, accuracy: p.coords.accuracy,
      heading: p.coords.heading,
    }),
    (error) => {
      if (statusLine) {
        statusLine.textContent = error.code === 1
          ? 'The app may not use your position: allow it in the browser settings, or choose the stops from the list.'
          : 'Your position is not known yet (no GPS fix). The stops are in the list below.';
      }
    },
    { enableHighAccuracy: true, maximumAge: 5000, timeout: 60000 },
  );
}

function tileLayer(tiles) {
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

/** The tour's map page. */
export async function showTour(view, key) {
  const { h, render, notice } = view;
  const state = await load(key);
  const { manifest, stops } = localized(state);
  const L = globalThis.L;
  leaflet?.remove();
  leaflet = null;
  revokeAll();
  const mapBox = h('div', {
    id: 'tour-map', class: 'tour-map', role: 'region', 'aria-label': `Map of ${manifest.name}`,
  });
  statusLine = h('p', { class: 'next-stop' });
  const follow = h('button', {
    type: 'button', 'aria-pressed': watch === null ? 'false' : 'true', onclick: (e) => startWatching(e.currentTarget),
  }, 'Follow my position');
  const alerts = h('input', { type: 'checkbox', id: 'arrival-alerts' });
  alerts.checked = localStorage.getItem(settingsKey) === 'on';
  alerts.addEventListener('change', () => localStorage.setItem(settingsKey, alerts.checked ? 'on' : 'off'));
  const seen = visited(key);
  const { route, reason } = state.route;
  const locale = routeLocale();
  const along = (s) => {
    const d = stopDistance(route, s);
    return d === null ? null : h('span', { class: 'muted route-distance' }, ` · ${formatLength(d, locale)} along the route`);
  };
  const list = h('ol', { class: 'stop-list' }, stops.map((s, i) => h('li', {},
    h('a', { href: `#/${key}/stop/${i + 1}`, lang: langOf(manifest, s.order, 'name') }, s.name),
    along(s),
    seen.has(i + 1) ? h('span', { class: 'visited' }, ' (visited)') : null)));
  render(h('span', { lang: langOf(manifest, null, 'name') }, manifest.name),
    languageSwitch(h, manifest, () => showTour(view, key)),
    fallbackNote(h, manifest, (f) => f.stop === null || (f.field === 'name' && f.asset === undefined)),
    route ? h('p', { class: 'route-summary' }, routeSummary(route, locale)) : null,
    reason ? h('p', { class: 'muted' }, `The tour's route cannot be shown (${reason}): the stops are joined with straight lines.`)
      : null,
    state.map ? null : notice('info', 'This tour has no offline map: follow the list of stops.'),
    mapBox, statusLine,
    h('div', { class: 'actions' }, follow,
      h('label', { class: 'check' }, alerts, ' Sound and vibration when I reach a stop')),
    h('h2', {}, 'Stops'), list,
    h('p', {}, h('button', {
      type: 'button', class: 'secondary',
      onclick: () => {
        localStorage.removeItem(visitedKey(key));
        showTour(view, key);
      },
    }, 'Start the tour again')));
  if (L) {
    leaflet = L.map(mapBox, { zoomControl: true, attributionControl: false, keyboard: true });
    // The stops near the route's start, each unwrapped against the one before: a tour across the
    // antimeridian is drawn in one piece (Leaflet draws longitudes as given, past 180° too).
    const points = unwrapPoints(stops.map((s) => [s.coordinate.latitude, s.coordinate.longitude]),
      route ? route.lines[0][0][1] : undefined);
    mapLongitude = points[0][1];
    // The route when the tour has one; else straight lines from stop to stop.
    const line = L.polyline(route ? route.lines : points,
      { color: '#1b4332', weight: 4, opacity: 0.8, interactive: false });
    // The view first: Leaflet adds markers to a map only once it has one.
    leaflet.fitBounds(line.getBounds().extend(L.latLngBounds(points)).pad(0.15));
    if (state.map) tileLayer(state.map.tiles).addTo(leaflet);
    line.addTo(leaflet);
    stops.forEach((s, i) => {
      const marker = L.marker(points[i], {
        title: `Stop ${i + 1}: ${s.name}`, alt: `Stop ${i + 1}: ${s.name}`, keyboard: true,
        icon: L.divIcon({ className: 'stop-marker', html: '', iconSize: [30, 30] }),
      }).addTo(leaflet);
      const element = marker.getElement();
      element.textContent = String(i + 1);
      element.setAttribute('role', 'link');
      element.setAttribute('aria-label', `Stop ${i + 1}: ${s.name}`);
      marker.on('click', () => { location.hash = `#/${key}/stop/${i + 1}`; });
      element.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' || e.key === ' ') location.hash = `#/${key}/stop/${i + 1}`;
      });
    });
    positionMarker = L.marker([0, 0], {
      interactive: false, keyboard: false,
      icon: L.divIcon({ className: 'me-marker', html: '', iconSize: [22, 22] }),
    });
    positionMarker.addTo(leaflet);
    const me = positionMarker.getElement();
    me.setAttribute('aria-hidden', 'true');
    me.append(Object.assign(document.createElement('span'), { className: 'heading', hidden: true }));
    if (position) positionMarker.setLatLng([position.latitude, nearLongitude(position.longitude, mapLongitude)]);
    else positionMarker.setOpacity(0);
    const frame = mapFrame(manifest.bounds, mapLongitude);
    leaflet.setMaxBounds((frame ? L.latLngBounds(frame) : line.getBounds().extend(L.latLngBounds(points))).pad(0.5));
    const container = leaflet.getContainer();
    container.setAttribute('aria-label',
      `Map of ${manifest.name}: ${stops.length} stops${route ? ' and the route between them' : ''}`);
  }
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
            srclang: captions.language || lang('captions') || document.documentElement.lang || 'en', label: 'Captions',
          }));
        }
      }
      return h('figure', { class: `asset-${asset.kind}` },
        asset.title ? h('figcaption', { lang: lang('title') }, asset.title) : null, media,
        asset.transcript
          ? h('details', {}, h('summary', {}, 'Transcript'), h('p', { lang: lang('transcript') }, asset.transcript))
          : null);
    }
    default:
      return null;
  }
}

/** One stop's page. */
export async function showStop(view, key, number) {
  const { h, render, notice } = view;
  const state = await load(key);
  const { archive } = state.tour;
  const { manifest: local, stops } = localized(state);
  const stop = stops[number - 1];
  if (!stop) throw new Error(`This tour has no stop ${number}.`);
  const stored = state.tour.stops[number - 1];
  leaflet?.remove();
  leaflet = null;
  statusLine = null;
  revokeAll();
  const body = h('div', { class: 'stop-assets' });
  const nav = h('nav', { class: 'stop-nav', 'aria-label': 'Stops' },
    h('a', { href: `#/${key}` }, 'Back to the map'),
    number > 1 ? h('a', { href: `#/${key}/stop/${number - 1}` }, 'Previous stop') : null,
    number < stops.length ? h('a', { href: `#/${key}/stop/${number + 1}` }, 'Next stop') : null);
  render([`Stop ${number}: `, h('span', { lang: langOf(local, stop.order, 'name') }, stop.name)],
    languageSwitch(h, local, () => showStop(view, key, number)),
    stop.description ? h('p', { class: 'lead', lang: langOf(local, stop.order, 'description') }, stop.description) : null,
    fallbackNote(h, local, (f) => f.stop === stop.order),
    body, nav);
  const shown = (stop.assets ?? []).filter((a) => a.kind !== 'captions' && shownType(a.mediaType) !== 'text/vtt');
  for (const asset of shown) {
    const slot = h('div', { class: 'asset' }, h('p', { class: 'muted' }, 'Opening…'));
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
