// Tests of hands-free narration (Sources/TrailPackVisitor/app/js/narration.js): arrival within a
// stop's own radius, once per walk; the queue of recordings, one at a time and never cut off; a
// page's recording holding the narration; the lock screen's pause, play and next. Run with
// `node --test Tests/VisitorAppJS/narration.test.mjs`.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';

import { Narration, arrivalAt, recordingOf } from '../../Sources/TrailPackVisitor/app/js/narration.js';

const metresNorth = (m) => m / 111195; // on the mean sphere, as distanceMetres measures
const stop = (latitude, longitude, properties) => ({ coordinate: { latitude, longitude }, properties });
const at = (latitude, longitude, accuracy = 5) => ({ latitude, longitude, accuracy });

describe('arrival', () => {
  const stops = [stop(45, 10), stop(45, 10.01, { radiusMetres: 150 }), stop(45, 10.02, { radiusMetres: 2 })];

  test('within 30 m by default, within the stop\'s own radiusMetres when it has one', () => {
    assert.equal(arrivalAt(stops, at(45 + metresNorth(25), 10), new Set()), 1);
    assert.equal(arrivalAt(stops, at(45 + metresNorth(35), 10), new Set()), null);
    assert.equal(arrivalAt(stops, at(45 + metresNorth(140), 10.01), new Set()), 2);
    assert.equal(arrivalAt(stops, at(45 + metresNorth(160), 10.01), new Set()), null);
  });

  test('a radius out of the sensible range (under 5 m) is the default 30 m', () => {
    assert.equal(arrivalAt(stops, at(45 + metresNorth(20), 10.02), new Set()), 3);
  });

  test('a stop announced on this walk is not announced again', () => {
    assert.equal(arrivalAt(stops, at(45, 10), new Set([1])), null);
  });

  test('a fix known to worse than 50 m (or the stop\'s radius) announces nothing', () => {
    assert.equal(arrivalAt(stops, at(45, 10, 60), new Set()), null);
    assert.equal(arrivalAt(stops, at(45, 10.01, 140), new Set()), 2);
    assert.equal(arrivalAt(stops, at(45, 10.01, 160), new Set()), null);
    assert.equal(arrivalAt(stops, { latitude: 45, longitude: 10 }, new Set()), 1, 'no accuracy: taken as it is');
  });

  test('of two stops in reach, the nearer', () => {
    const close = [stop(45, 10, { radiusMetres: 200 }), stop(45 + metresNorth(100), 10, { radiusMetres: 200 })];
    assert.equal(arrivalAt(close, at(45 + metresNorth(70), 10), new Set()), 2);
    assert.equal(arrivalAt(close, at(45 + metresNorth(70), 10), new Set([2])), 1);
  });

  test('a position that is not numbers is no arrival', () => {
    assert.equal(arrivalAt(stops, { latitude: NaN, longitude: 10 }, new Set()), null);
    assert.equal(arrivalAt(stops, null, new Set()), null);
  });
});

test('a stop\'s recording is its first audio asset of a type the app plays', () => {
  assert.equal(recordingOf({ assets: [{ kind: 'text' }, { kind: 'audio', mediaType: 'text/html', path: 'x' },
    { kind: 'audio', mediaType: 'audio/mpeg', path: 'a.mp3' }, { kind: 'audio', mediaType: 'audio/ogg', path: 'b' }] }).path, 'a.mp3');
  assert.equal(recordingOf({ assets: [{ kind: 'video', mediaType: 'video/mp4' }] }), null);
  assert.equal(recordingOf({}), null);
  assert.equal(recordingOf(null), null);
});

