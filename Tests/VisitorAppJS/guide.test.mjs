// Tests of the map that leads (Sources/TrailPackVisitor/app/js/guide.js): Vincenty against its
// published example; stops placed on the santiam fixture's route as the Swift builder placed them
// (the same rule in two languages, the builder's numbers as the expected ones); the visitor on an
// out-and-back trail, across the antimeridian, off the trail, on a tour without a route; the
// distance to the next stop falling on a walk; the first view; markers that overlap on screen.
// Run with `node --test Tests/VisitorAppJS/guide.test.mjs`; the fixture cross-check builds the
// santiam package with TRAILPACK_BIN (default .build/debug/trailpack) and is skipped, saying so,
// without one.

import { deflatedFile, makeZip } from './support.mjs';
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, openAsBlob, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import {
  OFF_TRAIL_METRES, TARGET_PIXELS, WALKING_PACE, bearingDegrees, compassWord, firstView, formatDuration,
  geodesicMetres, groupLabel, guidance, isOffTrail, locateStop, locateVisitor, overlappingGroups, spreadOffsets,
  trackOf,
} from '../../Sources/TrailPackVisitor/app/js/guide.js';
import { parseRoute, readRoute } from '../../Sources/TrailPackVisitor/app/js/route.js';
import { openTour } from '../../Sources/TrailPackVisitor/app/js/tour.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = process.env.TRAILPACK_BIN || join(ROOT, '.build/debug/trailpack');

/** A parsed route of these lines of [lon, lat] and stops {slug: distance}. */
function route(lines, stops = {}) {
  const multi = lines.length > 1;
  const answer = parseRoute({
    type: 'Feature',
    geometry: { type: multi ? 'MultiLineString' : 'LineString', coordinates: multi ? lines : lines[0] },
    properties: {
      lengthMetres: 1,
      stops: Object.entries(stops).map(([slug, d]) => ({ slug, distanceMetres: d, offsetMetres: 0 })),
    },
  });
  assert.equal(answer.reason, null);
  return answer.route;
}

const stop = (slug, latitude, longitude) => ({ slug, coordinate: { latitude, longitude } });
const near = (actual, expected, tolerance, message) =>
  assert.ok(Math.abs(actual - expected) <= tolerance, `${message ?? ''} ${actual} is not within ${tolerance} of ${expected}`);

describe('geodesy', () => {
  test('Vincenty gives the published Flinders Peak to Buninyong distance', () => {
    near(geodesicMetres(-37.95103342, 144.42486789, -37.65282114, 143.92649554), 54972.271, 0.001);
  });
  test('across the antimeridian, a short step is short', () => {
    near(geodesicMetres(0, 179.9995, 0, -179.9995), 111.32, 0.01);
  });
  test('bearings and their words', () => {
    near(bearingDegrees({ latitude: 0, longitude: 0 }, { latitude: 1, longitude: 0 }), 0, 1e-9);
    near(bearingDegrees({ latitude: 0, longitude: 0 }, { latitude: 0, longitude: 1 }), 90, 1e-9);
    near(bearingDegrees({ latitude: 0, longitude: 179.9 }, { latitude: 0, longitude: -179.9 }), 90, 1e-9);
    near(bearingDegrees({ latitude: 1, longitude: 1 }, { latitude: 0, longitude: 0 }), 225, 0.1);
    assert.deepEqual([0, 44, 46, 90, 180, 225, 300, 359, 360].map(compassWord),
      ['north', 'north-east', 'north-east', 'east', 'south', 'south-west', 'north-west', 'north', 'north']);
  });
});

