import { test } from 'node:test';
import assert from 'node:assert/strict';
import { plotRightMargin, tick } from './SeriesChart.tsx';

test('axis labels: 4 significant digits; large step counts with an SI prefix ("110k", not "1.1e+5"); exponent form only at the extremes', () => {
  assert.deepEqual([0, 0.035, 2.5, 1234.5, 90000].map(tick), ['0', '0.035', '2.5', '1235', '90000']);
  assert.deepEqual([100_000, 110_000, -250_000, 1_250_000, 3e9].map(tick), ['100k', '110k', '-250k', '1.25M', '3G']);
  assert.deepEqual([2e12, 0.0004].map(tick), ['2.0e+12', '4.0e-4']);
});

test("the plot leaves room right of it for half its last x tick label, which may sit on the plot's right edge (a '5000' there lost its last digit)", () => {
  assert.equal(plotRightMargin(undefined), 12);
  assert.equal(plotRightMargin('2'), 12, 'a short label fits the least margin');
  assert.ok(plotRightMargin('5000') >= 16, `'5000' is about 28 px wide: ${plotRightMargin('5000')}`);
  assert.ok(plotRightMargin('1.25M') >= 20, `'1.25M' is about 35 px wide: ${plotRightMargin('1.25M')}`);
});
