// The trading evaluation of the run shown (live or opened from history): the agent beside its
// baselines on the same walk and cost model, every figure with its unit (issue 17), on the
// validation span and, once the run has ended, on its held-out test span (issue 25). A seed
// group's table has a row per member, their mean and the interval its charts draw (issue 26).
// Draws nothing for runs that are not trading runs or have no evaluation yet.
import { useStore } from 'zustand';
import { isTradingMetrics, tradingEvalReport, type EvalSpan, type WalkSummary } from '../../common/trading-eval.ts';
import { GROUP_BAND_LABEL, type GroupBand } from '../group-view.ts';
import { aggregateMembers } from '../lib/group-aggregate.ts';
import type { Dashboard, DashboardState } from '../store.ts';

const pct = (x: number) => (Number.isFinite(x) ? `${(100 * x).toFixed(2)}%` : '–');
const fixed = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : '–');

const times = (x: number) => (Number.isFinite(x) ? `${x.toFixed(2)}×` : '–');

/** One row of an evaluation table: the policy's name, then its cells in the columns' order. */
function Row({ name, cells, className }: { name: string; cells: string[]; className?: string }) {
  return (
    <tr className={className}>
      <td>{name}</td>
      {cells.map((c, i) => (
        <td key={i}>{c}</td>
      ))}
    </tr>
  );
}

/** The cells of one walk: returns, Sharpe ± its standard error, drawdown, turnover, costs, ruin. */
const walkCells = (w: WalkSummary) => [pct(w.return), pct(w.return_simple), `${fixed(w.sharpe)} ± ${fixed(w.sharpe_se)}`, pct(w.max_drawdown), times(w.turnover), pct(w.costs), w.ruined ? 'ruined' : ''];

/** The column headings of every evaluation table. */
function Head() {
  return (
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
  );
}

/** The last epoch of the run shown: the opened past run's, the live run's, none for a seed group (its members have their own). */
const shownLastEpoch = (s: DashboardState) => (s.view.kind === 'history' ? s.view.lastEpoch : s.view.kind === 'group' ? undefined : s.lastEpoch);

/** The evaluation metrics of the run shown: the opened past run's last epoch, else the live run's. */
export function shownEvalMetrics(s: DashboardState): Record<string, number> | undefined {
  return shownLastEpoch(s)?.eval_metrics;
}

/** The test span's metrics of the run shown: set on its last epoch once the run has ended (absent without a test span). */
export function shownTestMetrics(s: DashboardState): Record<string, number> | undefined {
  return shownLastEpoch(s)?.test_metrics;
}

/** Agent vs flat, buy-and-hold and the 20/60 moving-average crossover, from the last epoch's evaluation, then the test span's; for a seed group, its members'. */
export function TradingEval({ dashboard }: { dashboard: Dashboard }) {
  const evalMetrics = useStore(dashboard.store, shownEvalMetrics);
  const testMetrics = useStore(dashboard.store, shownTestMetrics);
  const view = useStore(dashboard.store, (s) => s.view);
  const group = view.kind === 'group' ? dashboard.group() : undefined;
  if (view.kind === 'group' && group) {
    const of = (span: EvalSpan) => group.members.map((m) => ({ name: m.name, metrics: span === 'test' ? m.lastEpoch?.test_metrics : m.lastEpoch?.eval_metrics }));
    return (
      <>
        <GroupTradingEvalTable members={of('validation')} band={view.band} />
        <GroupTradingEvalTable members={of('test')} band={view.band} span="test" />
      </>
    );
  }
  return (
    <>
      <TradingEvalTable metrics={evalMetrics} />
      <TradingEvalTable metrics={testMetrics} span="test" />
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
          <Head />
          <tbody>
            <Row name={`agent (trades on ${pct(r.trade_fraction)} of decisions)`} cells={walkCells(r)} />
            <Row name="buy and hold" cells={walkCells(r.baselines.buy_and_hold)} />
            <Row name="MA 20/60 crossover" cells={walkCells(r.baselines.ma_crossover_20_60)} />
            <Row name="flat" cells={walkCells(r.baselines.flat)} />
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

/** The columns a group's mean and interval rows summarise over its members, with how each reads. */
const GROUP_COLUMNS: { key: keyof WalkSummary; format: (x: number) => string }[] = [
  { key: 'return', format: pct },
  { key: 'return_simple', format: pct },
  { key: 'sharpe', format: fixed },
  { key: 'max_drawdown', format: pct },
  { key: 'turnover', format: times },
  { key: 'costs', format: pct },
];

/**
 * A seed group's evaluation table for one span: the agent of each member (its last epoch), the
 * mean over them and the interval the group's charts draw (`band`: min-max, or the 95% t-interval
 * of the mean), then buy-and-hold (the same walk for every member). Nothing until a member has a
 * trading evaluation of that span.
 */
export function GroupTradingEvalTable({ members, band, span = 'validation' }: { members: { name: string; metrics: Record<string, number> | undefined }[]; band: GroupBand; span?: EvalSpan }) {
  const evaluated = members.flatMap((m) => (m.metrics && isTradingMetrics(m.metrics) ? [{ name: m.name, r: tradingEvalReport(m.metrics, span) }] : []));
  if (evaluated.length === 0) return null;
  const stats = GROUP_COLUMNS.map(({ key, format }) => {
    const a = aggregateMembers(evaluated.map(({ r }) => ({ x: [0], y: [r[key] as number], length: 1 })));
    const [lo, hi] = band === 'minmax' ? [a.min[0]!, a.max[0]!] : [a.ciLo[0]!, a.ciHi[0]!];
    return { mean: format(a.mean[0]!), interval: Number.isFinite(lo) ? `${format(lo)} – ${format(hi)}` : '–' };
  });
  const first = evaluated[0]!.r;
  const id = `trading-eval-group-${span}-title`;
  return (
    <section className="panel trading-wide" aria-labelledby={id} data-span={span}>
      <h2 id={id}>
        {TITLES[span]}: {evaluated.length} of {members.length} seeds
      </h2>
      <div className="runs-scroll">
        <table className="runs group-eval">
          <Head />
          <tbody>
            {evaluated.map(({ name, r }) => (
              <Row key={name} name={`agent, ${name} (trades on ${pct(r.trade_fraction)} of decisions)`} cells={walkCells(r)} />
            ))}
            <Row className="group-stat" name={`mean over ${evaluated.length} seeds`} cells={[...stats.map((c) => c.mean), '']} />
            <Row className="group-stat" name={GROUP_BAND_LABEL[band]} cells={[...stats.map((c) => c.interval), '']} />
            <Row name="buy and hold" cells={walkCells(first.baselines.buy_and_hold)} />
          </tbody>
        </table>
      </div>
      <p className="muted">
        Each member&apos;s last evaluation; the mean and the interval (as on the charts: the band picked above them) are over the members&apos; agents. Returns and costs in % of initial equity, drawdowns
        in % of peak equity; Sharpe annualised with √{Math.round(first.bars_per_year)} bars per year over {first.bars} bars.
      </p>
    </section>
  );
}
