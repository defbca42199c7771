// My log (issue #51): the stops a visitor reached, when, and how (on arrival, or "I was here"),
// a note and a favourite mark per stop and per tour, the checklists the tours on this phone
// belong to, and the visitor's goals. It stays on the phone: an IndexedDB database of its own
// ("trailpack-log"), beside the list of tours and apart from it, so that deleting a tour or
// updating the app or a tour keeps it (stops are named by their stable slug, not their number).
// The pure functions read and change a log value; `openJournal` keeps one.

import { runTransaction } from './storage.js';

/** Bounds on what a log holds (a log read back or imported past them is refused or cut). */
export const LIMITS = Object.freeze({
  visits: 20000, marks: 5000, goals: 50, checklists: 100, checklistStops: 2000, note: 2000, name: 300, id: 200,
});

/** How soon the same stop counts again by hand: "I was here" within 30 minutes of a visit is that visit. */
export const SAME_VISIT_MS = 30 * 60 * 1000;

/** A stop's slug or a tour's id as the format allows (FORMAT.md 3): the keys of the log. */
const ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;
const SLUG = /^[a-z0-9]+(-[a-z0-9]+)*$/;
export const isTourId = (value) => typeof value === 'string' && ID.test(value);
export const isSlug = (value) => typeof value === 'string' && value.length <= 64 && SLUG.test(value);

/** A log with nothing in it. */
export function emptyLog() {
  return { visits: [], marks: {}, goals: [], checklists: {} };
}

/** The key of a tour's mark (`tour`) or a stop's (`tour#slug`). */
export const markKey = (tour, stop) => (stop ? `${tour}#${stop}` : tour);

const text = (value, max) => (typeof value === 'string' ? value.slice(0, max) : '');
const finite = (value) => (typeof value === 'number' && Number.isFinite(value) ? value : null);

/** One visit as kept, or null when it cannot be one. */
export function validVisit(v) {
  if (!v || !isTourId(v.tour) || !isSlug(v.stop) || !Number.isSafeInteger(v.at) || v.at < 0) return null;
  const lat = finite(v.latitude);
  const lon = finite(v.longitude);
  const placed = lat !== null && lon !== null && Math.abs(lat) <= 90 && Math.abs(lon) <= 180;
  return {
    tour: v.tour, stop: v.stop, at: v.at, how: v.how === 'hand' ? 'hand' : 'arrival',
    tourName: text(v.tourName, LIMITS.name), stopName: text(v.stopName, LIMITS.name),
    ...(placed ? { latitude: lat, longitude: lon } : {}),
  };
}

/**
 * Any value read back (the database, an import) as a log: what cannot be part of one is left out,
 * and each list is held to its bound. Never throws.
 */
export function validLog(value) {
  const log = emptyLog();
  const visits = Array.isArray(value?.visits) ? value.visits : [];
  for (const v of visits.slice(-LIMITS.visits)) {
    const visit = validVisit(v);
    if (visit) log.visits.push(visit);
  }
  log.visits.sort((a, b) => a.at - b.at);
  const marks = value?.marks && typeof value.marks === 'object' ? Object.entries(value.marks) : [];
  for (const [key, mark] of marks.slice(0, LIMITS.marks)) {
    const [tour, stop, extra] = key.split('#');
    if (extra !== undefined || !isTourId(tour) || (stop !== undefined && !isSlug(stop))) continue;
    const note = text(mark?.note, LIMITS.note);
    const favourite = mark?.favourite === true;
    if (note || favourite) log.marks[key] = { note, favourite, name: text(mark?.name, LIMITS.name) };
  }
  const goals = Array.isArray(value?.goals) ? value.goals : [];
  for (const g of goals.slice(0, LIMITS.goals)) {
    if (!Number.isSafeInteger(g?.target) || g.target < 1 || g.target > 10000) continue;
    if (!Number.isSafeInteger(g?.from) || g.from < 0) continue;
    const label = text(g?.label, LIMITS.name).trim();
    if (!label) continue;
    log.goals.push({ id: Number.isSafeInteger(g.id) ? g.id : log.goals.length + 1, label, target: g.target, from: g.from });
  }
  const lists = value?.checklists && typeof value.checklists === 'object' ? Object.entries(value.checklists) : [];
  for (const [name, tours] of lists.slice(0, LIMITS.checklists)) {
    const title = text(name, LIMITS.name).trim();
    if (!title || !tours || typeof tours !== 'object') continue;
    const kept = {};
    let count = 0;
    for (const [tour, stops] of Object.entries(tours)) {
      if (!isTourId(tour) || !Array.isArray(stops)) continue;
      const slugs = [...new Set(stops.filter(isSlug))].slice(0, LIMITS.checklistStops - count);
      count += slugs.length;
      if (slugs.length) kept[tour] = slugs;
    }
    if (count) log.checklists[title] = kept;
  }
  return log;
}

