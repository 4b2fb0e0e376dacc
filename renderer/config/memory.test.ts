import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRunConfig } from '../../common/config.ts';
import { estimateMemory, formatBytes, memoryShortfall } from '../../common/memory-estimate.ts';
import { memoryEstimateText } from './memory.ts';

test('the estimate counts the replay slots, both trees, the five parameter buffers and the batch', () => {
  // CartPole: D = 4, 2 actions; capacity 100000 -> 131072 tree leaves.
  const e = estimateMemory(parseRunConfig({ env: { kind: 'cartpole' }, network: { hidden: [8] }, optim: { batch_size: 10 }, replay: { capacity: 100_000 } }));
  assert.equal(e.stateDim, 4);
  assert.equal(e.replayBytes, 100_000 * (2 * 4 * 4 + 2 * 4 + 4 + 1 + 4) + 2 * 2 * 131_072 * 8);
  const params = 4 * 8 + 8 + (8 * 3 + 3); // trunk 4 -> 8, dueling heads V (1) and A (2)
  assert.equal(e.networkBytes, 5 * params * 4);
  assert.equal(e.batchBytes, 3 * 10 * (8 + 2 + 1) * 4 * 2);
  assert.equal(e.totalBytes, e.replayBytes + e.networkBytes + e.batchBytes);
  const trading = estimateMemory(parseRunConfig({ env: { kind: 'trading', data: 'x.csv', lags: 7, n_actions: 45 } }));
  assert.deepEqual([trading.stateDim, trading.nActions], [51, 45]);
});

test('a run that does not fit says how much it needs and what to lower; a GPU replay that does not fit falls back to RAM', () => {
  const e = { stateDim: 4, nActions: 2, replayBytes: 8 * 1024 ** 3, networkBytes: 1024 ** 2, batchBytes: 1024 ** 2, totalBytes: 8 * 1024 ** 3 + 2 * 1024 ** 2 };
  assert.equal(memoryShortfall(e, { compute: 'cpu', replayOnGpu: false }, { ramBytes: 16 * 1024 ** 3 }), null);
  assert.equal(
    memoryShortfall(e, { compute: 'cpu', replayOnGpu: false }, { ramBytes: 4 * 1024 ** 3 }),
    'this config needs about 8.00 GiB of RAM (replay 8.00 GiB, networks 1.0 MiB, batch 1.0 MiB), more than the 4.00 GiB available: lower replay.capacity, optim.batch_size or network.hidden',
  );
  assert.equal(memoryShortfall(e, { compute: 'cuda', replayOnGpu: true }, { ramBytes: 1024 ** 3, gpuFreeBytes: 80 * 1024 ** 3 }), null, 'replay and learner on the GPU');
  assert.match(memoryShortfall(e, { compute: 'cuda', replayOnGpu: true }, { ramBytes: 1024 ** 3, gpuFreeBytes: 4 * 1024 ** 3 })!, /needs about 8\.00 GiB of RAM/, 'the replay falls back to the CPU, where it does not fit either');
  assert.match(memoryShortfall(e, { compute: 'cuda', replayOnGpu: true }, { ramBytes: 1024 ** 3, gpuFreeBytes: 1024 ** 2 })!, /^this config needs about 2\.0 MiB of GPU memory for the learner/);
});

test('the config editor shows the draft estimate, and nothing for an invalid draft', () => {
  assert.equal(memoryEstimateText({ env: { kind: 'cartpole' }, replay: { capacity: 50_000_000 } }), 'about 4.29 GiB (replay 4.28 GiB, networks 1.3 MiB, batch 3.0 MiB)');
  assert.equal(memoryEstimateText({ env: { kind: 'cartpole' }, replay: { capacity: -1 } }), undefined);
  assert.deepEqual([formatBytes(100), formatBytes(12 * 1024), formatBytes(1.5 * 1024 ** 2)], ['100 B', '12.0 KiB', '1.5 MiB']);
});
