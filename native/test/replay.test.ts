import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ReplayBuffer } from '../replay.ts';
import { leafPriority, makeBatch, seededRandom } from './replay_reference.ts';

const ones = (n: number) => new Uint32Array(n).fill(1);

/** Equal up to a few ulps (std::pow and Math.pow may round differently). */
function near(actual: number | undefined, expected: number, what = ''): void {
  assert.ok(actual !== undefined && Math.abs(actual - expected) <= 1e-14 * Math.abs(expected), `${what} ${actual} != ${expected}`);
}

function sumOf(values: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < values.length; i++) s += values[i]!;
  return s;
}

test('the root equals the float64 sum of the leaves after a million priority updates with duplicates', () => {
  // Priorities span 1e-3 .. 1e8 (alpha = 1, eps = 0) and end small: a tree that adjusted its
  // sums by deltas would be off by far more than the tolerance after this many updates.
  const N = 1000;
  const replay = new ReplayBuffer({ capacity: N, stateDim: 1, alpha: 1, eps: 0, pClip: 1e12 });
  replay.insertBatch(makeBatch(N, 1));
  const expected = new Float64Array(N).fill(1); // leaves after insert: (max priority 1)^1
  const rand = seededRandom(31);
  const B = 1000;
  let duplicates = 0;
  for (let batch = 0; batch < 1000; batch++) {
    // Half the entries hit ten hot slots, so most batches repeat indices many times.
    const indices = Int32Array.from({ length: B }, () => (rand() < 0.5 ? Math.floor(rand() * 10) : Math.floor(rand() * N)));
    const last = batch === 999;
    const tds = Float32Array.from({ length: B }, () => (last ? 0.5 + rand() : (rand() < 0.5 ? -1 : 1) * 10 ** (rand() * 11 - 3)));
    const result = replay.updatePriorities(indices, ones(B), tds);
    const winners = new Map<number, number>();
    indices.forEach((slot, k) => winners.set(slot, tds[k]!));
    for (const [slot, td] of winners) expected[slot] = leafPriority(td, 1, 0, 1e12);
    assert.equal(result.applied, winners.size);
    assert.equal(result.duplicates, B - winners.size);
    duplicates += result.duplicates;
    if (batch % 100 === 99) {
      const leaves = replay.leafPriorities();
      assert.deepEqual(leaves, expected, `leaves after batch ${batch}`);
      const total = sumOf(leaves);
      assert.ok(Math.abs(replay.totalPriority - total) <= 1e-12 * total, `root ${replay.totalPriority} vs sum ${total} after batch ${batch}`);
    }
  }
  assert.ok(duplicates > 400_000);
});

test('a priority raised to 1e8 and lowered back leaves the root equal to the sum of the leaves', () => {
  const replay = new ReplayBuffer({ capacity: 2, stateDim: 1, alpha: 1, eps: 0, pClip: 1e12 });
  replay.insertBatch(makeBatch(2, 1));
  replay.updatePriorities(Int32Array.from([0]), ones(1), Float32Array.from([1e8]));
  replay.updatePriorities(Int32Array.from([0]), ones(1), Float32Array.from([1]));
  assert.equal(replay.totalPriority, 2);
});

