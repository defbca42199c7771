// The route on the panel's maps (Sources/TrailPackPanel/Resources/js/route.js): the page's line
// read and checked, unwrapped across the antimeridian, its box, a chosen track checked before
// it is sent, and where the page goes once it is kept — under Node's own test runner.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  MAX_POSITIONS, afterTrack, routeBounds, routeLines, sizeWords, trackProblem,
} from '../../Sources/TrailPackPanel/Resources/js/route.js';

test('a page\'s lines are read as given: [lat, lon] pairs, line by line', () => {
  const text = JSON.stringify([[[44.3976, -122.7262], [44.4012, -122.7031]], [[44.41, -122.6], [44.42, -122.5]]]);
  assert.deepEqual(routeLines(text), [[[44.3976, -122.7262], [44.4012, -122.7031]], [[44.41, -122.6], [44.42, -122.5]]]);
  assert.deepEqual(routeLines(null), []);
  assert.deepEqual(routeLines(''), []);
});

test('anything that is not such lines gives no line at all (the map shows the stops only)', () => {
  for (const bad of [
    'not json', '{}', '[1]', '[[[44, -122]]]', '[[[44, -122], [44]]]', '[[[44, -122], [44, -122, 100]]]',
    '[[[91, -122], [44, -122]]]', '[[[44, -181], [44, -122]]]', '[[["44", -122], [44, -122]]]',
    '[[[44, -122], [null, -122]]]', '[[[1e999, -122], [44, -122]]]',
  ]) {
    assert.deepEqual(routeLines(bad), [], bad);
  }
  const long = [Array.from({ length: MAX_POSITIONS + 1 }, (_, i) => [44, -122 + i / 1e6])];
  assert.deepEqual(routeLines(JSON.stringify(long)), [], 'bounded');
  const most = [Array.from({ length: MAX_POSITIONS }, (_, i) => [44, -122 + i / 1e6])];
  assert.equal(routeLines(JSON.stringify(most))[0].length, MAX_POSITIONS);
});

test('a route cut at the antimeridian is drawn in one piece: longitudes unwrapped along it and across its lines', () => {
  const cut = [[[-16.8, 179.9], [-16.81, 180]], [[-16.81, -180], [-16.82, -179.9]]];
  const lines = routeLines(JSON.stringify(cut));
  assert.deepEqual(lines.map((l) => l.map((p) => Math.round(p[1] * 10) / 10)), [[179.9, 180], [180, 180.1]]);
  const [[s, w], [n, e]] = routeBounds(lines);
  assert.deepEqual([s, n], [-16.82, -16.8]);
  assert.ok(e - w < 0.3, `a narrow box, not the whole world: ${w}..${e}`);
});

test('the box around the lines; none for no lines', () => {
  assert.deepEqual(routeBounds([[[44.4, -122.7], [44.5, -122.1]], [[44.3, -121.9], [44.35, -121.8]]]),
    [[44.3, -122.7], [44.5, -121.8]]);
  assert.equal(routeBounds([]), null);
});

test('sizes in the server\'s words', () => {
  assert.deepEqual([0, 1023, 1024, 65536, 64 << 20, 3 * 1073741824].map(sizeWords),
    ['0 bytes', '1023 bytes', '1.0 KB', '64.0 KB', '64.0 MB', '3.0 GB']);
});

test('a chosen track is checked before it is sent: none, empty, too large, not .gpx; a good one passes', () => {
  const max = 64 << 20;
  assert.match(trackProblem(null, max), /No file was chosen/);
  assert.match(trackProblem({ name: 'track.gpx', size: 0 }, max), /'track.gpx' is empty/);
  const big = trackProblem({ name: 'year.gpx', size: max + 1 }, max);
  assert.match(big, /'year.gpx' is 64\.0 MB; the panel reads a track of at most 64\.0 MB\. Export only this tour's track/);
  assert.match(trackProblem({ name: 'photo.jpg', size: 10 }, max), /'photo.jpg' is not a GPX file/);
  assert.equal(trackProblem({ name: 'Santiam.GPX', size: 557939 }, max), null);
  assert.equal(trackProblem({ name: 'route.gpx', size: 557939 }, 0), null, 'no limit given: the server decides');
});

test('once the track is kept: the same page is reloaded at the answer\'s fragment; another page is opened', () => {
  const here = 'https://panel.example/drafts/w/santiam?lang=es#route-heading';
  assert.deepEqual(afterTrack('/drafts/w/santiam?lang=es#tour-route', here), { reload: '#tour-route' });
  assert.deepEqual(afterTrack('/drafts/w/santiam?lang=es', here), { reload: '' });
  assert.deepEqual(afterTrack('/drafts/w/santiam#tour-route', here),
    { assign: 'https://panel.example/drafts/w/santiam#tour-route' }, 'another query is another page');
  assert.deepEqual(afterTrack('/drafts/w/other', here), { assign: 'https://panel.example/drafts/w/other' });
});