describe('the santiam fixture, placed as the Swift builder placed it', { skip: existsSync(BIN) ? false : `no trailpack binary at ${BIN} (set TRAILPACK_BIN)` }, () => {
  const work = mkdtempSync(join(tmpdir(), 'trailpack-guide-'));
  after(() => rmSync(work, { recursive: true, force: true }));
  const built = (async () => {
    const file = join(work, 'santiam.zip');
    execFileSync(BIN, ['build', join(ROOT, 'fixtures/santiam-wagon-road'), '-o', file], { stdio: 'pipe' });
    const tour = await openTour(await openAsBlob(file));
    const answer = await readRoute(tour.archive, tour.manifest);
    assert.equal(answer.reason, null);
    return { tour, route: answer.route };
  })();

  test('the route\'s length and every stop\'s distance and offset agree within 1 m + 0.1 %', async () => {
    const { tour, route: r } = await built;
    const track = trackOf(r, tour.stops);
    near(track.lengthMetres, r.lengthMetres, 1 + r.lengthMetres / 1000, 'length');
    let previous = -Infinity;
    assert.equal(tour.stops.length, 8);
    for (const s of tour.stops) {
      const written = r.stops.get(s.slug);
      const placed = locateStop(track, s.coordinate, previous);
      previous = placed.alongMetres;
      // The builder rounds to 0.1 m and its positions to 1 cm.
      near(placed.alongMetres, written.distanceMetres, 1 + written.distanceMetres / 1000, `${s.slug} along`);
      near(placed.offsetMetres, written.offsetMetres, 0.2, `${s.slug} offset`);
    }
  });

  test('a visitor driving the road sees the distance to the next stop fall and the tour left shrink', async () => {
    const { tour, route: r } = await built;
    const track = trackOf(r, tour.stops);
    const visited = new Set([1]);
    let hint = 0;
    let lastNext = Infinity;
    let lastLeft = Infinity;
    // Every 20th point of the route, between the first stop and the second.
    const line = r.lines[0];
    const second = r.stops.get(tour.stops[1].slug).distanceMetres;
    let checked = 0;
    for (let i = 5; i < line.length; i += 20) {
      const [latitude, longitude] = line[i];
      const g = guidance({ track, stops: tour.stops, visited, position: { latitude, longitude, accuracy: 10 }, hint });
      assert.ok(g.located.offsetMetres < 1, 'a point of the route is on it');
      if (g.located.alongMetres >= second) break;
      hint = g.located.alongMetres;
      assert.equal(g.offTrail, false);
      assert.equal(g.next.index, 1);
      assert.ok(g.next.alongMetres < lastNext && g.next.alongMetres > 0, `next ${g.next.alongMetres} after ${lastNext}`);
      assert.ok(g.leftMetres < lastLeft);
      near(g.next.alongMetres + g.located.alongMetres, second, 1e-6);
      near(g.next.seconds, g.next.alongMetres / WALKING_PACE, 1e-6);
      near(g.leftMetres, r.lengthMetres - g.located.alongMetres, 1 + r.lengthMetres / 1000);
      assert.ok(g.next.straightMetres <= g.next.alongMetres + 1, 'the straight line is never longer than the road');
      lastNext = g.next.alongMetres;
      lastLeft = g.leftMetres;
      checked += 1;
    }
    assert.ok(checked > 5, `only ${checked} points checked`);
  });

  test('the first view: the visitor and the next stop on the road, the start away from it', async () => {
    const { tour, route: r } = await built;
    const track = trackOf(r, tour.stops);
    const [latitude, longitude] = r.lines[0][300];
    const on = firstView({ track, stops: tour.stops, visited: new Set([1, 2]), position: { latitude, longitude } });
    assert.equal(on.onTour, true);
    assert.deepEqual(on.points, [[latitude, longitude],
      [tour.stops[2].coordinate.latitude, tour.stops[2].coordinate.longitude]]);
    const away = firstView({ track, stops: tour.stops, visited: new Set(), position: { latitude: 45.5, longitude: -122.7 } });
    assert.equal(away.onTour, false);
    assert.deepEqual(away.points[1], [tour.stops[0].coordinate.latitude, tour.stops[0].coordinate.longitude]);
    const unknown = firstView({ track, stops: tour.stops, visited: new Set(), position: null });
    assert.equal(unknown.onTour, false);
    assert.deepEqual(unknown.points[0], r.lines[0][0]);
  });
});