test('IS weights of a half-full buffer match the hand computation, buffer-max and batch-max', () => {
  // capacity 8, 4 stored, |td| = 0.5, 1, 2, 4, alpha = 0.5, eps = 0, beta0 = 0.4:
  // leaves sqrt(|td|) = 0.70711, 1, 1.41421, 2; total 5.12132; P = 0.13807, 0.19526, 0.27614, 0.39052.
  // w_i = (4 P_i)^-0.4 / max_j (4 P_j)^-0.4; the max is at slot 0 (smallest P), so
  // w = 1, (0.70711 / 1)^0.4, (0.70711 / 1.41421)^0.4, (0.70711 / 2)^0.4 = 1, 0.87055, 0.75786, 0.65975.
  const byHand = [1, 0.87055, 0.75786, 0.65975];
  const make = (isNormalization: 'buffer' | 'batch') => {
    const replay = new ReplayBuffer({ capacity: 8, stateDim: 2, alpha: 0.5, eps: 0, beta0: 0.4, betaSteps: 100, isNormalization });
    replay.insertBatch(makeBatch(4, 2));
    replay.updatePriorities(Int32Array.from([0, 1, 2, 3]), ones(4), Float32Array.from([0.5, -1, 2, 4]));
    return replay;
  };
  const buffer = make('buffer');
  const { indices, weights } = buffer.sample(64);
  assert.equal(new Set(indices).size, 4);
  indices.forEach((slot, k) => assert.ok(Math.abs(weights[k]! - byHand[slot]!) < 1e-5, `slot ${slot}: ${weights[k]}`));
  // The second call uses beta = 0.4 + 0.6 * 1 / 100 = 0.406.
  const second = buffer.sample(64);
  second.indices.forEach((slot, k) => assert.ok(Math.abs(second.weights[k]! - byHand[slot]! ** (0.406 / 0.4)) < 1e-5));

  // Batch normalisation: divided by the largest weight in the batch instead.
  const batchNorm = make('batch');
  for (const size of [1, 2, 3]) {
    const s = batchNorm.sample(size);
    const beta = 0.4 + (0.6 * (batchNorm.sampleSteps - 1)) / 100;
    const hand = Array.from(s.indices, (slot) => byHand[slot]! ** (beta / 0.4));
    const max = Math.max(...hand);
    s.indices.forEach((_, k) => assert.ok(Math.abs(s.weights[k]! - hand[k]! / max) < 1e-5, `batch of ${size}`));
  }
});

test('beta anneals linearly from beta0 and is clamped at 1 after betaSteps', () => {
  const replay = new ReplayBuffer({ capacity: 16, stateDim: 1, beta0: 0.4, betaSteps: 10 });
  replay.insertBatch(makeBatch(4, 1));
  const seen: number[] = [];
  for (let call = 0; call < 25; call++) {
    seen.push(replay.beta);
    replay.sample(2);
  }
  seen.forEach((beta, step) => assert.ok(Math.abs(beta - Math.min(1, 0.4 + 0.06 * step)) < 1e-12, `step ${step}: ${beta}`));
  assert.equal(replay.beta, 1);
  assert.equal(replay.sampleSteps, 25);
  replay.sampleSteps = 5;
  assert.ok(Math.abs(replay.beta - 0.7) < 1e-12);
});

test('duplicate indices in one update: the last entry wins', () => {
  const replay = new ReplayBuffer({ capacity: 8, stateDim: 1, alpha: 0.6, eps: 1e-6 });
  replay.insertBatch(makeBatch(6, 1));
  const result = replay.updatePriorities(Int32Array.from([2, 5, 2, 2]), ones(4), Float32Array.from([10, 1, 3, 0.5]));
  assert.deepEqual(result, { applied: 2, rejectedNonfinite: 0, stale: 0, duplicates: 2 });
  const leaves = replay.leafPriorities();
  near(leaves[2], leafPriority(0.5, 0.6, 1e-6));
  near(leaves[5], leafPriority(1, 0.6, 1e-6));
  assert.equal(replay.maxPriority, 1); // the superseded |td| = 10 was never applied
});

test('a NaN or Inf TD error leaves the sum tree unchanged and is counted', () => {
  const replay = new ReplayBuffer({ capacity: 8, stateDim: 1 });
  replay.insertBatch(makeBatch(5, 1));
  replay.updatePriorities(Int32Array.from([0, 1, 2, 3, 4]), ones(5), Float32Array.from([0.1, 0.2, 0.3, 0.4, 0.5]));
  const before = replay.leafPriorities(), totalBefore = replay.totalPriority, maxBefore = replay.maxPriority;
  // Slot 1's last entry is NaN (its earlier finite entry is superseded); slot 3 gets -Inf.
  const result = replay.updatePriorities(Int32Array.from([1, 1, 3, 4]), ones(4), Float32Array.from([7, NaN, -Infinity, Infinity]));
  assert.deepEqual(result, { applied: 0, rejectedNonfinite: 3, stale: 0, duplicates: 1 });
  assert.deepEqual(replay.leafPriorities(), before);
  assert.equal(replay.totalPriority, totalBefore);
  assert.equal(replay.maxPriority, maxBefore);
});

