// What a training run reports while it runs: the records the trainer host emits, the CLI
// prints, the run directory stores (metrics) and the dashboard draws. Pure TS + zod, shared by
// every layer. Scalar names follow CleanRL / TensorBoard conventions where one exists.
import { z } from 'zod';
import { numberText } from './config-problems.ts';

/** Run lifecycle as shown by the dashboard's run-state label. */
export const RunStateSchema = z.enum(['idle', 'running', 'stopping', 'halted']);
export type RunState = z.infer<typeof RunStateSchema>;

/** Where compute and replay run, and why when it is not where the config asked. */
export const BackendStatusSchema = z.object({
  compute: z.object({ backend: z.enum(['cpu', 'cuda']), reason: z.string() }),
  replay: z.object({ backend: z.enum(['cpu', 'cuda']), reason: z.string() }),
  /** Where the training environments step (absent from hosts older than the device collector). */
  collector: z.object({ where: z.enum(['host', 'device']), reason: z.string() }).optional(),
  deviceName: z.string().optional(),
});
export type BackendStatus = z.infer<typeof BackendStatusSchema>;

/** What the native trainer's collector reason (its TradingDeviceNote) says before why a trading run's evaluation walks step on the host. */
const EVAL_WALKS_ON_HOST = 'evaluation walks step on the host: ';

/**
 * Where a trading run's evaluation walks step while its training environments step on the device, read from the
 * collector's reason: 'device' ("training episodes and evaluation walks step on the GPU"), 'host' with `why` (a
 * fallback: "...; evaluation walks step on the host: why"), or undefined when the reason says neither (CartPole,
 * or environments on the host).
 */
export function evalWalks(c: BackendStatus['collector']): { where: 'device' } | { where: 'host'; why: string } | undefined {
  if (c?.where !== 'device') return undefined;
  const at = c.reason.indexOf(EVAL_WALKS_ON_HOST);
  if (at >= 0) return { where: 'host', why: c.reason.slice(at + EVAL_WALKS_ON_HOST.length) };
  return c.reason.includes('evaluation walks step on the GPU') ? { where: 'device' } : undefined;
}

/** One logged point of the live scalars (a read of the scalar block). NaN/Inf are kept as null + flag. */
export const ScalarPointSchema = z.object({
  step: z.number().int().nonnegative(),
  wall_s: z.number().nonnegative(),
  /** Scalar name (e.g. "losses/td_loss") -> value; non-finite values are sent as strings "NaN", "Infinity", "-Infinity". */
  values: z.record(z.string(), z.union([z.number(), z.enum(['NaN', 'Infinity', '-Infinity'])])),
});
export type ScalarPoint = z.infer<typeof ScalarPointSchema>;

/** Summary written at each epoch boundary (the one sync point). */
export const EpochSummarySchema = z.object({
  epoch: z.number().int().nonnegative(),
  step: z.number().int().nonnegative(),
  env_steps: z.number().int().nonnegative(),
  epoch_time_s: z.number().nonnegative(),
  steps_per_s: z.number().nonnegative(),
  eval_mean_return: z.number(),
  eval_episodes: z.number().int().nonnegative(),
  /** The evaluation of the validation span (trading): what checkpoint selection reads. */
  eval_metrics: z.record(z.string(), z.number()),
  /**
   * Trading runs with a test span, on the run's last epoch only: the same walk over the test span,
   * evaluated once at the end of the run and read by no selection.
   */
  test_mean_return: z.number().optional(),
  test_metrics: z.record(z.string(), z.number()).optional(),
  /**
   * On the epoch whose evaluation reached schedule.target_return (eval_mean_return >= it), which
   * ended the run: that target. Absent on every other epoch.
   */
  target_return: z.number().optional(),
});
export type EpochSummary = z.infer<typeof EpochSummarySchema>;

/** A run that ended at schedule.target_return: the epoch whose evaluation reached it, of the `epochs` its config asked for. */
export interface TargetReached {
  target_return: number;
  epoch: number;
  epochs: number;
  eval_mean_return: number;
}

/**
 * An evaluation return that reached `target`, with one decimal, or as many more (up to 6) as it
 * takes not to read as below the target ("500.0" against 475; "12.34" for 12.341 against 12.34, not "12.3").
 */
export function reachedReturnText(value: number, target: number): string {
  for (let d = 1; d <= 6; d++) {
    const s = value.toFixed(d);
    if (Number(s) >= target) return s;
  }
  return String(value);
}

/**
 * Which evaluation ended a run at its target return, in the words the run history's title and the
 * refused resume share: "finished at its target return: epoch 2's evaluation 500.0 >= 475
 * (schedule.target_return)".
 */
export function finishedAtTargetText(epoch: number, evalReturn: number, target: number): string {
  return `finished at its target return: epoch ${epoch}'s evaluation ${reachedReturnText(evalReturn, target)} >= ${numberText(target)} (schedule.target_return)`;
}

/** Why such a run does not resume, after finishedAtTargetText. */
export const NO_RESUME_AT_TARGET = 'so it trains no further; to train longer, start a new run with a higher target_return or none';

/** An event of the run's event log (fallbacks, halts, restarts, checkpoints). */
export const RunEventSchema = z.object({
  time: z.string(),
  kind: z.enum(['start', 'resume', 'fallback', 'halt', 'checkpoint', 'stop', 'finish', 'error', 'warning']),
  message: z.string(),
});
export type RunEvent = z.infer<typeof RunEventSchema>;

/** Standard scalar names: scalar-block field -> chart name. */
export const SCALAR_NAMES = {
  loss: 'losses/td_loss',
  td_mse: 'losses/td_mse',
  grad_norm: 'losses/grad_norm',
  q_mean: 'q/mean',
  q_min: 'q/min',
  q_max: 'q/max',
  q_var: 'q/var',
  mean_max_q: 'q/mean_max',
  causal_sensitivity: 'causal/sensitivity',
  per_total: 'replay/total_priority',
  per_max_priority: 'replay/max_priority',
  is_weight_mean: 'replay/is_weight_mean',
  beta: 'replay/beta',
  epsilon: 'charts/epsilon',
  episodic_return: 'charts/episodic_return',
  // Heads and parts (common/heads.ts): streamed only for the parts a run enables.
  main_loss: 'heads/main_loss',
  main_grad_norm: 'heads/main_grad_norm',
  main_grad_clipped: 'heads/main_grad_norm_clipped',
  iqn_loss: 'heads/iqn_loss',
  iqn_grad_norm: 'heads/iqn_grad_norm',
  iqn_grad_clipped: 'heads/iqn_grad_norm_clipped',
  ensemble_loss: 'heads/ensemble_loss',
  ensemble_grad_norm: 'heads/ensemble_grad_norm',
  ensemble_grad_clipped: 'heads/ensemble_grad_norm_clipped',
  cql_loss: 'heads/cql_loss',
  cql_grad_norm: 'heads/cql_grad_norm',
  cql_grad_clipped: 'heads/cql_grad_norm_clipped',
  ensemble_disagreement: 'heads/ensemble_disagreement',
  sigma_max_seen: 'heads/sigma_max',
} as const;

/**
 * Prefix of the C51 greedy-action distribution at the latest Q-stats probe: series
 * `heads/c51_dist/<j>` holds the probability of atom j (as `causal/<feature>` holds one feature).
 */
export const C51_DIST_PREFIX = 'heads/c51_dist/';
