// The CUDA replay backend against the CPU reference and against the distributions it must
// follow (DESIGN sections 3 and 5). On a machine without a usable GPU the GPU tests skip with
// the probe's reason, and the fallback tests check that 'auto' and 'cuda' land on the CPU with
// that reason. The CPU reference's own test files run on the GPU too when a device is present,
// since their buffers use the default device 'auto'.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadAddon } from '../addon.ts';
import { ReplayBuffer, type ReplayOptions, type SampledBatch } from '../replay.ts';
import { chiSquare, chiSquareCritical, leafPriority, makeBatch, seededRandom } from './replay_reference.ts';

const info = loadAddon().backendInfo();
const gpu = info.cudaAvailable ? undefined : `GPU test skipped: ${info.reason} (these tests run on the H200 device machine)`;
const noGpu = info.cudaAvailable ? 'a CUDA device is present' : undefined;

function twins(options: ReplayOptions): [ReplayBuffer, ReplayBuffer] {
  return [new ReplayBuffer({ ...options, device: 'cpu' }), new ReplayBuffer({ ...options, device: 'cuda' })];
}

function sameBatch(a: SampledBatch, b: SampledBatch, what: string): void {
  assert.deepEqual(b.indices, a.indices, `${what}: indices`);
  assert.deepEqual(b.generations, a.generations, `${what}: generations`);
  assert.deepEqual(b.weights, a.weights, `${what}: weights`);
  assert.deepEqual(b.states, a.states, `${what}: states`);
  assert.deepEqual(b.nextStates, a.nextStates, `${what}: next states`);
  assert.deepEqual(b.rewards, a.rewards, `${what}: rewards`);
  assert.deepEqual(b.discounts, a.discounts, `${what}: discounts`);
}

test('without a usable GPU, auto and cuda give the CPU buffer with the probe reason', { skip: noGpu }, () => {
  for (const device of ['auto', 'cuda'] as const) {
    const r = new ReplayBuffer({ capacity: 16, stateDim: 2, device });
    assert.equal(r.backend, 'cpu');
    assert.equal(r.fallbackReason, info.cudaCompiled ? info.reason : 'built without the CUDA toolkit');
    assert.match(r.fallbackReason, /no CUDA device|built without the CUDA toolkit/);
    assert.equal(r.gpuInfo, null);
    assert.throws(() => r.captureStep(8), TypeError);
  }
  assert.equal(new ReplayBuffer({ capacity: 16, stateDim: 2, device: 'cpu' }).fallbackReason, '');
});

test('auto puts the buffer on the GPU and reports its device memory', { skip: gpu }, () => {
  const r = new ReplayBuffer({ capacity: 1000, stateDim: 51 });
  assert.equal(r.backend, 'cuda');
  assert.equal(r.fallbackReason, '');
  const f32 = r.gpuInfo!;
  const bf16 = new ReplayBuffer({ capacity: 1000, stateDim: 51, stateDtype: 'bf16' }).gpuInfo!;
  // states + next states (2 x 51 x 4 bytes) + scalars + generations + trees, per transition.
  assert.ok(f32.bytesPerTransition > 2 * 51 * 4 && f32.bytesPerTransition < 2 * 51 * 4 + 64, `${f32.bytesPerTransition}`);
  assert.ok(Math.abs(f32.bytesPerTransition - bf16.bytesPerTransition - 2 * 51 * 2) < 2, `${bf16.bytesPerTransition}`);
  assert.equal(bf16.stateDtype, 'bf16');
  // Generations (4 bytes per slot), the sum tree (8 bytes per leaf and per node above) and the
  // min tree (its internal nodes) persist in L2: Hopper's set-aside holds them whole here.
  assert.ok(f32.l2PersistingBytes >= 1000 * 12 && f32.l2PersistingBytes < 1000 * 24, `${f32.l2PersistingBytes}`);
  assert.equal(bf16.l2PersistingBytes, f32.l2PersistingBytes);
});

test('GPU and CPU buffers draw the same slots, weights and rows and keep the same priorities', { skip: gpu }, () => {
  for (const sampler of ['proportional', 'rank', 'uniform'] as const)
    for (const isNormalization of ['buffer', 'batch'] as const) {
      const [cpu, cuda] = twins({ capacity: 500, stateDim: 3, sampler, isNormalization, betaSteps: 20, rankSortInterval: 4, seed: 77 });
      const rand = seededRandom(5);
      let id = 0;
      for (let round = 0; round < 10; round++) {
        const batch = makeBatch(1 + Math.floor(rand() * 150), 3, id);
        id += batch.actions.length;
        cpu.insertBatch(batch);
        cuda.insertBatch(batch);
        const a = cpu.sample(64), b = cuda.sample(64);
        sameBatch(a, b, `${sampler}/${isNormalization} round ${round}`);
        const td = Float32Array.from({ length: 64 }, (_, k) => (k % 17 === 0 ? NaN : (rand() - 0.5) * 10 ** (rand() * 4)));
        const gens = Uint32Array.from(a.generations, (g, k) => (k % 13 === 0 ? g + 1 : g));
        assert.deepEqual(cuda.updatePriorities(a.indices, gens, td), cpu.updatePriorities(a.indices, gens, td));
        const lc = cpu.leafPriorities(), lg = cuda.leafPriorities();
        for (let i = 0; i < lc.length; i++) assert.ok(Math.abs(lc[i]! - lg[i]!) <= 4.5e-16 * lc[i]!, `leaf ${i}: ${lg[i]} vs ${lc[i]}`);
        assert.equal(cuda.maxPriority, cpu.maxPriority);
        assert.equal(cuda.beta, cpu.beta);
      }
    }
});

