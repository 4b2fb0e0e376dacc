import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatTradingEval, isTradingMetrics, TRADING_UNITS, tradingEvalReport } from './trading-eval.ts';

// A metric map as the native trading env reports it (native/src/env/trading_env.h).
const metrics: Record<string, number> = {
  return: -0.1634, return_simple: -0.1784, sharpe: -221.5, sharpe_se: 8.12, max_drawdown: 0.1638, ruined: 0, turnover: 2293.4, costs: 0.1072, financing: 0, trade_fraction: 0.884,
  bars: 5998, bars_per_year: 371008, span_begin_bar: 23997, span_end_bar: 29996, span_first_time: 1706054400, span_last_time: 1706745540,
  flat_return: 0, flat_return_simple: 0, flat_sharpe: 0, flat_sharpe_se: 0, flat_max_drawdown: 0, flat_ruined: 0, flat_turnover: 0, flat_costs: 0, flat_financing: 0,
  buy_and_hold_return: -0.0073, buy_and_hold_return_simple: -0.00728, buy_and_hold_sharpe: -6.11, buy_and_hold_sharpe_se: 7.87, buy_and_hold_max_drawdown: 0.0082, buy_and_hold_ruined: 0,
  buy_and_hold_turnover: 2.0004, buy_and_hold_costs: 0.0001, buy_and_hold_financing: 0,
  ma_crossover_return: -0.0116, ma_crossover_return_simple: -0.0117, ma_crossover_sharpe: -14.56, ma_crossover_sharpe_se: 7.87, ma_crossover_max_drawdown: 0.0136, ma_crossover_ruined: 1,
  ma_crossover_turnover: 31.2, ma_crossover_costs: 0.0016, ma_crossover_financing: 0,
};

test('the flat metric map is regrouped as the agent beside its three baselines, with units', () => {
  assert.ok(isTradingMetrics(metrics));
  assert.ok(!isTradingMetrics({}));
  const r = tradingEvalReport(metrics);
  assert.deepEqual([r.return, r.return_simple, r.sharpe, r.sharpe_se, r.max_drawdown, r.ruined, r.turnover, r.costs, r.trade_fraction, r.bars, r.bars_per_year], [-0.1634, -0.1784, -221.5, 8.12, 0.1638, 0, 2293.4, 0.1072, 0.884, 5998, 371008]);
  assert.deepEqual(r.span, { name: 'validation', first_bar: '2024-01-24T00:00:00.000Z', last_bar: '2024-01-31T23:59:00.000Z', bars: 5999 });
  assert.equal(tradingEvalReport(metrics, 'test').span.name, 'test');
  assert.deepEqual(Object.keys(r.baselines), ['flat', 'buy_and_hold', 'ma_crossover_20_60']);
  assert.deepEqual(r.baselines.ma_crossover_20_60, { return: -0.0116, return_simple: -0.0117, sharpe: -14.56, sharpe_se: 7.87, max_drawdown: 0.0136, ruined: 1, turnover: 31.2, costs: 0.0016, financing: 0 });
  assert.deepEqual([r.buy_and_hold_return, r.buy_and_hold_sharpe], [-0.0073, -6.11]);
  assert.equal(r.units, TRADING_UNITS);
  assert.ok(Number.isNaN(tradingEvalReport({ sharpe: 1 }).baselines.flat.return), 'a missing figure is NaN, not 0');
  assert.deepEqual(tradingEvalReport({ sharpe: 1 }).span.first_bar, null, 'a summary from before spans were reported names no dates');
});

test('the terminal line prints every figure with its unit and flags ruin', () => {
  assert.equal(
    formatTradingEval(metrics, 'test'),
    'test span: agent return -16.34% (simple -17.84%), Sharpe -221.50 ± 8.12, max DD 16.38%, turnover 2293x, costs 10.72%, trades 88.40% of decisions | buy&hold -0.73%, Sharpe -6.11, turnover 2.00x | MA 20/60 -1.16%, Sharpe -14.56, turnover 31x RUINED | flat 0.00% (Sharpe annualized with 371008 bars/yr of this span; ± is Lo\'s standard error)',
  );
});