/**
 * The log with one more visit (`visit`: tour, stop, at, how, names, position). An arrival counts
 * each time (the walk announces a stop once per walk); "I was here" within 30 minutes of a visit
 * to the same stop is that visit (a second tap), and one visit is never kept twice.
 */
export function recordVisit(log, visit) {
  const v = validVisit(visit);
  if (!v) return log;
  const same = log.visits.some((o) => o.tour === v.tour && o.stop === v.stop
    && (o.at === v.at || (v.how === 'hand' && Math.abs(o.at - v.at) < SAME_VISIT_MS)));
  if (same) return log;
  const visits = [...log.visits, v].sort((a, b) => a.at - b.at).slice(-LIMITS.visits);
  return { ...log, visits };
}

/** The log with a stop's or a tour's note and favourite mark set (`stop` null: the tour's). */
export function setMark(log, tour, stop, { note, favourite, name }) {
  const key = markKey(tour, stop);
  const old = log.marks[key] ?? { note: '', favourite: false, name: '' };
  const mark = {
    note: note === undefined ? old.note : text(note, LIMITS.note),
    favourite: favourite === undefined ? old.favourite : favourite === true,
    name: name === undefined ? old.name : text(name, LIMITS.name),
  };
  const marks = { ...log.marks };
  if (mark.note || mark.favourite) marks[key] = mark;
  else delete marks[key];
  return { ...log, marks };
}

/** The mark of a stop or a tour (`stop` null), or an empty one. */
export function markOf(log, tour, stop = null) {
  return log.marks[markKey(tour, stop)] ?? { note: '', favourite: false, name: '' };
}

/** How many times the visitor reached the stop, and when last (null: never). */
export function stopTimes(log, tour, stop) {
  const visits = log.visits.filter((v) => v.tour === tour && v.stop === stop);
  return { times: visits.length, last: visits.length ? visits[visits.length - 1].at : null };
}

/** A tour in the log: how many of `slugs` (its stops) were reached, and when last. */
export function tourProgress(log, tour, slugs) {
  const wanted = new Set(slugs);
  const reached = new Set();
  let last = null;
  for (const v of log.visits) {
    if (v.tour !== tour) continue;
    if (wanted.has(v.stop)) reached.add(v.stop);
    last = Math.max(last ?? 0, v.at);
  }
  return { visited: reached.size, total: wanted.size, last };
}

/** The tours in the log (visited or marked), each with its name as last seen. */
export function toursInLog(log) {
  const tours = new Map();
  for (const v of log.visits) tours.set(v.tour, v.tourName || tours.get(v.tour) || v.tour);
  for (const [key, mark] of Object.entries(log.marks)) {
    if (!key.includes('#') && !tours.has(key)) tours.set(key, mark.name || key);
  }
  return [...tours].map(([id, name]) => ({ id, name }));
}

/**
 * The stops of a tour marked by its publisher as on a checklist: each waypoint whose `properties`
 * name one (`checklist`: a string, FORMAT.md's free-form waypoint properties, so that no reader
 * refuses the tour). Returns {name → [slugs]}.
 */
export function checklistsOf(manifest) {
  const lists = {};
  for (const w of Array.isArray(manifest?.waypoints) ? manifest.waypoints : []) {
    const name = w?.properties?.checklist;
    if (typeof name !== 'string' || !name.trim() || !isSlug(w.slug)) continue;
    (lists[name.trim().slice(0, LIMITS.name)] ??= []).push(w.slug);
  }
  return lists;
}

/** The log knowing the checklists a tour's stops are on (kept after the tour is deleted). */
export function learnChecklists(log, tour, manifest) {
  const found = checklistsOf(manifest);
  if (!isTourId(tour)) return log;
  let changed = false;
  const checklists = { ...log.checklists };
  for (const [name, slugs] of Object.entries(found)) {
    const old = checklists[name]?.[tour] ?? [];
    if (old.length === slugs.length && old.every((s, i) => s === slugs[i])) continue;
    checklists[name] = { ...(checklists[name] ?? {}), [tour]: slugs };
    changed = true;
  }
  return changed ? validLog({ ...log, checklists }) : log;
}

/** Each checklist's progress ({name, done, total}) and all of them together. */
export function checklistProgress(log) {
  const reached = new Set(log.visits.map((v) => markKey(v.tour, v.stop)));
  const lists = Object.entries(log.checklists).map(([name, tours]) => {
    let done = 0;
    let total = 0;
    for (const [tour, slugs] of Object.entries(tours)) {
      total += slugs.length;
      done += slugs.filter((s) => reached.has(markKey(tour, s))).length;
    }
    return { name, done, total };
  }).sort((a, b) => a.name.localeCompare(b.name));
  return {
    lists,
    done: lists.reduce((n, l) => n + l.done, 0),
    total: lists.reduce((n, l) => n + l.total, 0),
  };
}

