// The Sweep view's table (issue 25 item 3): one row per trial of an opened sweep, ranked trials
// first (best first), then the others by number; each with its values, status, the ranked
// validation figure as mean ± half-width of its 95% t-interval with n, the test span's figure
// for the top trial once evaluated, and what opening the trial shows (its seed group, or its
// one run); in a sweep with constraints, each constrained figure's validation mean and, for a
// trial that breaks one, why it is not eligible (it has no rank). Pure: the component only lays it out.
import type { HostCommandInput } from '../common/protocol.ts';
import { tableOrder, type FigureStats, type SweepListing, type SweepView } from '../common/sweep-state.ts';
import { constraintText, type ConstraintFigure, type SweepConstraint } from '../common/sweep.ts';
import { formatValue, percentText } from './lib/format.ts';

/** One trial as the table shows it. */
export interface SweepRow {
  index: number;
  /** 1 for the best; undefined without a validation figure. */
  rank?: number;
  best: boolean;
  status: string;
  /** The values of the searched parameters, in the sweep's column order. */
  params: string[];
  /** `mean ± half` of the validation figure, or '–'. */
  validation: string;
  /** `[lo, hi]` of its 95% interval, or ''. */
  interval: string;
  n?: number;
  /** The test span's figure (the top trial only, once evaluated), or a note why not. */
  test?: string;
  /** The constrained figures' validation means, in the sweep's constraint order ('–' before the trial finished). */
  constrained: string[];
  /** Why the trial breaks a constraint (not eligible: never ranked nor chosen). */
  ineligible?: string;
  /** The command that opens the trial on the charts (none while it has no run). */
  open?: HostCommandInput;
}

/** Figures that are fractions of equity (shown in percent). */
const FRACTIONS: ReadonlySet<ConstraintFigure> = new Set(['return', 'return_simple', 'max_drawdown', 'ruined', 'costs', 'financing', 'trade_fraction']);

/** One value of `metric` in words (percent for fractions of equity, `x` for turnover, bp, else 4 significant digits). */
export function metricText(metric: ConstraintFigure, v: number): string {
  if (FRACTIONS.has(metric)) return percentText(v);
  if (metric === 'turnover') return `${formatValue(v)}x`;
  if (metric === 'eval_mean_reward_bps') return `${formatValue(v)} bp`;
  return formatValue(v);
}

/** `mean ± half-width` of a figure's 95% interval, in the metric's words; one seed has no interval, and says so (not "± 0"). */
export function statsText(metric: ConstraintFigure, s: FigureStats): string {
  if (s.n < 2) return `${metricText(metric, s.mean)} (1 seed: no interval)`;
  const half = (s.mean_ci95[1] - s.mean_ci95[0]) / 2;
  return `${metricText(metric, s.mean)} ± ${metricText(metric, half)}`;
}

/** The rows of the opened sweep's table (see the file comment). */
export function sweepRows(v: SweepView): SweepRow[] {
  const rank = new Map(v.ranking.map((index, k) => [index, k + 1]));
  const byIndex = new Map(v.trials.map((t) => [t.index, t]));
  const ordered = tableOrder(v).map((index) => byIndex.get(index)!);
  const figures = Object.keys(v.constraints ?? {}) as ConstraintFigure[];
  return ordered.map((t) => {
    const val = t.validation;
    const top = v.test?.trial === t.index ? v.test : undefined;
    const open: HostCommandInput | undefined = t.runs.length === 0 ? undefined : t.runs.length > 1 ? { type: 'openGroup', group: t.group } : { type: 'openRun', runDir: t.runs[0]!.run };
    return {
      index: t.index,
      rank: rank.get(t.index),
      best: v.ranking[0] === t.index,
      status: t.error ? `${t.status}: ${t.error}` : t.status,
      params: v.param_paths.map((p) => (t.params[p] === undefined ? '' : Array.isArray(t.params[p]) ? JSON.stringify(t.params[p]) : String(t.params[p]))),
      validation: val ? statsText(v.metric, val) : '–',
      interval: val && val.n < 2 ? '–' : val ? `[${metricText(v.metric, val.mean_ci95[0])}, ${metricText(v.metric, val.mean_ci95[1])}]` : '',
      n: val?.n,
      ...(top ? { test: top.stats ? (top.stats.n < 2 ? `${metricText(v.metric, top.stats.mean)} (n = 1: no interval)` : `${statsText(v.metric, top.stats)} (n = ${top.stats.n})`) : `not evaluated: ${top.skipped ?? ''}` } : {}),
      constrained: figures.map((f) => (t.constrained?.[f] ? metricText(f, t.constrained[f].mean) : '–')),
      ...(t.ineligible ? { ineligible: t.ineligible } : {}),
      ...(open ? { open } : {}),
    };
  });
}

/** The sweep's constraints in words, e.g. `turnover <= 50x`, one per constrained figure in the file's order. */
export function constraintsTexts(v: Pick<SweepView, 'constraints'>): string[] {
  return (Object.entries(v.constraints ?? {}) as [ConstraintFigure, SweepConstraint][]).map(([f, c]) =>
    constraintText(f, c, (x) => metricText(f, x)),
  );
}

/** A sweep's line in the list: state, trials done, and the best so far. */
export function listingText(s: SweepListing): string {
  const best = s.best ? `; best: trial ${s.best.trial}, ${statsText(s.metric, s.best.validation)}` : '';
  return `${s.state}, ${s.done} of ${s.trials} trials done${best}`;
}
