import { test } from 'node:test';
import assert from 'node:assert/strict';
import { summaryJson } from './summary.ts';
import { parseRunConfig } from '../../common/config.ts';

const epoch = { epoch: 3, step: 300, env_steps: 1200, epoch_time_s: 0.5, steps_per_s: 200, eval_mean_return: 42, eval_episodes: 10, eval_metrics: {} };

test('the summary rate is this invocation\'s steps over its wall time; the last epoch\'s rate is beside it', () => {
  const s = summaryJson({ preset: 'cartpole' }, { state: 'finished', steps: 300, env_steps: 1200, wall_s: 9, session_steps: 200, session_wall_s: 4, last: epoch }, 'cpu', 'cpu', '/runs/r');
  assert.equal(s.steps_per_s, 50, '200 steps in 4 s (the run\'s earlier sessions do not count)');
  assert.equal(s.last_epoch_steps_per_s, 200);
  assert.equal(s.wall_s, 9);
  assert.deepEqual([s.preset, s.config, s.resumed_from], ['cartpole', null, null]);
});

test('the summary names a config file or a resumed run instead of a preset; no epoch gives null rates and returns', () => {
  const outcome = { state: 'stopped' as const, steps: 10, env_steps: 40, wall_s: 1, session_steps: 0, session_wall_s: 0 };
  const fromFile = summaryJson({ config: '/tmp/c.json' }, outcome, 'cpu', 'cpu', '/runs/r');
  assert.deepEqual([fromFile.preset, fromFile.config, fromFile.resumed_from], [null, '/tmp/c.json', null]);
  const resumed = summaryJson({ resumedFrom: '/runs/r' }, outcome, 'cpu', 'cpu', '/runs/r');
  assert.deepEqual([resumed.preset, resumed.config, resumed.resumed_from], [null, null, '/runs/r']);
  assert.equal(resumed.steps_per_s, 0);
  assert.equal(resumed.last_epoch_steps_per_s, null);
  assert.equal(resumed.eval_mean_return, null);
});

test('a trading summary names its episodic figure in basis points of equity whatever reward_scale, and carries the agent beside its baselines', () => {
  const config = parseRunConfig({ seed: 4, env: { kind: 'trading', data: 'x.csv', reward_scale: 100, gap_policy: 'flat' } });
  const metrics = { return: 0.02, return_simple: 0.019, sharpe: 1.5, sharpe_se: 0.7, max_drawdown: 0.05, ruined: 0, trade_fraction: 0.1, bars: 500, bars_per_year: 252, buy_and_hold_return: 0.03, buy_and_hold_sharpe: 1.1 };
  const s = summaryJson({ preset: 'p' }, { state: 'finished', steps: 1, env_steps: 1, wall_s: 1, last: { ...epoch, eval_mean_return: 1.9, eval_metrics: metrics } }, 'cpu', 'cpu', '/r', config);
  assert.equal(s.eval_mean_return, undefined, 'no unitless episodic figure for trading');
  assert.ok(Math.abs(s.eval_mean_reward_bps! - 190) < 1e-9, '1.9 reward at scale 100 is 0.019 of equity, 190 bp');
  assert.match(s.eval_mean_reward_bps_unit!, /basis points of equity/);
  assert.equal(s.seed, 4);
  assert.deepEqual([s.eval!.return, s.eval!.sharpe_se, s.eval!.gap_policy, s.eval!.baselines.buy_and_hold.return], [0.02, 0.7, 'flat', 0.03]);
  assert.match(s.eval!.units.return, /compounded/);
});

test('a trading summary labels the validation evaluation and the held-out test evaluation apart', () => {
  const config = parseRunConfig({ env: { kind: 'trading', data: 'x.csv', test_fraction: 0.2 } });
  const val = { return: 0.02, sharpe: 1.5, buy_and_hold_return: 0.03, span_first_time: 0, span_last_time: 60, span_begin_bar: 10, span_end_bar: 20 };
  const test = { return: -0.01, sharpe: -0.5, buy_and_hold_return: 0.01, span_first_time: 120, span_last_time: 180, span_begin_bar: 30, span_end_bar: 40 };
  const s = summaryJson({ preset: 'p' }, { state: 'finished', steps: 1, env_steps: 1, wall_s: 1, last: { ...epoch, eval_metrics: val, test_metrics: test, test_mean_return: -1 } }, 'cpu', 'cpu', '/r', config);
  assert.deepEqual([s.eval!.span.name, s.eval!.return, s.eval!.span.first_bar], ['validation', 0.02, '1970-01-01T00:00:00.000Z']);
  assert.deepEqual([s.test!.span.name, s.test!.return, s.test!.span.last_bar, s.test!.span.bars], ['test', -0.01, '1970-01-01T00:03:00.000Z', 10]);
  const without = summaryJson({ preset: 'p' }, { state: 'finished', steps: 1, env_steps: 1, wall_s: 1, last: { ...epoch, eval_metrics: val } }, 'cpu', 'cpu', '/r', config);
  assert.equal(without.test, undefined, 'no test evaluation, no test object');
});

test('a run that ended at its target return says so in its summary (the target, the epoch and its evaluation); one that ran every epoch has no such field', () => {
  const target = { target_return: 475, epoch: 3, epochs: 10, eval_mean_return: 500 };
  const s = summaryJson({ preset: 'cartpole' }, { state: 'finished', steps: 300, env_steps: 1200, wall_s: 9, last: { ...epoch, eval_mean_return: 500, target_return: 475 }, target }, 'cpu', 'cpu', '/runs/r');
  assert.equal(s.state, 'finished');
  assert.deepEqual(s.stopped_at_target, { target_return: 475, epoch: 3, epochs: 10, eval_mean_return: 500 });
  assert.equal(s.eval_mean_return, 500);
  const all = summaryJson({ preset: 'cartpole' }, { state: 'finished', steps: 300, env_steps: 1200, wall_s: 9, last: epoch }, 'cpu', 'cpu', '/runs/r');
  assert.equal('stopped_at_target' in all, false);
});
