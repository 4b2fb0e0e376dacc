import { test } from 'node:test';
import assert from 'node:assert/strict';
import { learnerTesting, randomArray, uniformSource, type LearnerBatch, type NetSpec } from './helpers/learner.ts';

const lt = learnerTesting();
const net: NetSpec = { stateDim: 4, nActions: 3, hidden: [32, 32], dueling: true };
const options = { lr: 1e-3, adamEps: 1e-8, gradClip: 10, batchSize: 16, doubleDqn: true, huberDelta: 1 };

function fixedBatch(seed: number, discount = 0.9): LearnerBatch {
  const rand = uniformSource(seed);
  return {
    states: randomArray(16 * 4, rand), nextStates: randomArray(16 * 4, rand),
    actions: Int32Array.from({ length: 16 }, (_, i) => i % 3), rewards: randomArray(16, rand, -1, 1),
    discounts: new Float32Array(16).fill(discount), weights: randomArray(16, rand, 0.2, 1),
  };
}

test('the loss on a fixed batch falls as the learner fits it', () => {
  // With discount 0 the targets are the rewards themselves: a plain regression the net can fit.
  const l = new lt.Learner(net, { ...options, target: { kind: 'hard', interval: 1000 } }, 1);
  const batch = fixedBatch(1, 0);
  const losses = Array.from({ length: 300 }, () => l.step(batch).loss);
  assert.ok(losses[299]! < 0.05 * losses[0]!, `loss ${losses[0]} -> ${losses[299]}`);
  for (let i = 50; i < 300; i += 50) assert.ok(losses[i]! < losses[i - 50]!, `loss rose between steps ${i - 50} and ${i}`);
});

test('hard target update: the target network is the online network of the last multiple of C steps', () => {
  const l = new lt.Learner(net, { ...options, target: { kind: 'hard', interval: 3 } }, 2);
  const initial = l.online();
  assert.deepEqual(l.target(), initial, 'target starts as a copy');
  const batch = fixedBatch(2);
  l.step(batch);
  l.step(batch);
  assert.deepEqual(l.target(), initial, 'unchanged before step 3');
  assert.notDeepEqual(l.online(), initial);
  l.step(batch);
  assert.deepEqual(l.target(), l.online(), 'copied at step 3');
});

test('Polyak target update: target = tau * online + (1 - tau) * target after every step', () => {
  const tau = 0.25;
  const l = new lt.Learner(net, { ...options, target: { kind: 'polyak', tau } }, 3);
  const target0 = l.target();
  l.step(fixedBatch(3));
  const online1 = l.online(), target1 = l.target();
  for (let i = 0; i < target1.length; i++) {
    const want = target0[i]! + tau * (online1[i]! - target0[i]!);
    assert.ok(Math.abs(target1[i]! - want) <= 1e-6 * (1 + Math.abs(want)), `target[${i}]`);
  }
});

test('the reported grad norm is the global norm before clipping, and TD errors are y - Q(s, a)', () => {
  const l = new lt.Learner(net, { ...options, gradClip: 1e-3, target: { kind: 'hard', interval: 1000 } }, 4);
  const batch = fixedBatch(4);
  // Q(s) and Q(s') from the same weights the learner holds, then the Double DQN target by hand.
  const w = l.online();
  const q = lt.netForward(net, w, batch.states), qn = lt.netForward(net, w, batch.nextStates);
  const r = l.step(batch);
  for (let i = 0; i < 16; i++) {
    const row = Array.from(qn.subarray(3 * i, 3 * i + 3));
    const aStar = row.indexOf(Math.max(...row));
    const y = batch.rewards[i]! + batch.discounts[i]! * qn[3 * i + aStar]!; // target == online at step 1
    assert.ok(Math.abs(r.td[i]! - (y - q[3 * i + batch.actions[i]!]!)) < 1e-5, `td[${i}]`);
  }
  assert.ok(r.gradNorm > 1e-3, 'the norm is reported before clipping');
});

test('a NaN reward surfaces as a NaN loss flag and leaves the weights untouched', () => {
  const l = new lt.Learner(net, { ...options, target: { kind: 'hard', interval: 1000 } }, 5);
  const batch = fixedBatch(5);
  batch.rewards[3] = NaN;
  const before = l.online();
  const r = l.step(batch);
  assert.equal(r.flags, 1 /* loss */);
  assert.deepEqual(l.online(), before);
});