/** The days out: local calendar days with at least one stop reached, since `from`. */
export function daysOut(log, from = 0) {
  const days = new Set();
  for (const v of log.visits) {
    if (v.at < from) continue;
    const d = new Date(v.at);
    days.add(`${d.getFullYear()}-${d.getMonth()}-${d.getDate()}`);
  }
  return days.size;
}

/** The log with a goal added ("hike 10 times this season": label, target, from). */
export function addGoal(log, { label, target, from }) {
  const id = Math.max(0, ...log.goals.map((g) => g.id)) + 1;
  return validLog({ ...log, goals: [...log.goals, { id, label, target, from }] });
}

/** The log without goal `id`. */
export const removeGoal = (log, id) => ({ ...log, goals: log.goals.filter((g) => g.id !== id) });

/** The log without a tour's visits and marks (the visitor's own choice: deleting a tour keeps them). */
export function forgetTour(log, tour) {
  const marks = Object.fromEntries(Object.entries(log.marks).filter(([key]) => key !== tour && !key.startsWith(`${tour}#`)));
  return { ...log, visits: log.visits.filter((v) => v.tour !== tour), marks };
}

/** `incoming` added to `log`: visits, marks (the incoming note where one is set), goals and checklists. */
export function mergeLogs(log, incoming) {
  let merged = { ...log };
  const seen = new Set(log.visits.map((v) => `${v.tour}#${v.stop}@${v.at}`));
  const visits = [...log.visits];
  for (const v of incoming.visits) if (!seen.has(`${v.tour}#${v.stop}@${v.at}`)) visits.push(v);
  merged.visits = visits;
  merged.marks = { ...log.marks };
  for (const [key, mark] of Object.entries(incoming.marks)) {
    const old = log.marks[key];
    merged.marks[key] = old ? { ...old, ...mark, note: mark.note || old.note, favourite: mark.favourite || old.favourite } : mark;
  }
  const goalKeys = new Set(log.goals.map((g) => `${g.label}|${g.target}|${g.from}`));
  merged.goals = [...log.goals];
  for (const g of incoming.goals) {
    if (goalKeys.has(`${g.label}|${g.target}|${g.from}`)) continue;
    merged.goals.push({ ...g, id: Math.max(0, ...merged.goals.map((o) => o.id)) + 1 });
  }
  merged.checklists = { ...log.checklists };
  for (const [name, tours] of Object.entries(incoming.checklists)) {
    merged.checklists[name] = { ...(merged.checklists[name] ?? {}), ...tours };
  }
  merged = validLog(merged);
  return merged;
}

// MARK: the store

const DATABASE = 'trailpack-log';
const STORE = 'log';
const KEY = 'log';

/**
 * The log kept in IndexedDB (`idb`: the browser's indexedDB, or a substitute in tests): read, change
 * in one transaction (two windows never lose each other's changes), and clear.
 */
export function openJournal(idb = globalThis.indexedDB) {
  let database = null;
  const open = () => {
    database ??= new Promise((resolve, reject) => {
      if (!idb) {
        reject(new Error('this browser keeps no data for web apps'));
        return;
      }
      const request = idb.open(DATABASE, 1);
      request.onupgradeneeded = () => request.result.createObjectStore(STORE);
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
      request.onblocked = () => reject(new Error('blocked by another window of the app'));
    }).catch((error) => {
      database = null;
      throw new Error(`Your log cannot be opened (${error?.message ?? error}). ` +
        'Close the app\'s other windows and open it again.');
    });
    return database;
  };
  const transaction = async (mode, body) =>
    runTransaction(await open(), STORE, mode, body, 'the change to your log was not saved');
  return {
    /** The log (an empty one before the first visit). */
    read: () => transaction('readonly', (store, done) => {
      const request = store.get(KEY);
      request.onsuccess = () => done(validLog(request.result));
    }),
    /** Changes the log in one transaction: `change(log)` returns the new log. */
    update: (change) => transaction('readwrite', (store, done) => {
      const request = store.get(KEY);
      request.onsuccess = () => {
        const next = validLog(change(validLog(request.result)));
        store.put(next, KEY);
        done(next);
      };
    }),
    /** Deletes the whole log. */
    clear: () => transaction('readwrite', (store, done) => {
      store.delete(KEY);
      done(emptyLog());
    }),
  };
}

let shared = null;
/** The app's one journal (in the browser). */
export const journal = () => (shared ??= openJournal());
