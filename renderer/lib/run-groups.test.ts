import { test } from 'node:test';
import assert from 'node:assert/strict';
import { groupRuns } from './run-groups.ts';

const run = (name: string, seedGroup?: string) => ({ runDir: `/runs/${name}`, name, createdMs: 0, env: 'trading', epochs: 1, lastStep: 10, ...(seedGroup ? { seedGroup } : {}) });

test('runs of one --seeds group are gathered under it where its first run stands; other runs stay alone in order', () => {
  const runs = [run('c'), run('b-seed2', 'g-seeds'), run('x'), run('b-seed1', 'g-seeds'), run('a-seed1', 'h-seeds')];
  assert.deepEqual(
    groupRuns(runs).map((b) => [b.group ?? null, b.runs.map((r) => r.name)]),
    [[null, ['c']], ['g-seeds', ['b-seed2', 'b-seed1']], [null, ['x']], ['h-seeds', ['a-seed1']]],
  );
  assert.deepEqual(groupRuns([]), []);
});
