// Typed wrapper of the native replay buffer (native/src/replay/, DESIGN section 3): a
// fixed-capacity ring buffer of transitions with Prioritized Experience Replay
// (Schaul et al. 2016). Usable as a library:
//
//   const replay = new ReplayBuffer({ capacity: 100_000, stateDim: 4 });
//   replay.insertBatch({ states, actions, rewards, nextStates, dones });
//   const batch = replay.sample(256);               // indices, generations, weights, ...
//   replay.updatePriorities(batch.indices, batch.generations, tdErrors);
import { loadAddon } from './addon.ts';

/**
 * Where the replay buffer lives: 'cpu', or 'cuda' / 'auto' for the GPU when the addon has the
 * CUDA backend and a device is usable. When the GPU was wanted but is not used (no device, out
 * of memory, a failed replay kernel) the buffer is on the CPU and `fallbackReason` says why.
 */
export type ReplayDevice = 'cpu' | 'auto' | 'cuda';

/**
 * Construction options; defaults are those of common/config.ts's replay section.
 * Invalid values throw RangeError naming the field (e.g. "replay config: alpha must be in [0, 1], got 2").
 */
export interface ReplayOptions {
  /** N, transitions kept; integer in [1, 2^30]. */
  capacity: number;
  /** D, floats per state; integer >= 1. */
  stateDim: number;
  /** 'proportional' (sum tree, default), 'rank' (rank-based) or 'uniform' (PER off, weights 1). */
  sampler?: 'proportional' | 'rank' | 'uniform';
  /** Priority exponent in [0, 1]: P(i) ∝ p_i^alpha (proportional) or rank^-alpha (rank). Default 0.6. */
  alpha?: number;
  /** Initial IS exponent in [0, 1], annealed linearly to 1. Default 0.4. */
  beta0?: number;
  /** sample() calls over which beta reaches 1 (then clamped); integer >= 1. Default 100000. */
  betaSteps?: number;
  /** Added to |TD error| before the exponent; >= 0. Default 1e-6. */
  eps?: number;
  /** |TD error| is clipped to this before it becomes a priority; > 0. Default 1e6. */
  pClip?: number;
  /** Divide IS weights by the max over the stored buffer ('buffer', default) or over the batch. */
  isNormalization?: 'buffer' | 'batch';
  /** Rank-based sampler: re-sort by priority every K sample() calls; integer >= 1. Default 1000. */
  rankSortInterval?: number;
  /** Seed of the Philox4x32-10 stream; integer in [0, 2^53]. Default 1. */
  seed?: number;
  /** 'auto' (default) and 'cuda': the GPU when usable, else the CPU with `fallbackReason`; 'cpu'. */
  device?: ReplayDevice;
  /** GPU state storage: 'f32' (default) or 'bf16' (half the state bytes; gathered back as f32). */
  stateDtype?: 'f32' | 'bf16';
  /** Test switch: act as if the GPU allocation ran out of memory (also env DQN_SIMULATE_REPLAY_OOM=1). */
  simulateOom?: boolean;
  /** Test switch: the first GPU sample hits a real non-sticky launch error, so the buffer moves to
   * the CPU at run time (also env DQN_SIMULATE_REPLAY_KERNEL_ERROR=1). */
  simulateKernelError?: boolean;
  /** GPU sum-tree fan-out (a tuning choice, DESIGN section 3): '32' (default, measured fastest), '16' or '2'. */
  treeFanout?: '2' | '16' | '32';
}

/** What the GPU buffer holds (null on the CPU backend). */
export interface ReplayGpuInfo {
  /** Device bytes of the buffer: storage, sum and min trees (no staging). */
  deviceBytes: number;
  /** deviceBytes / capacity. */
  bytesPerTransition: number;
  stateDtype: 'f32' | 'bf16';
  treeFanout: number;
  /**
   * Bytes kept in the L2's persisting set-aside: the generations, sum tree and min tree, when
   * the set-aside holds them whole (about 12.5 bytes per transition, so up to ~3.1M transitions
   * on an H200); 0 otherwise.
   */
  l2PersistingBytes: number;
}

/** What one GPU step returns (see ReplayBuffer.step). */
export interface StepBatch {
  indices: Int32Array;
  generations: Uint32Array;
  weights: Float32Array;
  states: Float32Array;
}

