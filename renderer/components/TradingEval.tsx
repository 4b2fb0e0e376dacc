// The trading evaluation of the run shown (live or opened from history): the agent beside its
// baselines on the same walk and cost model, every figure with its unit (issue 17), on the
// validation span and, once the run has ended, on its held-out test span (issue 25). Draws
// nothing for runs that are not trading runs or have no evaluation yet.
import { useStore } from 'zustand';
import { isTradingMetrics, tradingEvalReport, type EvalSpan, type WalkSummary } from '../../common/trading-eval.ts';
import type { Dashboard, DashboardState } from '../store.ts';

const pct = (x: number) => (Number.isFinite(x) ? `${(100 * x).toFixed(2)}%` : '–');
const fixed = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : '–');

function Row({ name, w }: { name: string; w: WalkSummary }) {
  return (
    <tr>
      <td>{name}</td>
      <td>{pct(w.return)}</td>
      <td>{pct(w.return_simple)}</td>
      <td>
        {fixed(w.sharpe)} ± {fixed(w.sharpe_se)}
      </td>
      <td>{pct(w.max_drawdown)}</td>
      <td>{Number.isFinite(w.turnover) ? `${w.turnover.toFixed(2)}×` : '–'}</td>
      <td>{pct(w.costs)}</td>
      <td>{w.ruined ? 'ruined' : ''}</td>
    </tr>
  );
}

/** The evaluation metrics of the run shown: the opened past run's last epoch, else the live run's. */
export function shownEvalMetrics(s: DashboardState): Record<string, number> | undefined {
  return (s.view.kind === 'history' ? s.view.lastEpoch : s.lastEpoch)?.eval_metrics;
}

/** The test span's metrics of the run shown: set on its last epoch once the run has ended (absent without a test span). */
export function shownTestMetrics(s: DashboardState): Record<string, number> | undefined {
  return (s.view.kind === 'history' ? s.view.lastEpoch : s.lastEpoch)?.test_metrics;
}

/** Agent vs flat, buy-and-hold and the 20/60 moving-average crossover, from the last epoch's evaluation, then the test span's. */
export function TradingEval({ dashboard }: { dashboard: Dashboard }) {
  return (
    <>
      <TradingEvalTable metrics={useStore(dashboard.store, shownEvalMetrics)} />
      <TradingEvalTable metrics={useStore(dashboard.store, shownTestMetrics)} span="test" />
    </>
  );
}

const TITLES: Record<EvalSpan, string> = {
  validation: 'Evaluation on the validation span (what checkpoint selection reads)',
  test: 'Test span: held out, evaluated once at the end of the run',
};

/** The table of TradingEval for one metric map (the env's flat map) of one span; nothing unless it is a trading evaluation. As wide as the charts (issue 26 item 10). */
export function TradingEvalTable({ metrics, span = 'validation' }: { metrics: Record<string, number> | undefined; span?: EvalSpan }) {
  if (!metrics || !isTradingMetrics(metrics)) return null;
  const r = tradingEvalReport(metrics, span);
  const id = `trading-eval-${span}-title`;
  return (
    <section className="panel trading-wide" aria-labelledby={id} data-span={span}>
      <h2 id={id}>{TITLES[span]}</h2>
      <div className="runs-scroll">
        <table className="runs">
          <thead>
            <tr>
              <th>Policy</th>
              <th title="final / initial equity - 1">Return (compounded)</th>
              <th title="summed step P&L on a fixed notional">Return (simple)</th>
              <th title="annualized; ± Lo (2002) standard error">Sharpe ± SE</th>
              <th title="of compounded equity">Max drawdown</th>
              <th title="sum of |change of position| in units of equity, rebalancing and the final sale included">Turnover</th>
              <th title="transaction costs paid, in % of initial equity">Costs</th>
              <th />
            </tr>
          </thead>
          <tbody>
            <Row name={`agent (trades on ${pct(r.trade_fraction)} of decisions)`} w={r} />
            <Row name="buy and hold" w={r.baselines.buy_and_hold} />
            <Row name="MA 20/60 crossover" w={r.baselines.ma_crossover_20_60} />
            <Row name="flat" w={r.baselines.flat} />
          </tbody>
        </table>
      </div>
      <p className="muted">
        Returns and costs in % of initial equity, drawdowns in % of peak equity; Sharpe is per-bar mean / std × √{Math.round(r.bars_per_year)} bars per year of this span over {r.bars} bars; a
        difference under about two standard errors is noise.{r.span.first_bar ? ` Span: ${r.span.first_bar.slice(0, 16)} to ${r.span.last_bar?.slice(0, 16)} UTC.` : ''}
      </p>
    </section>
  );
}
