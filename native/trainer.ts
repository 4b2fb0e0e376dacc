// Typed wrapper of the native Trainer: env copies + replay buffer + DQN learner, run off the JS
// thread. The trainer host (main/trainer/) drives it epoch by epoch and reads the scalar block.
import type { RunConfig } from '../common/config.ts';
import { loadAddon } from './addon.ts';

/** OHLCV bars for the trading environment, sorted by time; timestamps in Unix seconds. */
export interface MarketArrays {
  timestamps: Float64Array;
  open: Float64Array;
  high: Float64Array;
  low: Float64Array;
  close: Float64Array;
  volume: Float64Array;
}

/** Options of createTrainer. `config` is already validated (parseRunConfig). */
export interface TrainerOptions {
  config: RunConfig;
  /** Bars for env.kind === 'trading'. */
  market?: MarketArrays;
  /** Compute backend already resolved from config.backend ('auto' is resolved by the host). */
  backend: 'cpu' | 'cuda';
}

/** What the trainer runs on; shown by the Compute and Replay badges. */
export interface TrainerInfo {
  backend: 'cpu' | 'cuda';
  replayBackend: 'cpu' | 'cuda';
  /** Why the replay fell back to the CPU ('' when it did not). */
  replayFallbackReason: string;
  /** Where the training environments step: on the GPU (device kernels, config env.collector) or the host. */
  collector: 'host' | 'device';
  /**
   * Why they step on the host although the config allowed the device (it can change mid-run when the replay moves to the CPU);
   * with collector 'device', where a trading run's evaluation walks step: "training episodes and evaluation walks step on the GPU", or
   * "...; evaluation walks step on the host: why" when they fell back (at construction, or after a GPU walk failed); '' otherwise.
   */
  collectorReason: string;
  stateDim: number;
  nActions: number;
  /** Names of the features the causal-sensitivity probe intervenes on. */
  causalFeatureNames: string[];
}

/** Result of one run() call. */
export interface RunResult {
  /** Gradient steps done in this call. */
  steps: number;
  /** True when stop() ended the call early. */
  stopped: boolean;
  /** Returns of the training episodes that finished during the call, in order. */
  episodeReturns: number[];
  /** Env step (all copies counted) at which each of those episodes finished. */
  episodeEnvSteps: number[];
}

/** Result of a greedy evaluation. */
export interface EvalResult {
  /** True when stop() ended it early; `episodes` and the means then cover the episodes finished by then. */
  stopped: boolean;
  episodes: number;
  meanReturn: number;
  returns: number[];
  /** Environment metrics (trading: return, sharpe, max_drawdown, buy_and_hold_return, buy_and_hold_sharpe). */
  metrics: Record<string, number>;
  /**
   * Per-bar series of the last episode (trading: equity, buy_and_hold_equity, position; see
   * NativeEnv.episodeSeries); {} otherwise. Always set by the native trainer (optional for test doubles).
   */
  series?: Record<string, Float64Array>;
}

/**
 * The native trainer object. After close() every member but `closed` and close() throws an Error
 * saying the trainer is closed.
 */
export interface NativeTrainer {
  readonly info: TrainerInfo;
  /**
   * The live scalar block (read it with readScalars and the addon's scalarLayout). close()
   * detaches it: a block read before then has byteLength 0 afterwards (readScalars throws).
   */
  readonly scalars: ArrayBuffer;
  /**
   * Runs `steps` gradient steps on a worker thread, collecting env steps as the schedule says
   * (learning_starts first, then train_every env steps per gradient step).
   * Rejects with the error that stopped it (a NaN halt names the tensor).
   */
  run(steps: number): Promise<RunResult>;
  /** Asks a running run() or evaluate() to return; it does within one training (or env) step. */
  stop(): void;
  /**
   * Greedy evaluation over `episodes` episodes; stop() ends it early. Trading: the walk of the
   * validation span (the default: what selection reads) or of the test span (reported apart;
   * rejects when env.test_fraction is 0).
   */
  evaluate(episodes: number, span?: 'validation' | 'test'): Promise<EvalResult>;
  /** Serialized learner state: weights, target, Adam moments, RNG, counters. */
  saveState(): Uint8Array;
  /** Restores saveState() output; throws if it does not match this trainer's shapes. */
  loadState(state: Uint8Array): void;
  /**
   * Frees the trainer's native memory now (replay buffer, networks, pinned blocks), not when the
   * garbage collector gets to it. Idempotent.
   * @throws Error while a run() or evaluate() is in progress (stop() and await it first).
   */
  close(): void;
  /** True once close() has run. */
  readonly closed: boolean;
}