test('an update whose slot was overwritten after the buffer wrapped is dropped as stale', () => {
  const replay = new ReplayBuffer({ capacity: 4, stateDim: 1, sampler: 'uniform' });
  replay.insertBatch(makeBatch(4, 1));
  const indices = Int32Array.from([0, 1, 2, 3]);
  const generations = Uint32Array.from([1, 1, 1, 1]);
  replay.insertBatch(makeBatch(2, 1, 100)); // overwrites slots 0 and 1 (generation 2)
  const result = replay.updatePriorities(indices, generations, Float32Array.from([5, 5, 5, 5]));
  assert.deepEqual(result, { applied: 2, rejectedNonfinite: 0, stale: 2, duplicates: 0 });
  const leaves = replay.leafPriorities();
  near(leaves[0], leafPriority(1, 0.6, 1e-6)); // still the insert priority
  near(leaves[2], leafPriority(5, 0.6, 1e-6));
  const s = replay.sample(200);
  s.indices.forEach((slot, k) => assert.equal(s.generations[k], slot < 2 ? 2 : 1));
});

test('the ring wraps: the oldest transitions are overwritten in order and get the max priority', () => {
  const replay = new ReplayBuffer({ capacity: 4, stateDim: 3, sampler: 'uniform', alpha: 1, eps: 0 });
  replay.insertBatch(makeBatch(3, 3, 0)); // transitions 0, 1, 2 -> slots 0, 1, 2
  replay.updatePriorities(Int32Array.from([0, 1]), ones(2), Float32Array.from([0.25, 7]));
  replay.insertBatch(makeBatch(3, 3, 3)); // transitions 3, 4, 5 -> slots 3, 0, 1
  assert.equal(replay.size, 4);
  // Slots 0 and 1 now hold transitions 4 and 5 with the max priority 7 (their old 0.25 and 7 are gone).
  assert.deepEqual(Array.from(replay.leafPriorities()), [7, 7, 1, 7]);
  assert.equal(replay.totalPriority, 22);
  const holds = new Map<number, number>();
  const s = replay.sample(400);
  s.indices.forEach((slot, k) => {
    holds.set(slot, s.rewards[k]!);
    const id = s.rewards[k]!;
    assert.deepEqual(Array.from(s.states.subarray(3 * k, 3 * k + 3)), [id, id + 0.01, id + 0.02].map(Math.fround));
    assert.deepEqual(Array.from(s.nextStates.subarray(3 * k, 3 * k + 3)), [-id, -id - 0.01, -id - 0.02].map(Math.fround));
    assert.equal(s.actions[k], id % 3);
    assert.equal(s.dones[k], id % 3 === 2 ? 1 : 0);
    assert.equal(s.discounts[k], 1 - s.dones[k]!); // default discount = 1 - done
  });
  assert.deepEqual([...holds].sort((a, b) => a[0] - b[0]), [[0, 4], [1, 5], [2, 2], [3, 3]]);
});

test('given discounts are stored and returned as they are', () => {
  const replay = new ReplayBuffer({ capacity: 4, stateDim: 1, sampler: 'uniform' });
  replay.insertBatch({ ...makeBatch(2, 1), discounts: Float32Array.from([0.25, 0.5]) });
  const s = replay.sample(50);
  s.indices.forEach((slot, k) => assert.equal(s.discounts[k], slot === 0 ? 0.25 : 0.5));
});

test('new transitions get the running max priority, kept raw and transformed (clipped) once', () => {
  const alpha = 0.6, eps = 1e-6, pClip = 100;
  const replay = new ReplayBuffer({ capacity: 16, stateDim: 1, alpha, eps, pClip });
  replay.insertBatch(makeBatch(2, 1));
  assert.equal(replay.maxPriority, 1);
  replay.leafPriorities().forEach((leaf) => near(leaf, leafPriority(1, alpha, eps)));
  replay.updatePriorities(Int32Array.from([0, 1]), ones(2), Float32Array.from([5, -0.5]));
  assert.equal(replay.maxPriority, 5);
  replay.insertBatch(makeBatch(1, 1));
  near(replay.leafPriorities()[2], leafPriority(5, alpha, eps));
  // A lower TD error does not lower the max; one above p_clip raises the raw max, but the
  // priority it gives new transitions is clipped.
  replay.updatePriorities(Int32Array.from([0, 1]), ones(2), Float32Array.from([0.1, 1e9]));
  assert.equal(replay.maxPriority, Math.fround(1e9));
  replay.insertBatch(makeBatch(1, 1));
  near(replay.leafPriorities()[3], (100 + eps) ** alpha);
  near(replay.leafPriorities()[1], leafPriority(1e9, alpha, eps, pClip));
});
