// A sweep's state on disk (`<runsDir>/<name>-sweep/sweep.json`, written atomically by the sweep
// CLI after every change) and what the dashboard's Sweep view reads of it: the trials with their
// values, status, training runs and validation figure over seeds, the ranking, and the top
// trial's test-span figure once it was evaluated. The host parses the file with these schemas
// (extra fields the CLI keeps for resuming are dropped) and sends the result as is. Pure TS + zod.
import { z } from 'zod';
import { CONSTRAINT_FIGURES, SWEEP_METRICS, SweepConstraintSchema, SweepNameSchema, MAX_TRIALS, MAX_TRIAL_SEEDS, MAX_PARAMS } from './sweep.ts';

/** The state file's name inside a sweep folder. */
export const SWEEP_STATE_FILE = 'sweep.json';
/** Ending of a sweep folder's name (`<runsDir>/<name>-sweep`). */
export const SWEEP_FOLDER_SUFFIX = '-sweep';

/** Most sweeps the Sweep view's list names (the most recently updated). */
export const MAX_LISTED_SWEEPS = 200;

/** A figure over a trial's seeds: n, mean, sample std and the 95% Student-t interval of the mean (common/seed-stats.ts). */
export const FigureStatsSchema = z.object({
  n: z.number().int().positive(),
  mean: z.number(),
  std: z.number(),
  mean_ci95: z.tuple([z.number(), z.number()]),
});
export type FigureStats = z.infer<typeof FigureStatsSchema>;

/** A run folder's plain name (no path). */
const RunNameSchema = z.string().min(1).max(200).regex(/^[A-Za-z0-9_][A-Za-z0-9._-]*$/);
const ParamValueSchema = z.union([z.number(), z.string().max(200), z.boolean(), z.array(z.number()).max(16)]);

/** Where a trial (or one of its seed runs) stands. */
export const TrialStatusSchema = z.enum(['pending', 'running', 'stopped', 'finished', 'halted', 'failed']);
export type TrialStatus = z.infer<typeof TrialStatusSchema>;

/** One training seed of a trial: its run folder's name (in the runs folder) and how its run stands. */
export const TrialRunSchema = z.object({ seed: z.number().int().nonnegative(), run: RunNameSchema, state: z.enum(['running', 'stopped', 'finished', 'halted']) });

/** One trial as the Sweep view shows it. */
export const SweepTrialSchema = z.object({
  index: z.number().int().positive(),
  params: z.record(z.string().max(200), ParamValueSchema),
  status: TrialStatusSchema,
  /** The trial's seed group (`<stamp>-<sweep>-t<k>-seeds`): its members' runs, its summary file in the runs folder. */
  group: z.string().max(200),
  runs: z.array(TrialRunSchema).max(MAX_TRIAL_SEEDS),
  /** The metric on the validation span over the seeds that finished (absent until the trial has). */
  validation: FigureStatsSchema.optional(),
  /** Why a trial failed (no seed finished an evaluation). */
  error: z.string().max(2000).optional(),
  /** The sweep's constrained figures on the validation span over the same seeds (a sweep with constraints, once the trial finished). */
  constrained: z.partialRecord(z.enum(CONSTRAINT_FIGURES), FigureStatsSchema).optional(),
  /** Why the trial breaks the sweep's constraints (its mean validation figures), so it is not ranked and never chosen; absent when it keeps them. */
  ineligible: z.string().max(2000).optional(),
});
export type SweepTrial = z.infer<typeof SweepTrialSchema>;

/**
 * The top trial's figure on the held-out test span (each seed's final weights, the checkpoint
 * whose validation figures were ranked), evaluated once, after every trial finished; or why it
 * was not (`skipped`; without `trial` when no trial kept the sweep's constraints).
 */
export const SweepTestSchema = z.object({
  trial: z.number().int().positive().optional(),
  checkpoint: z.string().max(64).optional(),
  stats: FigureStatsSchema.optional(),
  /** The constrained figures of the same walks on the test span. */
  constrained: z.partialRecord(z.enum(CONSTRAINT_FIGURES), FigureStatsSchema).optional(),
  per_seed: z.array(z.object({ seed: z.number().int().nonnegative(), run: RunNameSchema, value: z.number() })).max(MAX_TRIAL_SEEDS).optional(),
  skipped: z.string().max(2000).optional(),
});
export type SweepTest = z.infer<typeof SweepTestSchema>;

