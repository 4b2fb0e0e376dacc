// The trading evaluation as a reader sees it: the flat metric map that the native trading env
// reports (native/src/env/trading_env.h, episode_metrics) regrouped as the agent beside its
// baselines, with the unit of every figure and the span it walked (validation: what selection
// reads; test: held out, evaluated once at the end of a run), and a one-line text form for
// terminals. Pure TS, shared by the CLI summary, the progress line and the dashboard.

/** Figures reported for the agent and for each baseline (suffixes of the metric names). */
export const WALK_FIGURES = ['return', 'return_simple', 'sharpe', 'sharpe_se', 'max_drawdown', 'ruined', 'turnover', 'costs', 'financing'] as const;
export type WalkFigure = (typeof WALK_FIGURES)[number];

/** Baselines on the same walk and cost model: metric-name prefix -> report name. */
export const BASELINES = { flat_: 'flat', buy_and_hold_: 'buy_and_hold', ma_crossover_: 'ma_crossover_20_60' } as const;
export type BaselineName = (typeof BASELINES)[keyof typeof BASELINES];

/** The unit of each figure, as printed beside it in the JSON summary. */
export const TRADING_UNITS = {
  return: 'fraction of initial equity, compounded (final / initial equity - 1)',
  return_simple: 'fraction of initial equity, summed step P&L on a fixed notional (not compounded)',
  sharpe: 'annualized: per-bar Sharpe ratio x sqrt(bars_per_year)',
  sharpe_se: 'standard error of sharpe for IID returns (Lo 2002), same annualization',
  max_drawdown: 'fraction of the running peak of compounded equity',
  ruined: '1 if equity reached zero (the walk stopped there), else 0',
  turnover: 'sum of |change of position| traded, in units of the equity at each trade (rebalancing and the final sale included)',
  costs: 'transaction costs paid (cost_bps on the value traded), fraction of initial equity',
  financing: 'financing paid (financing_rate on a long above 1x equity and on a short), fraction of initial equity',
  trade_fraction: 'fraction of decisions that changed the decided position',
  bars: 'bar returns in the equity curve (gap and warm-up bars included)',
  bar_return_mean: "mean of the agent's per-bar returns (fraction of equity per bar)",
  bar_return_sd: "standard deviation (n - 1) of the agent's per-bar returns",
  bars_per_year: 'bars per calendar year (365.25 days) of the evaluated span: the annualization of every Sharpe ratio',
  span: 'the span walked: validation (read by checkpoint selection) or test (held out: evaluated once, at the end of the run); its first and last bar (UTC) and its bars',
  eval_mean_reward_bps: 'mean over evaluation episodes of the summed step rewards, in basis points of equity (return_simple x 1e4)',
} as const;

export type WalkSummary = Record<WalkFigure, number>;

/** Which span a trading evaluation walked. */
export type EvalSpan = 'validation' | 'test';

/** The span of an evaluation: its name, first and last bar (ISO 8601 UTC) and its bars (warm-up included). */
export interface SpanLabel {
  name: EvalSpan;
  first_bar: string | null;
  last_bar: string | null;
  bars: number;
}

/** The regrouped evaluation: the agent's figures, trade_fraction, bars, bars_per_year, the span, the baselines and the units. */
export interface TradingEvalReport extends WalkSummary {
  trade_fraction: number;
  bars: number;
  bar_return_mean: number;
  bar_return_sd: number;
  bars_per_year: number;
  span: SpanLabel;
  /** Buy-and-hold's return and Sharpe, also inside `baselines` (kept for readers of older summaries). */
  buy_and_hold_return: number;
  buy_and_hold_sharpe: number;
  baselines: Record<BaselineName, WalkSummary>;
  units: typeof TRADING_UNITS;
}

/** True when a metric map comes from the trading env's evaluation (it has the agent's Sharpe and the baselines). */
export function isTradingMetrics(m: Record<string, number>): boolean {
  return 'sharpe' in m && 'buy_and_hold_return' in m;
}

