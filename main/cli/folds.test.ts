import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRunConfig } from '../../common/config.ts';
import { tradingEvalReport } from '../../common/trading-eval.ts';
import { foldList, foldRunName, poolWalks } from './folds.ts';

/** A test walk's report from its per-bar returns (bars per year given), as the env reports it. */
function walkOf(returns: number[], barsPerYear: number, turnover: number, costs: number) {
  const mean = returns.reduce((a, b) => a + b, 0) / returns.length;
  const sd = Math.sqrt(returns.reduce((a, r) => a + (r - mean) ** 2, 0) / (returns.length - 1));
  const total = returns.reduce((e, r) => e * (1 + r), 1) - 1;
  return tradingEvalReport({ return: total, turnover, costs, financing: 0, bars: returns.length, bars_per_year: barsPerYear, bar_return_mean: mean, bar_return_sd: sd }, 'test');
}

test('pooled test walks chain the returns and costs, sum the turnover, and give the Sharpe ratio of all the bars together', () => {
  const a = [0.02, 0.03, 0.04], b = [-0.03, -0.02];
  const pooled = poolWalks([walkOf(a, 100, 2, 0.001), walkOf(b, 50, 3, 0.002)]);
  const all = [...a, ...b];
  const mean = all.reduce((x, y) => x + y, 0) / 5;
  const sd = Math.sqrt(all.reduce((x, r) => x + (r - mean) ** 2, 0) / 4);
  // 3 bars at 100 a year and 2 at 50: 0.03 + 0.04 = 0.07 years, 5 / 0.07 bars a year.
  const bpy = 5 / 0.07;
  assert.ok(Math.abs(pooled.return - (all.reduce((e, r) => e * (1 + r), 1) - 1)) < 1e-15);
  assert.ok(Math.abs(pooled.costs - (0.001 + 0.002 * 1.02 * 1.03 * 1.04)) < 1e-15, 'the second fold pays from the equity the first left');
  assert.equal(pooled.turnover, 5);
  assert.equal(pooled.bars, 5);
  assert.ok(Math.abs(pooled.bars_per_year - bpy) < 1e-9);
  assert.ok(Math.abs(pooled.sharpe - (mean / sd) * Math.sqrt(bpy)) < 1e-9, `pooled Sharpe ${pooled.sharpe} vs ${(mean / sd) * Math.sqrt(bpy)}`);
  assert.throws(() => poolWalks([]), /at least one walk/);
});

test('walk-forward trains folds 0 .. K-1, each run named for its fold; a config without folds is refused', () => {
  assert.deepEqual(foldList(parseRunConfig({ env: { kind: 'trading', data: 'x.csv', folds: 3, test_fraction: 0.1 } })), [0, 1, 2]);
  assert.throws(() => foldList(parseRunConfig({ env: { kind: 'trading', data: 'x.csv' } })), /env\.folds >= 2 and env\.test_fraction > 0/);
  assert.equal(foldRunName('trading-6e', 2), 'trading-6e-fold2');
  assert.equal(foldRunName('x'.repeat(64), 1).length, 64);
});
