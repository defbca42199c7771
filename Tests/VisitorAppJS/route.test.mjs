// Tests of the visitor app's route reader (Sources/TrailPackVisitor/app/js/route.js): a tour's
// `map/route.geojson` (docs/FORMAT.md section 3.3) read out of a hand-made package, checked and
// turned into Leaflet lines; hostile routes answered with no route and a reason, never an
// exception; and the route's numbers in the units of a locale. Run with
// `node --test Tests/VisitorAppJS/route.test.mjs` (no trailpack binary needed: the builder does
// not write routes yet, so the packages here are made by hand).

import { deflatedFile, makeZip, storedFile } from './support.mjs';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';

import {
  MAX_POSITIONS, ROUTE_LIMIT, ROUTE_PATH, formatHeight, formatLength, mapFrame, nearLongitude, parseRoute,
  readRoute, routeSummary, stopDistance, unitSystem, unwrapPoints,
} from '../../Sources/TrailPackVisitor/app/js/route.js';
import { openTour } from '../../Sources/TrailPackVisitor/app/js/tour.js';

// MARK: helpers

/** A route Feature as the builder writes it; `geometry` and `properties` override its parts. */
function feature({ geometry, properties } = {}) {
  return {
    type: 'Feature',
    geometry: geometry ?? {
      type: 'LineString',
      coordinates: [[-122.7262, 44.3976], [-122.7031, 44.4012], [-122.6801, 44.4102]],
    },
    properties: {
      lengthMetres: 4521.7,
      stops: [
        { slug: 'sweet-home', distanceMetres: 0, offsetMetres: 3.1 },
        { slug: 'house-rock', distanceMetres: 4521.7, offsetMetres: 12 },
      ],
      ...properties,
    },
  };
}

/** The answer of parseRoute for `json`, which must be no route with a reason matching `pattern`. */
function assertRefused(json, pattern, context) {
  let answer;
  assert.doesNotThrow(() => { answer = parseRoute(json); }, context);
  assert.equal(answer.route, null, `${context}: a route came back`);
  assert.equal(typeof answer.reason, 'string', `${context}: no reason`);
  assert.match(answer.reason, pattern, context);
}

/** A line of `n` positions along a parallel, a thousandth of a degree apart. */
const lineOf = (n, lon = 10, lat = 45) => Array.from({ length: n }, (_, i) => [lon + i * 0.001, lat]);

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');
const encode = (value) => new TextEncoder().encode(typeof value === 'string' ? value : JSON.stringify(value));

/**
 * A package of two stops as a Blob: manifest.json and, unless `route` is null, map/route.geojson
 * (deflated unless `stored`), listed in mapAssets with its size and SHA-256 (`asset` overrides
 * the listing; `bytes` replaces the file's bytes after it was listed).
 */
function tourPackage({ route = feature(), stored = false, asset = {}, bytes } = {}) {
  const files = [];
  const manifest = {
    formatVersion: '1.2', id: 'org.example.route', version: '1.0.0', name: 'A road with a route',
    waypoints: [
      { order: 1, slug: 'sweet-home', name: 'Sweet Home', coordinate: { latitude: 44.3976, longitude: -122.7262 } },
      { order: 2, slug: 'house-rock', name: 'House Rock', coordinate: { latitude: 44.4102, longitude: -122.6801 } },
    ],
  };
  if (route !== null) {
    const data = encode(route);
    manifest.mapAssets = [{
      path: ROUTE_PATH, kind: 'text', mediaType: 'application/geo+json', size: data.length, sha256: sha256(data),
      ...asset,
    }];
    files.push((stored ? storedFile : deflatedFile)(ROUTE_PATH, bytes ?? data));
  }
  files.unshift(deflatedFile('manifest.json', encode(manifest)));
  return new Blob([makeZip(files)]);
}

/** What readRoute answers for a package. */
async function routeOf(blob) {
  const tour = await openTour(blob);
  return readRoute(tour.archive, tour.manifest);
}

