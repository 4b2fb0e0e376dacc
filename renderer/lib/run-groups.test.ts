import { test } from 'node:test';
import assert from 'node:assert/strict';
import { groupHeadlineText, groupMembersText, groupRuns } from './run-groups.ts';

const run = (name: string, seedGroup?: string) => ({ runDir: `/runs/${name}`, name, createdMs: 0, env: 'trading', epochs: 1, lastStep: 10, ...(seedGroup ? { seedGroup } : {}) });

test('runs of one --seeds group are gathered under it where its first run stands; other runs stay alone in order', () => {
  const runs = [run('c'), run('b-seed2', 'g-seeds'), run('x'), run('b-seed1', 'g-seeds'), run('a-seed1', 'h-seeds')];
  assert.deepEqual(
    groupRuns(runs).map((b) => [b.group ?? null, b.runs.map((r) => r.name)]),
    [[null, ['c']], ['g-seeds', ['b-seed2', 'b-seed1']], [null, ['x']], ['h-seeds', ['a-seed1']]],
  );
  assert.deepEqual(groupRuns([]), []);
});

test("a group's row names its members against its seeds and its summary's mean with its interval", () => {
  assert.equal(groupMembersText(3, 3), '3 seeds');
  assert.equal(groupMembersText(2, 3), '2 of 3 seeds');
  assert.equal(groupMembersText(1, 0), '1 seed', 'a group known from its summary without seeds');
  assert.equal(groupHeadlineText({ figure: 'eval_mean_return', n: 3, mean: 480.54, ci95: [472.25, 488.75], interval: 'mean-t' }), '480.5 (95% CI 472.3 to 488.8)');
  assert.equal(groupHeadlineText({ figure: 'eval_mean_return', n: 3, mean: 480.54, ci95: [472.25, 488.75], interval: 'iqm-bootstrap' }), '480.5 (IQM CI 472.3 to 488.8)', 'a summary written before the t interval');
  assert.equal(groupHeadlineText({ figure: 'eval_mean_reward_bps', n: 1, mean: -554.54, ci95: [-554.54, -554.54], interval: 'mean-t' }), '-554.5 bp (1 seed: no interval)', 'one seed: no interval');
  assert.equal(groupHeadlineText({ figure: 'eval_mean_reward_bps', n: 2, mean: -18.34, ci95: [-579.54, 542.94], interval: 'mean-t' }), '-18.3 bp (95% CI -579.5 to 542.9 bp)', 'negative bounds stay apart; a trading figure has its unit, as in a run\'s row');
  assert.equal(groupHeadlineText(undefined), '–');
});
