// The panel's maps (Sources/TrailPackPanel/Resources/js/map.js), their pure half: what a map
// element's data- attributes say (base layer, frame, view, stops), where the map opens, what an
// arrow key, Enter or Escape on a stop's marker does, what a click and a drawn frame write into
// the page's fields, and "Draw the frame" as a gesture — under Node's own test runner, without
// a page or Leaflet.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ARROW_STEP, DEFAULT_VIEW, DRAWN_CLICK_MS, FrameGesture, SHIFT_STEP, baseLayer, boxOf, clickFields, cornersBox,
  edgesBox, firstView, frameFields, frameOf, hasOldPlace, markerKey, movedWords, nextMove, placeFields, REFRESHED_PARTS,
  replaceParts, showsFrame, stopLabel, stopList, stopTitle, viewOf,
} from '../../Sources/TrailPackPanel/Resources/js/map.js';

describe('what the data- attributes say', () => {
  test('the base layer: tiles when configured, else the tour\'s own map with the grid, else the grid alone', () => {
    assert.deepEqual(baseLayer({ tileUrl: 'https://tiles.example/{z}/{x}/{y}.png', tileAttribution: '© OSM' }), {
      url: 'https://tiles.example/{z}/{x}/{y}.png', options: { attribution: '© OSM', maxZoom: 19 }, grid: false,
    });
    assert.deepEqual(baseLayer({ tileUrl: 'https://t/{z}/{x}/{y}.png' }).options.attribution, '');
    const own = baseLayer({
      tileUrl: '', ownTiles: '/drafts/s/t/tiles/{z}/{x}/{y}', ownLabel: 'the site\'s region map',
      ownMinZoom: '8', ownMaxZoom: '14', ownBounds: '44.1,-122.5,44.6,-121.8',
    });
    assert.deepEqual(own, {
      url: '/drafts/s/t/tiles/{z}/{x}/{y}', grid: true,
      options: {
        attribution: 'the site\'s region map', maxZoom: 19, minNativeZoom: 8, maxNativeZoom: 14,
        bounds: [[44.1, -122.5], [44.6, -121.8]],
      },
    });
    const bare = baseLayer({ ownTiles: '/tiles/{z}/{x}/{y}', ownMinZoom: 'x', ownBounds: '1,2,3' });
    assert.deepEqual(bare.options, { attribution: 'the tour\'s offline map', maxZoom: 19, minNativeZoom: 0, maxNativeZoom: 19 });
    assert.deepEqual(baseLayer({ tileUrl: '', tileAttribution: '' }), { url: null, options: null, grid: true });
  });

  test('boxes of four finite edges only', () => {
    assert.deepEqual(boxOf([1, 2, 3, 4]), [[1, 2], [3, 4]]);
    assert.equal(boxOf([1, 2, 3]), null);
    assert.equal(boxOf([1, 2, NaN, 4]), null);
    assert.equal(boxOf([1, 2, Infinity, 4]), null);
    assert.deepEqual(edgesBox('44.1,-122.5,44.6,-121.8'), [[44.1, -122.5], [44.6, -121.8]]);
    for (const bad of [undefined, '', '1,2,3', '1,2,3,4,5', 'a,b,c,d', '1,,3,4']) assert.equal(edgesBox(bad), null, bad);
  });

  test('the frame and the view around other tours, from their own attributes', () => {
    const data = { south: '44.3', west: '-122.3', north: '44.5', east: '-122.0', viewSouth: '40', viewWest: '-125',
      viewNorth: '46', viewEast: '-116' };
    assert.deepEqual(frameOf(data), [[44.3, -122.3], [44.5, -122.0]]);
    assert.deepEqual(viewOf(data), [[40, -125], [46, -116]]);
    assert.equal(frameOf({ ...data, east: undefined }), null);
    assert.equal(viewOf({ ...data, viewNorth: '' }), null);
    assert.equal(frameOf({}), null);
  });

  test('the map opens on the frame, else the route, else the other tours, else the middle of the United States', () => {
    const frame = [[1, 1], [2, 2]];
    const route = [[3, 3], [4, 4]];
    const view = [[5, 5], [6, 6]];
    assert.deepEqual(firstView(frame, route, view), { bounds: frame });
    assert.deepEqual(firstView(null, route, view), { bounds: route });
    assert.deepEqual(firstView(null, null, view), { bounds: view });
    const none = firstView(null, null, null);
    assert.deepEqual(none, { center: [39.5, -98.35], zoom: 4 });
    none.center[0] = 0;
    assert.deepEqual(DEFAULT_VIEW.center, [39.5, -98.35], 'a copy');
  });

  test('the frame is drawn on the editor\'s and the review page\'s maps only', () => {
    const frame = [[1, 1], [2, 2]];
    assert.equal(showsFrame(frame, { editor: '' }), true);
    assert.equal(showsFrame(frame, { review: '' }), true);
    assert.equal(showsFrame(frame, {}), false);
    assert.equal(showsFrame(null, { editor: '' }), false);
  });

  test('the stops: those with a place; anything unreadable gives none', () => {
    const stops = [{ n: 1, name: 'Sweet Home', lat: 44.39, lon: -122.73, action: '/x/stops/1/move', rev: 'a1' },
      { n: 2, name: 'House Rock', lat: 44.4, lon: -122.2, oldLat: 44.41, oldLon: -122.21 }];
    assert.deepEqual(stopList(JSON.stringify(stops)), stops);
    assert.deepEqual(stopList(JSON.stringify([...stops, null, 3, { n: 3, name: 'x', lat: '44', lon: 1 },
      { n: 4, name: 'y', lat: 44 }])), stops);
    for (const bad of [undefined, '', 'not json', '{}', '"stops"', 'null']) assert.deepEqual(stopList(bad), [], bad);
  });

  test('a stop marker\'s title and label (with its keys in the editor); a moved stop\'s old place', () => {
    const stop = { n: 3, name: 'Fish Lake', lat: 44.4, lon: -121.9 };
    assert.equal(stopTitle(stop), '3. Fish Lake');
    assert.equal(stopLabel(stop, false), 'Stop 3: Fish Lake');
    assert.equal(stopLabel(stop, true),
      'Stop 3: Fish Lake. Arrow keys move it; Enter saves the new place, Escape puts it back.');
    assert.equal(hasOldPlace(stop), false);
    assert.equal(hasOldPlace({ ...stop, oldLat: 44.3, oldLon: -121.8 }), true);
    assert.equal(hasOldPlace({ ...stop, oldLat: 44.3 }), false);
    assert.equal(hasOldPlace({ ...stop, oldLat: null, oldLon: null }), false, 'null is no place (not 0, 0)');
  });
});