/** Text with any kind of space (Intl's no-break and narrow no-break spaces) as a plain one. */
const plain = (text) => text.replace(/\s/gu, ' ');

// MARK: parseRoute

describe('parseRoute', () => {
  test('a LineString without elevations: Leaflet latlngs, length and stops by slug', () => {
    const { route, reason } = parseRoute(feature());
    assert.equal(reason, null);
    assert.deepEqual(route.lines, [[[44.3976, -122.7262], [44.4012, -122.7031], [44.4102, -122.6801]]]);
    assert.equal(route.positions, 3);
    assert.equal(route.elevations, false);
    assert.equal(route.lengthMetres, 4521.7);
    assert.equal('ascentMetres' in route, false);
    assert.equal('descentMetres' in route, false);
    assert.deepEqual([...route.stops], [
      ['sweet-home', { distanceMetres: 0, offsetMetres: 3.1 }],
      ['house-rock', { distanceMetres: 4521.7, offsetMetres: 12 }],
    ]);
    assert.deepEqual(route.stages, []);
  });

  test('a MultiLineString with elevations: each line in order, ascent, descent and stages', () => {
    const { route, reason } = parseRoute(feature({
      geometry: {
        type: 'MultiLineString',
        coordinates: [
          [[-122.7262, 44.3976, 165], [-122.7031, 44.4012, 171.4]],
          [[-122.7, 44.41, 180.2], [-122.69, 44.42, 175], [-122.68, 44.43, 190.5]],
        ],
      },
      properties: {
        ascentMetres: 31.7, descentMetres: 5.2,
        stages: [{ name: 'Day 1: the valley', from: 'sweet-home', to: 'house-rock', lengthMetres: 4521.7 }],
      },
    }));
    assert.equal(reason, null);
    assert.deepEqual(route.lines, [
      [[44.3976, -122.7262], [44.4012, -122.7031]],
      [[44.41, -122.7], [44.42, -122.69], [44.43, -122.68]],
    ]);
    assert.equal(route.positions, 5);
    assert.equal(route.elevations, true);
    assert.equal(route.ascentMetres, 31.7);
    assert.equal(route.descentMetres, 5.2);
    assert.deepEqual(route.stages,
      [{ name: 'Day 1: the valley', from: 'sweet-home', to: 'house-rock', lengthMetres: 4521.7 }]);
  });

  test('a route cut at the antimeridian is drawn in one piece: longitudes unwrapped across its lines', () => {
    // Eastward across 180° (Fiji's Taveuni), cut there as RFC 7946 asks, then on into a third line.
    const east = parseRoute(feature({
      geometry: {
        type: 'MultiLineString',
        coordinates: [
          [[179.8, -16.8], [179.95, -16.85], [180, -16.9]],
          [[-180, -16.9], [-179.9, -16.95]],
          [[-179.85, -17], [-179.7, -17.1]],
        ],
      },
    }));
    assert.equal(east.reason, null);
    assert.deepEqual(east.route.lines.map((line) => line.map(([, lng]) => Math.round(lng * 100) / 100)),
      [[179.8, 179.95, 180], [180, 180.1], [180.15, 180.3]]);
    assert.deepEqual(east.route.lines.map((line) => line.map(([lat]) => lat)),
      [[-16.8, -16.85, -16.9], [-16.9, -16.95], [-17, -17.1]]);
    // Westward: the other way round, below -180°.
    const west = parseRoute(feature({
      geometry: { type: 'MultiLineString', coordinates: [[[-179.9, 65], [-180, 65.1]], [[180, 65.1], [179.8, 65.2]]] },
    }));
    assert.equal(west.reason, null);
    assert.deepEqual(west.route.lines.map((line) => line.map(([, lng]) => Math.round(lng * 100) / 100)),
      [[-179.9, -180], [-180, -180.2]]);
    // A route near 180° that does not cross it is left as it is.
    const near = parseRoute(feature({ geometry: { type: 'LineString', coordinates: [[179.1, 0], [179.9, 0.5], [180, 1]] } }));
    assert.deepEqual(near.route.lines, [[[0, 179.1], [0.5, 179.9], [1, 180]]]);
  });

  test('a line across the antimeridian that was not cut is refused (the format forbids it)', () => {
    assertRefused(feature({ geometry: { type: 'LineString', coordinates: [[179.9, 0], [-179.9, 0]] } }),
      /antimeridian/, 'a line from 179.9 to -179.9');
    assertRefused(feature({ geometry: { type: 'MultiLineString', coordinates: [[[10, 0], [11, 0]], [[-170, 0], [20, 0]]] } }),
      /line 2 .*antimeridian at position 2/, 'a jump of 190° in the second line');
  });

  test('exactly 100,000 positions are a route; one more is not, and huge lists are refused unread', () => {
    const half = MAX_POSITIONS / 2;
    const full = parseRoute(feature({ geometry: { type: 'MultiLineString', coordinates: [lineOf(half), lineOf(half)] } }));
    assert.equal(full.reason, null);
    assert.equal(full.route.positions, MAX_POSITIONS);
    assertRefused(feature({ geometry: { type: 'LineString', coordinates: lineOf(MAX_POSITIONS + 1) } }),
      /more than 100000 positions/, '100,001 positions in one line');
    assertRefused(feature({ geometry: { type: 'MultiLineString', coordinates: [lineOf(half), lineOf(half + 1)] } }),
      /more than 100000 positions/, '100,001 positions over two lines');
    // Holes: had a position been looked at, the reason would be about that position.
    assertRefused(feature({ geometry: { type: 'LineString', coordinates: new Array(50_000_000) } }),
      /more than 100000 positions/, 'fifty million holes');
  });

  test('hostile routes: no route and a reason, never an exception', () => {
    const geometry = (coordinates, type = 'LineString') => feature({ geometry: { type, coordinates } });
    const cases = [
      [null, /not a GeoJSON Feature/, 'null'],
      ['{"type": "Feature"}', /not a GeoJSON Feature/, 'a string'],
      [[feature()], /not a GeoJSON Feature/, 'an array'],
      [{ ...feature(), type: 'FeatureCollection' }, /not a GeoJSON Feature/, 'a FeatureCollection'],
      [{ ...feature(), geometry: undefined }, /no geometry/, 'no geometry'],
      [{ ...feature(), geometry: [] }, /no geometry/, 'a geometry that is an array'],
      [feature({ geometry: { type: 'Point', coordinates: [10, 45] } }), /not a LineString/, 'a Point'],
      [feature({ geometry: { type: 'Polygon', coordinates: [lineOf(4)] } }), /not a LineString/, 'a Polygon'],
      [geometry('10,45 11,46'), /no lines|not a list of positions/, 'coordinates as a string'],
      [geometry(null), /not a list of positions/, 'coordinates null'],
      [geometry([], 'MultiLineString'), /no lines/, 'a MultiLineString of no lines'],
      [geometry([lineOf(2), 'line'], 'MultiLineString'), /line 2 .*not a list of positions/, 'a line that is a string'],
      [geometry([[10, 45]]), /fewer than 2 positions/, 'a route of one point'],
      [geometry([lineOf(3), [[10, 45]]], 'MultiLineString'), /line 2 .*fewer than 2/, 'a second line of one point'],
      [geometry([[10, 45], [10]]), /position 2 of line 1 is not \[longitude/, 'a position of one number'],
      [geometry([[10, 45], [10, 45, 100, 4]]), /is not \[longitude/, 'a position of four numbers'],
      [geometry([[10, 45], { 0: 10, 1: 45, length: 2 }]), /is not \[longitude/, 'a position that is an object'],
      [geometry([['10', '45'], ['11', '45']]), /not a pair of finite numbers/, 'numbers as strings'],
      [geometry([[10, 45], [NaN, 45]]), /not a pair of finite numbers/, 'NaN'],
      [geometry([[10, 45], [10, Infinity]]), /not a pair of finite numbers/, 'Infinity'],
      [geometry([[10, 45], [10, null]]), /not a pair of finite numbers/, 'null latitude'],
      [geometry([[10, 45], [180.0001, 45]]), /longitude outside/, 'longitude 180.0001'],
      [geometry([[-181, 45], [-180, 45]]), /longitude outside/, 'longitude -181'],
      [geometry([[10, 45], [10, 90.5]]), /latitude outside/, 'latitude 90.5'],
      [geometry([[10, -91], [10, -90]]), /latitude outside/, 'latitude -91'],
      [geometry([[10, 45, 100], [10, 45, 10000.5]]), /elevation/, 'an elevation over 10,000 m'],
      [geometry([[10, 45, -1000.5], [10, 45, 0]]), /elevation/, 'an elevation under -1,000 m'],
      [geometry([[10, 45, '100'], [10, 45, 0]]), /elevation/, 'an elevation as a string'],
      [geometry([[10, 45, 100], [10, 45, NaN]]), /elevation/, 'an elevation NaN'],
      [geometry([[10, 45, 100], [10.1, 45]]), /elevations on some positions only/, 'mixed positions'],
      [{ ...feature(), properties: undefined }, /no properties/, 'no properties'],
      [{ ...feature(), properties: [] }, /no properties/, 'properties that are an array'],
      [feature({ properties: { lengthMetres: undefined } }), /length/, 'no length'],
      [feature({ properties: { lengthMetres: '4521.7' } }), /length/, 'a length as a string'],
      [feature({ properties: { lengthMetres: -1 } }), /length/, 'a negative length'],
      [feature({ properties: { lengthMetres: Infinity } }), /length/, 'an infinite length'],
      [feature({ properties: { ascentMetres: 10, descentMetres: 5 } }), /ascent or descent but no elevations/,
        'an ascent without elevations'],
      [feature({ geometry: { type: 'LineString', coordinates: [[10, 45, 1], [10.1, 45, 2]] } }),
        /elevations but no ascent/, 'elevations without an ascent'],
      [feature({ geometry: { type: 'LineString', coordinates: [[10, 45, 1], [10.1, 45, 2]] },
        properties: { ascentMetres: 1, descentMetres: -0.5 } }), /elevations but no ascent/, 'a negative descent'],
      [feature({ properties: { stops: undefined } }), /does not list its stops/, 'no stops'],
      [feature({ properties: { stops: { 'sweet-home': 0 } } }), /does not list its stops/, 'stops as an object'],
      [feature({ properties: { stops: [null] } }), /stop 1 .*no slug/, 'a stop that is null'],
      [feature({ properties: { stops: [{ slug: 7, distanceMetres: 0, offsetMetres: 0 }] } }), /stop 1 /, 'a numeric slug'],
      [feature({ properties: { stops: [{ slug: 'a', distanceMetres: -3, offsetMetres: 0 }] } }), /stop 1 /,
        'a negative distance'],
      [feature({ properties: { stops: [{ slug: 'a', distanceMetres: 3 }] } }), /stop 1 /, 'no offset'],
      [feature({ properties: { stops: [{ slug: 'a', distanceMetres: 0, offsetMetres: 0 },
        { slug: 'a', distanceMetres: 5, offsetMetres: 0 }] } }), /twice/, 'a stop listed twice'],
      [feature({ properties: { stages: [] } }), /stages/, 'an empty list of stages'],
      [feature({ properties: { stages: 'Day 1' } }), /stages/, 'stages as a string'],
      [feature({ properties: { stages: [{ name: ' ', from: 'a', to: 'b', lengthMetres: 1 }] } }), /stage 1 /,
        'a blank stage name'],
      [feature({ properties: { stages: [{ name: 'Day 1', from: 'a', lengthMetres: 1 }] } }), /stage 1 /,
        'a stage without its last stop'],
    ];
    for (const [json, pattern, context] of cases) assertRefused(json, pattern, context);
  });

  test('objects that throw when read are no route either', () => {
    const trap = new Proxy({}, { get() { throw new Error('a trap'); } });
    assertRefused(trap, /cannot be read \(a trap\)/, 'a proxy');
    const line = [[10, 45], [11, 45]];
    Object.defineProperty(line, 1, { get() { throw new Error('a getter'); } });
    assertRefused(feature({ geometry: { type: 'LineString', coordinates: line } }), /a getter/, 'a position getter');
  });

  test('members it does not read are ignored (the server\'s verifier is strict about them)', () => {
    const json = feature({ properties: { note: 'hello' } });
    json.bbox = [0, 0, 1, 1];
    json.id = 7;
    assert.equal(parseRoute(json).reason, null);
  });
});

// MARK: readRoute

describe('readRoute from a stored package', () => {
  test('a deflated route, as the builder writes it, and a stored one, both read and checked', async () => {
    for (const stored of [false, true]) {
      const { route, reason } = await routeOf(tourPackage({ stored }));
      assert.equal(reason, null, `stored: ${stored}`);
      assert.equal(route.lines[0].length, 3);
      assert.equal(route.lengthMetres, 4521.7);
      assert.equal(stopDistance(route, { slug: 'house-rock' }), 4521.7);
    }
  });

  test('a tour without a route: no route and no reason (straight lines, nothing to say)', async () => {
    assert.deepEqual(await routeOf(tourPackage({ route: null })), { route: null, reason: null });
    // Another .geojson under map/ is an ordinary file, not the route.
    const other = await routeOf(tourPackage({ asset: { path: 'map/trails.geojson' } }));
    assert.deepEqual(other, { route: null, reason: null });
  });

  test('a route changed on the phone, or of another size than listed, is not drawn', async () => {
    const changed = encode(feature({ properties: { lengthMetres: 4521.8 } }));
    const original = encode(feature());
    assert.equal(changed.length, original.length);
    const edited = await routeOf(tourPackage({ bytes: changed }));
    assert.equal(edited.route, null);
    assert.match(edited.reason, /was changed on this phone/);
    const resized = await routeOf(tourPackage({ asset: { size: original.length + 1 } }));
    assert.match(resized.reason, /does not have the size the tour says/);
    const unhashed = await routeOf(tourPackage({ asset: { sha256: 'not a hash' } }));
    assert.match(unhashed.reason, /no SHA-256/);
    const unsized = await routeOf(tourPackage({ asset: { size: '4 kB' } }));
    assert.match(unsized.reason, /size is not stated/);
  });

  test('a route listed but missing from the ZIP', async () => {
    const tour = await openTour(tourPackage());
    const archive = { entry: () => null, bytes: () => assert.fail('nothing to read') };
    const { route, reason } = await readRoute(archive, tour.manifest);
    assert.equal(route, null);
    assert.match(reason, /missing from the tour/);
  });

  test('over 16 MiB is refused before a byte is read, listed or found so in the ZIP', async () => {
    const tour = await openTour(tourPackage());
    const reading = { entry: (name) => tour.archive.entry(name), bytes: () => assert.fail('the route was read') };
    const listed = { ...tour.manifest, mapAssets: [{ ...tour.manifest.mapAssets[0], size: ROUTE_LIMIT + 1 }] };
    const big = await readRoute(reading, listed);
    assert.equal(big.route, null);
    assert.match(big.reason, /16777217 bytes; the limit is 16777216/);
    // The ZIP's own entry larger than the limit: the reader's bounded read refuses it.
    const entry = { ...tour.archive.entry(ROUTE_PATH), size: ROUTE_LIMIT + 1 };
    const zipped = await readRoute({ entry: () => entry, bytes: (e, limit) => tour.archive.bytes(e, limit) },
      { ...tour.manifest, mapAssets: [{ ...tour.manifest.mapAssets[0], size: ROUTE_LIMIT + 1 }] });
    assert.match(zipped.reason, /the limit is/);
  });

  test('bytes that are not UTF-8 JSON, damaged deflate data, a hostile route: no route, with the reason', async () => {
    const latin1 = Uint8Array.from([0x7b, 0x22, 0xe9, 0x22, 0x3a, 0x31, 0x7d]); // {"é":1} in Latin-1
    const notUtf8 = await routeOf(tourPackage({ route: 'x', asset: { size: latin1.length, sha256: sha256(latin1) }, bytes: latin1 }));
    assert.match(notUtf8.reason, /not JSON in UTF-8/);
    const text = encode('{"type": "Feature",');
    const notJson = await routeOf(tourPackage({ route: '{"type": "Feature",', bytes: text }));
    assert.match(notJson.reason, /not JSON in UTF-8/);
    const hostile = await routeOf(tourPackage({ route: feature({ geometry: { type: 'LineString', coordinates: [[200, 0], [0, 0]] } }) }));
    assert.match(hostile.reason, /longitude outside/);
    // Deflate data damaged in the stored package: the ZIP reader's error becomes the reason.
    const zip = new Uint8Array(await tourPackage().arrayBuffer());
    const tour = await openTour(new Blob([zip]));
    const { start } = await tour.archive.dataRange(tour.archive.entry(ROUTE_PATH));
    for (const at of [0, 5, 20]) {
      const damaged = Uint8Array.from(zip);
      damaged[start + at] ^= 0xff;
      const answer = await routeOf(new Blob([damaged]));
      assert.equal(answer.route, null, `damaged at ${at}`);
      assert.match(answer.reason, /cannot be read|changed on this phone|not JSON/, `damaged at ${at}`);
    }
  });

  test('a manifest whose mapAssets are not a list, or hold odd things, is a tour without a route', async () => {
    const tour = await openTour(tourPackage());
    for (const mapAssets of [undefined, null, 'map/route.geojson', {}, [null, 7, 'x']]) {
      assert.deepEqual(await readRoute(tour.archive, { ...tour.manifest, mapAssets }), { route: null, reason: null });
    }
    assert.deepEqual(await readRoute(tour.archive, null), { route: null, reason: null });
  });
});

// MARK: drawing helpers

describe('drawing on the map', () => {
  test('nearLongitude and unwrapPoints move longitudes by whole turns only', () => {
    assert.equal(nearLongitude(-179, 179), 181);
    assert.equal(nearLongitude(179, -179), -181);
    assert.equal(nearLongitude(-122.7, -122.6), -122.7);
    assert.equal(nearLongitude(10, NaN), 10);
    assert.deepEqual(unwrapPoints([[-16.8, 179.9], [-16.9, -179.9], [-17, -179.5]]),
      [[-16.8, 179.9], [-16.9, 180.1], [-17, 180.5]]);
    assert.deepEqual(unwrapPoints([[0, -179.9], [0, 179.9]], 180.2), [[0, 180.1], [0, 179.9]]);
    const points = [[44.4, -122.7], [44.41, -122.68]];
    assert.deepEqual(unwrapPoints(points), points);
  });

  test('mapFrame: the manifest\'s bounds as Leaflet corners, across the antimeridian and near the drawing', () => {
    const bounds = (south, west, north, east) => ({
      southwest: { latitude: south, longitude: west }, northeast: { latitude: north, longitude: east },
    });
    assert.deepEqual(mapFrame(bounds(44, -123, 45, -122), -122.7), [[44, -123], [45, -122]]);
    assert.deepEqual(mapFrame(bounds(44, -123, 45, -122)), [[44, -123], [45, -122]]);
    // Across 180°: west edge 179, east edge -179, drawn from 179 to 181 (or -181 to -179).
    assert.deepEqual(mapFrame(bounds(-18, 179, -16, -179), 179.5), [[-18, 179], [-16, 181]]);
    assert.deepEqual(mapFrame(bounds(-18, 179, -16, -179), -179.5), [[-18, -181], [-16, -179]]);
    for (const bad of [undefined, null, {}, bounds(44, NaN, 45, -122), bounds(46, -123, 45, -122),
      bounds(44, -200, 45, -122), { southwest: { latitude: '44', longitude: 0 }, northeast: { latitude: 45, longitude: 1 } }]) {
      assert.equal(mapFrame(bad, 0), null, JSON.stringify(bad));
    }
  });

  test('stopDistance: by slug, null without a route or for a stop it does not list', () => {
    const { route } = parseRoute(feature());
    assert.equal(stopDistance(route, { slug: 'sweet-home' }), 0);
    assert.equal(stopDistance(route, { slug: 'house-rock' }), 4521.7);
    assert.equal(stopDistance(route, { slug: 'elsewhere' }), null);
    assert.equal(stopDistance(route, {}), null);
    assert.equal(stopDistance(null, { slug: 'sweet-home' }), null);
  });
});

// MARK: units

describe('units per locale', () => {
  test('miles and feet for the United States; kilometres and metres everywhere else', () => {
    for (const tag of ['en-US', 'es-US', 'en-us', 'en_US', 'en-Latn-US']) assert.equal(unitSystem(tag), 'imperial', tag);
    for (const tag of ['en', 'en-GB', 'en-CA', 'de-DE', 'es', 'es-MX', 'fr-FR', 'ja-JP', '', 'not a tag', null, undefined]) {
      assert.equal(unitSystem(tag), 'metric', String(tag));
    }
  });

  test('lengths: one decimal under 100, whole above, the small unit for short distances', () => {
    const cases = [
      ['en-US', 96412.3, '59.9 mi'], ['en-US', 412000, '256 mi'], ['en-US', 850, '0.5 mi'],
      ['en-US', 120, '394 ft'], ['en-US', 0, '0 ft'],
      ['en-GB', 96412.3, '96.4 km'], ['en-GB', 412000, '412 km'], ['en-GB', 850, '850 m'], ['en-GB', 0, '0 m'],
      ['en-GB', 1000, '1 km'],
      ['de-DE', 96412.3, '96,4 km'], ['de-DE', 1234567, '1.235 km'],
      ['es-ES', 96412.3, '96,4 km'], ['fr-FR', 96412.3, '96,4 km'], ['fr-FR', 1234567, '1 235 km'],
    ];
    for (const [locale, metres, expected] of cases) {
      assert.equal(plain(formatLength(metres, locale)), expected, `${locale} ${metres}`);
    }
    for (const bad of [NaN, -1, Infinity, '5', null]) assert.equal(formatLength(bad, 'en-GB'), '', String(bad));
  });

  test('heights: whole metres, or whole feet for the United States, grouped as the locale groups', () => {
    const cases = [
      ['en-US', 1571.2, '5,155 ft'], ['en-GB', 1571.2, '1,571 m'], ['de-DE', 1571.2, '1.571 m'],
      ['es-ES', 1571.2, '1571 m'], ['es-ES', 15712, '15.712 m'], ['fr-FR', 1571.2, '1 571 m'], ['en-GB', 0.4, '0 m'],
    ];
    for (const [locale, metres, expected] of cases) {
      assert.equal(plain(formatHeight(metres, locale)), expected, `${locale} ${metres}`);
    }
    assert.equal(formatHeight(-3, 'en-US'), '');
  });

  test('the summary line: length, then the climb when the route has elevations', () => {
    const climbing = { lengthMetres: 96412.3, ascentMetres: 1571.2, descentMetres: 842.6 };
    assert.equal(routeSummary(climbing, 'en-US'), 'Route: 59.9 mi, 5,155 ft up, 2,764 ft down');
    assert.equal(plain(routeSummary(climbing, 'de-DE')), 'Route: 96,4 km, 1.571 m up, 843 m down');
    assert.equal(routeSummary({ lengthMetres: 4521.7 }, 'en-GB'), 'Route: 4.5 km');
    assert.equal(routeSummary(parseRoute(feature()).route, 'en-US'), 'Route: 2.8 mi');
    // An invalid tag still gives numbers (in English), never an exception.
    assert.equal(routeSummary({ lengthMetres: 4521.7 }, 'not a tag'), 'Route: 4.5 km');
  });
});
