// A sweep's table (what `npm run sweep` writes as table.json and table.csv in the sweep folder):
// one row per trial, ranked trials first (best first), then the others by number. Pure TS.
import type { ConstraintFigure, ParamValue } from './sweep.ts';
import { tableOrder, type SweepView } from './sweep-state.ts';

/** A table cell. */
export type TableCell = string | number | boolean | null;

/**
 * The rows of the table: rank (null for a trial without a validation figure or that breaks a
 * constraint), trial, status, best (the top-ranked trial), one column per searched parameter (by
 * dotted path), the metric's validation n, mean, std and 95% interval; in a sweep with
 * constraints, each constrained figure's validation mean (`validation_<figure>`), `eligible` and
 * `not_eligible_because`; the test span's figures for the best trial once evaluated (null
 * elsewhere: `test_n` to `test_ci95_hi`, and `test_<figure>` for each constrained figure), the
 * trial's seed group and its run folders (space-separated). Order: tableOrder.
 */
export function sweepTableRows(v: SweepView): Record<string, TableCell>[] {
  const rank = new Map(v.ranking.map((index, k) => [index, k + 1]));
  const byIndex = new Map(v.trials.map((t) => [t.index, t]));
  const ordered = tableOrder(v).map((index) => byIndex.get(index)!);
  const test = v.test?.stats;
  const figures = Object.keys(v.constraints ?? {}) as ConstraintFigure[];
  return ordered.map((t) => {
    const val = t.validation;
    const top = v.test?.trial === t.index && test;
    const checked = t.constrained !== undefined || t.ineligible !== undefined;
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
      ...(figures.length
        ? {
            ...Object.fromEntries(figures.map((f) => [`validation_${f}`, t.constrained?.[f]?.mean ?? null])),
            eligible: checked ? !t.ineligible : null,
            not_eligible_because: t.ineligible ?? null,
          }
        : {}),
      test_n: top ? test.n : null,
      test_mean: top ? test.mean : null,
      test_ci95_lo: top ? test.mean_ci95[0] : null,
      test_ci95_hi: top ? test.mean_ci95[1] : null,
      ...Object.fromEntries(figures.map((f) => [`test_${f}`, top ? (v.test?.constrained?.[f]?.mean ?? null) : null])),
      group: t.group,
      runs: t.runs.map((r) => r.run).join(' '),
    };
  });
}

/** A parameter's value as one cell (a list as its JSON text). */
function cell(v: ParamValue | undefined): TableCell {
  return v === undefined ? null : Array.isArray(v) ? JSON.stringify(v) : v;
}
