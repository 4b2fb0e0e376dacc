import { test } from 'node:test';
import assert from 'node:assert/strict';
import { learnerTesting, uniformSource } from './helpers/learner.ts';
import { createEnv } from '../env.ts';

const lt = learnerTesting();

// Gymnasium CartPole-v1 (classic_control/cartpole.py) step, written out independently in float64.
function gymStep([x, xDot, theta, thetaDot]: number[], action: number): number[] {
  const gravity = 9.8, massCart = 1.0, massPole = 0.1, totalMass = massPole + massCart, length = 0.5;
  const poleMassLength = massPole * length, forceMag = 10.0, tau = 0.02;
  const force = action === 1 ? forceMag : -forceMag;
  const cos = Math.cos(theta!), sin = Math.sin(theta!);
  const temp = (force + poleMassLength * thetaDot! ** 2 * sin) / totalMass;
  const thetaAcc = (gravity * sin - cos * temp) / (length * (4.0 / 3.0 - (massPole * cos ** 2) / totalMass));
  const xAcc = temp - (poleMassLength * thetaAcc * cos) / totalMass;
  return [x! + tau * xDot!, xDot! + tau * xAcc, theta! + tau * thetaDot!, thetaDot! + tau * thetaAcc];
}

test('one push right from rest, worked by hand from the Gymnasium equations', () => {
  // temp = 10 / 1.1 = 9.0909..., thetaacc = -temp / (0.5 (4/3 - 0.1/1.1)) = -14.634146...,
  // xacc = temp + 0.05 * 14.634146 / 1.1 = 9.756097...; Euler: x_dot = 0.02 xacc, theta_dot = 0.02 thetaacc.
  const env = new lt.CartPole(1, 1, 500);
  env.reset();
  env.setState(0, new Float64Array(4), 0);
  const r = env.step(Int32Array.of(1));
  const want = [0, 0.1951219512195122, 0, -0.2926829268292683];
  const got = env.state(0);
  for (let i = 0; i < 4; i++) assert.ok(Math.abs(got[i]! - want[i]!) < 1e-12, `state[${i}] = ${got[i]}, expected ${want[i]}`);
  assert.deepEqual(Array.from(r.nextObs), want.map(Math.fround));
  assert.deepEqual([r.rewards[0], r.terminated[0], r.truncated[0]], [1, 0, 0]);
});

test('a 60-step trajectory with random pushes follows the float64 reference exactly', () => {
  const env = new lt.CartPole(1, 3, 500);
  env.reset();
  let s = [0.01, -0.02, 0.03, 0.04];
  env.setState(0, Float64Array.from(s), 0);
  const rand = uniformSource(5);
  for (let t = 0; t < 60; t++) {
    const a = rand(0, 1) < 0.5 ? 0 : 1;
    const r = env.step(Int32Array.of(a));
    s = gymStep(s, a);
    if (r.terminated[0]) break;
    const got = env.state(0);
    for (let i = 0; i < 4; i++) assert.ok(Math.abs(got[i]! - s[i]!) < 1e-12, `t=${t} state[${i}]`);
  }
});

test('crossing 12 degrees terminates with reward 1, reports the final observation and auto-resets', () => {
  const env = new lt.CartPole(2, 7, 500);
  env.reset();
  const limit = (12 * 2 * Math.PI) / 360;
  const before = [0, 0, limit - 0.001, 1];
  env.setState(0, Float64Array.from(before), 10);
  env.setState(1, Float64Array.from([0, 0, 0, 0]), 10);
  const r = env.step(Int32Array.of(1, 1));
  const after = gymStep(before, 1);
  assert.ok(after[2]! > limit);
  assert.deepEqual([r.terminated[0], r.truncated[0], r.rewards[0]], [1, 0, 1]);
  assert.deepEqual(Array.from(r.finalObs.subarray(0, 4)), after.map(Math.fround));
  // The next observation is the new episode's reset state, uniform in [-0.05, 0.05].
  for (const v of r.nextObs.subarray(0, 4)) assert.ok(Math.abs(v) <= 0.05);
  assert.deepEqual(Array.from(r.nextObs.subarray(0, 4)), Array.from(env.state(0), Math.fround));
  // The other copy is unaffected and its final obs equals its next obs.
  assert.equal(r.terminated[1], 0);
  assert.deepEqual(r.finalObs.subarray(4), r.nextObs.subarray(4));
});

test('leaving |x| <= 2.4 terminates; the 500-step limit truncates (not terminal); a terminal on the last step stays terminal', () => {
  const env = new lt.CartPole(3, 2, 500);
  env.reset();
  env.setState(0, Float64Array.from([2.399, 1, 0, 0]), 0);
  env.setState(1, Float64Array.from([0, 0, 0, 0]), 499);
  env.setState(2, Float64Array.from([-2.399, -1, 0, 0]), 499);
  const r = env.step(Int32Array.of(1, 0, 0));
  assert.deepEqual(Array.from(r.terminated), [1, 0, 1]);
  assert.deepEqual(Array.from(r.truncated), [0, 1, 0]);
  assert.deepEqual(Array.from(r.rewards), [1, 1, 1]);
  assert.deepEqual(Array.from(r.finalObs.subarray(4, 8)), gymStep([0, 0, 0, 0], 0).map(Math.fround));
});

test('reset draws every state variable uniformly in [-0.05, 0.05], reproducibly from the seed', () => {
  const a = new lt.CartPole(64, 9, 500).reset();
  assert.deepEqual(new lt.CartPole(64, 9, 500).reset(), a);
  assert.notDeepEqual(new lt.CartPole(64, 10, 500).reset(), a);
  assert.ok(a.every((v) => Math.abs(v) <= 0.05));
  // 256 draws: the mean of U(-0.05, 0.05) is 0 with standard error 0.05 / sqrt(3 * 256) = 0.0018.
  const mean = a.reduce((s, v) => s + v, 0) / a.length;
  assert.ok(Math.abs(mean) < 4 * 0.0018, `mean ${mean}`);
  assert.ok(Math.max(...a) > 0.04 && Math.min(...a) < -0.04);
});

test('an action other than 0 or 1 is refused with a RangeError and moves no copy, in both bindings', () => {
  const cp = new (learnerTesting().CartPole)(2, 1, 500);
  cp.reset();
  const before = [cp.state(0), cp.state(1)].map((s) => Array.from(s));
  assert.throws(() => cp.step(Int32Array.of(1, 2)), { name: 'RangeError', message: 'cartpole env: action of copy 1 must be in [0, 2), got 2' });
  assert.deepEqual([cp.state(0), cp.state(1)].map((s) => Array.from(s)), before);
  const env = createEnv({ kind: 'cartpole', num_envs: 1 }, undefined, false);
  env.reset();
  assert.throws(() => env.step(Int32Array.of(-1)), { name: 'RangeError', message: 'cartpole env: action of copy 0 must be in [0, 2), got -1' });
});
