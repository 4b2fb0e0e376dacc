import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRunConfig } from '../../common/config.ts';
import { runsConfigDiff } from './runs-diff.ts';

const run = (over: Record<string, unknown>) => parseRunConfig({ env: { kind: 'cartpole' }, ...over });

test('three runs: every field that differs in any of them is a row with each run\'s value, the name aside', () => {
  const rows = runsConfigDiff([
    run({ name: 'a', optim: { lr: 0.001 }, network: { hidden: [64, 64] } }),
    run({ name: 'b', optim: { lr: 0.0005 }, network: { hidden: [64, 64] } }),
    run({ name: 'c', optim: { lr: 0.001 }, network: { hidden: [128] }, seed: 7 }),
  ]);
  assert.deepEqual(rows, [
    { path: 'network.hidden', values: [[64, 64], [64, 64], [128]] },
    { path: 'optim.lr', values: [0.001, 0.0005, 0.001] },
    { path: 'seed', values: [1, 1, 7] },
  ]);
});

test('a field only one run has (another env kind) is a row, undefined where a run lacks it', () => {
  const trading = parseRunConfig({ env: { kind: 'trading', data: 'x.csv' } });
  const rows = runsConfigDiff([run({}), trading]);
  const kind = rows.find((r) => r.path === 'env.kind');
  assert.deepEqual(kind?.values, ['cartpole', 'trading']);
  const data = rows.find((r) => r.path === 'env.data');
  assert.deepEqual(data?.values, [undefined, 'x.csv']);
});

test('identical configs, or fewer than two runs, have no rows', () => {
  assert.deepEqual(runsConfigDiff([run({ name: 'a' }), run({ name: 'b' }), run({ name: 'c' })]), []);
  assert.deepEqual(runsConfigDiff([run({ optim: { lr: 0.1 } })]), []);
});
