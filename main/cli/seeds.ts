// `npm run train -- --seeds N`: the spread of the evaluation over N training seeds (Agarwal et
// al. 2021: report a seed group, not a single seed's figure), with a Student-t interval of the
// mean that covers at a few seeds (common/seed-stats.ts). Each seed is a full run with its own run
// directory; this module names the seeds and their runs and turns the runs' summaries into one
// summary object, also written to a file.
import { basename, join } from 'node:path';
import type { GroupMarker } from '../../common/seed-group.ts';
import { SEED_INTERVAL_METHOD, seedStats, type SeedStats } from '../../common/seed-stats.ts';
import { TRADING_UNITS, WALK_FIGURES, type TradingEvalReport } from '../../common/trading-eval.ts';
import { writeFileAtomic } from '../trainer/atomic-file.ts';
import { InputError } from '../trainer/input-error.ts';
import { runStamp } from '../trainer/run-dir.ts';
import type { RunSummary } from './summary.ts';

/** Largest --seeds value (each seed is a whole training run). */
export const MAX_SEEDS = 100;

/** Seeds base, base + 1, ..., base + n - 1. @throws InputError if n is outside [1, MAX_SEEDS] or a seed would pass 2^31 - 1. */
export function seedList(base: number, n: number): number[] {
  if (!Number.isInteger(n) || n < 1 || n > MAX_SEEDS) throw new InputError(`--seeds must be an integer in [1, ${MAX_SEEDS}], got ${n}`);
  if (base + n - 1 > 2 ** 31 - 1) throw new InputError(`seeds ${base} .. ${base + n - 1} pass the largest seed 2147483647: give a smaller --seed`);
  return Array.from({ length: n }, (_, k) => base + k);
}

/** The run name of one member of a group: `<name><suffix>`, the name clipped so the whole stays within 64 characters. */
export function memberRunName(name: string, suffix: string): string {
  return `${name.slice(0, 64 - suffix.length)}${suffix}`;
}

/** The run name of one seed: `<name>-seed<seed>` (memberRunName). */
export function seedRunName(name: string, seed: number): string {
  return memberRunName(name, `-seed${seed}`);
}

/** Where the summary of a group goes: `<runsDir>/<yyyymmdd-hhmmss>-<name>-<kind>.json`, beside the run directories. */
export function groupSummaryPath(runsDir: string, name: string, kind: 'seeds' | 'folds', now = new Date()): string {
  return join(runsDir, `${runStamp(now)}-${name}-${kind}.json`);
}

/** The agent's figures of one span over seeds (each a SeedStats with its n). */
function agentStats(evals: TradingEvalReport[]) {
  return Object.fromEntries([...WALK_FIGURES, 'trade_fraction' as const].map((f) => [f, seedStats(evals.map((e) => e[f]))])) as Record<(typeof WALK_FIGURES)[number] | 'trade_fraction', SeedStats>;
}

/**
 * The group.json marker of the member trained with `seed` (common/seed-group.ts): the group is
 * named by its summary file (`summaryFile` without `.json`, decided when the group starts), so the
 * run history shows the group while it trains and matches the summary once it is written.
 */
export function groupMarker(summaryFile: string, seed: number, seeds: readonly number[]): GroupMarker {
  return { kind: 'seed-group', version: 1, group: basename(summaryFile, '.json'), seed, seeds: [...seeds] };
}

/**
 * The summary over seeds: per-seed headline figures, and for every evaluation figure its
 * SeedStats (n, mean, std, IQM, min, max, 95% Student-t interval of the mean). For trading runs
 * the agent's figures on the validation span (eval.agent) sit beside the baselines
 * (eval.baselines: one value per figure, since every seed walks the same span with the same
 * rules; `baselines_identical` says whether they really were), and, when every seed held out a
 * test span and finished, the same for the test span (test). Runs that halted are listed but
 * left out of the statistics.
 * @throws RangeError when no run finished with an evaluation.
 */