describe('the queue', () => {
  const on = () => new Narration({ enabled: true });

  test('nothing plays by itself without the opt-in; the visitor\'s own request plays', () => {
    const n = new Narration();
    assert.deepEqual(n.arrive(1, { hasRecording: true }), []);
    assert.deepEqual(n.arrive(1, { hasRecording: true, asked: true }), [{ type: 'play', stop: 1 }]);
  });

  test('a stop without a recording adds nothing', () => {
    assert.deepEqual(on().arrive(1, { hasRecording: false }), []);
  });

  test('one at a time, in the order reached, each to its end', () => {
    const n = on();
    assert.deepEqual(n.arrive(1, { hasRecording: true }), [{ type: 'play', stop: 1 }]);
    assert.deepEqual(n.arrive(2, { hasRecording: true }), [], 'not cut off: 2 waits');
    assert.deepEqual(n.arrive(3, { hasRecording: true }), []);
    assert.deepEqual(n.arrive(2, { hasRecording: true }), [], 'not queued twice');
    assert.deepEqual(n.arrive(1, { hasRecording: true }), [], 'the one playing is not queued');
    assert.deepEqual(n.queue, [2, 3]);
    assert.deepEqual(n.ended(), [{ type: 'play', stop: 2 }]);
    assert.deepEqual(n.ended(), [{ type: 'play', stop: 3 }]);
    assert.deepEqual(n.ended(), []);
    assert.equal(n.current, null);
    assert.equal(n.playing, false);
  });

  test('a page\'s recording holds the narration, which carries on after it', () => {
    const n = on();
    n.arrive(1, { hasRecording: true });
    assert.deepEqual(n.pagePlaying(true), [{ type: 'pause' }]);
    assert.equal(n.playing, false);
    assert.deepEqual(n.pagePlaying(true), [], 'told twice, done once');
    assert.deepEqual(n.arrive(2, { hasRecording: true }), []);
    assert.deepEqual(n.pagePlaying(false), [{ type: 'resume' }]);
    assert.equal(n.playing, true);
    assert.deepEqual(n.ended(), [{ type: 'play', stop: 2 }]);
  });

  test('an arrival while a page\'s recording plays waits for it', () => {
    const n = on();
    n.pagePlaying(true);
    assert.deepEqual(n.arrive(4, { hasRecording: true }), []);
    assert.deepEqual(n.pagePlaying(false), [{ type: 'play', stop: 4 }]);
  });

  test('the lock screen: pause, play, next', () => {
    const n = on();
    n.arrive(1, { hasRecording: true });
    n.arrive(2, { hasRecording: true });
    assert.deepEqual(n.pauseByVisitor(), [{ type: 'pause' }]);
    assert.deepEqual(n.pauseByVisitor(), []);
    assert.deepEqual(n.arrive(3, { hasRecording: true }), [], 'paused is still busy: 3 waits');
    assert.deepEqual(n.playByVisitor(), [{ type: 'resume' }]);
    assert.deepEqual(n.skip(), [{ type: 'stop' }, { type: 'play', stop: 2 }]);
    assert.deepEqual(n.skip(), [{ type: 'stop' }, { type: 'play', stop: 3 }]);
    assert.deepEqual(n.skip(), [{ type: 'stop' }]);
    assert.deepEqual(n.playByVisitor(), []);
  });

  test('paused by the visitor, then a page\'s recording: it stays paused after', () => {
    const n = on();
    n.arrive(1, { hasRecording: true });
    n.pauseByVisitor();
    assert.deepEqual(n.pagePlaying(true), []);
    assert.deepEqual(n.pagePlaying(false), []);
    assert.deepEqual(n.playByVisitor(), [{ type: 'resume' }]);
  });

  test('turned off: what plays ends as it is, nothing waiting starts', () => {
    const n = on();
    n.arrive(1, { hasRecording: true });
    n.arrive(2, { hasRecording: true });
    n.setEnabled(false);
    assert.deepEqual(n.arrive(3, { hasRecording: true }), []);
    assert.deepEqual(n.ended(), []);
  });

  test('a new walk stops the player and lets the queue go', () => {
    const n = on();
    n.arrive(1, { hasRecording: true });
    n.arrive(2, { hasRecording: true });
    assert.deepEqual(n.reset(), [{ type: 'stop' }]);
    assert.deepEqual(n.reset(), []);
    assert.deepEqual(n.arrive(2, { hasRecording: true }), [{ type: 'play', stop: 2 }]);
  });

  test('a walk of eight stops, reached in order while each recording plays: heard in order, never two at once', () => {
    const n = on();
    const heard = [];
    let playing = 0;
    const run = (actions) => {
      for (const a of actions) {
        if (a.type === 'play') {
          heard.push(a.stop);
          playing += 1;
        }
        if (a.type === 'stop') playing -= 1;
        assert.ok(playing <= 1, 'two at once');
      }
    };
    for (let s = 1; s <= 8; s++) {
      run(n.arrive(s, { hasRecording: s !== 5 }));
      if (s % 3 === 0) {
        playing -= 1;
        run(n.ended());
      }
    }
    while (n.current !== null) {
      playing -= 1;
      run(n.ended());
    }
    assert.deepEqual(heard, [1, 2, 3, 4, 6, 7, 8]);
  });
});
