// The panel's coordinate grid (Sources/TrailPackPanel/Resources/js/grid.js): its steps, labels and
// the thinning that keeps labels from overlapping, under Node's own test runner.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  gridDigits, gridLabel, gridStep, gridValues, labelStride, labelWidth,
} from '../../Sources/TrailPackPanel/Resources/js/grid.js';

test('the step draws at least four lines across the view, and no more than about ten', () => {
  for (const span of [0.003, 0.01, 0.07, 0.3, 1.2, 4, 17, 60, 170]) {
    const step = gridStep(span), lines = span / step;
    assert.ok(lines >= 4 && lines <= 10.1, `${span}° across: ${lines} lines at ${step}°`);
  }
});

test('labels have the decimals their step needs, and never read "-0"', () => {
  assert.equal(gridDigits(2), 0);
  assert.equal(gridDigits(0.5), 1);
  assert.equal(gridDigits(0.05), 2);
  assert.equal(gridDigits(0.005), 3);
  assert.equal(gridLabel(-122.05, 2), '-122.05°');
  assert.equal(gridLabel(-0.0000001, 2), '0.00°');
  assert.deepEqual(gridValues(-122.31, -122.09, 0.05), [-122.3, -122.25, -122.2, -122.15, -122.1]);
  assert.deepEqual(gridValues(44.39, 44.41, 0.005), [44.39, 44.395, 44.4, 44.405, 44.41]);
});

test('labels are thinned out so that they never touch: every line when they fit, every k-th when not', () => {
  const wide = labelWidth(gridLabel(-122.305, 3));
  assert.equal(labelStride(200, wide), 1);
  for (const spacing of [10, 25, 40, 60, 75, 90]) {
    const stride = labelStride(spacing, wide);
    assert.ok(stride * spacing >= wide + 12,
      `${spacing} px apart, every ${stride}: ${stride * spacing} px for ${wide} px labels`);
    assert.ok(stride === 1 || (stride - 1) * spacing < wide + 12, 'no more thinning than needed');
  }
  assert.equal(labelStride(0, wide), 1);
});