/** B transitions, row-major. Every value is checked (RangeError names the bad element). */
export interface TransitionBatch {
  /** [B x D] f32, finite. */
  states: Float32Array;
  /** [B] int32 action indices, >= 0. B is taken from this array's length. */
  actions: Int32Array;
  /** [B] f32, finite. */
  rewards: Float32Array;
  /** [B x D] f32, finite: the true next observation (also at a truncation). */
  nextStates: Float32Array;
  /** [B] u8, 1 = terminal (no bootstrap), else 0. */
  dones: Uint8Array;
  /** [B] f32 in [0, 1], bootstrap multiplier gamma^k (0 at a terminal); default 1 - done. */
  discounts?: Float32Array;
}

/** What sample(B) returns: fresh arrays on every call, views into one new ArrayBuffer. */
export interface SampledBatch {
  /** [B] int32 slot indices in [0, size). */
  indices: Int32Array;
  /** [B] u32 slot generations at sampling time (pass back to updatePriorities). */
  generations: Uint32Array;
  /** [B] f32 IS weights in (0, 1]: (size P(i))^-beta / max_j w_j. */
  weights: Float32Array;
  /** [B x D] f32. */
  states: Float32Array;
  /** [B] int32. */
  actions: Int32Array;
  /** [B] f32. */
  rewards: Float32Array;
  /** [B x D] f32. */
  nextStates: Float32Array;
  /** [B] u8. */
  dones: Uint8Array;
  /** [B] f32. */
  discounts: Float32Array;
}

/** Outcome counts of one priority update. */
export interface PriorityUpdateResult {
  /** Distinct slots whose priority was written. */
  applied: number;
  /** Entries with a NaN/Inf TD error: ignored, the slot keeps its priority. */
  rejectedNonfinite: number;
  /** Entries dropped because the slot was overwritten since it was sampled. */
  stale: number;
  /** Entries superseded by a later entry for the same slot (the last one wins). */
  duplicates: number;
}

/** The native class as the addon exports it. */
interface NativeReplayBuffer {
  insertBatch(batch: TransitionBatch): void;
  sample(batchSize: number): SampledBatch;
  updatePriorities(indices: Int32Array, generations: Uint32Array, tdErrors: Float32Array): PriorityUpdateResult;
  leafPriorities(): Float64Array;
  readonly size: number;
  readonly capacity: number;
  readonly stateDim: number;
  readonly totalPriority: number;
  readonly maxPriority: number;
  readonly beta: number;
  sampleSteps: number;
  readonly backend: 'cpu' | 'cuda';
  readonly fallbackReason: string;
  readonly gpuInfo: ReplayGpuInfo | null;
  captureStep(batchSize: number): void;
  step(tdErrors: Float32Array, useGraph: boolean): StepBatch;
  close(): void;
  readonly closed: boolean;
}

type NativeReplayConstructor = new (options: ReplayOptions) => NativeReplayBuffer;

/**
 * A replay buffer with Prioritized Experience Replay, on the GPU (CUDA backend) or the CPU
 * reference backend; both give the same draws, weights and priorities for the same inputs.
 * All methods throw TypeError for a wrong argument type, RangeError for a wrong length or value,
 * and Error after close().
 */
export class ReplayBuffer {
  readonly #native: NativeReplayBuffer;

  /** Allocates the whole buffer now (Error when memory runs out). */
  constructor(options: ReplayOptions) {
    const Native = loadAddon().ReplayBuffer as NativeReplayConstructor;
    this.#native = new Native(options);
  }

  /**
   * Appends B transitions at the write cursor, overwriting the oldest once full; each gets the
   * running max priority (Schaul et al. 2016, Alg. 1). A batch with a bad value changes nothing.
   */
  insertBatch(batch: TransitionBatch): void {
    this.#native.insertBatch(batch);
  }

  /**
   * Draws B transitions (with replacement; stratified for 'proportional' and 'rank'), gathers
   * them with their IS weights at the current beta, then advances the beta schedule one step.
   * @param batchSize B, integer in [1, 2^20] (checked before anything is allocated; it may exceed
   *   the capacity: draws are with replacement).
   * @throws RangeError for a batch size outside that range; Error when the buffer is empty.
   */
  sample(batchSize: number): SampledBatch {
    return this.#native.sample(batchSize);
  }

