// Terminal progress display for headless training: one status line (steps/s, loss, episodic
// return, ETA) redrawn in place on a TTY at every scalar read, printed at most every 10 s otherwise.
import type { EpochSummary, ScalarPoint } from '../../common/run.ts';
import { reachedReturnText, SCALAR_NAMES } from '../../common/run.ts';
import { numberText } from '../../common/config-problems.ts';
import type { RunOutcome } from '../trainer/session-api.ts';
import { formatTradingEval, isTradingMetrics } from '../../common/trading-eval.ts';

/** `1h02m`, `3m05s`, `42s`. */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '?';
  const s = Math.round(seconds);
  if (s >= 3600) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  if (s >= 60) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${s}s`;
}

/** Where a ProgressLine writes: a terminal (redrawn in place when isTTY) or any line sink. */
export interface ProgressStream {
  readonly isTTY?: boolean;
  write(text: string): unknown;
}

/**
 * A line sink that writes every line to `out` behind `prefix` and never redraws in place: the
 * progress of one of several runs printed together (a seed group's members).
 */
export function prefixedStream(out: ProgressStream, prefix: string): ProgressStream {
  return { isTTY: false, write: (text: string) => out.write(text.split('\n').map((line) => (line ? `${prefix}${line}` : line)).join('\n')) };
}

/** Least time between two status lines printed without a TTY (a log file stays small): 10 s. */
export const PLAIN_PERIOD_MS = 10_000;

/** What a ProgressLine shows besides steps: see the class comment. */
export interface ProgressOptions {
  /** Trading: episode rewards are shown in basis points of equity (reward / rewardScale x 1e4). */
  rewardScale?: number;
  /**
   * The run may end before its last step (schedule.target_return is set): the ETA, to the last
   * step, is then an upper bound and shows as `ETA ≤ 17s`.
   */
  mayStopEarly?: boolean;
  /** The clock, in ms (Date.now; tests pass a fake one). */
  now?: () => number;
}

/**
 * The status line of `npm run train` (`step 4008/50000 | 785 steps/s | loss ... | ETA 59s`; `ETA ≤ 59s`
 * when the run may end early at its target return, mayStopEarly), fed
 * by the session's live scalars (a read every 200 ms, within an epoch as well as at its end):
 * redrawn in place at every read on a TTY; without one printed at most every PLAIN_PERIOD_MS and
 * after each message, unless it would repeat the status line printed last (a trading run's last
 * epoch prints two messages, its validation and its test span, with no step between them).
 * Feed it the session callbacks (scalars, episodes, epochs) and messages to print above it.
 * With `rewardScale` (trading) episode rewards show in basis points of equity; without it
 * (CartPole) returns are printed as they are.
 */
export class ProgressLine {
  private step = 0;
  private loss = NaN;
  private lastReturn = NaN;
  private rate = 0;
  private rateFrom?: { step: number; wall: number };
  private lastPrint = -Infinity;
  /** The status line printed last without a TTY: printing it again would say nothing new. */
  private lastLine = '';
  private readonly tty: boolean;
  private readonly rewardScale?: number;
  private readonly mayStopEarly: boolean;
  private readonly now: () => number;

  constructor(private readonly out: ProgressStream, private readonly totalSteps: number, options: ProgressOptions = {}) {
    this.tty = Boolean(out.isTTY);
    this.rewardScale = options.rewardScale;
    this.mayStopEarly = options.mayStopEarly ?? false;
    this.now = options.now ?? Date.now;
  }

  scalars(points: ScalarPoint[]): void {
    const p = points.at(-1);
    if (!p) return;
    if (!this.rateFrom) this.rateFrom = { step: p.step, wall: p.wall_s };
    else if (p.wall_s - this.rateFrom.wall >= 1) {
      this.rate = (p.step - this.rateFrom.step) / (p.wall_s - this.rateFrom.wall);
      this.rateFrom = { step: p.step, wall: p.wall_s };
    }
    this.step = p.step;
    const loss = p.values[SCALAR_NAMES.loss];
    this.loss = typeof loss === 'number' ? loss : NaN;
    this.draw(false);
  }

  episodes(eps: { value: number }[]): void {
    const last = eps.at(-1);
    if (last) this.lastReturn = last.value;
  }

  epoch(e: EpochSummary, epochs: number): void {
    const head = `epoch ${e.epoch}/${epochs}: step ${e.step}, ${e.steps_per_s.toFixed(0)} steps/s, epoch time ${e.epoch_time_s.toFixed(1)}s`;
    if (this.rewardScale !== undefined && isTradingMetrics(e.eval_metrics)) {
      this.message(`${head}, eval reward ${this.bps(e.eval_mean_return)} over ${e.eval_episodes} walk(s); ${formatTradingEval(e.eval_metrics)}`);
      if (e.test_metrics && e.test_mean_return !== undefined)
        this.message(`held-out test span, evaluated once at the end of the run: reward ${this.bps(e.test_mean_return)}, ${formatTradingEval(e.test_metrics, 'test')}`);
      return;
    }
    const extra = Object.entries(e.eval_metrics).map(([k, v]) => `${k} ${v.toFixed(4)}`).join(', ');
    this.message(`${head}, eval return ${e.eval_mean_return.toFixed(2)} over ${e.eval_episodes} episodes${extra ? ` (${extra})` : ''}`);
  }

  /** A summed reward in basis points of equity (trading). */
  private bps(reward: number): string {
    return `${((reward / this.rewardScale!) * 1e4).toFixed(1)} bp`;
  }

  message(text: string): void {
    if (this.tty) this.out.write('\r\x1b[2K');
    this.out.write(`${text}\n`);
    this.draw(true);
  }

  /**
   * The run's last line: how it ended and why when it says (a halt's reason; a run that reached
   * schedule.target_return: "finished at the target return: epoch 3 of 10, evaluation 500.0 >= 475,
   * after ..."), then its steps and wall time.
   */
  done(o: RunOutcome): void {
    if (this.tty) this.out.write('\r\x1b[2K');
    const t = o.target;
    const why = o.haltReason ? `: ${o.haltReason}` : t ? ` at the target return: epoch ${t.epoch} of ${t.epochs}, evaluation ${reachedReturnText(t.eval_mean_return, t.target_return)} >= ${numberText(t.target_return)},` : '';
    this.out.write(`${o.state}${why} after ${o.steps} steps, ${o.env_steps} env steps, ${formatDuration(o.wall_s)}\n`);
  }

  private draw(force: boolean): void {
    const now = this.now();
    if (!force && !this.tty && now - this.lastPrint < PLAIN_PERIOD_MS) return;
    if (!this.step) return;
    // The rate needs two reads a second apart: until then it and the ETA show '-', not 0 and '?'.
    const done = this.step >= this.totalSteps;
    const rate = this.rate > 0 ? this.rate.toFixed(0) : '-';
    const eta = done ? '0s' : this.rate > 0 ? `${this.mayStopEarly ? '≤ ' : ''}${formatDuration((this.totalSteps - this.step) / this.rate)}` : '-';
    const line = `step ${this.step}/${this.totalSteps} | ${rate} steps/s | loss ${this.loss.toPrecision(4)} | ${this.rewardScale === undefined ? 'return' : 'episode reward'} ${Number.isNaN(this.lastReturn) ? '-' : this.rewardScale === undefined ? this.lastReturn.toFixed(1) : this.bps(this.lastReturn)} | ETA ${eta}`;
    if (this.tty) {
      this.lastPrint = now;
      this.out.write(`\r\x1b[2K${line}`);
      return;
    }
    if (line === this.lastLine) return;
    this.lastPrint = now;
    this.lastLine = line;
    this.out.write(`${line}\n`);
  }
}
