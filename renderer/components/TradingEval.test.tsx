import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderToStaticMarkup } from 'react-dom/server';
import { parseRunConfig } from '../../common/config.ts';
import { createDashboard } from '../store.ts';
import { shownEvalMetrics, shownTestMetrics, TradingEvalTable } from './TradingEval.tsx';

const walk = (prefix: string, ret: number, sharpe: number, ruined = 0) => ({
  [`${prefix}return`]: ret, [`${prefix}return_simple`]: ret - 0.001, [`${prefix}sharpe`]: sharpe, [`${prefix}sharpe_se`]: 7.87, [`${prefix}max_drawdown`]: 0.01, [`${prefix}ruined`]: ruined,
  [`${prefix}turnover`]: 2.5, [`${prefix}costs`]: 0.0002,
});
const metrics = { ...walk('', -0.1634, -221.5), trade_fraction: 0.884, bars: 5998, bars_per_year: 371008, ...walk('flat_', 0, 0), ...walk('buy_and_hold_', -0.0073, -6.11), ...walk('ma_crossover_', -0.0116, -14.56, 1) };
const epoch = { epoch: 1, step: 50, env_steps: 400, epoch_time_s: 1, steps_per_s: 50, eval_mean_return: -1784, eval_episodes: 1 };

test('the trading evaluation panel shows the agent beside its baselines with units (the run shown), and nothing for CartPole', () => {
  const d = createDashboard();
  assert.equal(shownEvalMetrics(d.store.getState()), undefined, 'no evaluation yet');
  assert.equal(renderToStaticMarkup(<TradingEvalTable metrics={undefined} />), '');
  assert.equal(renderToStaticMarkup(<TradingEvalTable metrics={{}} />), '', 'a CartPole evaluation');
  d.store.setState({ lastEpoch: { ...epoch, eval_metrics: metrics } });
  assert.equal(shownEvalMetrics(d.store.getState()), metrics, 'the live run');
  const past = { ...metrics, return: 0.5 };
  d.store.setState({ view: { kind: 'history', runDir: '/runs/a', config: parseRunConfig({ env: { kind: 'trading', data: 'x.csv' } }), lastEpoch: { ...epoch, eval_metrics: past } } });
  assert.equal(shownEvalMetrics(d.store.getState()), past, 'an opened past run');
  const html = renderToStaticMarkup(<TradingEvalTable metrics={metrics} />);
  const rows = [...html.matchAll(/<tr><td>(.*?)<\/td><td>(.*?)<\/td><td>(.*?)<\/td><td>(.*?)<\/td><td>(.*?)<\/td><td>(.*?)<\/td><td>(.*?)<\/td><td>(.*?)<\/td><\/tr>/g)].map((m) => m.slice(1));
  assert.deepEqual(rows, [
    ['agent (trades on 88.40% of decisions)', '-16.34%', '-16.44%', '-221.50 ± 7.87', '1.00%', '2.50×', '0.02%', ''],
    ['buy and hold', '-0.73%', '-0.83%', '-6.11 ± 7.87', '1.00%', '2.50×', '0.02%', ''],
    ['MA 20/60 crossover', '-1.16%', '-1.26%', '-14.56 ± 7.87', '1.00%', '2.50×', '0.02%', 'ruined'],
    ['flat', '0.00%', '-0.10%', '0.00 ± 7.87', '1.00%', '2.50×', '0.02%', ''],
  ]);
  assert.match(html, /Evaluation on the validation span \(what checkpoint selection reads\)/);
  assert.match(html, /Sharpe is per-bar mean \/ std × √371008 bars per year of this span over 5998 bars/);
  // The test span, once the run has ended: its own table, labelled as held out.
  assert.equal(shownTestMetrics(d.store.getState()), undefined, 'no test span evaluated yet');
  d.store.setState({ view: { kind: 'history', runDir: '/runs/a', config: parseRunConfig({ env: { kind: 'trading', data: 'x.csv' } }), lastEpoch: { ...epoch, eval_metrics: past, test_metrics: metrics } } });
  assert.equal(shownTestMetrics(d.store.getState()), metrics);
  const test = renderToStaticMarkup(<TradingEvalTable metrics={{ ...metrics, span_first_time: 1706054400, span_last_time: 1706745540 }} span="test" />);
  assert.match(test, /Test span: held out, evaluated once at the end of the run/);
  assert.match(test, /Span: 2024-01-24T00:00 to 2024-01-31T23:59 UTC\./);
});