  /**
   * Sets p_i = (min(|td_i|, pClip) + eps)^alpha for each entry; for a slot listed more than once
   * the last entry wins. NaN/Inf TD errors and stale generations leave the slot unchanged.
   * @param indices [n] int32 slots in [0, size) (RangeError otherwise).
   * @param generations [n] u32, as returned by sample().
   * @param tdErrors [n] f32 TD errors.
   */
  updatePriorities(indices: Int32Array, generations: Uint32Array, tdErrors: Float32Array): PriorityUpdateResult {
    return this.#native.updatePriorities(indices, generations, tdErrors);
  }

  /** [size] f64 copy of the leaf priorities p_i^alpha of slots [0, size). */
  leafPriorities(): Float64Array {
    return this.#native.leafPriorities();
  }

  /** Transitions stored, <= capacity. */
  get size(): number { return this.#native.size; }
  /** N. */
  get capacity(): number { return this.#native.capacity; }
  /** D. */
  get stateDim(): number { return this.#native.stateDim; }
  /** Sum of the leaf priorities (the sum-tree root). */
  get totalPriority(): number { return this.#native.totalPriority; }
  /** Running max |TD error| (starts at 1), from which new transitions get their priority. */
  get maxPriority(): number { return this.#native.maxPriority; }
  /** beta of the next sample(): min(1, beta0 + (1 - beta0) * sampleSteps / betaSteps). */
  get beta(): number { return this.#native.beta; }
  /** sample() calls so far; drives beta and the random stream. Settable for resume. */
  get sampleSteps(): number { return this.#native.sampleSteps; }
  set sampleSteps(steps: number) { this.#native.sampleSteps = steps; }
  /** Where the buffer lives. */
  get backend(): 'cpu' | 'cuda' { return this.#native.backend; }
  /** Why the buffer is on the CPU although the GPU was wanted ('' otherwise), e.g. "no CUDA device"
   * or "out of memory, 3.80 GiB asked, 1.20 GiB free". */
  get fallbackReason(): string { return this.#native.fallbackReason; }
  /** Device memory held and layout, or null on the CPU backend. */
  get gpuInfo(): ReplayGpuInfo | null { return this.#native.gpuInfo; }

  /**
   * GPU only (TypeError on the CPU): captures one step -- sample(batchSize), then a priority
   * update of the sampled (index, generation) pairs from the TD errors passed to step() -- as a
   * CUDA graph, for step(td, true) to replay.
   * @param batchSize integer in [1, 65536].
   */
  captureStep(batchSize: number): void {
    this.#native.captureStep(batchSize);
  }

  /**
   * GPU only (TypeError on the CPU): one step as captureStep describes, eagerly or by replaying
   * the captured graph; tdErrors[k] updates draw k. Returns the step's draws.
   * @param tdErrors [B] f32; B must equal the captured batch size when useGraph.
   */
  step(tdErrors: Float32Array, useGraph: boolean): StepBatch {
    return this.#native.step(tdErrors, useGraph);
  }

  /**
   * Frees the buffer's memory (host and device) now, not when the garbage collector gets to it.
   * Idempotent; every later call but `closed` throws an Error saying the buffer is closed.
   */
  close(): void {
    this.#native.close();
  }

  /** True once close() has run. */
  get closed(): boolean { return this.#native.closed; }
}

/**
 * Philox4x32-10 (Salmon et al. 2011) as the replay draws it: 4 random u32 words for a 128-bit
 * counter under a 64-bit key. For cross-checking other implementations.
 * @param counter [4] u32.
 * @param key [2] u32.
 */
export function philox4x32_10(counter: Uint32Array, key: Uint32Array): Uint32Array {
  return (loadAddon().philox4x32_10 as (c: Uint32Array, k: Uint32Array) => Uint32Array)(counter, key);
}

/**
 * The CPU sum tree's descent (DESIGN section 3) on given leaves: for each mass, the slot whose
 * prefix-sum interval [sum_{j<i} leaf_j, sum_{j<=i} leaf_j) contains it, by the strict rule
 * (go left iff m < left), masses >= total clamped below it, never a zero leaf. For cross-checks.
 * @param leaves [n] f64, finite, >= 0, not all zero (RangeError otherwise).
 * @param masses [m] f64, >= 0.
 * @returns [m] int32 slots.
 */
export function sumTreeFind(leaves: Float64Array, masses: Float64Array): Int32Array {
  return (loadAddon().sumTreeFind as (l: Float64Array, m: Float64Array) => Int32Array)(leaves, masses);
}
