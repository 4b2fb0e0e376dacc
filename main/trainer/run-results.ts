// The key results of a run as the run history lists them (issue 16, item 4): the final TD loss,
// the last epoch's rate and evaluation return, the wall time, the compute backend it ran on and
// how it ended (and whether at its target return), read from its metrics records and its event log.
import type { RunEvent } from '../../common/run.ts';
import { SCALAR_NAMES } from '../../common/run.ts';
import type { MetricsRecord } from './run-dir.ts';

/** What the run history shows of a run besides its name, env and epochs. */
export interface RunResults {
  finalLoss?: number;
  /** The last epoch's steps/s, or the run's average (last step / wall s) when no epoch ended. */
  stepsPerSec?: number;
  wallS?: number;
  backend?: 'cpu' | 'cuda';
  /** finished / stopped / halted by its last such event; incomplete when none (the process died, or it is live). */
  state: 'finished' | 'stopped' | 'halted' | 'incomplete';
  /** A run that ended early at schedule.target_return: the epoch whose evaluation reached it, that evaluation's mean return and the target. */
  stoppedAtTarget?: { epoch: number; evalReturn: number; targetReturn: number };
}

/** The last epoch record of a run. */
export type EpochRecord = Extract<MetricsRecord, { type: 'epoch' }>;

/**
 * Key results of a run, tallied record by record (metrics.jsonl in file order, events.log in log
 * order), so a listing reads a long run's files in chunks without holding them.
 */
export class RunTally {
  private out: RunResults = { state: 'incomplete' };
  private lastStep = 0;
  /** Epochs that ended, and the last one. */
  epochs = 0;
  lastEpoch: EpochRecord | undefined;

  addRecord(r: MetricsRecord): void {
    if (r.type === 'scalars') {
      const loss = r.values[SCALAR_NAMES.loss];
      if (typeof loss === 'number') this.out.finalLoss = loss;
      this.out.wallS = r.wall_s;
      this.lastStep = r.step;
    } else if (r.type === 'epoch') {
      this.out.stepsPerSec = r.steps_per_s;
      this.epochs++;
      this.lastEpoch = r;
    }
  }

  addEvent(e: RunEvent): void {
    if (e.kind === 'finish') this.out.state = 'finished';
    else if (e.kind === 'stop') this.out.state = 'stopped';
    else if (e.kind === 'halt') this.out.state = 'halted';
    else if (e.kind === 'start' || e.kind === 'resume') {
      this.out.state = 'incomplete';
      const m = / on (cpu|cuda)$/.exec(e.message);
      if (m) this.out.backend = m[1] as 'cpu' | 'cuda';
    } else if (e.kind === 'fallback' && /^compute on CPU/.test(e.message)) this.out.backend = 'cpu';
  }

  /** The results so far; with no epoch ended (a short or killed run), the run's average rate. */
  results(): RunResults {
    const out = { ...this.out };
    const last = this.lastEpoch;
    if (last?.target_return !== undefined) out.stoppedAtTarget = { epoch: last.epoch, evalReturn: last.eval_mean_return, targetReturn: last.target_return };
    if (out.stepsPerSec === undefined && out.wallS && this.lastStep) out.stepsPerSec = this.lastStep / out.wallS;
    return out;
  }
}

/** Parses events.log lines (one JSON event per line); unreadable lines are skipped. */
export function parseEvents(lines: readonly string[]): RunEvent[] {
  const out: RunEvent[] = [];
  for (const line of lines) {
    if (!line.trim()) continue;
    try {
      const e = JSON.parse(line) as RunEvent;
      if (typeof e.kind === 'string' && typeof e.message === 'string') out.push(e);
    } catch {
      /* a torn last line of a killed process */
    }
  }
  return out;
}
