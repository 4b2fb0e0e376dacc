import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRunConfig } from '../../common/config.ts';
import type { RunSummary } from '../../common/protocol.ts';
import { hparamColumns, hparamRows, hparamText, sortHparamRows } from './hparams.ts';

const run = (name: string, over: Record<string, unknown>, results: Partial<RunSummary> = {}): RunSummary => ({
  runDir: `/runs/${name}`, name, createdMs: 0, env: 'cartpole', epochs: 2, lastStep: 1000, config: parseRunConfig({ name, env: { kind: 'cartpole' }, ...over }), ...results,
});
const runs = [
  run('a', { optim: { lr: 0.001 }, network: { hidden: [64, 64] } }, { lastEvalReturn: 200, finalLoss: 0.2 }),
  run('b', { optim: { lr: 0.0001 }, network: { hidden: [256, 256] } }, { lastEvalReturn: 480, finalLoss: 0.05 }),
  run('c', { optim: { lr: 0.01 }, network: { hidden: [64, 64] } }, { finalLoss: 0.9 }),
];

test('config columns are the fields that differ between runs, after the results; all fields on demand', () => {
  const rows = hparamRows(runs);
  const cols = hparamColumns(rows, false);
  assert.deepEqual(cols.filter((c) => c.kind === 'config').map((c) => c.key), ['network.hidden', 'optim.lr']);
  assert.deepEqual(cols.filter((c) => c.kind === 'result').map((c) => c.key), ['state', 'epochs', 'finalLoss', 'lastEvalReturn', 'stepsPerSec', 'wallS', 'backend']);
  const all = hparamColumns(rows, true).filter((c) => c.kind === 'config').map((c) => c.key);
  assert.ok(all.includes('replay.capacity') && all.includes('schedule.epochs') && all.includes('env.kind'));
  assert.ok(!all.includes('name'), "a run's name heads its row, it is not a column");
  assert.ok(all.indexOf('seed') < all.indexOf('optim.lr'), 'config order');
});

test('cells print lists and missing fields; a run listed without a config has only its results', () => {
  const rows = hparamRows([...runs, { runDir: '/runs/old', name: 'old', createdMs: 0, env: 'cartpole', epochs: 0, lastStep: 0 }]);
  const cols = hparamColumns(rows, false);
  const hidden = cols.find((c) => c.key === 'network.hidden')!;
  assert.deepEqual(rows.map((r) => hparamText(r, hidden)), ['64, 64', '256, 256', '64, 64', '–']);
  assert.equal(hparamText(rows[0]!, cols.find((c) => c.key === 'lastEvalReturn')!), '200.0');
});

test('any column sorts, both ways: config numbers by value, results with empty cells last, lists element by element', () => {
  const rows = hparamRows(runs);
  const cols = hparamColumns(rows, false);
  const names = (key: string, dir: 'asc' | 'desc') => sortHparamRows(rows, cols, { key, dir }).map((r) => r.run.name);
  assert.deepEqual(names('optim.lr', 'asc'), ['b', 'a', 'c']);
  assert.deepEqual(names('optim.lr', 'desc'), ['c', 'a', 'b']);
  assert.deepEqual(names('lastEvalReturn', 'desc'), ['b', 'a', 'c']);
  assert.deepEqual(names('lastEvalReturn', 'asc'), ['a', 'b', 'c'], 'no evaluation: last either way');
  assert.deepEqual(names('network.hidden', 'asc'), ['a', 'c', 'b'], '64 before 256 (as numbers, not as text)');
  assert.deepEqual(names('no.such.column', 'asc'), ['a', 'b', 'c'], 'an unknown column sorts by name');
});

test('a target return of none (null) prints as none and sorts as an empty cell, after the runs that set one', () => {
  const rows = hparamRows([run('x', {}), run('y', { schedule: { target_return: 475 } }), run('z', { schedule: { target_return: 195 } })]);
  const cols = hparamColumns(rows, false);
  const col = cols.find((c) => c.key === 'schedule.target_return')!;
  assert.deepEqual(rows.map((r) => hparamText(r, col)), ['none', '475', '195']);
  assert.deepEqual(sortHparamRows(rows, cols, { key: 'schedule.target_return', dir: 'asc' }).map((r) => r.run.name), ['z', 'y', 'x']);
  assert.deepEqual(sortHparamRows(rows, cols, { key: 'schedule.target_return', dir: 'desc' }).map((r) => r.run.name), ['y', 'z', 'x']);
});