/** The sweep as its state file holds it and the Sweep view shows it. */
export const SweepViewSchema = z.object({
  kind: z.literal('sweep'),
  version: z.literal(1),
  name: SweepNameSchema,
  /** `running` while a sweep process works on it (and until one that died is run again), `stopped` by Ctrl-C / SIGTERM, `finished` with every trial done. */
  state: z.enum(['running', 'stopped', 'finished']),
  method: z.enum(['grid', 'random']),
  metric: z.enum(SWEEP_METRICS),
  goal: z.enum(['max', 'min']),
  /** Bounds on the trials' mean validation figures (the sweep file's): a trial that breaks one is not ranked. */
  constraints: z.partialRecord(z.enum(CONSTRAINT_FIGURES), SweepConstraintSchema).optional(),
  seeds: z.array(z.number().int().nonnegative()).min(1).max(MAX_TRIAL_SEEDS),
  /** The searched parameters' paths, in the file's order (the table's columns). */
  param_paths: z.array(z.string().max(200)).max(MAX_PARAMS),
  trials: z.array(SweepTrialSchema).max(MAX_TRIALS),
  /** Trial numbers with a validation figure that keep the constraints, best first (rankTrials). */
  ranking: z.array(z.number().int().positive()).max(MAX_TRIALS),
  test: SweepTestSchema.optional(),
  /** ISO 8601 time of the last write. */
  updated: z.string().max(40),
});
export type SweepView = z.infer<typeof SweepViewSchema>;

/** A sweep as the Sweep view's list shows it. */
export const SweepListingSchema = z.object({
  name: SweepNameSchema,
  state: SweepViewSchema.shape.state,
  metric: SweepViewSchema.shape.metric,
  trials: z.number().int().nonnegative(),
  done: z.number().int().nonnegative(),
  /** The best trial so far and its validation figure. */
  best: z.object({ trial: z.number().int().positive(), validation: FigureStatsSchema }).optional(),
  updated: z.string().max(40),
});
export type SweepListing = z.infer<typeof SweepListingSchema>;

/** A sweep's line in the list: counts and the best trial so far. */
export function sweepListing(v: SweepView): SweepListing {
  const best = v.trials.find((t) => t.index === v.ranking[0]);
  return {
    name: v.name,
    state: v.state,
    metric: v.metric,
    trials: v.trials.length,
    done: v.trials.filter((t) => t.status === 'finished' || t.status === 'failed').length,
    ...(best?.validation ? { best: { trial: best.index, validation: best.validation } } : {}),
    updated: v.updated,
  };
}

type RankedTrial = Pick<SweepTrial, 'index' | 'validation' | 'ineligible'>;

/** Trials with a validation figure, best first (see rankTrials). */
function byValidation(trials: readonly RankedTrial[], goal: 'max' | 'min'): number[] {
  const sign = goal === 'max' ? -1 : 1;
  const edge = goal === 'max' ? 0 : 1;
  return trials
    .filter((t) => t.validation)
    .sort((a, b) => {
      const va = a.validation!, vb = b.validation!;
      return sign * (va.mean - vb.mean) || sign * (va.mean_ci95[edge] - vb.mean_ci95[edge]) || a.index - b.index;
    })
    .map((t) => t.index);
}

/**
 * The trials with a validation figure that keep the sweep's constraints (no `ineligible`), best
 * first: by mean (larger first for goal max, smaller for min), then by the interval's cautious end
 * (a higher lower end for max, a lower upper end for min), then by the lower trial number.
 */
export function rankTrials(trials: readonly RankedTrial[], goal: 'max' | 'min'): number[] {
  return byValidation(trials.filter((t) => !t.ineligible), goal);
}

/**
 * The order of a sweep's table: the ranked trials (best first), then those that break a
 * constraint (by their validation figure, as they would rank), then the rest by number.
 */
export function tableOrder(v: Pick<SweepView, 'trials' | 'ranking' | 'goal'>): number[] {
  const excluded = byValidation(v.trials.filter((t) => t.ineligible), v.goal);
  const listed = new Set([...v.ranking, ...excluded]);
  return [...v.ranking, ...excluded, ...v.trials.filter((t) => !listed.has(t.index)).map((t) => t.index).sort((a, b) => a - b)];
}