function walk(m: Record<string, number>, prefix: string): WalkSummary {
  return Object.fromEntries(WALK_FIGURES.map((f) => [f, m[`${prefix}${f}`] ?? Number.NaN])) as WalkSummary;
}

const isoTime = (unix: number | undefined): string | null => (unix === undefined || !Number.isFinite(unix) ? null : new Date(unix * 1000).toISOString());

/**
 * Regroups the env's flat metric map (return, sharpe, ..., flat_return, buy_and_hold_sharpe,
 * ma_crossover_max_drawdown, ...) of a walk over `span` as the agent beside its baselines.
 * Missing figures are NaN (a summary from before a figure existed).
 */
export function tradingEvalReport(m: Record<string, number>, span: EvalSpan = 'validation'): TradingEvalReport {
  const baselines = Object.fromEntries(Object.entries(BASELINES).map(([prefix, name]) => [name, walk(m, prefix)])) as Record<BaselineName, WalkSummary>;
  return {
    ...walk(m, ''),
    trade_fraction: m.trade_fraction ?? Number.NaN,
    bars: m.bars ?? Number.NaN,
    bar_return_mean: m.bar_return_mean ?? Number.NaN,
    bar_return_sd: m.bar_return_sd ?? Number.NaN,
    bars_per_year: m.bars_per_year ?? Number.NaN,
    span: { name: span, first_bar: isoTime(m.span_first_time), last_bar: isoTime(m.span_last_time), bars: (m.span_end_bar ?? Number.NaN) - (m.span_begin_bar ?? Number.NaN) },
    buy_and_hold_return: baselines.buy_and_hold.return,
    buy_and_hold_sharpe: baselines.buy_and_hold.sharpe,
    baselines,
    units: TRADING_UNITS,
  };
}

const pct = (x: number | undefined): string => (x === undefined || !Number.isFinite(x) ? '-' : `${(100 * x).toFixed(2)}%`);
const num = (x: number | undefined, digits = 2): string => (x === undefined || !Number.isFinite(x) ? '-' : x.toFixed(digits));

const times = (x: number | undefined): string => (x === undefined || !Number.isFinite(x) ? '-' : `${x.toFixed(x < 10 ? 2 : 0)}x`);

/**
 * One line for a terminal, every figure with its unit:
 * `validation span: agent return -11.00% (simple -11.60%), Sharpe -221.50 ± 8.12, max DD 11.38%,
 * turnover 2293x, costs 11.20%, trades 88.40% of decisions | buy&hold -0.73%, Sharpe -6.11,
 * turnover 1.00x | MA 20/60 -1.16%, Sharpe -14.56, turnover 31x | flat 0.00% (Sharpe annualized
 * with 371008 bars/yr of this span; ± is Lo's standard error)`.
 */
export function formatTradingEval(m: Record<string, number>, span: EvalSpan = 'validation'): string {
  const r = tradingEvalReport(m, span);
  const ruin = (w: WalkSummary) => (w.ruined ? ' RUINED' : '');
  const b = r.baselines;
  return (
    `${span} span: agent return ${pct(r.return)} (simple ${pct(r.return_simple)}), Sharpe ${num(r.sharpe)} ± ${num(r.sharpe_se)}, max DD ${pct(r.max_drawdown)}, turnover ${times(r.turnover)}, costs ${pct(r.costs)}, trades ${pct(r.trade_fraction)} of decisions${ruin(r)}` +
    ` | buy&hold ${pct(b.buy_and_hold.return)}, Sharpe ${num(b.buy_and_hold.sharpe)}, turnover ${times(b.buy_and_hold.turnover)}${ruin(b.buy_and_hold)}` +
    ` | MA 20/60 ${pct(b.ma_crossover_20_60.return)}, Sharpe ${num(b.ma_crossover_20_60.sharpe)}, turnover ${times(b.ma_crossover_20_60.turnover)}${ruin(b.ma_crossover_20_60)}` +
    ` | flat ${pct(b.flat.return)} (Sharpe annualized with ${num(r.bars_per_year, 0)} bars/yr of this span; ± is Lo's standard error)`
  );
}
