// The trading evaluation of the run shown (live or opened from history): the agent beside its
// baselines on the same walk and cost model, every figure with its unit (issue 17). Draws
// nothing for runs that are not trading runs or have no evaluation yet.
import { useStore } from 'zustand';
import { isTradingMetrics, tradingEvalReport, type WalkSummary } from '../../common/trading-eval.ts';
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
      <td>{w.ruined ? 'ruined' : ''}</td>
    </tr>
  );
}

/** The evaluation metrics of the run shown: the opened past run's last epoch, else the live run's. */
export function shownEvalMetrics(s: DashboardState): Record<string, number> | undefined {
  return (s.view.kind === 'history' ? s.view.lastEpoch : s.lastEpoch)?.eval_metrics;
}

/** Agent vs flat, buy-and-hold and the 20/60 moving-average crossover, from the last epoch's evaluation. */
export function TradingEval({ dashboard }: { dashboard: Dashboard }) {
  return <TradingEvalTable metrics={useStore(dashboard.store, shownEvalMetrics)} />;
}

/** The table of TradingEval for one metric map (the env's flat map); nothing unless it is a trading evaluation. */
export function TradingEvalTable({ metrics }: { metrics: Record<string, number> | undefined }) {
  if (!metrics || !isTradingMetrics(metrics)) return null;
  const r = tradingEvalReport(metrics);
  return (
    <section className="panel trading-wide" aria-labelledby="trading-eval-title">
      <h2 id="trading-eval-title">Evaluation on the validation span</h2>
      <div className="runs-scroll">
        <table className="runs">
          <thead>
            <tr>
              <th>Policy</th>
              <th title="final / initial equity - 1">Return (compounded)</th>
              <th title="summed step P&L on a fixed notional">Return (simple)</th>
              <th title="annualized; ± Lo (2002) standard error">Sharpe ± SE</th>
              <th title="of compounded equity">Max drawdown</th>
              <th />
            </tr>
          </thead>
          <tbody>
            <Row name={`agent (trades on ${pct(r.trade_fraction)} of steps)`} w={r} />
            <Row name="buy and hold" w={r.baselines.buy_and_hold} />
            <Row name="MA 20/60 crossover" w={r.baselines.ma_crossover_20_60} />
            <Row name="flat" w={r.baselines.flat} />
          </tbody>
        </table>
      </div>
      <p className="muted">
        Returns in % of initial equity, drawdowns in % of peak equity; Sharpe is per-bar mean / std × √{Math.round(r.bars_per_year)} bars per year over {r.bars} bars; a
        difference under about two standard errors is noise.
      </p>
    </section>
  );
}
