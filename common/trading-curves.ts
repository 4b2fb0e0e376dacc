// The per-bar curves of one trading evaluation (issue 16 item 5): the agent's compounded equity
// beside buy-and-hold's, the agent's position and its drawdown, each downsampled to at most
// MAX_CURVE_POINTS points keeping every bucket's minimum and maximum, so that a message or file
// stays small whatever the length of the validation span. Written by the trainer session to
// `<run>/eval/epoch-<N>.json`, read back by the host's `evalCurves` command. Pure TS.
import { z } from 'zod';

/** Most points one curve holds (the first and last points and each bucket's min and max). */
export const MAX_CURVE_POINTS = 2000;

/** One downsampled curve: x (bar index in the walk, 0 = its first decision bar) and value, same length. */
export const CurveSchema = z.object({
  x: z.array(z.number().int().nonnegative()).max(MAX_CURVE_POINTS),
  y: z.array(z.number()).max(MAX_CURVE_POINTS),
});
export type Curve = z.infer<typeof CurveSchema>;

/** The curves of one evaluation, at epoch `epoch` (gradient step `step`). */
export const EvalCurvesSchema = z.object({
  epoch: z.number().int().nonnegative(),
  step: z.number().int().nonnegative(),
  /** Bar returns in the agent's walk (its equity curve has bars + 1 values before downsampling). */
  bars: z.number().int().nonnegative(),
  /** Compounded equity, 1 at x = 0 (a fraction of initial equity). */
  equity: CurveSchema,
  buy_and_hold_equity: CurveSchema,
  /** Position held over bar x (x >= 1), a multiple of equity in [-max_position, max_position]. */
  position: CurveSchema,
  /** 1 - equity / running peak of equity, a fraction in [0, 1]. */
  drawdown: CurveSchema,
  buy_and_hold_drawdown: CurveSchema,
});
export type EvalCurves = z.infer<typeof EvalCurvesSchema>;

/**
 * Downsamples the series y[0..n) (x = i + x0) to at most `maxPoints` points: the first and last
 * points, and in each of floor((maxPoints - 2) / 2) equal buckets of the points between them the
 * bucket's minimum and maximum, in x order (one point when they coincide). A series of at most
 * maxPoints points is returned whole. A NaN is not kept as a bucket's min or max unless the
 * bucket holds nothing else. x of y[i] is x0 + i.
 * @param maxPoints at least 2.
 */
export function downsampleMinMax(y: ArrayLike<number>, maxPoints = MAX_CURVE_POINTS, x0 = 0): Curve {
  const n = y.length;
  if (maxPoints < 2) throw new RangeError(`maxPoints must be >= 2, got ${maxPoints}`);
  if (n <= maxPoints) return { x: Array.from({ length: n }, (_, i) => i + x0), y: Array.from(y) };
  const out: Curve = { x: [x0], y: [y[0]!] };
  const buckets = Math.floor((maxPoints - 2) / 2);
  const inner = n - 2; // points 1 .. n-2
  for (let b = 0; b < buckets; b++) {
    const lo = 1 + Math.floor((b * inner) / buckets);
    const hi = 1 + Math.floor(((b + 1) * inner) / buckets); // exclusive
    if (hi <= lo) continue;
    let iMin = lo;
    let iMax = lo;
    for (let i = lo + 1; i < hi; i++) {
      const v = y[i]!;
      if (v < y[iMin]! || Number.isNaN(y[iMin]!)) iMin = i;
      if (v > y[iMax]! || Number.isNaN(y[iMax]!)) iMax = i;
    }
    for (const i of iMin === iMax ? [iMin] : [Math.min(iMin, iMax), Math.max(iMin, iMax)]) {
      out.x.push(i + x0);
      out.y.push(y[i]!);
    }
  }
  out.x.push(n - 1 + x0);
  out.y.push(y[n - 1]!);
  return out;
}

/** Drawdown of an equity curve: 1 - E_i / max(E_0 .. E_i), a fraction in [0, 1] (0 while the peak is 0). */
export function drawdown(equity: ArrayLike<number>): Float64Array {
  const dd = new Float64Array(equity.length);
  let peak = -Infinity;
  for (let i = 0; i < equity.length; i++) {
    peak = Math.max(peak, equity[i]!);
    dd[i] = peak > 0 ? 1 - equity[i]! / peak : 0;
  }
  return dd;
}

/**
 * The bounded curves of one evaluation from the native walk's full-resolution series
 * (EvalResult.series: equity and buy_and_hold_equity with n + 1 values, position with n, where
 * position[i] is held over bar i + 1); undefined when the evaluation has no such series (not trading).
 */
export function evalCurves(series: Record<string, ArrayLike<number>>, epoch: number, step: number, maxPoints = MAX_CURVE_POINTS): EvalCurves | undefined {
  const { equity, buy_and_hold_equity: hold, position } = series;
  if (!equity || !hold || !position || equity.length === 0) return undefined;
  return {
    epoch,
    step,
    bars: equity.length - 1,
    equity: downsampleMinMax(equity, maxPoints),
    buy_and_hold_equity: downsampleMinMax(hold, maxPoints),
    position: downsampleMinMax(position, maxPoints, 1),
    drawdown: downsampleMinMax(drawdown(equity), maxPoints),
    buy_and_hold_drawdown: downsampleMinMax(drawdown(hold), maxPoints),
  };
}

/** File name of epoch `epoch`'s curves inside the run folder. */
export function evalCurvesFile(epoch: number): string {
  return `eval/epoch-${epoch}.json`;
}
