// How chart tooltips print values: every series with 4 significant digits (exponent form for very
// large or small magnitudes, as on the axes), a min/max band as "min – max"; fractions as percent.

/**
 * `v` with 4 significant digits and no trailing zeros ("0.9315", "2.891", "2.5"); exponent form
 * when the rounded magnitude is >= 1e5 or < 1e-3 ("1.235e+5", "1.2e-4"); "NaN", "Infinity" and
 * "-Infinity" as such.
 */
export function formatValue(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  const r = Number(v.toPrecision(4));
  const a = Math.abs(r);
  return a !== 0 && (a >= 1e5 || a < 1e-3) ? r.toExponential() : String(r);
}

/**
 * A tooltip value as recharts hands it over: a number (formatValue), a band's [min, max] pair
 * ("0.9315 – 2.891"), anything else as its text.
 */
export function tooltipValue(v: unknown): string {
  if (typeof v === 'number') return formatValue(v);
  if (Array.isArray(v) && v.length === 2 && typeof v[0] === 'number' && typeof v[1] === 'number') return `${formatValue(v[0])} – ${formatValue(v[1])}`;
  return String(v);
}

/** A fraction as percent with at most `digits` decimals and no trailing zeros ("5%", "-1.25%", "0.5%"); "–" for a missing (non-finite) value. */
export function percentText(v: number, digits = 2): string {
  return Number.isFinite(v) ? `${Number((100 * v).toFixed(digits))}%` : '–';
}
