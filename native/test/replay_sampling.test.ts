import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ReplayBuffer } from '../replay.ts';
import { chiSquare, chiSquareCritical, leafPriority, makeBatch, seededRandom } from './replay_reference.ts';

const DRAWS = 100_000;
const BATCH = 16; // small batches: the strata then barely constrain the counts

/** A buffer of `size` stored transitions whose TD errors are set to `tds` (slot i <- tds[i]). */
function bufferWithPriorities(options: ConstructorParameters<typeof ReplayBuffer>[0], tds: Float32Array): ReplayBuffer {
  const replay = new ReplayBuffer(options);
  replay.insertBatch(makeBatch(tds.length, options.stateDim));
  const indices = Int32Array.from(tds, (_, i) => i);
  const result = replay.updatePriorities(indices, new Uint32Array(tds.length).fill(1), tds);
  assert.equal(result.applied, tds.length);
  return replay;
}

function countDraws(replay: ReplayBuffer, slots: number): number[] {
  const counts = new Array<number>(slots).fill(0);
  for (let n = 0; n < DRAWS; n += BATCH) for (const i of replay.sample(BATCH).indices) counts[i]!++;
  return counts;
}

test('proportional sampling frequencies follow p^alpha / sum p^alpha (chi-square, 100k draws)', () => {
  const rand = seededRandom(1);
  const tds = Float32Array.from({ length: 50 }, () => 0.05 + rand() * 4);
  const alpha = 0.6, eps = 1e-3;
  const replay = bufferWithPriorities({ capacity: 64, stateDim: 2, alpha, eps, seed: 9 }, tds);
  const leaves = Array.from(tds, (td) => leafPriority(td, alpha, eps));
  const total = leaves.reduce((s, x) => s + x, 0);
  const stat = chiSquare(countDraws(replay, 50), leaves.map((x) => x / total), DRAWS);
  assert.ok(stat < chiSquareCritical(49), `chi-square ${stat.toFixed(1)} >= ${chiSquareCritical(49).toFixed(1)}`);
  // The same counts are far from uniform: the test can tell the distributions apart.
  assert.ok(chiSquare(countDraws(replay, 50), new Array(50).fill(1 / 50), DRAWS) > 10 * chiSquareCritical(49));
});

test('rank-based sampling frequencies follow rank^-alpha / sum_k k^-alpha (chi-square, 100k draws)', () => {
  const rand = seededRandom(2);
  const tds = Float32Array.from({ length: 40 }, () => rand() * 10);
  const alpha = 0.7;
  const replay = bufferWithPriorities({ capacity: 40, stateDim: 1, alpha, sampler: 'rank', rankSortInterval: 1_000_000, seed: 3 }, tds);
  // Rank 1 = largest |td|.
  const byPriority = Array.from(tds.keys()).sort((a, b) => tds[b]! - tds[a]!);
  const rankOf = new Array<number>(40);
  byPriority.forEach((slot, r) => (rankOf[slot] = r + 1));
  let norm = 0;
  for (let r = 1; r <= 40; r++) norm += r ** -alpha;
  const probabilities = rankOf.map((r) => r ** -alpha / norm);
  const stat = chiSquare(countDraws(replay, 40), probabilities, DRAWS);
  assert.ok(stat < chiSquareCritical(39), `chi-square ${stat.toFixed(1)} >= ${chiSquareCritical(39).toFixed(1)}`);
  // Sampling by the priorities' magnitudes instead of their ranks would fail.
  const total = tds.reduce((s, x) => s + leafPriority(x, alpha, 1e-6), 0);
  assert.ok(chiSquare(countDraws(replay, 40), Array.from(tds, (x) => leafPriority(x, alpha, 1e-6) / total), DRAWS) > chiSquareCritical(39));
});

test('uniform sampling frequencies are flat over [0, size) (chi-square, 100k draws) and every weight is 1', () => {
  const rand = seededRandom(3);
  const replay = bufferWithPriorities({ capacity: 128, stateDim: 1, sampler: 'uniform', seed: 4 }, Float32Array.from({ length: 37 }, () => rand() * 100));
  const stat = chiSquare(countDraws(replay, 37), new Array(37).fill(1 / 37), DRAWS);
  assert.ok(stat < chiSquareCritical(36), `chi-square ${stat.toFixed(1)}`);
  const { weights } = replay.sample(500);
  assert.ok(weights.every((w) => w === 1));
});

test('rank-based IS weights are (rank / size)^(alpha beta), and ranks change only at the re-sort every K calls', () => {
  // alpha = beta = 1: w = P(rank = size) / P(rank) = rank / size.
  const replay = bufferWithPriorities({ capacity: 8, stateDim: 1, alpha: 1, beta0: 1, sampler: 'rank', rankSortInterval: 3, seed: 5 }, Float32Array.from([1, 2, 3]));
  const weightsBySlot = () => {
    const { indices, weights } = replay.sample(60);
    const seen = new Map<number, number>();
    indices.forEach((slot, k) => seen.set(slot, weights[k]!));
    return Object.fromEntries([...seen].sort((a, b) => a[0] - b[0]));
  };
  const third = Math.fround(1 / 3), twoThirds = Math.fround(2 / 3);
  assert.deepEqual(weightsBySlot(), { 0: 1, 1: twoThirds, 2: third }); // sorted at call 1: slot 2 first
  replay.updatePriorities(Int32Array.from([0, 1, 2]), Uint32Array.from([1, 1, 1]), Float32Array.from([3, 2, 1]));
  assert.deepEqual(weightsBySlot(), { 0: 1, 1: twoThirds, 2: third }); // call 2: old ranks
  assert.deepEqual(weightsBySlot(), { 0: 1, 1: twoThirds, 2: third }); // call 3: old ranks
  assert.deepEqual(weightsBySlot(), { 0: third, 1: twoThirds, 2: 1 }); // call 4: re-sorted
  // A transition added after the sort ranks first until the next sort (it has the max priority).
  replay.insertBatch(makeBatch(1, 1));
  assert.deepEqual(weightsBySlot(), { 0: 0.5, 1: 0.75, 2: 1, 3: 0.25 });
});

test('stratified sampling never returns an index >= size or a zero-priority slot, even for masses at the very top', () => {
  // eps = 0: a zero TD error gives a zero priority. The last stored slots and the empty slots
  // past size all have zero priority, so a descent that followed rounding to the right would
  // land on them.
  const tds = Float32Array.from({ length: 37 }, (_, i) => (i < 30 ? 1e-7 + (i % 5) * 1e7 : 0));
  const replay = bufferWithPriorities({ capacity: 1000, stateDim: 1, alpha: 1, eps: 0, seed: 6 }, tds);
  const leaves = replay.leafPriorities();
  assert.equal(leaves.length, 37);
  for (const batch of [1, 2, 3, 37, 1000, 4096]) {
    for (let call = 0; call < 20; call++) {
      for (const i of replay.sample(batch).indices) {
        assert.ok(i >= 0 && i < 37, `index ${i} outside [0, 37)`);
        assert.ok(leaves[i]! > 0, `slot ${i} has zero priority`);
      }
    }
  }
});

test('a buffer whose every priority is zero refuses to sample instead of returning garbage', () => {
  const replay = bufferWithPriorities({ capacity: 8, stateDim: 1, alpha: 1, eps: 0 }, new Float32Array(4));
  assert.throws(() => replay.sample(2), { name: 'Error', message: 'every stored priority is zero, so nothing can be sampled (use eps > 0)' });
});
