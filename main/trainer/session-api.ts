// The contract between the training session (the epoch loop, main/trainer/session.ts) and
// whoever drives it: the CLI, the Electron trainer host, the browser-mode server.
import type { RunConfigInput } from '../../common/config.ts';
import type { GroupMarker } from '../../common/seed-group.ts';
import type { SystemSample } from '../../common/protocol.ts';
import type { BackendStatus, EpochSummary, RunEvent, RunState, ScalarPoint, TargetReached } from '../../common/run.ts';

export interface StartOptions {
  /** Config as written by the user (validated by startRun). */
  config: RunConfigInput;
  /** Parent folder of run directories (default: <repo>/runs). */
  runsDir: string;
  /**
   * Folders `config.env.data` must lie in (symlinks followed; see paths-policy.ts); absent:
   * any file (the CLI). The trainer host sets it for the configs its clients send.
   */
  dataDirs?: readonly string[];
  /** An existing run directory to resume (continues step count and metrics). */
  resume?: string;
  /** Override config.schedule.epochs / steps_per_epoch / seed / backend (CLI flags). */
  overrides?: { epochs?: number; steps_per_epoch?: number; seed?: number; backend?: 'auto' | 'cpu' | 'cuda'; precision?: 'tf32' | 'bf16' | 'fp32' };
  /** The seed group a new run belongs to: written as its folder's group.json when the folder is created (main/cli/seeds.ts). */
  group?: GroupMarker;
}

export interface RunCallbacks {
  onState?(state: RunState, detail?: string): void;
  onBackends?(status: BackendStatus): void;
  /** Batched live scalars (every ~200 ms while running). */
  onScalars?(points: ScalarPoint[]): void;
  /** Training episodes that finished: (env step, return). */
  onEpisodes?(episodes: { step: number; value: number }[]): void;
  /**
   * An epoch ended. Called after every record up to and including this epoch's summary was
   * flushed to metrics.jsonl (the trainer host relies on it to know what the file holds); the
   * rest is flushed before `done` resolves.
   */
  onEpoch?(summary: EpochSummary): void;
  onEvent?(event: RunEvent): void;
  /** A system sample (steps/s, CPU, memory, GPU readings), at most one per SYSTEM_PERIOD_MS while running. */
  onSystem?(sample: SystemSample): void;
  /**
   * metrics.jsonl now holds every record reported so far (scalars, episodes, epochs): called
   * after each flush, every few seconds while the run is live and at epoch ends.
   */
  onFlushed?(): void;
}

export interface RunHandle {
  readonly runDir: string;
  /** Asks the run to stop after the current step; resolves when it has (checkpoint kept). */
  stop(): Promise<void>;
  /** Resolves when the run ends (finished, stopped or halted). */
  readonly done: Promise<RunOutcome>;
}

export interface RunOutcome {
  state: 'finished' | 'stopped' | 'halted';
  haltReason?: string;
  steps: number;
  env_steps: number;
  /** Wall seconds of training, all sessions of the run together. */
  wall_s: number;
  /** Steps done by this session (the step count minus the one it started or resumed at); set by startRun. */
  session_steps?: number;
  /** Wall seconds of this session, from the built trainer to the end. */
  session_wall_s?: number;
  /** The last epoch this session completed. */
  last?: EpochSummary;
  /** A run that finished early because an epoch's evaluation reached schedule.target_return: which epoch, and its return. */
  target?: TargetReached;
}
