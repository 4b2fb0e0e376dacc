// The one-line JSON summary that `npm run train -- --json` prints last on stdout.
import type { EpochSummary } from '../../common/run.ts';
import type { RunOutcome } from '../trainer/session-api.ts';

/**
 * The summary object: preset, backend, replay, steps, env_steps, wall_s, steps_per_s (of the
 * last epoch), eval_mean_return, eval_episodes, run_dir, and for trading an `eval` object with
 * return, sharpe, max_drawdown, buy_and_hold_return, buy_and_hold_sharpe on the validation span.
 */
export function summaryJson(preset: string, outcome: RunOutcome, backend: string, replay: string, runDir: string) {
  const last: EpochSummary | undefined = outcome.last;
  const m = last?.eval_metrics ?? {};
  const trading = 'sharpe' in m;
  return {
    preset,
    backend,
    replay,
    state: outcome.state,
    ...(outcome.haltReason ? { halt_reason: outcome.haltReason } : {}),
    steps: outcome.steps,
    env_steps: outcome.env_steps,
    wall_s: Number(outcome.wall_s.toFixed(3)),
    steps_per_s: last?.steps_per_s ?? 0,
    eval_mean_return: last?.eval_mean_return ?? null,
    eval_episodes: last?.eval_episodes ?? 0,
    run_dir: runDir,
    ...(trading
      ? { eval: { return: m.return, sharpe: m.sharpe, max_drawdown: m.max_drawdown, buy_and_hold_return: m.buy_and_hold_return, buy_and_hold_sharpe: m.buy_and_hold_sharpe } }
      : {}),
  };
}
