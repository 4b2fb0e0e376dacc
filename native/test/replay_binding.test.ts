import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadAddon } from '../addon.ts';
import { ReplayBuffer, type ReplayOptions, type TransitionBatch } from '../replay.ts';
import { makeBatch } from './replay_reference.ts';

const D = 4;
const fresh = (extra: Partial<ReplayOptions> = {}) => new ReplayBuffer({ capacity: 16, stateDim: D, ...extra });
const err = (name: string, message: string) => ({ name, message });

test('the constructor checks every option and names it', () => {
  const cases: Array<[unknown, { name: string; message: string }]> = [
    [undefined, err('TypeError', 'ReplayBuffer options must be an object')],
    [{ stateDim: 4 }, err('TypeError', 'options.capacity is required')],
    [{ capacity: '8', stateDim: 4 }, err('TypeError', "options.capacity must be a number, got '8'")],
    [{ capacity: 8.5, stateDim: 4 }, err('RangeError', 'options.capacity must be an integer, got 8.5')],
    [{ capacity: 0, stateDim: 4 }, err('RangeError', 'replay config: capacity must be in [1, 1073741824], got 0')],
    [{ capacity: 8, stateDim: 0 }, err('RangeError', 'replay config: state_dim must be >= 1, got 0')],
    [{ capacity: 8, stateDim: 4, alpha: 2 }, err('RangeError', 'replay config: alpha must be in [0, 1], got 2')],
    [{ capacity: 8, stateDim: 4, alpha: NaN }, err('RangeError', 'options.alpha must be a finite number, got NaN')],
    [{ capacity: 8, stateDim: 4, beta0: -0.1 }, err('RangeError', 'replay config: beta0 must be in [0, 1], got -0.1')],
    [{ capacity: 8, stateDim: 4, betaSteps: 0 }, err('RangeError', 'replay config: beta_steps must be >= 1, got 0')],
    [{ capacity: 8, stateDim: 4, eps: -1 }, err('RangeError', 'replay config: eps must be finite and >= 0, got -1')],
    [{ capacity: 8, stateDim: 4, pClip: 0 }, err('RangeError', 'replay config: p_clip must be finite and > 0, got 0')],
    [{ capacity: 8, stateDim: 4, rankSortInterval: 0 }, err('RangeError', 'replay config: rank_sort_interval must be >= 1, got 0')],
    [{ capacity: 8, stateDim: 4, sampler: 'prioritized' }, err('RangeError', "options.sampler must be one of 'proportional', 'rank', 'uniform', got 'prioritized'")],
    [{ capacity: 8, stateDim: 4, isNormalization: 'max' }, err('RangeError', "options.isNormalization must be one of 'buffer', 'batch', got 'max'")],
    [{ capacity: 8, stateDim: 4, seed: -1 }, err('RangeError', 'options.seed must be in [0, 9007199254740992], got -1')],
    [{ capacity: 8, stateDim: 4, stateDtype: 'f16' }, err('RangeError', "options.stateDtype must be one of 'f32', 'bf16', got 'f16'")],
    [{ capacity: 8, stateDim: 4, treeFanout: '8' }, err('RangeError', "options.treeFanout must be one of '2', '16', '32', got '8'")],
    [{ capacity: 8, stateDim: 4, simulateOom: 1 }, err('TypeError', 'options.simulateOom must be a boolean')],
    [{ capacity: 8, stateDim: 4, device: 'tpu' }, err('RangeError', "options.device must be one of 'cpu', 'auto', 'cuda', got 'tpu'")],
  ];
  for (const [options, expected] of cases) assert.throws(() => new ReplayBuffer(options as ReplayOptions), expected, JSON.stringify(options));
});

test('device auto gives the GPU when one is usable, cpu the CPU, both with the given shape', () => {
  const gpu = loadAddon().backendInfo().cudaAvailable;
  for (const device of ['auto', 'cpu'] as const) {
    const replay = fresh({ device });
    assert.equal(replay.backend, device === 'auto' && gpu ? 'cuda' : 'cpu');
    assert.equal(replay.capacity, 16);
    assert.equal(replay.stateDim, D);
    assert.equal(replay.size, 0);
    assert.equal(replay.totalPriority, 0);
    assert.equal(replay.leafPriorities().length, 0);
  }
});

