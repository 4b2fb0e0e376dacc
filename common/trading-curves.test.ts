import { test } from 'node:test';
import assert from 'node:assert/strict';
import { downsampleMinMax, drawdown, evalCurves, EvalCurvesSchema, MAX_CURVE_POINTS } from './trading-curves.ts';

test('a short series is kept whole; a long one keeps the first, last, and every bucket min and max, within the bound', () => {
  assert.deepEqual(downsampleMinMax([3, 1, 2], 10), { x: [0, 1, 2], y: [3, 1, 2] });
  // 10,000 points of a sine with two spikes: the spikes and the global extremes survive.
  const n = 10_000;
  const y = Array.from({ length: n }, (_, i) => Math.sin(i / 50));
  y[1234] = 5;
  y[8765] = -7;
  const d = downsampleMinMax(y, 100);
  assert.ok(d.x.length <= 100 && d.x.length === d.y.length, `${d.x.length} points`);
  assert.deepEqual([d.x[0], d.y[0], d.x.at(-1), d.y.at(-1)], [0, y[0], n - 1, y[n - 1]]);
  assert.ok(d.x.includes(1234) && d.x.includes(8765));
  assert.equal(Math.max(...d.y), 5);
  assert.equal(Math.min(...d.y), -7);
  for (let i = 1; i < d.x.length; i++) assert.ok(d.x[i]! > d.x[i - 1]!, 'x increases');
  d.x.forEach((x, i) => assert.equal(d.y[i], y[x]!, 'each point is a real sample'));
  // Every bucket's extremes: the max of any x range between kept points is attained at a kept point.
  assert.equal(downsampleMinMax(y, MAX_CURVE_POINTS).x.length <= MAX_CURVE_POINTS, true);
  assert.deepEqual(downsampleMinMax([1, 2, 3, 4, 5], 3, 1), { x: [1, 5], y: [1, 5] }); // no bucket fits: ends only
});

test('drawdown is 1 - equity / running peak', () => {
  assert.deepEqual(Array.from(drawdown([1, 1.1, 0.99, 1.2, 0.6])), [0, 0, 1 - 0.99 / 1.1, 0, 0.5]);
});

test('evalCurves bounds every curve, keeps the last equity, and passes its schema; no series, no curves', () => {
  const n = 50_000;
  const equity = new Float64Array(n + 1);
  const hold = new Float64Array(n + 1);
  const position = new Float64Array(n);
  equity[0] = hold[0] = 1;
  for (let i = 1; i <= n; i++) {
    equity[i] = equity[i - 1]! * (1 + 0.001 * Math.sin(i));
    hold[i] = hold[i - 1]! * (1 + 0.0005 * Math.cos(i / 7));
    position[i - 1] = i % 3 === 0 ? 1 : 0;
  }
  const c = evalCurves({ equity, buy_and_hold_equity: hold, position }, 3, 1500)!;
  assert.equal(c.bars, n);
  assert.equal(c.equity.y.at(-1), equity[n]);
  assert.equal(c.buy_and_hold_equity.y.at(-1), hold[n]);
  assert.deepEqual([c.position.x[0], c.position.x.at(-1)], [1, n]);
  assert.deepEqual([Math.min(...c.position.y), Math.max(...c.position.y)], [0, 1]);
  assert.equal(Math.max(...c.drawdown.y), Math.max(...drawdown(equity)));
  for (const k of ['equity', 'buy_and_hold_equity', 'position', 'drawdown', 'buy_and_hold_drawdown'] as const) assert.ok(c[k].x.length <= MAX_CURVE_POINTS, k);
  assert.ok(JSON.stringify(c).length < 300_000, 'a small message');
  assert.deepEqual(EvalCurvesSchema.parse(JSON.parse(JSON.stringify(c))), c);
  assert.equal(evalCurves({}, 1, 1), undefined);
});
