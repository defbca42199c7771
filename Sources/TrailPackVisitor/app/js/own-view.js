// The visitor's own pages (issue #51): My log (#/log: the tours and stops reached, notes and
// favourites, checklists and goals, export, import and delete) and Find a tour on a map (#/map:
// the tours on this phone on their own maps, and with a signal the server's tours as pins on a
// plain background, the list beside). Everything here stays on the phone.

import * as storage from './storage.js';
import * as catalog from './catalog.js';
import {
  journal, tourProgress, toursInLog, stopTimes, markOf, setMark, checklistProgress, addGoal, removeGoal, daysOut,
  mergeLogs, forgetTour,
} from './journal.js';
import { toCSV, toGPX, readExport, MAX_IMPORT_BYTES } from './log-io.js';
import { t, formatDate, formatDateTime } from './i18n.js';
import { installOffer, keepWarning } from './keep.js';
import { openTour, openMap, orderedStops } from './tour.js';
import { groupMarker, tileLayer } from './walk.js';
import { TARGET_PIXELS, groupLabel, overlappingGroups, spreadOffsets } from './guide.js';

/** A file for the visitor to keep, offered as a download (nothing leaves the phone otherwise). */
function save(text, name, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = Object.assign(document.createElement('a'), { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

const today = () => new Date().toISOString().slice(0, 10);

/** The start of this season: 1 January of this year. */
const seasonStart = () => new Date(new Date().getFullYear(), 0, 1).getTime();

/** One line of a tour's progress: "Visited 5 of 8 stops, last on 12 Jul 2026". */
export function progressWords(progress) {
  if (progress.visited === 0) return t('log.tour.none');
  const last = progress.last === null ? '' : t('log.tour.last', { date: formatDate(progress.last) });
  return progress.total > 0
    ? t('log.tour.visited', { n: progress.total, visited: progress.visited }) + last
    : t('log.tour.visitedStops', { n: progress.visited }) + last;
}

/** A stop's count in the log: "Reached 3 times, last on …". */
export function timesWords(times) {
  if (times.times === 0) return t('log.stop.never');
  return t('log.stop.times', { n: times.times, date: formatDateTime(times.last) });
}

/** A note and a favourite mark, saved as they change (a stop's, or a tour's: `stop` null). */
export function markEditor(h, { tour, stop, name, log, idPrefix, onSaved = () => {} }) {
  const mark = markOf(log, tour, stop);
  const status = h('p', { class: 'muted mark-status', role: 'status' });
  const favourite = h('input', { type: 'checkbox', id: `${idPrefix}-favourite` });
  favourite.checked = mark.favourite;
  const note = h('textarea', { id: `${idPrefix}-note`, rows: 3, maxlength: 2000 });
  note.value = mark.note;
  const keep = async (change, words) => {
    try {
      await journal().update((l) => setMark(l, tour, stop, { ...change, name }));
      status.textContent = words;
      onSaved();
    } catch (error) {
      status.textContent = error.message;
    }
  };
  favourite.addEventListener('change', () => keep({ favourite: favourite.checked },
    favourite.checked ? t('mark.favourite.on') : t('mark.favourite.off')));
  return h('div', { class: 'mark' },
    h('label', { class: 'check', for: `${idPrefix}-favourite` }, favourite, ` ${t('mark.favourite')}`),
    h('label', { for: `${idPrefix}-note` }, t('mark.note')), note,
    h('button', { type: 'button', class: 'secondary', onclick: () => keep({ note: note.value }, t('mark.note.saved')) },
      t('mark.note.save')),
    status);
}

/** My log. */
export async function logView({ render, h, notice }) {
  const log = await journal().read();
  const library = await storage.readLibrary().catch(() => ({ tours: [] }));
  const flash = h('div', { class: 'log-flash' });
  const redraw = async (words, kind = 'ok') => {
    await logView({ render, h, notice });
    if (words) document.querySelector('.log-flash')?.replaceChildren(notice(kind, words));
  };

  // Checklists: each, and all of them together.
  const lists = checklistProgress(log);
  const bar = (done, total, label) => h('progress', { max: Math.max(1, total), value: done, 'aria-label': label });
  const checklists = lists.lists.length === 0 ? null : [
    h('h2', {}, t('log.checklists')),
    h('ul', { class: 'cards' }, lists.lists.map((l) => h('li', { class: 'card checklist' },
      h('p', {}, h('strong', {}, l.name), ': ', t('log.checklist.progress', { n: l.total, done: l.done })),
      bar(l.done, l.total, l.name)))),
    h('p', { class: 'checklist-all' }, t('log.checklist.all', { n: lists.total, done: lists.done })),
  ];

  // Goals: counted by the days out since the goal's start.
  const label = h('input', { id: 'goal-label', type: 'text', maxlength: 200, value: t('log.goal.example') });
  const target = h('input', { id: 'goal-target', type: 'number', min: 1, max: 10000, value: 10, inputmode: 'numeric' });
  const from = h('input', { id: 'goal-from', type: 'date', value: new Date(seasonStart()).toISOString().slice(0, 10) });
  const goals = [
    h('h2', {}, t('log.goals')),
    h('p', { class: 'muted' }, t('log.goals.how')),
    log.goals.length ? h('ul', { class: 'cards' }, log.goals.map((g) => {
      const done = daysOut(log, g.from);
      return h('li', { class: 'card goal' },
        h('p', {}, h('strong', {}, g.label), ': ', t('log.goal.progress', { n: g.target, done }),
          ' ', h('span', { class: 'muted' }, t('log.goal.since', { date: formatDate(g.from) }))),
        bar(Math.min(done, g.target), g.target, g.label),
        h('button', {
          type: 'button', class: 'secondary', 'aria-label': t('log.goal.removeNamed', { name: g.label }),
          onclick: async () => {
            await journal().update((l) => removeGoal(l, g.id));
            await redraw(t('log.goal.removed'));
          },
        }, t('log.goal.remove')));
    })) : null,
    h('form', {
      class: 'goal-form',
      onsubmit: async (event) => {
        event.preventDefault();
        const n = Number(target.value);
        const start = Date.parse(from.value);
        if (!label.value.trim() || !Number.isSafeInteger(n) || n < 1 || n > 10000 || !Number.isFinite(start)) {
          flash.replaceChildren(notice('error', t('log.goal.invalid')));
          return;
        }
        await journal().update((l) => addGoal(l, { label: label.value.trim(), target: n, from: start }));
        await redraw(t('log.goal.added'));
      },
    },
    h('label', { for: 'goal-label' }, t('log.goal.label')), label,
    h('label', { for: 'goal-target' }, t('log.goal.target')), target,
    h('label', { for: 'goal-from' }, t('log.goal.from')), from,
    h('button', { type: 'submit' }, t('log.goal.add'))),
  ];

  // The tours: those in the log and those on this phone.
  const installed = new Map(library.tours.map((tour) => [tour.id, tour]));
  const tours = toursInLog(log);
  for (const tour of library.tours) if (!tours.some((x) => x.id === tour.id)) tours.push({ id: tour.id, name: tour.name });
  const cards = tours.map((tour, index) => {
    const here = installed.get(tour.id);
    const slugs = [...new Set(log.visits.filter((v) => v.tour === tour.id).map((v) => v.stop))];
    const progress = tourProgress(log, tour.id, slugs);
    if (here) progress.total = Math.max(here.stops ?? 0, progress.visited);
    const stops = slugs.map((slug) => {
      const visits = log.visits.filter((v) => v.tour === tour.id && v.stop === slug);
      const name = visits[visits.length - 1].stopName || slug;
      const mark = markOf(log, tour.id, slug);
      return h('li', {}, h('span', { class: 'stop-name' }, name), mark.favourite ? ` ★ ${t('mark.favourite')}` : '', ' — ',
        timesWords(stopTimes(log, tour.id, slug)), mark.note ? h('p', { class: 'muted' }, mark.note) : null);
    });
    return h('li', { class: 'card log-tour' },
      h('h2', {}, here ? h('a', { href: `#/tour/${here.sha256}` }, tour.name) : tour.name),
      h('p', { class: 'log-progress' }, progressWords(progress)),
      here ? null : h('p', { class: 'muted' }, t('log.tour.notHere')),
      stops.length ? h('ul', { class: 'log-stops' }, stops) : null,
      h('details', {}, h('summary', {}, t('log.tour.mark')),
        markEditor(h, { tour: tour.id, stop: null, name: tour.name, log, idPrefix: `tour-${index}` })),
      slugs.length ? h('button', {
        type: 'button', class: 'secondary', 'aria-label': t('log.tour.forgetNamed', { name: tour.name }),
        onclick: async () => {
          if (!confirm(t('log.tour.forgetConfirm', { name: tour.name }))) return;
          await journal().update((l) => forgetTour(l, tour.id));
          await redraw(t('log.tour.forgotten', { name: tour.name }));
        },
      }, t('log.tour.forget')) : null);
  });

  // Export, import, delete.
  const file = h('input', { type: 'file', id: 'log-import', accept: '.csv,.gpx,text/csv,application/gpx+xml' });
  file.addEventListener('change', async () => {
    const chosen = file.files?.[0];
    if (!chosen) return;
    if (chosen.size > MAX_IMPORT_BYTES) {
      flash.replaceChildren(notice('error', t('log.import.tooBig')));
      return;
    }
    const result = readExport(new Uint8Array(await chosen.arrayBuffer()));
    if (result.error) {
      flash.replaceChildren(notice('error', t('log.import.refused', { why: result.error.message })));
      return;
    }
    try {
      await journal().update((l) => mergeLogs(l, result.log));
    } catch (error) {
      flash.replaceChildren(notice('error', error.message));
      return;
    }
    await redraw(t('log.import.done', { n: result.log.visits.length }));
  });
  const empty = log.visits.length === 0 && Object.keys(log.marks).length === 0 && log.goals.length === 0;
  render(t('log.title'),
    flash,
    h('p', { class: 'muted' }, t('log.private')),
    await keepWarning(h, notice),
    installOffer(h),
    empty ? notice('info', t('log.empty')) : null,
    checklists,
    tours.length ? [h('h2', {}, t('log.tours')), h('ul', { class: 'cards' }, cards)] : null,
    goals,
    h('h2', {}, t('log.export')),
    h('p', {}, t('log.export.how')),
    h('div', { class: 'actions' },
      h('button', {
        type: 'button', id: 'export-csv', disabled: empty,
        onclick: () => save(toCSV(log), `trail-log-${today()}.csv`, 'text/csv'),
      }, t('log.export.csv')),
      h('button', {
        type: 'button', id: 'export-gpx', class: 'secondary', disabled: log.visits.length === 0,
        onclick: () => save(toGPX(log), `trail-log-${today()}.gpx`, 'application/gpx+xml'),
      }, t('log.export.gpx'))),
    h('p', {}, h('label', { for: 'log-import' }, t('log.import')), file),
    h('h2', {}, t('log.delete.heading')),
    h('p', {}, h('button', {
      type: 'button', class: 'danger', id: 'delete-log', disabled: empty,
      onclick: async () => {
        if (!confirm(t('log.delete.confirm'))) return;
        await journal().clear();
        await redraw(t('log.delete.done'));
      },
    }, t('log.delete'))));
}

// MARK: the map

/** Where a tour starts and what it covers, from its manifest: {start: [lat, lng], bounds} or null. */
export function placeOf(manifest) {
  const stops = orderedStops(manifest ?? {});
  const first = stops.find((s) => Number.isFinite(s?.coordinate?.latitude) && Number.isFinite(s?.coordinate?.longitude));
  if (!first) return null;
  const b = manifest.bounds;
  const bounds = Number.isFinite(b?.southwest?.latitude) && Number.isFinite(b?.northeast?.longitude)
    ? [[b.southwest.latitude, b.southwest.longitude], [b.northeast.latitude, b.northeast.longitude]] : null;
  return { start: [first.coordinate.latitude, first.coordinate.longitude], bounds };
}

let mapOnScreen = null;

/** Find a tour on a map. */
export async function mapView({ render, h, notice }) {
  mapOnScreen?.remove();
  mapOnScreen = null;
  render(t('map.title'), h('p', { class: 'muted' }, t('map.loading')));
  const pins = []; // {name, place, href, where: 'phone'|'server', site}
  const maps = []; // {tiles, bounds} of the installed tours' own maps
  const library = await storage.readLibrary().catch(() => ({ tours: [] }));
  for (const tour of library.tours.slice(0, 50)) {
    try {
      const opened = await openTour(await storage.packageFile(tour));
      const place = placeOf(opened.manifest);
      if (!place) continue;
      pins.push({ name: tour.name, place, href: `#/tour/${tour.sha256}`, where: 'phone', site: tour.siteName ?? '' });
      const own = await openMap(opened.archive, opened.manifest).catch(() => null);
      if (own) maps.push({ tiles: own.tiles, bounds: place.bounds });
    } catch {
      // a tour that cannot be opened is left off the map (its own page says why)
    }
  }
  let online = navigator.onLine;
  if (online) {
    try {
      const { sites } = await catalog.sites();
      for (const site of sites.filter((s) => s.packages > 0).slice(0, 20)) {
        const page = await catalog.sitePackages(site.id);
        for (const entry of page.packages.slice(0, 20)) {
          if (pins.some((p) => p.where === 'phone' && p.href.endsWith(entry.sha256))) continue;
          const manifest = await catalog.manifest(entry.id, entry.version).catch(() => null);
          const place = placeOf(manifest);
          if (place) {
            pins.push({ name: entry.name || entry.id, place, href: `#/package/${encodeURIComponent(entry.id)}`,
              where: 'server', site: site.name || site.id });
          }
        }
      }
    } catch {
      online = false;
    }
  }
  const box = h('div', { id: 'find-map', class: 'tour-map find-map', role: 'region', 'aria-label': t('map.region') });
  // Numbered in the text (the pins carry the same numbers), not by the list's own markers as well.
  const list = h('ol', { class: 'map-list' }, pins.map((p, i) => h('li', {},
    h('a', { href: p.href }, `${i + 1}. ${p.name}`),
    h('span', { class: 'muted' }, ` · ${p.site ? `${p.site} · ` : ''}${p.where === 'phone' ? t('map.onPhone') : t('map.onServer')}`))));
  render(t('map.title'),
    h('p', {}, online ? t('map.online') : t('map.offline')),
    pins.length === 0 ? notice('info', online ? t('map.none') : t('map.noneOffline')) : null,
    pins.length ? h('div', { class: 'find-layout' }, box, h('div', {}, h('h2', {}, t('map.list')), list)) : null);
  const L = globalThis.L;
  if (!L || pins.length === 0) return;
  // Offline the tours' own tiles set the deepest zoom (their own, plus two); online there are none
  // to set it: 18 (a few metres), where pins at one place are spread.
  const ownTiles = !online && maps.length > 0;
  const map = L.map(box, { zoomControl: true, attributionControl: false, keyboard: true, ...(ownTiles ? {} : { maxZoom: 18 }) });
  mapOnScreen = map;
  // Offline, each installed tour's own map within its bounds; the map may still zoom out past
  // them to show every pin (Leaflet would hold it to the layers' zooms).
  if (ownTiles) {
    for (const own of maps) {
      const layer = tileLayer(own.tiles);
      if (own.bounds) layer.options.bounds = L.latLngBounds(own.bounds);
      layer.addTo(map);
    }
    map.setMinZoom(0);
  } else box.classList.add('plain-map');
  // The view first: Leaflet adds markers to a map only once it has one.
  const bounds = L.latLngBounds(pins.map((p) => p.place.start));
  for (const p of pins) if (p.place.bounds) bounds.extend(p.place.bounds);
  // Offline, on the latest tour's own map (its tiles drawn: far apart, the tours' maps would be too
  // small to draw at once); the other pins are a zoom out away, and all are in the list.
  const latest = !online ? maps.filter((m) => m.bounds).at(-1) : null;
  map.fitBounds(latest ? L.latLngBounds(latest.bounds) : bounds.pad(0.1),
    { padding: [TARGET_PIXELS, TARGET_PIXELS], maxZoom: latest ? 16 : 12 });
  const drawn = [];
  for (const [i, p] of pins.entries()) {
    if (p.place.bounds) {
      L.rectangle(p.place.bounds, { color: '#1b4332', weight: 2, fill: false, interactive: false }).addTo(map);
    }
    const marker = L.marker(p.place.start, {
      keyboard: true, title: p.name,
      icon: L.divIcon({ className: 'stop-marker find-pin', html: '', iconSize: [TARGET_PIXELS, TARGET_PIXELS] }),
    }).addTo(map);
    const element = marker.getElement();
    element.textContent = String(i + 1);
    element.setAttribute('role', 'link');
    element.setAttribute('aria-label', `${i + 1}. ${p.name}`);
    marker.on('click', () => { location.hash = p.href; });
    element.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' || event.key === ' ') location.hash = p.href;
    });
    // Each pin named: the site's name for the server's tours, the tour's for those on this phone
    // (where the name goes: placeLabels).
    const label = L.tooltip({ permanent: true, direction: 'right', offset: [TARGET_PIXELS / 2, 0], className: 'pin-label' })
      .setLatLng(p.place.start).setContent(document.createTextNode(p.where === 'server' ? p.site || p.name : p.name))
      .addTo(map);
    drawn.push({ marker, label, latlng: L.latLng(p.place.start), number: i + 1 });
  }
  // Pins that would cover each other (sites a few kilometres apart, seen from far away): one pin
  // for them ("1–2", which zooms in to them) while the map can zoom in, else spread; the names
  // placed again as well, after every zoom or pan (a zoom ends with one) and when the screen turns.
  let groups = [];
  const layout = () => {
    // A move that ends after the visitor left the page (the map let go meanwhile) is not laid out.
    if (mapOnScreen !== map) return;
    for (const g of groups) g.remove();
    groups = layoutPins(L, map, drawn);
  };
  map.on('moveend resize', layout);
  layout();
}

/**
 * Lays out the find map's pins at its zoom now (as walk.js does the stops): each group of pins
 * that overlap gets one marker naming their numbers, which zooms in to them, while the map can
 * zoom in; at the deepest zoom they are spread around their place. Returns the group markers.
 */
function layoutPins(L, map, drawn) {
  const made = [];
  const points = drawn.map((d) => map.latLngToContainerPoint(d.latlng));
  const canZoomIn = map.getZoom() < map.getMaxZoom();
  for (const group of overlappingGroups(points)) {
    const members = group.map((i) => drawn[i]);
    const grouped = canZoomIn && group.length > 1;
    const offsets = grouped || group.length === 1 ? group.map(() => ({ x: 0, y: 0 })) : spreadOffsets(group.length);
    members.forEach((d, i) => {
      const element = d.marker.getElement();
      if (element) {
        element.hidden = grouped;
        element.style.marginLeft = `${offsets[i].x - TARGET_PIXELS / 2}px`;
        element.style.marginTop = `${offsets[i].y - TARGET_PIXELS / 2}px`;
      }
      // A spread pin's name would sit on its neighbour's: the list beside names them all.
      const label = d.label.getElement();
      if (label) label.hidden = group.length > 1;
    });
    if (!grouped) continue;
    const words = groupLabel(members.map((d) => d.number));
    made.push(groupMarker(L, map, members.map((d) => d.latlng), words, t('map.group', { label: words })));
  }
  placeLabels(map, drawn, made);
  return made;
}

/** Where a pin's name may go, and the tooltip offset that puts it there. */
const LABEL_SIDES = {
  right: [TARGET_PIXELS / 2, 0], left: [-TARGET_PIXELS / 2, 0], top: [0, -TARGET_PIXELS / 2], bottom: [0, TARGET_PIXELS / 2],
};

/**
 * Puts each pin's name where it lies inside the map and on no pin and no name already placed: the
 * side with the more room, else the other side, above, below; else the name is left to the list
 * beside. Pins in their order: the first chooses first.
 */
function placeLabels(map, drawn, groupMarkers) {
  const hits = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const frame = map.getContainer().getBoundingClientRect();
  const inside = (r) => r.left >= frame.left && r.right <= frame.right && r.top >= frame.top && r.bottom <= frame.bottom;
  const pins = [...drawn.map((d) => d.marker.getElement()), ...groupMarkers.map((m) => m.getElement())]
    .filter((element) => element && !element.hidden).map((element) => ({ element, box: element.getBoundingClientRect() }));
  const centre = map.getSize().x / 2;
  const placed = [];
  for (const d of drawn) {
    const label = d.label.getElement();
    if (!label || label.hidden) continue;
    const own = d.marker.getElement();
    const first = map.latLngToContainerPoint(d.latlng).x < centre ? 'right' : 'left';
    const sides = [first, first === 'right' ? 'left' : 'right', 'top', 'bottom'];
    let fits = false;
    for (const side of sides) {
      d.label.options.direction = side;
      d.label.options.offset = LABEL_SIDES[side];
      d.label.update();
      const box = label.getBoundingClientRect();
      if (inside(box) && !pins.some((p) => p.element !== own && hits(box, p.box)) && !placed.some((o) => hits(box, o))) {
        placed.push(box);
        fits = true;
        break;
      }
    }
    label.hidden = !fits;
  }
}

/** Lets the map go when the visitor leaves its page. */
export function leaveMap() {
  mapOnScreen?.remove();
  mapOnScreen = null;
}
