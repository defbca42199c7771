// The panel's coordinate grid (Sources/TrailPackPanel/Resources/js/grid.js): its steps, labels and
// spacing, under Node's own test runner.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  STEPS, gridDigits, gridLabel, gridValues, labelWidth, pickStep,
} from '../../Sources/TrailPackPanel/Resources/js/grid.js';

test('labels have the decimals their step needs, and never read "-0"', () => {
  assert.deepEqual([2, 0.5, 0.05, 0.02, 0.005, 0.0005].map(gridDigits), [0, 1, 2, 2, 3, 4]);
  assert.equal(gridLabel(-122.05, 2), '-122.05°');
  assert.equal(gridLabel(-0.0000001, 2), '0.00°');
});

test('lines are whole steps, counted not summed', () => {
  assert.deepEqual(gridValues(-122.31, -122.09, 0.05), [-122.3, -122.25, -122.2, -122.15, -122.1]);
  assert.deepEqual(gridValues(44.39, 44.41, 0.005), [44.39, 44.395, 44.4, 44.405, 44.41]);
  assert.equal(gridValues(-180, 180, 0.0005).length, 1000, 'bounded');
});

// The reported cases: a 746 px map at 44.41°N zoom 14 put -122.1750° labels (72 px) 58 px apart;
// at 61.2°N zoom 11 lines were 29 px apart under 56 px labels.
test('longitude lines are always the widest label plus a margin apart, and no wider step than needed', () => {
  const views = [
    { px: 746, west: -122.2, east: -122.136 }, { px: 746, west: 10.9, east: 11.41 },
    { px: 461, west: -122.25, east: -122.05 }, { px: 641, west: -130, east: -100 },
    { px: 420, west: -180, east: 180 }, { px: 1200, west: -122.2001, east: -122.1999 },
  ];
  for (const v of views) {
    const perDegree = v.px / (v.east - v.west);
    const step = pickStep(perDegree, v.west, v.east);
    const digits = gridDigits(step);
    const widest = Math.max(labelWidth(gridLabel(v.west, digits)), labelWidth(gridLabel(v.east, digits)));
    if (step !== STEPS[STEPS.length - 1]) {
      assert.ok(step * perDegree >= widest + 12 && step * perDegree >= 24, `${JSON.stringify(v)}: ${step}°`);
    }
    const smaller = STEPS[STEPS.indexOf(step) - 1];
    if (smaller !== undefined) {
      const d = gridDigits(smaller);
      const w = Math.max(labelWidth(gridLabel(v.west, d)), labelWidth(gridLabel(v.east, d)));
      assert.ok(smaller * perDegree < Math.max(24, w + 12), `${JSON.stringify(v)}: ${smaller}° would fit too`);
    }
  }
});
