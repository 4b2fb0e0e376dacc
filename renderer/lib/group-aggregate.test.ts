import { test } from 'node:test';
import assert from 'node:assert/strict';
import { aggregateMembers, tQuantile975, type MemberPoints } from './group-aggregate.ts';

const member = (pts: [number, number][]): MemberPoints => ({ x: pts.map((p) => p[0]), y: pts.map((p) => p[1]), length: pts.length });
const close = (a: number, b: number, tol = 1e-12) => assert.ok(Math.abs(a - b) <= tol, `${a} vs ${b}`);

test("members that logged at other steps are aligned on the union of their steps, each carrying its last value within its own span", () => {
  // a logs at 0, 10, 20; b at 5, 15, 25; c at 0, 10 only (it stopped early).
  const a = member([[0, 1], [10, 3], [20, 5]]);
  const b = member([[5, 2], [15, 4], [25, 6]]);
  const c = member([[0, 7], [10, 9]]);
  const g = aggregateMembers([a, b, c]);
  assert.deepEqual([...g.x], [0, 5, 10, 15, 20, 25]);
  // x=0: a=1, c=7 (b not started); x=5: a=1, b=2, c=7; x=10: a=3, b=2, c=9; x=15: a=3, b=4 (c ended at 10);
  // x=20: a=5, b=4; x=25: b=6 (a ended at 20).
  assert.deepEqual([...g.n], [2, 3, 3, 2, 2, 1]);
  assert.deepEqual([...g.mean], [4, 10 / 3, 14 / 3, 3.5, 4.5, 6]);
  assert.deepEqual([...g.min], [1, 1, 2, 3, 4, 6]);
  assert.deepEqual([...g.max], [7, 7, 9, 4, 5, 6]);
});

test('the band of the mean is the 95% t-interval: mean -+ t(0.975, n-1) s / sqrt(n), none for a single member', () => {
  const g = aggregateMembers([member([[1, 1]]), member([[1, 2]]), member([[1, 6]]), member([[1, 3], [2, 3]])]);
  // x=1: values 1, 2, 6, 3: mean 3, s^2 = (4 + 1 + 9 + 0) / 3 = 14/3, t(0.975, 3) = 3.1824.
  const half = (3.1824 * Math.sqrt(14 / 3)) / 2;
  close(g.mean[0]!, 3);
  close(g.ciLo[0]!, 3 - half);
  close(g.ciHi[0]!, 3 + half);
  // x=2: only the fourth member is still there.
  assert.equal(g.n[1], 1);
  assert.ok(Number.isNaN(g.ciLo[1]!) && Number.isNaN(g.ciHi[1]!));
  assert.equal(g.min[1], 3);
});

test("a member's non-finite value makes the mean non-finite there (a marker) and leaves the band out; a member with no points is ignored", () => {
  const g = aggregateMembers([member([[0, 1], [1, NaN], [2, 1]]), member([[0, 3], [2, 5]]), member([])]);
  assert.deepEqual([...g.n], [2, 2, 2]);
  assert.equal(g.mean[0], 2);
  assert.ok(Number.isNaN(g.mean[1]!), 'NaN carried into the mean at x=1');
  assert.ok(Number.isNaN(g.min[1]!) && Number.isNaN(g.max[1]!) && Number.isNaN(g.ciLo[1]!));
  assert.equal(g.mean[2], 3);
  assert.deepEqual(aggregateMembers([member([[0, Infinity]]), member([[0, 1]])]).mean[0], Infinity);
});

test('t(0.975, df) follows the table up to 30 degrees of freedom and the expansion within 1e-4 beyond', () => {
  assert.equal(tQuantile975(1), 12.7062);
  assert.equal(tQuantile975(30), 2.0423);
  // Exact values (R: qt(0.975, df)): 40 -> 2.021075, 60 -> 2.000298, 120 -> 1.979930.
  close(tQuantile975(40), 2.021075, 1e-4);
  close(tQuantile975(60), 2.000298, 1e-4);
  close(tQuantile975(120), 1.97993, 1e-4);
  assert.throws(() => tQuantile975(0), /degrees of freedom must be a positive integer, got 0/);
});
