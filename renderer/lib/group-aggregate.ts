// The charts of a seed group (issue 27 item 4): per step, the members' mean with a band, either
// their minimum and maximum or the 95% t-interval of the mean. Pure; no React, no DOM.
//
// Alignment: members log at slightly different steps (a member's epoch ends a step later, its
// episodes end at other env steps), so there is no common grid. The group's x values are the
// union of every member's x values; at each x a member contributes its last value at or before x
// (carried forward), but only within its own span [its first x, its last x]: nothing is drawn
// for a member before it logged or after its last point (a member that stopped early, or is
// still training, leaves the statistics there; n says how many members a point stands for).
// A non-finite value of a contributing member makes the mean at that x non-finite (drawn as a
// marker, never dropped) and leaves the band out there.

/** The points of one member's series, x ascending (a Series' arrays and length). */
export interface MemberPoints {
  x: ArrayLike<number>;
  y: ArrayLike<number>;
  length: number;
}

/** The group's statistics at each aligned x (arrays of one length). */
export interface Aggregate {
  x: Float64Array;
  /** Members contributing at x. */
  n: Int32Array;
  mean: Float64Array;
  min: Float64Array;
  max: Float64Array;
  /** 95% t-interval of the mean: mean -+ t(0.975, n - 1) s / sqrt(n); NaN where n < 2 or a value is non-finite. */
  ciLo: Float64Array;
  ciHi: Float64Array;
}

/** Two-sided 95% quantiles t(0.975, df) of Student's t for df = 1..30 (the usual table, 4 decimals). */
const T975 = [12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.306, 2.2622, 2.2281, 2.201, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.093, 2.086, 2.0796, 2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423];

/**
 * t(0.975, df), the quantile of the 95% two-sided t-interval: the table for df <= 30, beyond it
 * the Cornish-Fisher expansion around z = 1.959964 to the 1/df^3 term (Abramowitz and Stegun
 * 26.7.5; within 1e-4 of the exact value there).
 * @throws RangeError for df < 1 or not an integer.
 */
export function tQuantile975(df: number): number {
  if (!Number.isInteger(df) || df < 1) throw new RangeError(`degrees of freedom must be a positive integer, got ${df}`);
  if (df <= T975.length) return T975[df - 1]!;
  const z = 1.959963985;
  const z3 = z ** 3;
  const z5 = z ** 5;
  const z7 = z ** 7;
  return z + (z3 + z) / (4 * df) + (5 * z5 + 16 * z3 + 3 * z) / (96 * df ** 2) + (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * df ** 3);
}

/** The sorted union of the members' x values. */
function unionX(members: readonly MemberPoints[]): Float64Array {
  let total = 0;
  for (const m of members) total += m.length;
  const all = new Float64Array(total);
  let k = 0;
  for (const m of members) for (let i = 0; i < m.length; i++) all[k++] = m.x[i]!;
  all.sort();
  let u = 0;
  for (let i = 0; i < all.length; i++) if (i === 0 || all[i] !== all[u - 1]) all[u++] = all[i]!;
  return all.slice(0, u);
}

/**
 * Mean, minimum, maximum and 95% t-interval of the mean of the members' series at every x of
 * their union, each member's value carried forward within its own span (see the file comment).
 */
export function aggregateMembers(members: readonly MemberPoints[]): Aggregate {
  const x = unionX(members);
  const u = x.length;
  const out: Aggregate = { x, n: new Int32Array(u), mean: new Float64Array(u), min: new Float64Array(u), max: new Float64Array(u), ciLo: new Float64Array(u), ciHi: new Float64Array(u) };
  const at = members.map(() => -1); // each member's last index with x <= the current x
  const vals: number[] = [];
  for (let j = 0; j < u; j++) {
    const xj = x[j]!;
    vals.length = 0;
    members.forEach((m, k) => {
      while (at[k]! + 1 < m.length && m.x[at[k]! + 1]! <= xj) at[k]!++;
      if (at[k]! >= 0 && xj <= m.x[m.length - 1]!) vals.push(m.y[at[k]!]!);
    });
    const n = vals.length;
    out.n[j] = n;
    let sum = 0;
    let lo = Infinity;
    let hi = -Infinity;
    for (const v of vals) {
      sum += v;
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
    const mean = sum / n;
    out.mean[j] = mean;
    const finite = Number.isFinite(mean);
    out.min[j] = finite ? lo : NaN;
    out.max[j] = finite ? hi : NaN;
    if (!finite || n < 2) {
      out.ciLo[j] = NaN;
      out.ciHi[j] = NaN;
      continue;
    }
    let ss = 0;
    for (const v of vals) ss += (v - mean) ** 2;
    const half = (tQuantile975(n - 1) * Math.sqrt(ss / (n - 1))) / Math.sqrt(n);
    out.ciLo[j] = mean - half;
    out.ciHi[j] = mean + half;
  }
  return out;
}