export function summarizeSeeds(source: { preset: string | null; config: string | null }, runs: RunSummary[], summaryFile: string) {
  const done = runs.filter((r) => r.state !== 'halted' && r.eval_episodes > 0);
  if (done.length === 0) throw new RangeError(`none of the ${runs.length} seeds finished an evaluation (states: ${runs.map((r) => r.state).join(', ')})`);
  const figure = (pick: (r: RunSummary) => number | null | undefined): SeedStats => seedStats(done.map((r) => pick(r) ?? Number.NaN));
  const evals = done.map((r) => r.eval);
  const trading = evals.every((e) => e !== undefined);
  const first = evals[0];
  const headline = runs.map((r) => ({
    seed: r.seed,
    state: r.state,
    run_dir: r.run_dir,
    ...(r.eval ? { return: r.eval.return, sharpe: r.eval.sharpe } : {}),
    ...(r.test ? { test_return: r.test.return, test_sharpe: r.test.sharpe } : {}),
    ...(r.eval_mean_return !== undefined ? { eval_mean_return: r.eval_mean_return } : {}),
    ...(r.stopped_at_target ? { stopped_at_target_epoch: r.stopped_at_target.epoch } : {}),
  }));
  return {
    preset: source.preset,
    config: source.config,
    seeds: runs.map((r) => r.seed),
    seeds_in_statistics: done.map((r) => r.seed),
    backend: runs[0]!.backend,
    runs: headline,
    summary_file: summaryFile,
    statistics: `n (seeds), mean, std (n - 1), iqm (interquartile mean: floor(n/4) dropped at each end; Agarwal et al. 2021), min, max, mean_ci95 (${SEED_INTERVAL_METHOD})`,
    ...(trading && first
      ? {
          eval_mean_reward_bps: figure((r) => r.eval_mean_reward_bps),
          eval: {
            span: 'validation' as const,
            agent: agentStats(evals.map((e) => e!)),
            baselines: first.baselines,
            baselines_identical: evals.every((e) => JSON.stringify(e!.baselines) === JSON.stringify(first.baselines)),
            bars: first.bars,
            bars_per_year: first.bars_per_year,
            gap_policy: first.gap_policy,
            units: TRADING_UNITS,
          },
          ...(done.every((r) => r.test) ? { test: { span: 'test' as const, agent: agentStats(done.map((r) => r.test!)), baselines: done[0]!.test!.baselines, bars_per_year: done[0]!.test!.bars_per_year } } : {}),
        }
      : { eval_mean_return: figure((r) => r.eval_mean_return) }),
  };
}

/**
 * What a seed group stopped (Ctrl-C) before any seed finished an evaluation reports instead of
 * a summary: its seeds and each started run's state and folder; no statistics and no summary file
 * (summary_file null). The stopped runs resume one by one (`--resume RUN_DIR`).
 */
export function unsummarizedSeeds(source: { preset: string | null; config: string | null }, seeds: readonly number[], runs: readonly RunSummary[]) {
  return {
    preset: source.preset,
    config: source.config,
    seeds: [...seeds],
    seeds_in_statistics: [] as number[],
    backend: runs[0]?.backend ?? null,
    runs: runs.map((r) => ({ seed: r.seed, state: r.state, run_dir: r.run_dir })),
    summary_file: null,
  };
}

/**
 * The summary's headline in words, for the terminal (the JSON has every figure): the evaluation
 * figure's mean over seeds with its 95% t-interval, std, min and max; for trading the validation
 * (and test) return beside buy-and-hold's, e.g.
 * "validation return over 3 seeds: mean +0.65% (95% CI +0.41% to +0.88%), std 0.10%, min +0.54%, max +0.74%; buy-and-hold -0.04%".
 */
export function seedSummaryLines(summary: ReturnType<typeof summarizeSeeds>): string[] {
  const n = summary.seeds_in_statistics.length;
  const line = (what: string, st: SeedStats, f: (v: number) => string, spread: (v: number) => string = f) =>
    `${what} over ${n} seed${n === 1 ? '' : 's'}: mean ${f(st.mean)}${n > 1 ? ` (95% CI ${f(st.mean_ci95[0])} to ${f(st.mean_ci95[1])}), std ${spread(st.std)}, min ${f(st.min)}, max ${f(st.max)}` : ''}`;
  if ('eval_mean_return' in summary) return [line('eval_mean_return', summary.eval_mean_return, (v) => v.toFixed(1))];
  if (!summary.eval) return [];
  const pct = (v: number) => `${v >= 0 ? '+' : ''}${(100 * v).toFixed(2)}%`;
  const plain = (v: number) => `${(100 * v).toFixed(2)}%`;
  const out = [`${line('validation return', summary.eval.agent.return, pct, plain)}; buy-and-hold ${pct(summary.eval.baselines.buy_and_hold.return)}`];
  if ('test' in summary && summary.test) out.push(`${line('test return', summary.test.agent.return, pct, plain)}; buy-and-hold ${pct(summary.test.baselines.buy_and_hold.return)}`);
  return out;
}

/** Writes the summary of a group (seeds or folds) as pretty JSON (atomically) and returns it. */
export function writeGroupSummary<T extends { summary_file: string }>(summary: T): T {
  writeFileAtomic(summary.summary_file, `${JSON.stringify(summary, null, 2)}\n`);
  return summary;
}
