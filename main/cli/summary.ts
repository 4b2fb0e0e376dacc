// The one-line JSON summary that `npm run train -- --json` prints last on stdout.
import type { RunConfig } from '../../common/config.ts';
import type { EpochSummary, TargetReached } from '../../common/run.ts';
import { isTradingMetrics, TRADING_UNITS, tradingEvalReport, type TradingEvalReport } from '../../common/trading-eval.ts';
import type { RunOutcome } from '../trainer/session-api.ts';

/** Where the run's config came from: exactly one of the three is set. */
export interface RunSource {
  /** Preset name (--preset). */
  preset?: string;
  /** Config file path (--config). */
  config?: string;
  /** Run directory resumed (--resume). */
  resumedFrom?: string;
}

/** The trading evaluation of one span in a summary: the agent beside its baselines, and the gap policy. */
export type TradingEvalSummary = TradingEvalReport & { gap_policy: 'hold' | 'flat' };

/** The summary of one run (see summaryJson). */
export interface RunSummary {
  preset: string | null;
  config: string | null;
  resumed_from: string | null;
  seed: number | null;
  backend: string;
  replay: string;
  state: RunOutcome['state'];
  halt_reason?: string;
  /**
   * A run that finished early at schedule.target_return: the target, the epoch whose evaluation
   * reached it (of the epochs configured) and that evaluation's mean return (eval_mean_return's units).
   */
  stopped_at_target?: TargetReached;
  steps: number;
  env_steps: number;
  wall_s: number;
  steps_per_s: number;
  last_epoch_steps_per_s: number | null;
  /** CartPole (any env but trading): mean evaluation episode return. */
  eval_mean_return?: number | null;
  /** Trading: mean summed evaluation reward in basis points of equity. */
  eval_mean_reward_bps?: number | null;
  eval_mean_reward_bps_unit?: string;
  eval_episodes: number;
  run_dir: string;
  /** Trading: the validation span's evaluation at the last epoch (what checkpoint selection reads). */
  eval?: TradingEvalSummary;
  /** Trading with env.test_fraction > 0, a run that finished: the test span, evaluated once at its end. */
  test?: TradingEvalSummary;
}

/**
 * The summary object: preset (the name, null for a config file or a resume), config (the file,
 * or null), resumed_from (the run directory, or null), seed, backend, replay, state, steps,
 * env_steps, wall_s (all sessions of the run), steps_per_s (this invocation: the steps it did over
 * its wall time), last_epoch_steps_per_s (the last epoch it completed, null when none),
 * eval_episodes, run_dir, and the episodic evaluation figure: for CartPole `eval_mean_return`
 * (mean episode return), for trading `eval_mean_reward_bps` (the mean summed step reward in
 * basis points of equity, whatever reward_scale) and an `eval` object on the validation span (the
 * agent beside its baselines with units, common/trading-eval.ts) with the env's gap_policy, and
 * a `test` object of the same shape on the test span when the run held one out and finished;
 * `stopped_at_target` when the run ended early at schedule.target_return.
 */
export function summaryJson(source: RunSource, outcome: RunOutcome, backend: string, replay: string, runDir: string, config?: RunConfig): RunSummary {
  const last: EpochSummary | undefined = outcome.last;
  const m = last?.eval_metrics ?? {};
  const trading = isTradingMetrics(m) && config?.env.kind === 'trading';
  const wall = outcome.session_wall_s ?? 0;
  const evalMean = last?.eval_mean_return ?? null;
  return {
    preset: source.preset ?? null,
    config: source.config ?? null,
    resumed_from: source.resumedFrom ?? null,
    seed: config?.seed ?? null,
    backend,
    replay,
    state: outcome.state,
    ...(outcome.haltReason ? { halt_reason: outcome.haltReason } : {}),
    ...(outcome.target ? { stopped_at_target: outcome.target } : {}),
    steps: outcome.steps,
    env_steps: outcome.env_steps,
    wall_s: Number(outcome.wall_s.toFixed(3)),
    steps_per_s: wall > 0 ? (outcome.session_steps ?? 0) / wall : 0,
    last_epoch_steps_per_s: last?.steps_per_s ?? null,
    ...(config?.env.kind === 'trading'
      ? { eval_mean_reward_bps: evalMean === null ? null : (evalMean / config.env.reward_scale) * 1e4, eval_mean_reward_bps_unit: TRADING_UNITS.eval_mean_reward_bps }
      : { eval_mean_return: evalMean }),
    eval_episodes: last?.eval_episodes ?? 0,
    run_dir: runDir,
    ...(trading && config?.env.kind === 'trading' ? { eval: { ...tradingEvalReport(m, 'validation'), gap_policy: config.env.gap_policy } } : {}),
    ...(trading && config?.env.kind === 'trading' && last?.test_metrics ? { test: { ...tradingEvalReport(last.test_metrics, 'test'), gap_policy: config.env.gap_policy } } : {}),
  };
}

