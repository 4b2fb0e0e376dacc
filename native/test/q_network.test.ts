import { test } from 'node:test';
import assert from 'node:assert/strict';
import { centralDifferences, learnerTesting, randomArray, referenceForward, uniformSource, type NetSpec } from './helpers/learner.ts';

const lt = learnerTesting();

for (const dueling of [true, false]) {
  const head = dueling ? 'dueling' : 'plain';

  test(`${head} forward matches a float64 reference forward`, () => {
    const net: NetSpec = { stateDim: 5, nActions: 4, hidden: [16, 8], dueling };
    const { params, layout } = lt.netInit(net, 3);
    const states = randomArray(7 * 5, uniformSource(1), -2, 2);
    const want = referenceForward(net, layout, params, states);
    const got = lt.netForward(net, params, states);
    for (let i = 0; i < want.length; i++) assert.ok(Math.abs(got[i]! - want[i]!) < 1e-5, `Q[${i}] = ${got[i]}, expected ${want[i]}`);
    if (dueling) {
      // Q = V + A - mean(A): shifting every advantage by the same constant leaves Q unchanged.
      const shifted = Float32Array.from(params);
      for (let j = 0; j < net.nActions; j++) shifted[layout.advantage.b + j]! += 0.75;
      const q2 = lt.netForward(net, shifted, states);
      for (let i = 0; i < want.length; i++) assert.ok(Math.abs(q2[i]! - got[i]!) < 1e-5);
    }
  });

  test(`${head} backward agrees with central finite differences of the float64 forward`, () => {
    const net: NetSpec = { stateDim: 3, nActions: 3, hidden: [6, 5], dueling };
    const { params, layout } = lt.netInit(net, 9);
    const rand = uniformSource(2);
    // Nonzero biases, so every parameter matters and the ReLUs are not all on one side.
    for (const s of [...layout.trunk, layout.advantage, ...(layout.value ? [layout.value] : [])])
      for (let j = 0; j < s.out; j++) params[s.b + j] = rand(-0.3, 0.3);
    const rows = 6;
    const states = randomArray(rows * 3, rand, -1.5, 1.5);
    const dq = randomArray(rows * 3, rand);
    // L(theta) = sum(dq * Q(theta)); its gradient is what backward computes.
    const loss = (p: Float64Array): number => referenceForward(net, layout, p, states).reduce((s, q, i) => s + q * dq[i]!, 0);
    const grads = lt.netBackward(net, params, states, dq);
    assert.equal(grads.length, layout.size);
    const fds = centralDifferences(loss, params);
    let checked = 0;
    for (let i = 0; i < layout.size; i++) {
      const fd = fds[i]!;
      assert.ok(Math.abs(grads[i]! - fd) <= 1e-4 + 1e-3 * Math.abs(fd), `dL/dtheta[${i}] = ${grads[i]}, finite difference ${fd}`);
      if (fd !== 0) checked++;
    }
    assert.ok(checked > layout.size / 2, `only ${checked} of ${layout.size} gradients were nonzero`);
  });
}

test('He-uniform init: trunk weights within sqrt(6/fan_in) with the matching variance, head within sqrt(3/fan_in), biases 0', () => {
  const net: NetSpec = { stateDim: 64, nActions: 45, hidden: [256, 128], dueling: true };
  const { params, layout } = lt.netInit(net, 5);
  const check = (s: { w: number; b: number; in: number; out: number }, gain: number) => {
    const bound = gain * Math.sqrt(3 / s.in);
    let sq = 0;
    for (let i = 0; i < s.in * s.out; i++) {
      const w = params[s.w + i]!;
      assert.ok(Math.abs(w) <= bound * (1 + 1e-6), `weight ${w} outside +-${bound}`);
      sq += w * w;
    }
    // U(-c, c) has variance c^2 / 3; over >= 11k draws the sample variance is within 5%.
    assert.ok(Math.abs(sq / (s.in * s.out) / (bound * bound / 3) - 1) < 0.05);
    for (let j = 0; j < s.out; j++) assert.equal(params[s.b + j], 0);
  };
  for (const s of layout.trunk) check(s, Math.SQRT2);
  check(layout.advantage, 1);
  assert.deepEqual(lt.netInit(net, 5).params, params, 'the same seed gives the same weights');
  assert.notDeepEqual(lt.netInit(net, 6).params, params);
});

test('Q-stats of a hand-made batch', () => {
  // rows [1, 3], [-2, 0]: mean 0.5, min -2, max 3, var ((0.25 + 6.25 + 6.25 + 0.25) / 4) = 3.25, mean max (3 + 0) / 2
  const s = lt.qStats(Float32Array.of(1, 3, -2, 0), 2);
  assert.deepEqual(s, { mean: 0.5, min: -2, max: 3, var: 3.25, meanMax: 1.5 });
});

test('causal sensitivity: per feature mean |Q(s) - Q(s with feature f set to its batch mean)|, as a float64 reference computes it', () => {
  const net: NetSpec = { stateDim: 4, nActions: 3, hidden: [12], dueling: true };
  const { params, layout } = lt.netInit(net, 4);
  const states = randomArray(10 * 4, uniformSource(8), -1, 1);
  const features = Int32Array.of(0, 2, 3);
  const got = lt.causalSensitivity(net, params, states, features);
  const q = referenceForward(net, layout, params, states);
  const per = Array.from(features, (f) => {
    let mean = 0;
    for (let r = 0; r < 10; r++) mean += states[r * 4 + f]!;
    mean /= 10;
    const intervened = Float32Array.from(states);
    for (let r = 0; r < 10; r++) intervened[r * 4 + f] = mean;
    const qDo = referenceForward(net, layout, params, intervened);
    return q.reduce((s, v, i) => s + Math.abs(v - qDo[i]!), 0) / q.length;
  });
  for (let k = 0; k < per.length; k++) assert.ok(Math.abs(got.perFeature[k]! - per[k]!) < 1e-5, `feature ${features[k]}: ${got.perFeature[k]} vs ${per[k]}`);
  assert.ok(Math.abs(got.mean - per.reduce((a, b) => a + b, 0) / per.length) < 1e-5);
  assert.ok(per.every((x) => x > 0));
});