/**
 * Test-only switches (DESIGN section 5: every halt can be forced in a test). `injectNan` sets one
 * element of the named tensor to NaN at gradient step `step` (1-based), just before that tensor
 * is checked, so run() rejects with `NaN in <tensor> at step <step>`.
 */
export interface TrainerTestingOptions {
  injectNan?: { tensor: 'q_online' | 'q_target' | 'loss' | 'gradients' | 'weights'; step: number };
}

type TrainerClass = (new (
  config: RunConfig,
  market: MarketArrays | undefined,
  backend: 'cpu' | 'cuda',
  testing?: TrainerTestingOptions,
) => NativeTrainer) & {
  build(config: RunConfig, market: MarketArrays | undefined, backend: 'cpu' | 'cuda', testing?: TrainerTestingOptions): Promise<NativeTrainer>;
};

/**
 * Builds a native trainer: env copies (and a separate evaluation env), the CPU replay buffer and
 * the DQN learner, all seeded from `config.seed`.
 * @throws Error for backend 'cuda' without a usable GPU, TypeError/RangeError naming the config
 *         field that is missing or out of range, RangeError for an env that cannot be built
 *         (e.g. trading without `market`).
 */
export function createTrainer(options: TrainerOptions, testing?: TrainerTestingOptions): NativeTrainer {
  const Trainer = loadAddon().Trainer as TrainerClass;
  return new Trainer(options.config, options.market, options.backend, testing);
}

/**
 * createTrainer off the JS thread: the replay buffer and the networks (up to gigabytes) are
 * allocated on a worker thread, so the event loop keeps answering meanwhile (the trainer host's
 * heartbeat, Stop, other clients). Rejects with the errors createTrainer throws.
 */
export async function buildTrainer(options: TrainerOptions, testing?: TrainerTestingOptions): Promise<NativeTrainer> {
  const Trainer = loadAddon().Trainer as TrainerClass;
  return await Trainer.build(options.config, options.market, options.backend, testing);
}

/** What one member of a seed group got from NativeTrainerGroup.run: a RunResult and its error. */
export interface MemberRunResult extends RunResult {
  /** Why the member halted or failed in this run ('' when it did not); it is then left out of later runs. */
  error: string;
}

/**
 * A seed group (native/src/train/trainer_group.h): trainers of one config that differ only in
 * their seed, trained in lockstep by one native thread; on CUDA one launch of the step kernel
 * trains every member. Each member trains as its seed would alone.
 */
export interface NativeTrainerGroup {
  /** One trainer per seed, in the order of the seeds: evaluate, saveState, loadState, scalars, info, close; their run() throws (the group runs them). */
  readonly members: NativeTrainer[];
  /**
   * `steps` gradient steps of every active member on a worker thread. Rejects only for what
   * concerns the whole group (a failed launch, a lost GPU context); a member's own halt is its
   * `error`. @throws Error at once when a member is busy (an evaluate() in progress).
   */
  run(steps: number): Promise<MemberRunResult[]>;
  /** Asks a running run() to return within one training step. */
  stop(): void;
  /** Leaves member s out of later runs. */
  retire(member: number): void;
}

/**
 * Builds a seed group off the JS thread: `seeds.length` trainers (1 to 100 on the CPU, 1 to 16
 * on CUDA), member s seeded with seeds[s] (config.seed is ignored). `testing.injectNan` poisons
 * member `testing.member` (default 0) as TrainerTestingOptions does a trainer.
 * Rejects with RangeError for a config the core refuses, Error otherwise (no usable GPU, "out of
 * memory: N learners need X GiB, Y GiB free").
 */
export async function buildTrainerGroup(options: TrainerOptions, seeds: number[], testing?: TrainerTestingOptions & { member?: number }): Promise<NativeTrainerGroup> {
  type Build = (config: RunConfig, market: MarketArrays | undefined, backend: 'cpu' | 'cuda', seeds: number[], testing?: TrainerTestingOptions & { member?: number }) => Promise<NativeTrainerGroup>;
  const group = loadAddon().TrainerGroup as { build: Build };
  return await group.build(options.config, options.market, options.backend, seeds, testing);
}