/** Counts of each slot over `batches` GPU samples of `b`. */
function counts(r: ReplayBuffer, slots: number, batches: number, b: number): number[] {
  const c = new Array<number>(slots).fill(0);
  for (let i = 0; i < batches; i++) for (const s of r.sample(b).indices) c[s]! += 1;
  return c;
}

test('GPU proportional and rank-based frequencies follow the priorities (chi-square, 102400 draws) and equal the CPU counts', { skip: gpu }, () => {
  const N = 64, alpha = 0.7, rand = seededRandom(8);
  const tds = Float32Array.from({ length: N }, () => 0.05 + rand() * 5);
  for (const sampler of ['proportional', 'rank'] as const) {
    const [cpu, cuda] = twins({ capacity: N, stateDim: 1, sampler, alpha, seed: 3 });
    for (const r of [cpu, cuda]) {
      r.insertBatch(makeBatch(N, 1));
      r.updatePriorities(Int32Array.from({ length: N }, (_, i) => i), new Uint32Array(N).fill(1), tds);
    }
    let p: number[];
    if (sampler === 'proportional') {
      const leaves = Array.from(tds, (x) => leafPriority(x, alpha, 1e-6));
      const total = leaves.reduce((a, b) => a + b, 0);
      p = leaves.map((x) => x / total);
    } else {
      const order = Array.from({ length: N }, (_, i) => i).sort((a, b) => tds[b]! - tds[a]! || a - b);
      const h = order.reduce((s, _, r) => s + (r + 1) ** -alpha, 0);
      p = new Array<number>(N);
      order.forEach((slot, r) => { p[slot] = (r + 1) ** -alpha / h; });
    }
    const g = counts(cuda, N, 200, 512);
    const stat = chiSquare(g, p, 102400);
    assert.ok(stat < chiSquareCritical(N - 1), `${sampler}: chi-square ${stat.toFixed(1)}`);
    assert.deepEqual(g, counts(cpu, N, 200, 512), `${sampler}: GPU counts differ from the CPU's`);
  }
});

test('the GPU root equals the float64 sum of the leaves after a million updates with 50% duplicates', { skip: gpu }, () => {
  const N = 10000, B = 4096, rand = seededRandom(12);
  const r = new ReplayBuffer({ capacity: N, stateDim: 1, alpha: 1, eps: 0, pClip: 1e12, device: 'cuda' });
  r.insertBatch(makeBatch(N, 1));
  let duplicates = 0;
  for (let batch = 0; batch < 245; batch++) {
    const idx = new Int32Array(B);
    for (let k = 0; k < B; k += 2) idx[k] = idx[k + 1] = Math.floor(rand() * N);
    const td = Float32Array.from({ length: B }, () => 10 ** (rand() * 11 - 3));
    duplicates += r.updatePriorities(idx, new Uint32Array(B).fill(1), td).duplicates;
  }
  assert.ok(duplicates >= 245 * B / 2);
  const leaves = r.leafPriorities();
  let sum = 0;
  for (const x of leaves) sum += x;
  assert.ok(Math.abs(r.totalPriority - sum) <= 1e-6 * sum, `root ${r.totalPriority} vs ${sum}`);
});

test('a step captured as a CUDA graph and replayed equals the same step run eagerly', { skip: gpu }, () => {
  const options: ReplayOptions = { capacity: 4000, stateDim: 4, betaSteps: 30, seed: 9, device: 'cuda' };
  const eager = new ReplayBuffer(options), graph = new ReplayBuffer(options);
  eager.insertBatch(makeBatch(3000, 4));
  graph.insertBatch(makeBatch(3000, 4));
  graph.captureStep(256);
  const rand = seededRandom(4);
  for (let step = 0; step < 10; step++) {
    const td = Float32Array.from({ length: 256 }, () => rand() * 3);
    assert.deepEqual(graph.step(td, true), eager.step(td, false), `step ${step}`);
  }
  assert.deepEqual(graph.leafPriorities(), eager.leafPriorities());
  assert.equal(graph.sampleSteps, 10);
  assert.throws(() => graph.step(new Float32Array(100), true), RangeError);
});

test('a simulated GPU out-of-memory puts the buffer on the CPU with the reason', { skip: gpu }, () => {
  const r = new ReplayBuffer({ capacity: 1000, stateDim: 4, simulateOom: true });
  assert.equal(r.backend, 'cpu');
  assert.match(r.fallbackReason, /^out of memory, \d+\.\d\d GiB asked, \d+\.\d\d GiB free$/);
  process.env.DQN_SIMULATE_REPLAY_OOM = '1';
  try {
    assert.equal(new ReplayBuffer({ capacity: 1000, stateDim: 4 }).backend, 'cpu');
  } finally {
    delete process.env.DQN_SIMULATE_REPLAY_OOM;
  }
});

test('a failing replay kernel moves the buffer to the CPU with its contents and the reason', { skip: gpu }, () => {
  const r = new ReplayBuffer({ capacity: 100, stateDim: 2, simulateKernelError: true });
  assert.equal(r.backend, 'cuda');
  r.insertBatch(makeBatch(130, 2));
  r.updatePriorities(Int32Array.from([7]), Uint32Array.from([2]), Float32Array.from([4])); // slot 7 was written twice
  const before = r.leafPriorities();
  const b = r.sample(32);
  assert.equal(r.backend, 'cpu');
  assert.match(r.fallbackReason, /simulated failure/);
  assert.equal(b.indices.length, 32);
  const after = r.leafPriorities();
  for (let i = 0; i < 100; i++) assert.ok(Math.abs(after[i]! - before[i]!) <= 1e-6 * before[i]!, `leaf ${i}`);
  assert.ok(Math.abs(r.maxPriority - 4) < 1e-5, `max priority ${r.maxPriority}`);
});