test('insertBatch checks array types, lengths and values, and a refused batch changes nothing', () => {
  const replay = fresh();
  replay.insertBatch(makeBatch(2, D));
  const good = makeBatch(3, D);
  const withField = (field: keyof TransitionBatch, value: unknown) => ({ ...good, [field]: value }) as TransitionBatch;
  const nanAt = (field: 'states' | 'rewards' | 'nextStates', i: number, v: number) => {
    const copy = good[field].slice();
    copy[i] = v;
    return withField(field, copy);
  };
  const cases: Array<[unknown, { name: string; message: string }]> = [
    [undefined, err('TypeError', 'insertBatch expects an object {states, actions, rewards, nextStates, dones, discounts?}')],
    [{ ...good, actions: undefined }, err('TypeError', 'actions must be an Int32Array')],
    [withField('actions', Float32Array.from([0, 1, 2])), err('TypeError', 'actions must be an Int32Array')],
    [withField('states', new Float64Array(12)), err('TypeError', 'states must be a Float32Array')],
    [withField('states', new Float32Array(11)), err('RangeError', 'states must be a Float32Array of length 12, got length 11')],
    [withField('nextStates', new Float32Array(13)), err('RangeError', 'nextStates must be a Float32Array of length 12, got length 13')],
    [withField('rewards', new Float32Array(2)), err('RangeError', 'rewards must be a Float32Array of length 3, got length 2')],
    [withField('dones', new Int8Array(3)), err('TypeError', 'dones must be a Uint8Array')],
    [withField('discounts', new Float32Array(4)), err('RangeError', 'discounts must be a Float32Array of length 3, got length 4')],
    [nanAt('rewards', 1, NaN), err('RangeError', 'rewards[1] must be finite, got nan')],
    [nanAt('states', 7, Infinity), err('RangeError', 'states[7] must be finite, got inf')],
    [nanAt('nextStates', 11, -Infinity), err('RangeError', 'next_states[11] must be finite, got -inf')],
    [withField('actions', Int32Array.from([0, -1, 2])), err('RangeError', 'actions[1] must be >= 0, got -1')],
    [withField('dones', Uint8Array.from([0, 0, 2])), err('RangeError', 'dones[2] must be 0 or 1, got 2')],
    [withField('discounts', Float32Array.from([1, 1.5, 0])), err('RangeError', 'discounts[1] must be in [0, 1], got 1.5')],
  ];
  for (const [batch, expected] of cases) assert.throws(() => replay.insertBatch(batch as TransitionBatch), expected, expected.message);
  assert.equal(replay.size, 2);
  const leaves = replay.leafPriorities();
  assert.equal(leaves.length, 2);
  replay.insertBatch(good);
  assert.equal(replay.size, 5);
});

test('sample checks its batch size and refuses an empty buffer', () => {
  const replay = fresh();
  assert.throws(() => replay.sample(4), err('Error', 'cannot sample from an empty replay buffer'));
  replay.insertBatch(makeBatch(3, D));
  assert.throws(() => replay.sample(0), err('RangeError', 'batchSize must be in [1, 1048576], got 0'));
  // Bounded before any allocation (2^31 - 1 rows used to abort the process).
  assert.throws(() => replay.sample(2 ** 31 - 1), err('RangeError', 'batchSize must be in [1, 1048576], got 2147483647'));
  assert.throws(() => replay.sample(Number.NaN), err('RangeError', 'batchSize must be a finite number, got NaN'));
  assert.throws(() => replay.sample(2.5), err('RangeError', 'batchSize must be an integer, got 2.5'));
  assert.throws(() => replay.sample('8' as unknown as number), err('TypeError', "batchSize must be a number, got '8'"));
  const s = replay.sample(5);
  assert.equal(s.states.length, 5 * D);
  assert.equal(s.nextStates.length, 5 * D);
  for (const key of ['indices', 'generations', 'weights', 'actions', 'rewards', 'dones', 'discounts'] as const) assert.equal(s[key].length, 5, key);
  assert.ok(s.indices instanceof Int32Array && s.generations instanceof Uint32Array && s.weights instanceof Float32Array);
  assert.ok(s.dones instanceof Uint8Array && s.discounts instanceof Float32Array);
});

test('updatePriorities checks types, lengths and index ranges before changing anything', () => {
  const replay = fresh();
  replay.insertBatch(makeBatch(4, D));
  const before = replay.leafPriorities();
  const g = Uint32Array.from([1, 1]), td = Float32Array.from([3, 3]);
  const cases: Array<[() => unknown, { name: string; message: string }]> = [
    [() => replay.updatePriorities([0, 1] as unknown as Int32Array, g, td), err('TypeError', 'indices must be an Int32Array')],
    [() => replay.updatePriorities(Int32Array.from([0, 1]), Int32Array.from([1, 1]) as unknown as Uint32Array, td), err('TypeError', 'generations must be a Uint32Array')],
    [() => replay.updatePriorities(Int32Array.from([0, 1]), Uint32Array.from([1]), td), err('RangeError', 'generations must be a Uint32Array of length 2, got length 1')],
    [() => replay.updatePriorities(Int32Array.from([0, 1]), g, new Float32Array(3)), err('RangeError', 'tdErrors must be a Float32Array of length 2, got length 3')],
    [() => replay.updatePriorities(Int32Array.from([0, 4]), g, td), err('RangeError', 'indices[1] must be in [0, 4), got 4')],
    [() => replay.updatePriorities(Int32Array.from([-1, 0]), g, td), err('RangeError', 'indices[0] must be in [0, 4), got -1')],
  ];
  for (const [call, expected] of cases) assert.throws(call, expected, expected.message);
  assert.deepEqual(replay.leafPriorities(), before);
  assert.deepEqual(replay.updatePriorities(new Int32Array(0), new Uint32Array(0), new Float32Array(0)), { applied: 0, rejectedNonfinite: 0, stale: 0, duplicates: 0 });
});

test('sampleSteps accepts only non-negative integers', () => {
  const replay = fresh();
  assert.throws(() => { replay.sampleSteps = -1; }, err('RangeError', 'sampleSteps must be in [0, 9007199254740992], got -1'));
  assert.throws(() => { replay.sampleSteps = 1.5; }, err('RangeError', 'sampleSteps must be an integer, got 1.5'));
  replay.sampleSteps = 123;
  assert.equal(replay.sampleSteps, 123);
});
