import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatValue, percentText, tooltipValue } from './format.ts';

test('tooltip values have 4 significant digits, exponent form only for very large or small magnitudes', () => {
  assert.equal(formatValue(0.9314631223678589), '0.9315');
  assert.equal(formatValue(2.891000270843506), '2.891');
  assert.equal(formatValue(2.5), '2.5');
  assert.equal(formatValue(-0.04166666666), '-0.04167');
  assert.equal(formatValue(12345.67), '12350');
  assert.equal(formatValue(123456), '1.235e+5');
  // Rounding decides the form: 99999.9 rounds to 1.000e5 and 0.00099996 to 0.001.
  assert.equal(formatValue(99999.9), '1e+5');
  assert.equal(formatValue(0.00099996), '0.001');
  assert.equal(formatValue(0.000123456), '1.235e-4');
  assert.equal(formatValue(0), '0');
  assert.equal(formatValue(NaN), 'NaN');
  assert.equal(formatValue(-Infinity), '-Infinity');
});

test('a min/max band reads "min – max" with the same digits as a line', () => {
  assert.equal(tooltipValue([0.9314631223678589, 2.891000270843506]), '0.9315 – 2.891');
  assert.equal(tooltipValue(0.9314631223678589), '0.9315');
  assert.equal(tooltipValue('n/a'), 'n/a');
});

test('fractions read as percent, as in the trading evaluation table (issue 26 item 10)', () => {
  assert.deepEqual([0.05, -0.012345, 0, 1.5, NaN].map((v) => percentText(v)), ['5%', '-1.23%', '0%', '150%', '–']);
  assert.equal(percentText(0.04545, 1), '4.5%');
});
