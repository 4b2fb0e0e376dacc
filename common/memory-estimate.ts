// How much memory a run config needs, estimated from its sizes before anything is allocated, and
// whether that fits the machine. The trainer host refuses a config that does not fit (with the
// estimate in the message) and the config editor shows the estimate as the user types. Pure TS:
// the byte counts mirror the native layouts (native/src/replay/transition_store.cpp,
// priority_trees.h, rank_sampler.cpp; the learner's flat parameter buffers, DESIGN section 4).
import type { RunConfig } from './config.ts';

const F32 = 4;
const F64 = 8;

/** Estimated bytes of a run, by part. */
export interface MemoryEstimate {
  /** Observation floats (cartpole 4, trading 7 * lags + 2). */
  stateDim: number;
  nActions: number;
  /** Replay storage (states, next states, rewards, discounts, actions, dones, generations), sum and min trees, rank sampler. */
  replayBytes: number;
  /** Learner parameters: online, target, Adam m and v, gradients (5 flat f32 buffers). */
  networkBytes: number;
  /** Per-step activations and their gradients for the batch (online s and s', target s'). */
  batchBytes: number;
  /** All of the above. */
  totalBytes: number;
}

/** The smallest power of two >= n (the sum tree's leaf count). */
function nextPow2(n: number): number {
  return 2 ** Math.ceil(Math.log2(Math.max(1, n)));
}

/**
 * Estimates the memory of the trainer `config` would build (replay buffer, networks, batch),
 * within a few percent for the large parts; environments and bars are not counted (small next
 * to a buffer that matters). Bytes of a CPU replay with f32 states.
 */
export function estimateMemory(config: RunConfig): MemoryEstimate {
  const stateDim = config.env.kind === 'cartpole' ? 4 : 7 * config.env.lags + 2;
  const nActions = config.env.kind === 'cartpole' ? 2 : config.env.n_actions;
  const n = config.replay.capacity;
  const perSlot = 2 * stateDim * F32 + 2 * F32 + 4 + 1 + 4;
  const trees = 2 * 2 * nextPow2(n) * F64;
  const rank = config.replay.sampler === 'rank' ? n * (F64 + 4 + 16) : 0;
  const replayBytes = n * perSlot + trees + rank;

  const widths = [stateDim, ...config.network.hidden];
  let params = 0;
  for (let i = 1; i < widths.length; i++) params += widths[i - 1]! * widths[i]! + widths[i]!;
  const last = widths.at(-1)!;
  params += config.network.dueling ? last * (nActions + 1) + nActions + 1 : last * nActions + nActions;
  const networkBytes = 5 * params * F32;

  const units = config.network.hidden.reduce((a, b) => a + b, 0) + nActions + 1;
  const batchBytes = 3 * config.optim.batch_size * units * F32 * 2;
  return { stateDim, nActions, replayBytes, networkBytes, batchBytes, totalBytes: replayBytes + networkBytes + batchBytes };
}

/** Memory the run may use: RAM available now, and free device memory when it trains on the GPU. */
export interface MemoryAvailable {
  ramBytes: number;
  /** Free bytes on the GPU (only for a CUDA run). */
  gpuFreeBytes?: number;
}

/** Where the parts go: the learner on `compute`; the replay on the GPU when `replayOnGpu`. */
export interface MemoryPlacement {
  compute: 'cpu' | 'cuda';
  replayOnGpu: boolean;
}

/** "3.80 GiB", "512.0 MiB", "12.0 KiB", "100 B". */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = bytes;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${v} B` : `${v.toFixed(u >= 3 ? 2 : 1)} ${units[u]}`;
}

/**
 * Whether the estimate fits. A replay that does not fit the GPU falls back to the CPU (DESIGN
 * section 5), so it then counts against RAM. Returns null when it fits, else the reason with the
 * numbers ("this config needs about 46.2 GiB of RAM (replay 45.9 GiB, ...), more than the 21.3 GiB
 * available: lower replay.capacity ...").
 */
export function memoryShortfall(est: MemoryEstimate, where: MemoryPlacement, avail: MemoryAvailable): string | null {
  const learner = est.networkBytes + est.batchBytes;
  const parts = `replay ${formatBytes(est.replayBytes)}, networks ${formatBytes(est.networkBytes)}, batch ${formatBytes(est.batchBytes)}`;
  const fix = 'lower replay.capacity, optim.batch_size or network.hidden';
  let host = 0;
  if (where.compute === 'cuda') {
    const gpu = avail.gpuFreeBytes ?? Infinity;
    if (learner > gpu) return `this config needs about ${formatBytes(learner)} of GPU memory for the learner (networks ${formatBytes(est.networkBytes)}, batch ${formatBytes(est.batchBytes)}), more than the ${formatBytes(gpu)} free: ${fix}`;
    if (!where.replayOnGpu || est.replayBytes > gpu - learner) host += est.replayBytes;
  } else {
    host = est.totalBytes;
  }
  if (host > avail.ramBytes)
    return `this config needs about ${formatBytes(host)} of RAM (${parts}), more than the ${formatBytes(avail.ramBytes)} available: ${fix}`;
  return null;
}
