import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ReplayBuffer, philox4x32_10 } from '../replay.ts';
import { makeBatch, philoxRef, replayUniform, seededRandom } from './replay_reference.ts';

// Random123's published known answers for Philox4x32-10 (tests/kat_vectors).
const KAT: Array<[number[], number[], number[]]> = [
  [[0, 0, 0, 0], [0, 0], [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]],
  [[0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff], [0xffffffff, 0xffffffff], [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd]],
  [[0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344], [0xa4093822, 0x299f31d0], [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1]],
];

test('Philox4x32-10 matches the Random123 known answers, natively and in the BigInt reference', () => {
  for (const [counter, key, expected] of KAT) {
    assert.deepEqual(Array.from(philox4x32_10(Uint32Array.from(counter), Uint32Array.from(key))), expected);
    assert.deepEqual(philoxRef(counter, key), expected);
  }
});

function filledBuffer(seed: number, sampler: 'proportional' | 'rank' | 'uniform' = 'proportional'): ReplayBuffer {
  const replay = new ReplayBuffer({ capacity: 100, stateDim: 3, seed, sampler });
  replay.insertBatch(makeBatch(70, 3));
  const rand = seededRandom(7);
  const all = replay.sample(70);
  replay.updatePriorities(all.indices, all.generations, Float32Array.from(all.indices, () => rand() * 5));
  return replay;
}

test('the same seed and the same calls give the same samples; another seed gives others', () => {
  for (const sampler of ['proportional', 'rank', 'uniform'] as const) {
    const a = filledBuffer(42, sampler), b = filledBuffer(42, sampler), c = filledBuffer(43, sampler);
    for (let call = 0; call < 3; call++) {
      const sa = a.sample(64), sb = b.sample(64), sc = c.sample(64);
      assert.deepEqual(sa, sb, `${sampler} call ${call}`);
      assert.notDeepEqual(Array.from(sa.indices), Array.from(sc.indices), `${sampler} call ${call}`);
    }
  }
});

test('setting sampleSteps back replays the same random stream (resume)', () => {
  const replay = filledBuffer(5);
  replay.sampleSteps = 1000;
  const first = replay.sample(32);
  replay.sample(32);
  replay.sampleSteps = 1000;
  assert.deepEqual(replay.sample(32), first);
});

test('proportional draws are the stratified masses (k + u_k) total / B found by a brute-force prefix sum', () => {
  const seed = 0x1234_5678_9;
  const replay = new ReplayBuffer({ capacity: 200, stateDim: 1, seed, alpha: 0.7 });
  replay.insertBatch(makeBatch(150, 1));
  const rand = seededRandom(11);
  const indices = Int32Array.from({ length: 150 }, (_, i) => i);
  replay.updatePriorities(indices, new Uint32Array(150).fill(1), Float32Array.from(indices, () => rand() * 3));
  const leaves = Array.from(replay.leafPriorities());
  const total = leaves.reduce((s, x) => s + x, 0);
  let checked = 0;
  for (const batch of [1, 7, 64, 300]) {
    const step = replay.sampleSteps;
    const got = replay.sample(batch).indices;
    for (let k = 0; k < batch; k++) {
      const mass = ((k + replayUniform(seed, step, k)) * total) / batch;
      let prefix = 0, slot = 0;
      while (slot < leaves.length - 1 && mass >= prefix + leaves[slot]!) prefix += leaves[slot++]!;
      // A mass within rounding of a boundary may land on either side: skip it.
      if (Math.abs(mass - prefix) < 1e-9 * total || Math.abs(prefix + leaves[slot]! - mass) < 1e-9 * total) continue;
      assert.equal(got[k], slot, `batch ${batch}, draw ${k}`);
      checked++;
    }
  }
  assert.ok(checked > 360, `only ${checked} draws checked`);
});
