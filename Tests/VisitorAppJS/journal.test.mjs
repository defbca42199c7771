// Tests of My log (issue #51): the store in IndexedDB (an in-memory substitute), the visits,
// notes, favourites, checklists and goals it keeps, and the export to CSV and GPX read back on a
// new phone, with hostile files refused by line and field. Run with `node --test Tests/VisitorAppJS/`.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';

import {
  addGoal, checklistProgress, checklistsOf, daysOut, emptyLog, learnChecklists, markOf, mergeLogs, openJournal,
  recordVisit, setMark, stopTimes, tourProgress, toursInLog, validLog, LIMITS,
} from '../../Sources/TrailPackVisitor/app/js/journal.js';
import { readExport, toCSV, toGPX, parseCSV, MAX_IMPORT_BYTES } from '../../Sources/TrailPackVisitor/app/js/log-io.js';
import { MemoryIndexedDB } from './support.mjs';

const FOURTEENERS = 'org.coloradopeaks.fourteeners';
const SANTIAM = 'gov.usda.fs.willamette.santiam-wagon-road';
const day = (d, h = 9) => Date.UTC(2026, 6, d, h, 0, 0);

function visit(tour, stop, at, extra = {}) {
  return { tour, stop, at, how: 'arrival', tourName: 'A tour', stopName: stop, latitude: 39.1, longitude: -106.4, ...extra };
}

/** A log with two walks of the fourteeners, one of Santiam, notes, a goal and a checklist. */
function sample() {
  let log = emptyLog();
  log = recordVisit(log, visit(FOURTEENERS, 'mount-elbert', day(1)));
  log = recordVisit(log, visit(FOURTEENERS, 'mount-massive', day(1, 11)));
  log = recordVisit(log, visit(FOURTEENERS, 'mount-elbert', day(8), { how: 'hand' }));
  log = recordVisit(log, visit(SANTIAM, 'house-rock', day(9), { tourName: 'Camino, "la" ruta', stopName: 'Roca, casa' }));
  log = setMark(log, FOURTEENERS, 'mount-elbert', { note: 'Windy,\n"cold" summit', favourite: true, name: 'Mount Elbert' });
  log = setMark(log, SANTIAM, null, { favourite: true, name: 'Santiam' });
  log = addGoal(log, { label: 'Hike 10 times this season', target: 10, from: day(1, 0) });
  log = learnChecklists(log, FOURTEENERS, {
    waypoints: [
      { slug: 'mount-elbert', properties: { checklist: 'Colorado fourteeners' } },
      { slug: 'mount-massive', properties: { checklist: 'Colorado fourteeners' } },
      { slug: 'mount-harvard', properties: { checklist: 'Colorado fourteeners' } },
      { slug: 'visitor-centre', properties: {} },
    ],
  });
  return log;
}

describe('the log', () => {
  test('visits are counted per stop and per tour, "I was here" again within 30 minutes once, arrivals each walk', () => {
    let log = sample();
    log = recordVisit(log, visit(FOURTEENERS, 'mount-elbert', day(8) + 60_000, { how: 'hand' }));
    assert.deepEqual(stopTimes(log, FOURTEENERS, 'mount-elbert'), { times: 2, last: day(8) });
    assert.equal(recordVisit(log, visit(FOURTEENERS, 'mount-elbert', day(8))), log);
    const again = recordVisit(log, visit(FOURTEENERS, 'mount-elbert', day(8) + 60_000));
    assert.deepEqual(stopTimes(again, FOURTEENERS, 'mount-elbert'), { times: 3, last: day(8) + 60_000 });
    assert.deepEqual(tourProgress(log, FOURTEENERS, ['mount-elbert', 'mount-massive', 'mount-harvard']),
      { visited: 2, total: 3, last: day(8) });
    assert.deepEqual(toursInLog(log).map((t) => t.id), [FOURTEENERS, SANTIAM]);
    assert.equal(daysOut(log, day(1, 0)), 3);
    assert.equal(daysOut(log, day(8, 12)), 1);
  });

  test('notes and favourites per stop and per tour; cleared marks go', () => {
    let log = sample();
    assert.equal(markOf(log, FOURTEENERS, 'mount-elbert').favourite, true);
    assert.equal(markOf(log, SANTIAM).favourite, true);
    log = setMark(log, SANTIAM, null, { favourite: false });
    assert.equal(Object.hasOwn(log.marks, SANTIAM), false);
    log = setMark(log, SANTIAM, 'house-rock', { note: 'x'.repeat(LIMITS.note + 50) });
    assert.equal(markOf(log, SANTIAM, 'house-rock').note.length, LIMITS.note);
  });

  test('checklists come from the stops\' free-form properties and count across walks', () => {
    const log = sample();
    assert.deepEqual(checklistsOf({ waypoints: [{ slug: 'a', properties: { checklist: 'L' } }, { slug: 'b' }] }), { L: ['a'] });
    const progress = checklistProgress(log);
    assert.deepEqual(progress.lists, [{ name: 'Colorado fourteeners', done: 2, total: 3 }]);
    assert.equal(progress.done, 2);
    assert.equal(progress.total, 3);
  });

  test('anything read back is made a log: what cannot be part of one is left out', () => {
    const log = validLog({
      visits: [{ tour: '../x', stop: 'a', at: 1 }, { tour: 'ok.tour', stop: 'Bad Slug', at: 1 }, { tour: 'ok.tour', stop: 'a', at: -5 },
        { tour: 'ok.tour', stop: 'a', at: 5, latitude: 95, longitude: 0 }, null, 'x'],
      marks: { 'ok.tour#a#b': { note: 'n' }, 'ok.tour': { note: 7, favourite: 'yes' } },
      goals: [{ label: 'g', target: 0, from: 0 }, { label: '', target: 3, from: 0 }],
      checklists: { '': { 'ok.tour': ['a'] }, L: { 'ok.tour': 'a' } },
    });
    assert.deepEqual(log.visits, [{ tour: 'ok.tour', stop: 'a', at: 5, how: 'arrival', tourName: '', stopName: '' }]);
    assert.deepEqual(log.marks, {});
    assert.deepEqual(log.goals, []);
    assert.deepEqual(log.checklists, {});
    assert.deepEqual(validLog(undefined), emptyLog());
  });
});