describe('a visitor on a route', () => {
  // Out and back along a parallel at 45° N: 0.01° of longitude east and back, about 788 m each way.
  const outAndBack = route([[[10, 45], [10.005, 45], [10.01, 45], [10.005, 45], [10, 45]]], { a: 0, far: 788 });
  const stops = [stop('a', 45, 10), stop('far', 45, 10.01)];

  test('of the two passes of an out-and-back trail, the one nearest to where the visitor last was', () => {
    const track = trackOf(outAndBack, stops);
    const half = track.lengthMetres / 2;
    const p = { latitude: 45.0001, longitude: 10.0025 }; // a quarter of the way out, 11 m north
    const outward = locateVisitor(track, p, 0);
    const back = locateVisitor(track, p, half + 100);
    near(outward.alongMetres, half / 4, 1);
    near(back.alongMetres, track.lengthMetres - half / 4, 1);
    near(outward.offsetMetres, 11.12, 0.05);
    // Turned back early: a fix a little behind the last one stays on the outward pass.
    near(locateVisitor(track, p, half / 4 + 30).alongMetres, half / 4, 1);
    // The stop rule takes the first pass after the previous stop's point.
    near(locateStop(track, p, half).alongMetres, track.lengthMetres - half / 4, 1);
    near(locateStop(track, p).alongMetres, half / 4, 1);
  });

  test('a stop behind the visitor is a negative distance along the route', () => {
    const track = trackOf(outAndBack, stops);
    const g = guidance({ track, stops, visited: new Set(), position: { latitude: 45, longitude: 10.003 }, hint: 0 });
    assert.equal(g.next.index, 0);
    assert.ok(g.next.alongMetres < -200 && g.next.alongMetres > -250, String(g.next.alongMetres));
    assert.ok(g.next.seconds > 0);
  });

  test('off the trail beyond 100 m plus the fix\'s uncertainty (up to 100 m more); then no distance along it', () => {
    const track = trackOf(outAndBack, stops);
    const degreesNorth = (m) => m / 111132;
    const at = (m, accuracy) => guidance({
      track, stops, visited: new Set([1]), position: { latitude: 45 + degreesNorth(m), longitude: 10.005, accuracy }, hint: 0,
    });
    assert.equal(at(90, 5).offTrail, false);
    assert.equal(at(110, 5).offTrail, true);
    assert.equal(at(150, 80).offTrail, false);
    assert.equal(at(190, 500).offTrail, false);
    assert.equal(at(210, 500).offTrail, true);
    const off = at(300, 5);
    assert.equal(off.next.alongMetres, null);
    assert.equal(off.leftMetres, null);
    near(off.next.seconds, off.next.straightMetres / WALKING_PACE, 1e-6);
    assert.equal(isOffTrail(track, OFF_TRAIL_METRES + 1), true);
  });

  test('a route across the antimeridian, cut there into two lines, is walked as one', () => {
    const r = route([[[179.99, -17], [180, -17]], [[-180, -17], [-179.99, -17]]], { w: 0, e: 2129 });
    const track = trackOf(r, [stop('w', -17, 179.99), stop('e', -17, -179.99)]);
    near(track.lengthMetres, 2129, 2);
    const east = locateVisitor(track, { latitude: -17, longitude: -179.995 });
    near(east.alongMetres, track.lengthMetres * 0.75, 1);
    near(east.offsetMetres, 0, 0.01);
    const west = locateVisitor(track, { latitude: -17.0001, longitude: 179.995 });
    near(west.alongMetres, track.lengthMetres * 0.25, 1);
  });

  test('a stop the route file does not list is placed by the rule', () => {
    const r = route([[[10, 45], [10.01, 45]]], { a: 0 });
    const track = trackOf(r, [stop('a', 45, 10), stop('unlisted', 45.0001, 10.005)]);
    near(track.stops[1], track.lengthMetres / 2, 1);
  });
});

describe('a tour without a route: straight lines from stop to stop', () => {
  const stops = [stop('a', 45, 10), stop('b', 45, 10.01), stop('c', 45.01, 10.01)];
  const track = trackOf(null, stops);

  test('its stops lie where their lines start and the tour ends at the last', () => {
    assert.equal(track.route, false);
    assert.equal(track.stops[0], 0);
    near(track.stops[1], geodesicMetres(45, 10, 45, 10.01), 1e-6);
    near(track.stops[2], track.lengthMetres, 1e-6);
  });

  test('it is never off the trail; what is left is along the lines', () => {
    const g = guidance({ track, stops, visited: new Set([1]), position: { latitude: 45.002, longitude: 10.005 } });
    assert.equal(g.offTrail, false);
    assert.equal(g.next.index, 1);
    near(g.leftMetres, track.lengthMetres - track.stops[1] / 2, 1);
    near(g.next.bearing, 120, 2);
  });

  test('every stop visited: no next stop', () => {
    const g = guidance({ track, stops, visited: new Set([1, 2, 3]), position: { latitude: 45.01, longitude: 10.01 } });
    assert.equal(g.next, null);
    near(g.leftMetres, 0, 1e-6);
  });

  test('the first view: near the lines is on the tour, farther than 1 km is not', () => {
    assert.equal(firstView({ track, stops, visited: new Set(), position: { latitude: 45.005, longitude: 10.005 } }).onTour, true);
    assert.equal(firstView({ track, stops, visited: new Set(), position: { latitude: 45.02, longitude: 10.005 } }).onTour, false);
  });

  test('one stop alone is a track of no length', () => {
    const one = trackOf(null, [stop('a', 45, 10)]);
    const g = guidance({ track: one, stops: [stop('a', 45, 10)], visited: new Set(), position: { latitude: 45.001, longitude: 10 } });
    near(g.next.straightMetres, 111.1, 0.2);
    assert.equal(g.leftMetres, 0);
  });

  test('a position that is not a pair of numbers is not located', () => {
    assert.equal(locateVisitor(track, { latitude: NaN, longitude: 10 }), null);
    const g = guidance({ track, stops, visited: new Set(), position: { latitude: undefined, longitude: 1 } });
    assert.equal(g.located, null);
    assert.equal(g.next, null);
  });
});

