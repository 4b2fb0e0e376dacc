// The one-line JSON summary that `npm run train -- --json` prints last on stdout.
import type { EpochSummary } from '../../common/run.ts';
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

/**
 * The summary object: preset (the name, null for a config file or a resume), config (the file,
 * or null), resumed_from (the run directory, or null), backend, replay, state, steps, env_steps,
 * wall_s (all sessions of the run), steps_per_s (this invocation: the steps it did over its wall
 * time), last_epoch_steps_per_s (the last epoch it completed, null when none), eval_mean_return,
 * eval_episodes, run_dir, and for trading an `eval` object with return, sharpe, max_drawdown,
 * buy_and_hold_return, buy_and_hold_sharpe on the validation span.
 */
export function summaryJson(source: RunSource, outcome: RunOutcome, backend: string, replay: string, runDir: string) {
  const last: EpochSummary | undefined = outcome.last;
  const m = last?.eval_metrics ?? {};
  const trading = 'sharpe' in m;
  const wall = outcome.session_wall_s ?? 0;
  return {
    preset: source.preset ?? null,
    config: source.config ?? null,
    resumed_from: source.resumedFrom ?? null,
    backend,
    replay,
    state: outcome.state,
    ...(outcome.haltReason ? { halt_reason: outcome.haltReason } : {}),
    steps: outcome.steps,
    env_steps: outcome.env_steps,
    wall_s: Number(outcome.wall_s.toFixed(3)),
    steps_per_s: wall > 0 ? (outcome.session_steps ?? 0) / wall : 0,
    last_epoch_steps_per_s: last?.steps_per_s ?? null,
    eval_mean_return: last?.eval_mean_return ?? null,
    eval_episodes: last?.eval_episodes ?? 0,
    run_dir: runDir,
    ...(trading
      ? { eval: { return: m.return, sharpe: m.sharpe, max_drawdown: m.max_drawdown, buy_and_hold_return: m.buy_and_hold_return, buy_and_hold_sharpe: m.buy_and_hold_sharpe } }
      : {}),
  };
}