describe('what a key on a stop\'s marker does', () => {
  test('arrows move it 10 pixels, 1 with Shift, up being -y', () => {
    assert.equal(ARROW_STEP, 10);
    assert.equal(SHIFT_STEP, 1);
    const moves = ['ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight'].map((key) => markerKey(key, false, false));
    assert.deepEqual(moves, [
      { kind: 'move', dx: 0, dy: -10 }, { kind: 'move', dx: 0, dy: 10 },
      { kind: 'move', dx: -10, dy: 0 }, { kind: 'move', dx: 10, dy: 0 },
    ]);
    assert.deepEqual(markerKey('ArrowLeft', true, true), { kind: 'move', dx: -1, dy: 0 });
    assert.deepEqual(markerKey('ArrowDown', true, false), { kind: 'move', dx: 0, dy: 1 });
  });

  test('Enter saves and Escape puts back only the marker\'s own waiting move; other keys are the map\'s', () => {
    assert.deepEqual(markerKey('Enter', false, true), { kind: 'save' });
    assert.deepEqual(markerKey('Escape', false, true), { kind: 'putBack' });
    assert.equal(markerKey('Enter', false, false), null);
    assert.equal(markerKey('Escape', false, false), null);
    for (const key of ['Tab', '+', '-', ' ', 'a', 'Up']) assert.equal(markerKey(key, false, true), null, key);
  });

  test('the move bar\'s words, and what "Save the new place" sends', () => {
    const stop = { n: 2, name: 'House Rock', rev: 'b7', action: '/x/stops/2/move' };
    assert.equal(movedWords(stop, 12.5), 'Stop 2, House Rock, moved 13 m. ');
    assert.equal(movedWords(stop, 0.4), 'Stop 2, House Rock, moved 0 m. ');
    assert.deepEqual(placeFields({ lat: 44.123456789, lng: -122.1 }, stop),
      { latitude: '44.123457', longitude: '-122.100000', stopRevision: 'b7' });
    assert.deepEqual(placeFields({ lat: 1, lng: 2 }, { n: 1, name: 'x' }), { latitude: '1.000000', longitude: '2.000000' });
  });
});

describe('the move waiting for "Save the new place"', () => {
  const one = { marker: 'marker 1', stop: { n: 1, name: 'Sweet Home' }, from: { lat: 44.39, lng: -122.73 } };
  const oneAgain = { marker: 'marker 1', stop: one.stop, from: { lat: 44.40, lng: -122.70 } };
  const two = { marker: 'marker 2', stop: { n: 2, name: 'House Rock' }, from: { lat: 44.4, lng: -122.2 } };

  test('the first move waits; moved again, the same marker\'s move goes on from where it started', () => {
    assert.deepEqual(nextMove(null, one), { waiting: one, putBack: null });
    assert.deepEqual(nextMove(one, oneAgain), { waiting: one, putBack: null });
  });

  test('another marker moved: the waiting move is put back, and the new one waits (the bar speaks of it)', () => {
    assert.deepEqual(nextMove(one, two), { waiting: two, putBack: one });
  });
});

