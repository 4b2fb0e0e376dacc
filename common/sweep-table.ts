// A sweep's table (what `npm run sweep` writes as table.json and table.csv in the sweep folder):
// one row per trial, ranked trials first (best first), then the others by number. Pure TS.
import type { ParamValue } from './sweep.ts';
import type { SweepView } from './sweep-state.ts';

/** A table cell. */
export type TableCell = string | number | boolean | null;

/**
 * The rows of the table: rank (null for a trial without a validation figure), trial, status,
 * best (the top-ranked trial), one column per searched parameter (by dotted path), the metric's
 * validation n, mean, std and 95% interval, the test span's for the best trial once evaluated
 * (null elsewhere), the trial's seed group and its run folders (space-separated).
 */
export function sweepTableRows(v: SweepView): Record<string, TableCell>[] {
  const rank = new Map(v.ranking.map((index, k) => [index, k + 1]));
  const ordered = [...v.trials].sort((a, b) => (rank.get(a.index) ?? Infinity) - (rank.get(b.index) ?? Infinity) || a.index - b.index);
  const test = v.test?.stats;
  return ordered.map((t) => {
    const val = t.validation;
    const top = v.test?.trial === t.index && test;
    return {
      rank: rank.get(t.index) ?? null,
      trial: t.index,
      status: t.status,
      best: v.ranking[0] === t.index,
      ...Object.fromEntries(v.param_paths.map((p) => [p, cell(t.params[p])])),
      metric: `validation ${v.metric}`,
      n: val?.n ?? null,
      mean: val?.mean ?? null,
      std: val?.std ?? null,
      ci95_lo: val?.mean_ci95[0] ?? null,
      ci95_hi: val?.mean_ci95[1] ?? null,
      test_n: top ? test.n : null,
      test_mean: top ? test.mean : null,
      test_ci95_lo: top ? test.mean_ci95[0] : null,
      test_ci95_hi: top ? test.mean_ci95[1] : null,
      group: t.group,
      runs: t.runs.map((r) => r.run).join(' '),
    };
  });
}

/** A parameter's value as one cell (a list as its JSON text). */
function cell(v: ParamValue | undefined): TableCell {
  return v === undefined ? null : Array.isArray(v) ? JSON.stringify(v) : v;
}
