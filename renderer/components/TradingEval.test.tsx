import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderToStaticMarkup } from 'react-dom/server';
import { parseRunConfig } from '../../common/config.ts';
import { createDashboard } from '../store.ts';
import { GroupTradingEvalTable, shownEvalMetrics, shownTestMetrics, TradingEvalTable } from './TradingEval.tsx';

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

test("a seed group's trading table has a row per member, their mean and the interval its charts draw, then buy and hold; no single run's table", () => {
  const member = (ret: number, sharpe: number) => ({ ...metrics, return: ret, sharpe });
  const members = [
    { name: 'seed 3', metrics: member(0.01, 1) },
    { name: 'seed 4', metrics: member(0.03, 3) },
    { name: 'seed 5', metrics: undefined },
  ];
  const rows = (html: string) => [...html.matchAll(/<tr(?: class="group-stat")?><td>(.*?)<\/td><td>(.*?)<\/td><td>(.*?)<\/td><td>(.*?)<\/td>/g)].map((m) => m.slice(1));
  const minmax = renderToStaticMarkup(<GroupTradingEvalTable members={members} band="minmax" />);
  assert.match(minmax, /Evaluation on the validation span \(what checkpoint selection reads\): 2 of 3 seeds/);
  assert.deepEqual(rows(minmax), [
    ['agent, seed 3 (trades on 88.40% of decisions)', '1.00%', '-16.44%', '1.00 ± 7.87'],
    ['agent, seed 4 (trades on 88.40% of decisions)', '3.00%', '-16.44%', '3.00 ± 7.87'],
    ['mean over 2 seeds', '2.00%', '-16.44%', '2.00'],
    ['min–max over seeds', '1.00% – 3.00%', '-16.44% – -16.44%', '1.00 – 3.00'],
    ['buy and hold', '-0.73%', '-0.83%', '-6.11 ± 7.87'],
  ]);
  // The 95% t-interval of the mean of 1 and 3 (and of 1% and 3%): 2 -+ 12.7062 * sqrt(2) / sqrt(2).
  const ci = rows(renderToStaticMarkup(<GroupTradingEvalTable members={members} band="ci95" />));
  assert.deepEqual(ci[3], ['95% t-interval of the mean', '-10.71% – 14.71%', '-16.44% – -16.44%', '-10.71 – 14.71']);
  assert.equal(renderToStaticMarkup(<GroupTradingEvalTable members={[{ name: 'seed 3', metrics: undefined }]} band="minmax" />), '', 'no member evaluated yet');
  const d = createDashboard();
  d.store.setState({ lastEpoch: { ...epoch, eval_metrics: metrics }, view: { kind: 'group', group: 'g', config: parseRunConfig({ env: { kind: 'trading', data: 'x.csv' } }), band: 'minmax', shownMembers: [] } });
  assert.equal(shownEvalMetrics(d.store.getState()), undefined, "a group's view shows no single run's (the live run's) table");
});
