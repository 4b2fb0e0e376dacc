// The x axes a chart can be drawn against (issue 16, item 4): gradient step, env step, or wall
// time since the run started. Series are stored against their own axis (step for scalars, env
// step for episodes and evaluations); an AxisMap holds (step, wall s) and (step, env steps)
// samples of the run (scalar reads and frame counters; system samples and epoch summaries) and
// converts between them by linear interpolation, extrapolating past the ends with the nearest two
// samples. Every run starts at (0, 0), so both tables start with it: before the first real sample
// everything maps to the run's start, never to the same number on another axis. A step may hold
// two samples, its first and its last value (the env steps collected before the first gradient
// step all map to step 0). Both tables grow by at most a few samples per frame and are thinned
// (every other old sample dropped) past MAX_SAMPLES, so memory stays bounded.

/** An x axis of the charts. */
export type XAxisKind = 'step' | 'env' | 'wall';

/** Axis labels as the charts show them. */
export const X_AXIS_LABEL: Record<XAxisKind, string> = { step: 'step', env: 'env step', wall: 'wall time (s)' };

/** Samples kept per table before thinning. */
export const MAX_SAMPLES = 4096;

/** A monotone table (step -> value), steps ascending, starting at (0, 0); a step holds at most two values (its first and last). */
class Table {
  steps: number[] = [0];
  values: number[] = [0];

  add(step: number, value: number): void {
    const n = this.steps.length;
    if (!Number.isFinite(step) || !Number.isFinite(value) || step < this.steps[n - 1]! || value < this.values[n - 1]!) return;
    if (step === this.steps[n - 1]) {
      if (value === this.values[n - 1]) return;
      if (n >= 2 && this.steps[n - 2] === step) {
        this.values[n - 1] = value;
        return;
      }
    }
    this.steps.push(step);
    this.values.push(value);
    if (this.steps.length > MAX_SAMPLES) {
      const half = this.steps.length >> 1;
      this.steps = this.steps.filter((_, i) => i >= half || i % 2 === 0);
      this.values = this.values.filter((_, i) => i >= half || i % 2 === 0);
    }
  }

  /** Linear interpolation of ys at x over the points (xs, ys), xs ascending (never empty: (0, 0) comes first). */
  static interp(xs: number[], ys: number[], x: number): number {
    const n = xs.length;
    if (n === 1) return ys[0]!;
    let lo = 0;
    let hi = n - 1;
    if (x <= xs[0]!) hi = 1;
    else if (x >= xs[n - 1]!) lo = n - 2;
    else {
      while (hi - lo > 1) {
        const mid = (lo + hi) >> 1;
        if (xs[mid]! <= x) lo = mid;
        else hi = mid;
      }
    }
    const x0 = xs[lo]!;
    const x1 = xs[hi]!;
    return x1 === x0 ? ys[lo]! : ys[lo]! + ((x - x0) / (x1 - x0)) * (ys[hi]! - ys[lo]!);
  }
}

/** Converts x values between the axes of one run (see the file comment). */
export class AxisMap {
  private readonly wall = new Table();
  private readonly env = new Table();

  /** A (step, wall seconds) sample: a scalar read, or a frame's counters. */
  addWall(step: number, wallS: number): void {
    this.wall.add(step, wallS);
  }
  /** A (step, env steps) sample: a system sample or an epoch summary. */
  addEnv(step: number, envSteps: number): void {
    this.env.add(step, envSteps);
  }

  /** The gradient step at `x` on axis `from`. */
  toStep(from: XAxisKind, x: number): number {
    if (from === 'step') return x;
    return from === 'env' ? Table.interp(this.env.values, this.env.steps, x) : Table.interp(this.wall.values, this.wall.steps, x);
  }

  /** `x` on axis `from` converted to axis `to`. */
  convert(from: XAxisKind, to: XAxisKind, x: number): number {
    if (from === to) return x;
    const step = this.toStep(from, x);
    if (to === 'step') return step;
    return to === 'env' ? Table.interp(this.env.steps, this.env.values, step) : Table.interp(this.wall.steps, this.wall.values, step);
  }

  /** Samples held (both tables), for tests. */
  get size(): number {
    return this.wall.steps.length + this.env.steps.length;
  }
}