describe('the store in IndexedDB', () => {
  test('reads empty, keeps changes, survives a new opening (an app update), clears', async () => {
    const idb = new MemoryIndexedDB();
    const first = openJournal(idb);
    assert.deepEqual(await first.read(), emptyLog());
    await first.update((log) => recordVisit(log, visit(FOURTEENERS, 'mount-elbert', day(1))));
    await first.update((log) => setMark(log, FOURTEENERS, null, { note: 'First fourteener' }));
    const again = openJournal(idb);
    const log = await again.read();
    assert.equal(log.visits.length, 1);
    assert.equal(markOf(log, FOURTEENERS).note, 'First fourteener');
    await again.clear();
    assert.deepEqual(await first.read(), emptyLog());
  });

  test('two changes at once both land (each reads what the other wrote)', async () => {
    const idb = new MemoryIndexedDB();
    const a = openJournal(idb);
    const b = openJournal(idb);
    await a.read();
    await b.read();
    await Promise.all([
      a.update((log) => recordVisit(log, visit(FOURTEENERS, 'mount-elbert', day(1)))),
      b.update((log) => recordVisit(log, visit(SANTIAM, 'house-rock', day(2)))),
    ]);
    const log = await a.read();
    assert.deepEqual(log.visits.map((v) => v.stop), ['mount-elbert', 'house-rock']);
  });

  test('a transaction that aborts rejects with words and changes nothing', async () => {
    const idb = new MemoryIndexedDB();
    const j = openJournal(idb);
    await j.update((log) => recordVisit(log, visit(FOURTEENERS, 'mount-elbert', day(1))));
    idb.fail = 'QuotaExceededError';
    await assert.rejects(j.update((log) => recordVisit(log, visit(SANTIAM, 'house-rock', day(2)))), /QuotaExceeded/);
    assert.equal((await j.read()).visits.length, 1);
  });

  test('no IndexedDB: a plain message', async () => {
    await assert.rejects(openJournal(null).read(), /Your log cannot be opened \(this browser keeps no data/);
  });
});

describe('export and import', () => {
  test('CSV round trip: the same log on a new phone', () => {
    const log = sample();
    const csv = toCSV(log);
    assert.match(csv, /^record,tour,stop,time,how,/);
    assert.match(csv, /"Windy,\n""cold"" summit"/);
    const { log: back, error } = readExport(csv);
    assert.equal(error, undefined);
    assert.deepEqual(back, validLog(log));
    // Read as bytes (a File's contents), with a byte-order mark, the same.
    const bytes = new TextEncoder().encode(`\uFEFF${csv}`);
    assert.deepEqual(readExport(bytes).log, validLog(log));
  });

  test('GPX round trip: the stops reached with their times', () => {
    const log = sample();
    const gpx = toGPX(log, day(10));
    assert.match(gpx, /<gpx version="1.1"/);
    assert.equal((gpx.match(/<wpt /g) ?? []).length, 4);
    assert.match(gpx, /<time>2026-07-01T09:00:00.000Z<\/time>/);
    const { log: back, error } = readExport(gpx);
    assert.equal(error, undefined);
    assert.deepEqual(back.visits, log.visits);
    assert.equal(markOf(back, FOURTEENERS, 'mount-elbert').note, 'Windy,\n"cold" summit');
  });

  test('an import merged into the log keeps both, once', () => {
    const log = sample();
    const merged = mergeLogs(log, readExport(toCSV(log)).log);
    assert.deepEqual(merged, validLog(log));
    const other = recordVisit(emptyLog(), visit(SANTIAM, 'cascadia', day(20)));
    assert.equal(mergeLogs(log, other).visits.length, log.visits.length + 1);
  });

  const header = 'record,tour,stop,time,how,tour_name,stop_name,latitude,longitude,favourite,note,target\r\n';
  const refusals = [
    ['', /empty/],
    ['a,b\r\n', /Line 1: the columns are not those/],
    [`${header}visit,ok.tour,a,2026-07-01T09:00:00Z,arrival,,,,\r\n`, /Line 2: 9 fields, where a log has 12/],
    [`${header}visit,ok.tour,a,yesterday,arrival,,,,,,,\r\n`, /Line 2, field "time": "yesterday" is not a date/],
    [`${header}visit,ok.tour,a,2026-07-01T09:00:00Z,arrival,,,,,,,\r\nvisit,../etc,a,2026-07-01T09:00:00Z,arrival,,,,,,,\r\n`,
      /Line 3, field "tour"/],
    [`${header}visit,ok.tour,A B,2026-07-01T09:00:00Z,arrival,,,,,,,\r\n`, /Line 2, field "stop"/],
    [`${header}visit,ok.tour,a,2026-07-01T09:00:00Z,flew,,,,,,,\r\n`, /Line 2, field "how"/],
    [`${header}visit,ok.tour,a,2026-07-01T09:00:00Z,arrival,,,91,0,,,\r\n`, /Line 2, field "latitude"/],
    [`${header}mark,ok.tour,,,,,,,,maybe,,\r\n`, /Line 2, field "favourite"/],
    [`${header}goal,,,2026-07-01T09:00:00Z,,,,,,,Hike,lots\r\n`, /Line 2, field "target"/],
    [`${header}script,,,,,,,,,,,\r\n`, /Line 2, field "record"/],
    [`${header}mark,ok.tour,,,,,,,,no,"${'x'.repeat(LIMITS.note + 1)}",\r\n`, /Line 2, field "note": longer than 2000/],
    [`${header}mark,ok.tour,,,,,,,,no,"open\r\n`, /Line 2: a quoted field is never closed/],
    [`${header}mark,ok.tour,,,,,,,,no,ab"c,\r\n`, /Line 2: a quote inside a field/],
    ['<?xml version="1.0"?><!DOCTYPE gpx [<!ENTITY x "y">]><gpx></gpx>', /DOCTYPE or entities/],
    ['<html></html>', /not GPX/],
    ['<gpx>\n<wpt lat="1" lon="2"><time>2026-07-01T09:00:00Z</time></wpt></gpx>', /Line 2, field "extensions"/],
    ['<gpx>\n\n<wpt lat="100" lon="2"><time>2026-07-01T09:00:00Z</time><extensions><tp:visit tour="t" stop="s"/></extensions></wpt></gpx>',
      /Line 3, field "latitude"/],
  ];
  for (const [text, expected] of refusals) {
    test(`refused with where and why: ${expected}`, () => {
      const { log, error } = readExport(text);
      assert.equal(log, undefined);
      assert.match(error.message, expected);
    });
  }

  test('too big, not UTF-8, too many lines: refused, never thrown', () => {
    assert.match(readExport('x'.repeat(MAX_IMPORT_BYTES + 1)).error.message, /at most 4 MB/);
    assert.match(readExport(new Uint8Array([0xff, 0xfe, 0x00])).error.message, /not text in UTF-8/);
    assert.match(readExport(header + 'x\n'.repeat(60000)).error.message, /more than \d+ lines/);
    assert.match(readExport(null).error.message, /Nothing was read/);
    assert.deepEqual(parseCSV('a,"b\r\nc"\r\n').map((r) => r.cells), [['a', 'b\r\nc']]);
  });

  test('random bytes never throw', () => {
    let seed = 7;
    for (let i = 0; i < 300; i++) {
      const n = (seed = (seed * 1103515245 + 12345) >>> 0) % 400;
      const bytes = new Uint8Array(n).map(() => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24);
      const text = header + new TextDecoder().decode(bytes);
      const result = readExport(i % 2 ? text : `<gpx>${text}<wpt lat="1" lon="1">${text}</wpt>`);
      assert.ok(result.log || result.error instanceof Error);
    }
  });
});

describe('a tour deleted from the log (the visitor\'s choice)', () => {
  test('its visits and marks go; the other tours\' and the checklists stay', async () => {
    const { forgetTour } = await import('../../Sources/TrailPackVisitor/app/js/journal.js');
    const log = forgetTour(sample(), FOURTEENERS);
    assert.deepEqual(log.visits.map((v) => v.tour), [SANTIAM]);
    assert.deepEqual(Object.keys(log.marks), [SANTIAM]);
    assert.equal(checklistProgress(log).total, 3);
  });
});
