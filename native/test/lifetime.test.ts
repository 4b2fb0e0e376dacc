// Native lifetimes: Trainer.build allocates off the JS thread, and close() frees a trainer or a
// replay buffer at once (the memory goes back to the OS, not when the garbage collector gets to
// it), detaches the scalar block first, is idempotent, and makes every later use throw a clear
// Error. Memory is checked through the process's resident set: the buffers here are hundreds of
// MiB, so the drop is far above the allocator's noise.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRunConfig, type RunConfigInput } from '../../common/config.ts';
import { estimateMemory } from '../../common/memory-estimate.ts';
import { TINY_CARTPOLE } from '../../e2e/flow.ts';
import { loadAddon } from '../addon.ts';
import { ReplayBuffer } from '../replay.ts';
import { readScalars } from '../scalars.ts';
import { buildTrainer, createTrainer, type NativeTrainer } from '../trainer.ts';

const layout = loadAddon().scalarLayout;
const MiB = 1024 * 1024;
const rss = () => process.memoryUsage().rss;
const CLOSED = /is closed \(close\(\) freed its memory\)/;

/** The end-to-end tests' small CartPole config; `patch` overrides whole sections. */
function config(patch: Partial<RunConfigInput> = {}) {
  return parseRunConfig({ ...TINY_CARTPOLE, ...patch } as RunConfigInput);
}

test('closing a replay buffer gives its memory back at once; later calls say it is closed', () => {
  const before = rss();
  const rb = new ReplayBuffer({ capacity: 1 << 22, stateDim: 16, device: 'cpu' }); // 4M x (2 x 16 floats + 13 B) + trees: ~0.9 GiB
  const held = rss() - before;
  assert.ok(held > 600 * MiB, `the buffer is resident (${(held / MiB).toFixed(0)} MiB)`);
  rb.insertBatch({ states: new Float32Array(16), actions: new Int32Array([1]), rewards: new Float32Array([1]), nextStates: new Float32Array(16), dones: new Uint8Array([0]) });
  assert.equal(rb.closed, false);
  const open = rss();
  rb.close();
  assert.ok(open - rss() > 600 * MiB, `close() returned ${((open - rss()) / MiB).toFixed(0)} MiB, expected the buffer's ~900`);
  rb.close(); // idempotent
  assert.equal(rb.closed, true);
  const calls: [string, () => unknown][] = [
    ['size', () => rb.size],
    ['capacity', () => rb.capacity],
    ['sample', () => rb.sample(1)],
    ['insertBatch', () => rb.insertBatch({ states: new Float32Array(16), actions: new Int32Array([1]), rewards: new Float32Array([1]), nextStates: new Float32Array(16), dones: new Uint8Array([0]) })],
    ['updatePriorities', () => rb.updatePriorities(new Int32Array([0]), new Uint32Array([0]), new Float32Array([1]))],
    ['leafPriorities', () => rb.leafPriorities()],
    ['totalPriority', () => rb.totalPriority],
    ['sampleSteps', () => (rb.sampleSteps = 3)],
    ['backend', () => rb.backend],
    ['fallbackReason', () => rb.fallbackReason],
    ['gpuInfo', () => rb.gpuInfo],
    ['captureStep', () => rb.captureStep(1)],
    ['step', () => rb.step(new Float32Array(1), false)],
  ];
  for (const [name, call] of calls) assert.throws(call, { name: 'Error', message: CLOSED }, name);
});

test('Trainer.build allocates off the event loop: the loop turns while it builds, and the trainer trains', async () => {
  const c = config({ replay: { capacity: 1 << 23 } }); // ~0.6 GiB of replay: hundreds of ms to allocate
  let pending = true;
  const built = buildTrainer({ config: c, backend: 'cpu' }).finally(() => (pending = false));
  let turns = 0;
  while (pending) {
    await new Promise((r) => setImmediate(r));
    turns++;
  }
  const t = await built;
  assert.ok(turns >= 10, `the event loop turned ${turns} times while the trainer was built (a build on the JS thread allows at most 1)`);
  assert.equal((await t.run(5)).steps, 5);
  assert.equal(readScalars(t.scalars, layout).step, 5);
  t.close();
});

test('Trainer.build refuses a bad config as createTrainer does', async () => {
  const c = config();
  await assert.rejects(buildTrainer({ config: { ...c, optim: { ...c.optim, gamma: 1.5 } }, backend: 'cpu' }), { name: 'RangeError', message: /config.optim.gamma must be in \[0, 1\], got 1.5$/ });
  await assert.rejects(buildTrainer({ config: c, backend: 'gpu' as 'cpu' }), { name: 'RangeError', message: "backend must be one of 'cpu', 'cuda', got 'gpu'" });
});

test('closing a trainer detaches its scalar block, frees its memory at once, and later uses throw', async () => {
  const c = config({ replay: { capacity: 1 << 22 } });
  const before = rss();
  const t = await buildTrainer({ config: c, backend: 'cpu' });
  const held = rss() - before;
  const estimate = estimateMemory(c).totalBytes;
  assert.ok(Math.abs(held - estimate) < 0.15 * estimate, `resident ${(held / MiB).toFixed(0)} MiB vs the estimate's ${(estimate / MiB).toFixed(0)} MiB (within 15%)`);
  const block = t.scalars;
  const running = t.run(200);
  assert.throws(() => t.close(), { message: 'close: a run() or evaluate() is in progress: call stop() and await it first' });
  await running;
  assert.equal(readScalars(block, layout).step, 200);
  const open = rss();
  t.close();
  assert.ok(open - rss() > 0.6 * held, `close() returned ${((open - rss()) / MiB).toFixed(0)} MiB of the ${(held / MiB).toFixed(0)} held`);
  t.close(); // idempotent
  assert.equal(t.closed, true);
  assert.equal(block.byteLength, 0, 'JS can no longer read the freed block');
  assert.throws(() => readScalars(block, layout), RangeError);
  const calls: [string, () => unknown][] = [
    ['run', () => t.run(1)],
    ['stop', () => t.stop()],
    ['evaluate', () => t.evaluate(1)],
    ['saveState', () => t.saveState()],
    ['loadState', () => t.loadState(new Uint8Array(8))],
    ['info', () => t.info],
    ['scalars', () => t.scalars],
  ];
  for (const [name, call] of calls) assert.throws(call, { name: 'Error', message: new RegExp(`^${name}: this Trainer is closed`) }, name);
});

test('a trainer built on the JS thread closes the same way', () => {
  const t: NativeTrainer = createTrainer({ config: config(), backend: 'cpu' });
  const block = t.scalars;
  t.close();
  assert.equal(block.byteLength, 0);
  assert.throws(() => t.info, CLOSED);
});

test('stop() ends an evaluation within one env step, with the episodes finished by then', async () => {
  const t = createTrainer({ config: config(), backend: 'cpu' });
  const evaluating = t.evaluate(100_000); // ~1e6 env steps of an untrained CartPole policy: seconds
  t.stop();
  const r = await evaluating;
  assert.equal(r.stopped, true);
  assert.ok(r.episodes < 100_000, `${r.episodes} episodes counted`);
  assert.equal(r.returns.length, r.episodes);
  const full = await t.evaluate(3); // a later evaluation is not stopped by the old request
  assert.deepEqual([full.stopped, full.episodes, full.returns.length], [false, 3, 3]);
  t.close();
});
