// Per-epoch charts of a trading run's evaluation (issue 16 item 5): compounded return, annualised
// Sharpe ratio and max drawdown of the agent, buy-and-hold beside it, from the `eval/<metric>`
// series that every epoch summary feeds (common/protocol.ts, epochSeriesPoints; x = env step).
import { useStore } from 'zustand';
import type { CsvRequest } from '../lib/csv-request.ts';
import { percentText } from '../lib/format.ts';
import type { RedrawScheduler } from '../lib/redraw.ts';
import type { Dashboard } from '../store.ts';
import { SeriesChart, type ChartLine } from './SeriesChart.tsx';
import { shownEvalMetrics } from './TradingEval.tsx';
import { SERIES_COLORS } from '../lib/palette.ts';

const pair = (figure: string): ChartLine[] => [
  { name: `eval/${figure}`, label: 'agent', color: SERIES_COLORS.orange, smooth: false, dots: true },
  { name: `eval/buy_and_hold_${figure}`, label: 'buy and hold', color: SERIES_COLORS.blue, smooth: false, dots: true },
];
/** Before the first evaluation: each epoch's evaluation adds a point. */
const FIRST_EVALUATION = 'No data yet: a point per epoch, the first when epoch 1 is evaluated.';

export const TRADING_RETURN_LINES = pair('return');
export const TRADING_SHARPE_LINES = pair('sharpe');
export const TRADING_DRAWDOWN_LINES = pair('max_drawdown');

/**
 * The tooltip of the Sharpe chart: the annualisation convention, with the run's bars per year
 * (eval metric `bars_per_year`: the validation span's bars per 365.25-day calendar year) when known.
 */
export function sharpeNote(metrics: Record<string, number> | undefined): string {
  const bpy = metrics?.bars_per_year;
  const bars = metrics?.bars;
  const n = bpy !== undefined && Number.isFinite(bpy) ? `${Math.round(bpy)} bars per year (the validation span's bars per 365.25-day calendar year)` : 'bars per year of the validation span';
  return `Annualised Sharpe ratio: mean / standard deviation of the per-bar returns of compounded equity × √(${n})${bars ? `, over the ${bars} bars of the validation walk` : ''}; Lo (2002) standard error in the evaluation table.`;
}

/** Return, Sharpe and max drawdown per epoch, the agent beside buy-and-hold; drawn only for trading runs (App decides). */
export function TradingEpochCharts({ dashboard, scheduler, csv }: { dashboard: Dashboard; scheduler: RedrawScheduler; csv: CsvRequest }) {
  const metrics = useStore(dashboard.store, shownEvalMetrics);
  return (
    <>
      <div title="Compounded return on the validation span at each epoch's evaluation: final / initial equity − 1, in % (the CSV keeps the fraction)">
        <SeriesChart dashboard={dashboard} scheduler={scheduler} csv={csv} title="Evaluation return" lines={TRADING_RETURN_LINES} xLabel="env step" xKind="env" yLabel="% of initial equity (compounded)" yFormat={percentText} emptyText={FIRST_EVALUATION} />
      </div>
      <div title={sharpeNote(metrics)}>
        <SeriesChart dashboard={dashboard} scheduler={scheduler} csv={csv} title="Evaluation Sharpe" lines={TRADING_SHARPE_LINES} xLabel="env step" xKind="env" yLabel="Sharpe, annualised" emptyText={FIRST_EVALUATION} />
      </div>
      <div title="Max drawdown of compounded equity on the validation span: max of 1 − equity / running peak, in % (the CSV keeps the fraction)">
        <SeriesChart dashboard={dashboard} scheduler={scheduler} csv={csv} title="Evaluation max drawdown" lines={TRADING_DRAWDOWN_LINES} xLabel="env step" xKind="env" yLabel="% of peak equity" yFormat={percentText} emptyText={FIRST_EVALUATION} />
      </div>
    </>
  );
}
