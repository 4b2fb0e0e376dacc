import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HostCommandSchema, HostMessageSchema } from '../common/protocol.ts';
import { rankTrials, sweepListing, type SweepView } from '../common/sweep-state.ts';
import { createDashboard } from './store.ts';
import { constraintsTexts, listingText, metricText, sweepRows } from './sweep-view.ts';

const stats = (mean: number, half: number, n = 2) => ({ n, mean, std: 0.1, mean_ci95: [mean - half, mean + half] as [number, number] });
const trials: SweepView['trials'] = [
  { index: 1, params: { 'optim.lr': 0.001, 'network.hidden': [16, 16] }, status: 'finished', group: '20261202-090000-s-t001-seeds', runs: [{ seed: 1, run: 'r1a', state: 'finished' }, { seed: 2, run: 'r1b', state: 'finished' }], validation: stats(-0.05, 0.1) },
  { index: 2, params: { 'optim.lr': 0.0001, 'network.hidden': [32] }, status: 'finished', group: '20261202-090000-s-t002-seeds', runs: [{ seed: 1, run: 'r2a', state: 'finished' }, { seed: 2, run: 'r2b', state: 'finished' }], validation: stats(0.0123, 0.02) },
  { index: 3, params: { 'optim.lr': 0.00001, 'network.hidden': [32] }, status: 'stopped', group: '20261202-090000-s-t003-seeds', runs: [{ seed: 1, run: 'r3a', state: 'stopped' }] },
  { index: 4, params: { 'optim.lr': 0.1, 'network.hidden': [32] }, status: 'pending', group: '20261202-090000-s-t004-seeds', runs: [] },
];
const view: SweepView = {
  kind: 'sweep', version: 1, name: 's', state: 'finished', method: 'random', metric: 'return', goal: 'max', seeds: [1, 2], param_paths: ['optim.lr', 'network.hidden'],
  trials, ranking: rankTrials(trials, 'max'), test: { trial: 2, checkpoint: 'latest', stats: stats(-0.031, 0.05) }, updated: '2026-12-02T10:00:00.000Z',
};

test("the Sweep view's table lists ranked trials best first with mean ± half-width and n, marks the best, and shows the test span for the top trial only", () => {
  const rows = sweepRows(view);
  assert.deepEqual(rows.map((r) => [r.index, r.rank, r.best]), [[2, 1, true], [1, 2, false], [3, undefined, false], [4, undefined, false]]);
  assert.deepEqual(rows[0]!.params, ['0.0001', '[32]']);
  assert.equal(rows[0]!.validation, '1.23% ± 2%');
  assert.equal(rows[0]!.interval, '[-0.77%, 3.23%]');
  assert.equal(rows[0]!.n, 2);
  assert.equal(rows[0]!.test, '-3.1% ± 5% (n = 2)');
  assert.equal(rows[1]!.test, undefined, 'no other trial is shown on the test span');
  assert.equal(rows[2]!.validation, '–');
  // A trial opens as its seed group, a one-seed trial as its run, a trial without runs not at all; each command is one the host takes.
  assert.deepEqual(rows[0]!.open, { type: 'openGroup', group: '20261202-090000-s-t002-seeds' });
  assert.deepEqual(rows[2]!.open, { type: 'openRun', runDir: 'r3a' });
  assert.equal(rows[3]!.open, undefined);
  for (const r of rows.slice(0, 3)) HostCommandSchema.parse(r.open);
  assert.equal(metricText('sharpe', 0.51234), '0.5123');
  assert.equal(metricText('turnover', 12.5), '12.5x');
  assert.equal(metricText('eval_mean_reward_bps', -3.25), '-3.25 bp');
});

test('the store keeps the sweeps list and the opened sweep from the host, until the sweep is closed', () => {
  const d = createDashboard();
  d.apply(HostMessageSchema.parse({ type: 'sweeps', sweeps: [sweepListing(view)] }));
  assert.deepEqual(d.store.getState().sweeps.map((s) => s.name), ['s']);
  assert.equal(listingText(d.store.getState().sweeps[0]!), 'finished, 2 of 4 trials done; best: trial 2, 1.23% ± 2%');
  d.apply(HostMessageSchema.parse({ type: 'sweepData', sweep: view }));
  assert.deepEqual(d.store.getState().sweep, view);
  assert.equal(d.store.getState().view.kind, 'live', 'opening a sweep leaves the charts as they were');
  d.closeSweep();
  assert.equal(d.store.getState().sweep, undefined);
});

test("with constraints the Sweep view's table shows each constrained validation figure and why a trial is not eligible; that trial has no rank and is listed after the ranked ones", () => {
  const withTurnover: SweepView['trials'] = [
    { ...trials[0]!, constrained: { turnover: stats(42.5, 3) } },
    { ...trials[1]!, constrained: { turnover: stats(76.25, 5) }, ineligible: 'validation turnover 76.25 is above its max 50' },
    trials[2]!,
    trials[3]!,
  ];
  const v: SweepView = { ...view, constraints: { turnover: { max: 50 }, return: { min: -0.1 } }, trials: withTurnover, ranking: rankTrials(withTurnover, 'max'), test: { trial: 1, checkpoint: 'latest', stats: stats(-0.02, 0.05) } };
  assert.deepEqual(v.ranking, [1]);
  const rows = sweepRows(v);
  assert.deepEqual(rows.map((r) => [r.index, r.rank, r.best]), [[1, 1, true], [2, undefined, false], [3, undefined, false], [4, undefined, false]]);
  assert.deepEqual(rows[0]!.constrained, ['42.5x', '–'], 'a figure the trial has no record of is a dash');
  assert.equal(rows[0]!.ineligible, undefined);
  assert.equal(rows[1]!.ineligible, 'validation turnover 76.25 is above its max 50');
  assert.equal(rows[1]!.test, undefined);
  assert.deepEqual(constraintsTexts(v), ['turnover <= 50x', 'return >= -10%']);
  assert.deepEqual(sweepRows(view)[0]!.constrained, [], 'no constraints, no columns');
});
