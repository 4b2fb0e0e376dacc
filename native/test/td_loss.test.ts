import { test } from 'node:test';
import assert from 'node:assert/strict';
import { learnerTesting } from './helpers/learner.ts';

const lt = learnerTesting();

// A batch of three transitions with two actions, worked by hand:
//  0: Q(s) = [1, 2], a = 0, r = 1, discount 0.9; online Q(s') = [3, 5] picks a* = 1; target Q(s') = [4, 2]
//     y = 1 + 0.9 * 2 = 2.8, td = 2.8 - 1 = 1.8, huber(1.8) = 1.8 - 0.5 = 1.3, w = 0.5
//  1: Q(s) = [0.5, -1], a = 1, r = 0, terminal (discount 0); y = 0, td = 1, huber = 0.5, w = 1
//  2: Q(s) = [2, 0], a = 0, r = -1, discount 0.99; online Q(s') = [1, 1] ties, picks a* = 0;
//     target Q(s') = [3, -3]; y = -1 + 0.99 * 3 = 1.97, td = -0.03, huber = 0.00045, w = 0.25
const batch = {
  q: Float32Array.of(1, 2, 0.5, -1, 2, 0),
  qNextOnline: Float32Array.of(3, 5, 10, 0, 1, 1),
  qNextTarget: Float32Array.of(4, 2, 7, 8, 3, -3),
  actions: Int32Array.of(0, 1, 0),
  rewards: Float32Array.of(1, 0, -1),
  discounts: Float32Array.of(0.9, 0, 0.99),
  weights: Float32Array.of(0.5, 1, 0.25),
  nActions: 2,
};

const close = (got: number, want: number, what: string, tol = 1e-6) =>
  assert.ok(Math.abs(got - want) <= tol, `${what} = ${got}, expected ${want}`);

test('Double DQN: the online network picks a*, the target network values it; IS-weighted Huber loss', () => {
  const r = lt.tdLoss({ ...batch, doubleDqn: true, huberDelta: 1 });
  [1.8, 1, -0.03].forEach((td, i) => close(r.td[i]!, td, `td[${i}]`));
  close(r.loss, (0.5 * 1.3 + 1 * 0.5 + 0.25 * 0.00045) / 3, 'loss');
  close(r.tdMse, (1.8 ** 2 + 1 + 0.03 ** 2) / 3, 'td_mse');
  // dL/dQ(s, a) = -w clamp(td, -1, 1) / B, zero at the actions not taken.
  const dq = [-0.5 * 1 / 3, 0, 0, -1 * 1 / 3, -0.25 * -0.03 / 3, 0];
  dq.forEach((g, i) => close(r.dq[i]!, g, `dq[${i}]`));
});

test('classic DQN target takes the max of the target network instead', () => {
  // 0: max target Q(s') = 4: y = 1 + 3.6 = 4.6, td = 3.6; 2: max = 3 (same as Double DQN here)
  const r = lt.tdLoss({ ...batch, doubleDqn: false, huberDelta: 1 });
  close(r.td[0]!, 3.6, 'td[0]');
  close(r.td[1]!, 1, 'td[1] (terminal: no bootstrap)');
  close(r.td[2]!, -0.03, 'td[2]');
});

test('the Huber threshold switches between the squared and the linear part', () => {
  // delta = 2: |1.8| <= 2 gives 1.8^2 / 2 = 1.62, |1| gives 0.5; gradient -w td / B (no clamp)
  const r = lt.tdLoss({ ...batch, doubleDqn: true, huberDelta: 2 });
  close(r.loss, (0.5 * 1.62 + 0.5 + 0.25 * 0.00045) / 3, 'loss');
  close(r.dq[0]!, -0.5 * 1.8 / 3, 'dq[0]');
  // delta = 0.5: huber(1.8) = 0.5 * (1.8 - 0.25) = 0.775, huber(1) = 0.375
  const s = lt.tdLoss({ ...batch, doubleDqn: true, huberDelta: 0.5 });
  close(s.loss, (0.5 * 0.775 + 0.375 + 0.25 * 0.00045) / 3, 'loss');
  close(s.dq[3]!, -1 * 0.5 / 3, 'dq[3]');
});

test('a NaN target value reaches the loss even at a terminal, so the learner checks Q-target first', () => {
  // 0 * NaN is NaN in IEEE arithmetic; the trainer-level NaN tests cover the halt itself.
  const r = lt.tdLoss({ ...batch, qNextTarget: Float32Array.of(4, 2, NaN, NaN, 3, -3), doubleDqn: true, huberDelta: 1 });
  assert.ok(Number.isNaN(r.loss));
});