describe('words and the screen', () => {
  test('durations in the locale', () => {
    assert.equal(formatDuration(20, 'en'), '1 min');
    assert.equal(formatDuration(12 * 60 + 10, 'en'), '12 min');
    assert.equal(formatDuration(95 * 60, 'en'), '1 hr 35 min');
    assert.equal(formatDuration(121 * 60, 'en'), '2 hr');
    assert.equal(formatDuration(-1, 'en'), '');
    assert.equal(formatDuration(NaN, 'en'), '');
    assert.match(formatDuration(95 * 60, 'de'), /^1 Std\.? 35 Min\.?$/);
  });

  test('markers nearer than 44 px are grouped, chains included', () => {
    const points = [{ x: 0, y: 0 }, { x: 100, y: 100 }, { x: 30, y: 10 }, { x: 60, y: 20 }, { x: 100, y: 145 }, { x: 300, y: 0 }];
    assert.deepEqual(overlappingGroups(points), [[0, 2, 3], [1], [4], [5]]);
    assert.deepEqual(overlappingGroups(points, 50), [[0, 2, 3], [1, 4], [5]]);
    assert.deepEqual(overlappingGroups([]), []);
  });

  test('spread markers do not overlap one another', () => {
    for (const n of [1, 2, 3, 4, 5, 8, 12]) {
      const offsets = spreadOffsets(n);
      assert.equal(offsets.length, n);
      assert.deepEqual(overlappingGroups(offsets, TARGET_PIXELS).length, n, `${n} markers`);
    }
  });

  test('a group\'s label names its stops as runs', () => {
    assert.equal(groupLabel([2, 3, 4, 5]), '2–5');
    assert.equal(groupLabel([2, 4, 7]), '2, 4, 7');
    assert.equal(groupLabel([1, 2, 5, 6, 7]), '1, 2, 5–7');
  });
});

// A package with a route, read the way the app reads it, gives a track: the pieces fit.
test('a hand-made package\'s route gives a track with the file\'s stop distances', async () => {
  const feature = {
    type: 'Feature',
    geometry: { type: 'LineString', coordinates: [[10, 45], [10.01, 45]] },
    properties: { lengthMetres: 788.2, stops: [{ slug: 'a', distanceMetres: 0, offsetMetres: 0 }, { slug: 'b', distanceMetres: 700, offsetMetres: 0 }] },
  };
  const bytes = new TextEncoder().encode(JSON.stringify(feature));
  const { createHash } = await import('node:crypto');
  const manifest = {
    id: 'org.example.t', version: '1', name: 'T',
    waypoints: [{ order: 1, slug: 'a', name: 'A', coordinate: { latitude: 45, longitude: 10 } },
      { order: 2, slug: 'b', name: 'B', coordinate: { latitude: 45, longitude: 10.01 } }],
    mapAssets: [{ path: 'map/route.geojson', kind: 'text', size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') }],
  };
  const blob = new Blob([makeZip([deflatedFile('manifest.json', new TextEncoder().encode(JSON.stringify(manifest))),
    deflatedFile('map/route.geojson', bytes)])]);
  const tour = await openTour(blob);
  const { route: r } = await readRoute(tour.archive, tour.manifest);
  const track = trackOf(r, tour.stops);
  assert.deepEqual(track.stops, [0, 700]);
});