describe('what a click and a drawn frame change', () => {
  test('a click fills "Add a stop"\'s latitude and longitude, six decimals', () => {
    assert.deepEqual(clickFields({ lat: 44.39551234, lng: -122.14049876 }),
      { 'add-latitude': '44.395512', 'add-longitude': '-122.140499' });
  });

  test('a frame drawn either way round fills the frame fields south < north, west < east', () => {
    const box = cornersBox({ lat: 44.5, lng: -121.9 }, { lat: 44.3, lng: -122.3 });
    assert.deepEqual(box, { south: 44.3, west: -122.3, north: 44.5, east: -121.9 });
    assert.deepEqual(cornersBox({ lat: 44.3, lng: -122.3 }, { lat: 44.5, lng: -121.9 }), box);
    assert.deepEqual(frameFields(box), {
      'frame-south': '44.300000', 'frame-west': '-122.300000', 'frame-north': '44.500000', 'frame-east': '-121.900000',
    });
  });

  test('"Draw the frame": nothing happens until the button; press, drag and release draw it once', () => {
    const g = new FrameGesture();
    const a = { lat: 44.5, lng: -122.3 };
    const b = { lat: 44.3, lng: -121.9 };
    assert.equal(g.press(a), false, 'not armed: a press is the map\'s (dragging it)');
    assert.equal(g.drag(b), null);
    assert.equal(g.release(b, 0), null);
    assert.equal(g.click(0), false, 'a click places a stop');
    g.arm();
    assert.equal(g.drag(b), null, 'armed, not pressed yet');
    assert.equal(g.press(a), true);
    assert.deepEqual(g.drag(b), [a, b]);
    assert.deepEqual(g.release(b, 1000), { south: 44.3, west: -122.3, north: 44.5, east: -121.9 });
    assert.equal(g.press(a), false, 'one frame per press of the button');
    assert.equal(g.release(b, 1001), null);
  });

  test('the click that ends a drawing places no stop; the next one does, and so does a click long after', () => {
    const g = new FrameGesture();
    const at = { lat: 1, lng: 1 };
    g.arm();
    g.press(at);
    g.release(at, 5000);
    assert.equal(g.click(5000 + DRAWN_CLICK_MS - 1), true);
    assert.equal(g.click(5000 + DRAWN_CLICK_MS - 1), false, 'only the one click');
    g.arm();
    g.press(at);
    g.release(at, 9000);
    assert.equal(g.click(9000 + DRAWN_CLICK_MS), false, 'a click well after the drawing is a click');
  });

  test('pressing the button again starts afresh', () => {
    const g = new FrameGesture();
    g.arm();
    g.press({ lat: 1, lng: 1 });
    g.arm();
    assert.equal(g.drag({ lat: 2, lng: 2 }), null);
    assert.equal(g.release({ lat: 2, lng: 2 }, 0), null);
  });
});

describe('a stop added in place: the parts of the page it changes', () => {
  const page = (parts) => ({ getElementById: (id) => (id in parts ? parts[id] : null) });

  test('what to fix and the stop list are both taken from the page as the server shows it now', () => {
    assert.deepEqual(REFRESHED_PARTS, ['findings-area', 'stops-section']);
    const findings = { innerHTML: '<section id="findings">the tour has no stops yet</section>' };
    const stops = { innerHTML: '<p>No stops yet</p>' };
    const fresh = page({ 'findings-area': { innerHTML: '' }, 'stops-section': { innerHTML: '<ol id="stop-list"></ol>' } });
    assert.deepEqual(replaceParts(page({ 'findings-area': findings, 'stops-section': stops }), fresh, REFRESHED_PARTS),
      ['findings-area', 'stops-section']);
    assert.equal(findings.innerHTML, '', 'the summary that said "no stops yet" is gone');
    assert.equal(stops.innerHTML, '<ol id="stop-list"></ol>');
  });

  test('a part missing from the page or from the answer (a sign-in page, an error) is left as it is', () => {
    const stops = { innerHTML: 'the list' };
    assert.deepEqual(replaceParts(page({ 'stops-section': stops }), page({}), REFRESHED_PARTS), []);
    assert.equal(stops.innerHTML, 'the list');
    assert.deepEqual(replaceParts(page({}), page({ 'stops-section': { innerHTML: 'x' } }), REFRESHED_PARTS), []);
  });
});
