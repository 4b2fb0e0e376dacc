// Student's t distribution for integer degrees of freedom: the two-sided probability of |T| <= t
// by the finite sums of Abramowitz & Stegun (1964), 26.7.3 (odd nu) and 26.7.4 (even nu), and its
// quantile by bisection. Pure TS; used for the confidence interval of a mean over a few seeds.

/**
 * A(t | nu) = P(|T| <= t) for T ~ Student t with nu degrees of freedom, t >= 0. With theta =
 * atan(t / sqrt(nu)): nu = 1: 2 theta / pi; odd nu: (2 / pi) (theta + sin theta (cos theta +
 * 2/3 cos^3 theta + ... + (2 4 ... (nu-3)) / (1 3 ... (nu-2)) cos^(nu-2) theta)); even nu:
 * sin theta (1 + 1/2 cos^2 theta + ... + (1 3 ... (nu-3)) / (2 4 ... (nu-2)) cos^(nu-2) theta).
 * @throws RangeError for nu not a positive integer or t < 0.
 */
export function studentTwoSided(t: number, nu: number): number {
  if (!Number.isInteger(nu) || nu < 1) throw new RangeError(`degrees of freedom must be a positive integer, got ${nu}`);
  if (!(t >= 0)) throw new RangeError(`t must be >= 0, got ${t}`);
  const theta = Math.atan(t / Math.sqrt(nu));
  const c = Math.cos(theta), s = Math.sin(theta);
  if (nu % 2 === 1) {
    let term = c, sum = nu > 1 ? c : 0;
    for (let k = 3; k <= nu - 2; k += 2) {
      term *= ((k - 1) / k) * c * c;
      sum += term;
    }
    return (2 / Math.PI) * (theta + s * sum);
  }
  let term = 1, sum = 1;
  for (let k = 2; k <= nu - 2; k += 2) {
    term *= ((k - 1) / k) * c * c;
    sum += term;
  }
  return s * sum;
}

/**
 * The t with P(|T| <= t) = level for nu degrees of freedom (the two-sided quantile: level 0.95
 * gives t_{0.975, nu}, e.g. 12.706 for nu = 1, 4.303 for 2, 2.262 for 9), to 1e-12.
 * @throws RangeError for level outside (0, 1) or a bad nu.
 */
export function studentQuantile(level: number, nu: number): number {
  if (!(level > 0 && level < 1)) throw new RangeError(`level must be in (0, 1), got ${level}`);
  let lo = 0, hi = 1;
  while (studentTwoSided(hi, nu) < level) hi *= 2;
  while (hi - lo > 1e-12 * hi) {
    const mid = (lo + hi) / 2;
    if (studentTwoSided(mid, nu) < level) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}
