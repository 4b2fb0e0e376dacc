// `npm run train -- --walk-forward`: every fold of a walk-forward split (env.folds K: windows
// rolling forward by one test span, native/src/env/trading_spans.h) trained as its own run, then
// reported per fold and pooled over the folds' test spans, which are adjacent and disjoint, so
// chained they are one out-of-sample walk of the last K test spans.
import type { RunConfig } from '../../common/config.ts';
import { TRADING_UNITS, type TradingEvalReport } from '../../common/trading-eval.ts';
import { InputError } from '../trainer/input-error.ts';
import { memberRunName } from './seeds.ts';
import type { RunSummary } from './summary.ts';

/** The folds 0 .. K-1 of a trading config. @throws InputError unless env.folds > 1 (which needs a test span). */
export function foldList(config: RunConfig): number[] {
  if (config.env.kind !== 'trading' || config.env.folds < 2)
    throw new InputError('--walk-forward trains every fold of env.folds: give a trading config with env.folds >= 2 and env.test_fraction > 0');
  return Array.from({ length: config.env.folds }, (_, k) => k);
}

/** The run name of one fold: `<name>-fold<k>` (memberRunName). */
export function foldRunName(name: string, fold: number): string {
  return memberRunName(name, `-fold${fold}`);
}

/** The pooled figures of consecutive test walks. */
export interface PooledWalk {
  folds: number;
  /** prod(1 + return_k) - 1: the test spans chained as one account. */
  return: number;
  /** Sum of the folds' turnover (each in units of the equity at its trades). */
  turnover: number;
  /** Costs and financing paid, fractions of the chained account's initial equity: sum of x_k prod_{j<k} (1 + return_j). */
  costs: number;
  financing: number;
  bars: number;
  /** All bars over all the spans' years: sum bars_k / sum (bars_k / bars_per_year_k). */
  bars_per_year: number;
  /** Pooled per-bar mean over pooled standard deviation (n - 1), times sqrt(bars_per_year). */
  sharpe: number;
}

/**
 * Pools the agent's figures of consecutive walks (the folds' test spans, in time order): the
 * return chained, turnover summed, costs and financing in units of the chained account, and the
 * Sharpe ratio from the pooled mean and variance of the per-bar returns (each walk's bars,
 * bar_return_mean and bar_return_sd).
 * @throws RangeError for no walks.
 */
export function poolWalks(walks: readonly TradingEvalReport[]): PooledWalk {
  if (walks.length === 0) throw new RangeError('poolWalks needs at least one walk');
  let equity = 1, costs = 0, financing = 0, turnover = 0, bars = 0, years = 0, sum = 0;
  for (const w of walks) {
    costs += w.costs * equity;
    financing += w.financing * equity;
    equity *= 1 + w.return;
    turnover += w.turnover;
    bars += w.bars;
    years += w.bars / w.bars_per_year;
    sum += w.bar_return_mean * w.bars;
  }
  const mean = sum / bars;
  let ss = 0;
  for (const w of walks) ss += (w.bars - 1) * w.bar_return_sd ** 2 + w.bars * (w.bar_return_mean - mean) ** 2;
  const sd = Math.sqrt(ss / (bars - 1));
  const bpy = bars / years;
  return { folds: walks.length, return: equity - 1, turnover, costs, financing, bars, bars_per_year: bpy, sharpe: sd > 0 ? (mean / sd) * Math.sqrt(bpy) : 0 };
}

/**
 * The walk-forward summary: per fold its run, validation and test evaluations, and the folds'
 * test walks pooled (poolWalks; null unless every fold finished with a test evaluation).
 */
export function summarizeFolds(source: { preset: string | null; config: string | null }, runs: RunSummary[], summaryFile: string) {
  const tests = runs.map((r) => r.test);
  const complete = tests.every((t) => t !== undefined) && runs.every((r) => r.state === 'finished');
  return {
    preset: source.preset,
    config: source.config,
    summary_file: summaryFile,
    folds: runs.map((r, k) => ({ fold: k, run_dir: r.run_dir, state: r.state, validation: r.eval ?? null, test: r.test ?? null })),
    pooled_test: complete ? poolWalks(tests as TradingEvalReport[]) : null,
    pooled_note: 'the folds\' test spans chained in time order: return compounded, turnover summed, costs and financing as fractions of the chained account\'s initial equity, Sharpe from the pooled per-bar mean and variance; drawdowns are per fold only',
    units: TRADING_UNITS,
  };
}
