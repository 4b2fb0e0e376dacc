import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tick } from './SeriesChart.tsx';

test('axis labels: 4 significant digits; large step counts with an SI prefix ("110k", not "1.1e+5"); exponent form only at the extremes', () => {
  assert.deepEqual([0, 0.035, 2.5, 1234.5, 90000].map(tick), ['0', '0.035', '2.5', '1235', '90000']);
  assert.deepEqual([100_000, 110_000, -250_000, 1_250_000, 3e9].map(tick), ['100k', '110k', '-250k', '1.25M', '3G']);
  assert.deepEqual([2e12, 0.0004].map(tick), ['2.0e+12', '4.0e-4']);
});
