import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RunSummary } from '../../common/protocol.ts';
import { evalReturnText, runMeta, runTable, runTitle, TABLE_COLUMNS, wallText } from './run-table.ts';

const run = (name: string, extra: Partial<RunSummary>): RunSummary => ({ runDir: `/runs/${name}`, name, createdMs: 0, env: 'cartpole', epochs: 1, lastStep: 1, ...extra });
const runs = [
  run('a-cartpole', { finalLoss: 0.5, lastEvalReturn: 200, state: 'finished', backend: 'cpu', wallS: 30 }),
  run('b-trading', { env: 'trading', finalLoss: 0.1, state: 'halted', backend: 'cuda', wallS: 4000 }),
  run('c-cartpole', { lastEvalReturn: 480, state: 'stopped', backend: 'cpu' }),
];

test('the run table sorts by any column, runs without the value last, and filters on every word', () => {
  const names = (rs: RunSummary[]) => rs.map((r) => r.name);
  assert.deepEqual(names(runTable(runs, { key: 'finalLoss', dir: 'asc' }, '')), ['b-trading', 'a-cartpole', 'c-cartpole']);
  assert.deepEqual(names(runTable(runs, { key: 'finalLoss', dir: 'desc' }, '')), ['a-cartpole', 'b-trading', 'c-cartpole'], 'no loss: last either way');
  assert.deepEqual(names(runTable(runs, { key: 'lastEvalReturn', dir: 'desc' }, '')), ['c-cartpole', 'a-cartpole', 'b-trading']);
  assert.deepEqual(names(runTable(runs, { key: 'name', dir: 'desc' }, '')), ['c-cartpole', 'b-trading', 'a-cartpole']);
  assert.deepEqual(names(runTable(runs, { key: 'name', dir: 'asc' }, 'CARTPOLE cpu')), ['a-cartpole', 'c-cartpole']);
  assert.deepEqual(names(runTable(runs, { key: 'name', dir: 'asc' }, 'halted')), ['b-trading']);
  assert.deepEqual([wallText(undefined), wallText(30), wallText(185), wallText(4000)], ['–', '30 s', '3 min 5 s', '1 h 7 min']);
});

test('a row shows the run\'s name without its folder stamp and three results as columns; state, env, backend, epochs and wall time go to the line under the name', () => {
  assert.deepEqual([runTitle('20261202-080121-e2e-cartpole'), runTitle('my-run'), runTitle('20261202-080121')], ['e2e-cartpole', 'my-run', '20261202-080121']);
  assert.deepEqual(TABLE_COLUMNS.map((c) => c.key), ['name', 'finalLoss', 'lastEvalReturn', 'stepsPerSec']);
  assert.deepEqual(runMeta(runs[0]!), [
    { key: 'env', text: 'cartpole' },
    { key: 'state', text: 'finished' },
    { key: 'epochs', text: '1 epoch' },
    { key: 'wallS', text: '30 s' },
    { key: 'backend', text: 'cpu' },
  ]);
});

test("the eval return carries its unit where it has one: a trading run's summed rewards in basis points, CartPole's as the episode's reward", () => {
  assert.equal(evalReturnText(run('t', { env: 'trading', lastEvalReturn: 3770.804 })), '3770.8 bp');
  assert.equal(evalReturnText(run('c', { lastEvalReturn: 480 })), '480.0');
  assert.equal(evalReturnText(run('n', { env: 'trading' })), '–', 'no evaluation yet: no unit either');
});
