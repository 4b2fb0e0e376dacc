import { test } from 'node:test';
import assert from 'node:assert/strict';
import { learnerTesting, type NStepInput } from './helpers/learner.ts';

const lt = learnerTesting();
const S = (x: number) => Float32Array.of(x, -x); // state k is [k, -k]

/** Steps of one env through states 0, 1, 2, ... with the given rewards; the last may end. */
function episode(rewards: number[], end: 'none' | 'terminated' | 'truncated', env = 0, first = 0): NStepInput[] {
  return rewards.map((r, i) => ({
    env, s: S(first + i), a: (first + i) % 3, r, sNext: S(first + i + 1),
    terminated: end === 'terminated' && i === rewards.length - 1,
    truncated: end === 'truncated' && i === rewards.length - 1,
  }));
}

const close = (got: number, want: number, what: string) => assert.ok(Math.abs(got - want) < 1e-5, `${what} = ${got}, expected ${want}`);

test('3-step returns stop at a terminal: shorter sums, discount 0, done', () => {
  const t = lt.nStep({ numEnvs: 1, stateDim: 2, n: 3, gamma: 0.9 }, episode([1, 2, 3], 'terminated'));
  // s0: 1 + 0.9*2 + 0.81*3 = 5.23; s1: 2 + 0.9*3 = 4.7; s2: 3
  assert.deepEqual(Array.from(t.actions), [0, 1, 2]);
  [5.23, 4.7, 3].forEach((r, i) => close(t.rewards[i]!, r, `R[${i}]`));
  assert.deepEqual(Array.from(t.discounts), [0, 0, 0]);
  assert.deepEqual(Array.from(t.dones), [1, 1, 1]);
  assert.deepEqual(Array.from(t.states), [0, -0, 1, -1, 2, -2]);
  assert.deepEqual(t.pending, [0]);
});

test('3-step returns stop at a truncation and bootstrap from the true final observation with gamma^k', () => {
  const t = lt.nStep({ numEnvs: 1, stateDim: 2, n: 3, gamma: 0.9 }, episode([1, 1], 'truncated'));
  // s0: R = 1.9, k = 2, discount 0.81; s1: R = 1, k = 1, discount 0.9; both bootstrap from s2
  [1.9, 1].forEach((r, i) => close(t.rewards[i]!, r, `R[${i}]`));
  [0.81, 0.9].forEach((d, i) => close(t.discounts[i]!, d, `discount[${i}]`));
  assert.deepEqual(Array.from(t.dones), [0, 0]);
  assert.deepEqual(Array.from(t.nextStates), [2, -2, 2, -2]);
});

test('nothing past the newest collected step is emitted: incomplete windows stay pending', () => {
  const opts = { numEnvs: 1, stateDim: 2, n: 3, gamma: 0.5 };
  const t = lt.nStep(opts, episode([1, 2, 4, 8], 'none'));
  // Two complete windows: s0 -> s3 with 1 + 0.5*2 + 0.25*4 = 3, s1 -> s4 with 2 + 2 + 2 = 6
  assert.deepEqual(Array.from(t.rewards), [3, 6]);
  assert.deepEqual(Array.from(t.discounts), [0.125, 0.125]);
  assert.deepEqual(Array.from(t.nextStates), [3, -3, 4, -4]);
  assert.deepEqual(t.pending, [2]);
  // The pending steps are emitted once their windows complete, with the later rewards.
  const more = lt.nStep(opts, episode([1, 2, 4, 8, 16], 'none'));
  assert.equal(more.rewards[2], 4 + 4 + 4);
  assert.equal(lt.nStep(opts, episode([1], 'none')).actions.length, 0);
});

test('copies of a vectorized env accumulate separately', () => {
  const a = episode([1, 1, 1], 'none', 0, 0);
  const b = episode([5, 5], 'terminated', 1, 10);
  const steps = [a[0]!, b[0]!, a[1]!, b[1]!, a[2]!];
  const t = lt.nStep({ numEnvs: 2, stateDim: 2, n: 2, gamma: 1 }, steps);
  // env 1 ends after its 2nd step: s10 (R = 10, done), s11 (R = 5, done); env 0: s0 (R 2), s1 (R 2)
  const byState = new Map<number, [number, number, number]>();
  for (let i = 0; i < t.actions.length; i++) byState.set(t.states[2 * i]!, [t.rewards[i]!, t.discounts[i]!, t.dones[i]!]);
  assert.deepEqual(Object.fromEntries(byState), { 10: [10, 0, 1], 11: [5, 0, 1], 0: [2, 1, 0], 1: [2, 1, 0] });
  assert.deepEqual(t.pending, [1, 0]);
});

test('n = 1 is the one-step transition: discount gamma, 0 at a terminal, gamma at a truncation', () => {
  const t = lt.nStep({ numEnvs: 1, stateDim: 2, n: 1, gamma: 0.99 }, [...episode([1, 1], 'terminated'), ...episode([2], 'truncated', 0, 5)]);
  assert.deepEqual(Array.from(t.rewards), [1, 1, 2]);
  assert.deepEqual(Array.from(t.discounts), [Math.fround(0.99), 0, Math.fround(0.99)]);
  assert.deepEqual(Array.from(t.dones), [0, 1, 0]);
  assert.deepEqual(Array.from(t.nextStates), [1, -1, 2, -2, 6, -6]);
});
