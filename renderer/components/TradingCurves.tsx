// The per-bar curves of one trading evaluation of the run shown (issue 16 item 5): the agent's
// compounded equity on the validation span beside buy-and-hold's, its position over time and
// both drawdowns. The latest evaluation by default; any earlier epoch can be picked. The curves
// come from the run folder (eval/epoch-<N>.json) through the host, at most MAX_CURVE_POINTS
// points each, so they are drawn as they come (no further downsampling). Each plot is as wide as
// the charts and names the values at the bar under the pointer (issue 26 item 10). A seed group
// has no curves of its own: the panel draws those of the member picked in it (the first by default).
import { useEffect, useMemo, useState } from 'react';
import { CartesianGrid, Line, LineChart, Tooltip, XAxis, YAxis } from 'recharts';
import { useStore } from 'zustand';
import { useShallow } from 'zustand/react/shallow';
import type { Curve, EvalCurves } from '../../common/trading-curves.ts';
import type { EvalCurvesRequest } from '../lib/eval-curves-request.ts';
import { chartFrame, TOOLTIP_STYLE } from '../lib/chart-style.ts';
import { coveringTicks, niceTicks } from '../lib/legend.ts';
import { SERIES_COLORS } from '../lib/palette.ts';
import { ink } from '../lib/theme.ts';
import { useTheme } from '../lib/theme-store.ts';
import type { Dashboard, DashboardState } from '../store.ts';
import { useWidth } from './SeriesChart.tsx';

/** Height of each plot in CSS pixels (the width is the panel's). */
const PLOT_HEIGHT = 200;
/** Pixels per x-axis tick label. */
const PX_PER_TICK = 90;

/** The run shown (live or opened past run): its folder, last ended epoch, and whether it trades. */
export function shownTradingRun(s: DashboardState): { runDir?: string; epoch: number; trading: boolean } {
  if (s.view.kind === 'history') return { runDir: s.view.runDir, epoch: s.view.lastEpoch?.epoch ?? 0, trading: s.view.config.env.kind === 'trading' };
  return { runDir: s.runDir, epoch: s.lastEpoch?.epoch ?? 0, trading: s.runConfig?.env.kind === 'trading' };
}

/** [min, max] of the y values of `curves` (finite ones), widened when flat; [0, 1] when empty. */
export function yRange(curves: readonly Curve[]): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const c of curves)
    for (const v of c.y) {
      if (!Number.isFinite(v)) continue;
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
  if (lo > hi) return [0, 1];
  if (lo === hi) return [lo - 0.5 * (Math.abs(lo) || 1), hi + 0.5 * (Math.abs(hi) || 1)];
  return [lo, hi];
}

/**
 * One row per bar at which any of `curves` has a point, x ascending, holding every curve's value
 * there (by name; interpolated where that curve has no point of its own, held from the point
 * before for a `step` curve; undefined outside the curve or next to a non-finite value), so a
 * hover on any bar reads every line. The curves are downsampled each on its own (their points sit
 * at different bars).
 */
export function curveRows(curves: Record<string, Curve>, step = false): ({ x: number } & Record<string, number | undefined>)[] {
  const xs = [...new Set(Object.values(curves).flatMap((c) => c.x))].sort((a, b) => a - b);
  const rows = xs.map((x) => ({ x }) as { x: number } & Record<string, number | undefined>);
  for (const [name, c] of Object.entries(curves)) {
    let hi = 0; // first point of c at or past the row's bar
    for (const row of rows) {
      while (hi < c.x.length && c.x[hi]! < row.x) hi++;
      if (hi === c.x.length) break;
      const [y0, y1] = [c.y[hi - 1], c.y[hi]!];
      if (c.x[hi] === row.x) row[name] = Number.isFinite(y1) ? y1 : undefined;
      else if (y0 !== undefined && Number.isFinite(y0) && Number.isFinite(y1)) row[name] = step ? y0 : y0 + ((row.x - c.x[hi - 1]!) / (c.x[hi]! - c.x[hi - 1]!)) * (y1 - y0);
    }
  }
  return rows;
}

/** Pixels per y-axis tick label. */
const PX_PER_Y_TICK = 40;

/** How a plot's values read: a multiple of initial equity ("1.05"), or a fraction as percent ("4.5%"). */
type Unit = 'multiple' | 'percent';

/** The y axis of a plot of `unit` values over `range`, and how its values read. */
export interface PlotAxis {
  /** Round values (1, 2 or 5 x 10^k apart) covering the range, ends included. */
  ticks: number[];
  domain: [number, number];
  /** A tick's label: as many decimals as the tick step needs, so neighbours never read alike ("0.995", "1.000"). */
  tick: (v: number) => string;
  /** A value in the legend or tooltip: one decimal finer than the ticks (at least 2 for a multiple, 1 for percent). */
  value: (v: number) => string;
}

/**
 * The y axis of a plot over `range` with about `count` ticks. An equity that moves under 1 % on
 * the validation span (a 6E month) read "1.00" at every tick and in the legend with two fixed
 * decimals; ticks taken between the data's ends read as odd values (0.32, 0.05, -0.30).
 */
export function plotAxis([lo, hi]: [number, number], count: number, unit: Unit): PlotAxis {
  const { ticks, step } = coveringTicks(lo, hi, count);
  const scale = unit === 'percent' ? 100 : 1;
  const decimals = Math.max(0, Math.ceil(-Math.log10(step * scale) - 1e-9));
  const text = (digits: number) => (v: number) => (!Number.isFinite(v) ? '–' : unit === 'percent' ? `${(100 * v).toFixed(digits)}%` : v.toFixed(digits));
  return { ticks, domain: [ticks[0]!, ticks.at(-1)!], tick: text(decimals), value: text(Math.max(unit === 'percent' ? 1 : 2, decimals + 1)) };
}

/** One plot as wide as its panel: its lines (label, colour, curve) with a legend of their last values, the bar under the pointer in a tooltip. */
function Plot({ title, lines, bars, unit, yLabel, step = false, note }: { title: string; lines: { label: string; color: string; curve: Curve }[]; bars: number; unit: Unit; yLabel: string; step?: boolean; note: string }) {
  const [ref, width] = useWidth();
  const rows = useMemo(() => curveRows(Object.fromEntries(lines.map((l) => [l.label, l.curve])), step), [lines, step]);
  const axis = plotAxis(yRange(lines.map((l) => l.curve)), Math.max(2, Math.floor(PLOT_HEIGHT / PX_PER_Y_TICK)), unit);
  const format = axis.value;
  const theme = useTheme();
  const frame = chartFrame(theme);
  return (
    <figure className="trading-plot" aria-label={title} title={note}>
      <figcaption>
        {title}{' '}
        {lines.map((l) => (
          <span key={l.label} className="legend-item" style={{ color: ink(theme, l.color) }}>
            ■ {l.label} {format(l.curve.y.at(-1) ?? NaN)}
          </span>
        ))}
      </figcaption>
      <div ref={ref} className="trading-plot-body">
        <LineChart width={width} height={PLOT_HEIGHT} data={rows} margin={{ top: 6, right: 12, bottom: 4, left: 4 }}>
          <CartesianGrid strokeDasharray="3 3" stroke={frame.grid} />
          <XAxis dataKey="x" type="number" domain={[0, Math.max(bars, 1)]} ticks={niceTicks(0, Math.max(bars, 1), Math.max(2, Math.floor(width / PX_PER_TICK)), true)} interval={0} stroke={frame.axis} tick={frame.tick} label={{ value: 'bar of the validation walk', position: 'insideBottomRight', offset: -2, ...frame.label }} />
          <YAxis domain={axis.domain} ticks={axis.ticks} interval={0} tickFormatter={(v: number) => axis.tick(v)} stroke={frame.axis} tick={frame.tick} width={72} label={{ value: yLabel, angle: -90, position: 'insideLeft', offset: 4, ...frame.label, style: { textAnchor: 'middle' } }} />
          <Tooltip isAnimationActive={false} formatter={(v) => (typeof v === 'number' ? format(v) : String(v))} labelFormatter={(x) => `bar ${x}`} {...TOOLTIP_STYLE} />
          {lines.map((l) => (
            <Line key={l.label} dataKey={l.label} name={l.label} stroke={ink(theme, l.color)} type={step ? 'stepAfter' : 'linear'} dot={false} connectNulls={false} isAnimationActive={false} strokeWidth={1.5} />
          ))}
        </LineChart>
      </div>
    </figure>
  );
}

/** The three plots of one evaluation's curves. */
export function TradingCurvesView({ curves }: { curves: EvalCurves }) {
  const span = `validation walk of ${curves.bars} bars (x: bars since its first decision bar), epoch ${curves.epoch} at step ${curves.step}`;
  return (
    <div className="trading-curves">
      <Plot title="Equity" unit="multiple" yLabel="× initial equity" bars={curves.bars} note={`Compounded equity, 1 = initial; ${span}`} lines={[{ label: 'agent', color: SERIES_COLORS.orange, curve: curves.equity }, { label: 'buy and hold', color: SERIES_COLORS.blue, curve: curves.buy_and_hold_equity }]} />
      <Plot title="Position" unit="multiple" yLabel="× equity (+ long, − short)" bars={curves.bars} step note={`Position held over each bar, a multiple of equity (+ long, − short); ${span}`} lines={[{ label: 'agent', color: SERIES_COLORS.yellow, curve: curves.position }]} />
      <Plot title="Drawdown" unit="percent" yLabel="% below peak equity" bars={curves.bars} note={`1 − equity / running peak of equity; ${span}`} lines={[{ label: 'agent', color: SERIES_COLORS.orange, curve: curves.drawdown }, { label: 'buy and hold', color: SERIES_COLORS.blue, curve: curves.buy_and_hold_drawdown }]} />
    </div>
  );
}

/** The panel: the shown trading run's latest evaluation (or a picked epoch) as curves, a seed group's member's; nothing for other runs. */
export function TradingCurves({ dashboard, request }: { dashboard: Dashboard; request: EvalCurvesRequest }) {
  const shownRun = useStore(dashboard.store, useShallow(shownTradingRun));
  const groupName = useStore(dashboard.store, (s) => (s.view.kind === 'group' ? s.view.group : undefined));
  const members = (groupName !== undefined && dashboard.group()?.members) || [];
  const [memberDir, setMemberDir] = useState<string | undefined>();
  const member = members.find((m) => m.runDir === memberDir) ?? members[0];
  const run = member ? { runDir: member.runDir, epoch: member.lastEpoch?.epoch ?? 0, trading: member.config.env.kind === 'trading' } : shownRun;
  const [picked, setPicked] = useState<number | undefined>();
  const [state, setState] = useState<{ key: string; curves?: EvalCurves | null; error?: string }>({ key: '' });
  useEffect(() => setPicked(undefined), [run.runDir]);
  const epoch = picked !== undefined && picked <= run.epoch ? picked : run.epoch;
  const key = `${run.runDir}#${epoch}`;
  useEffect(() => {
    if (!run.trading || !run.runDir || epoch < 1) return;
    let current = true;
    request(run.runDir, epoch).then(
      (curves) => current && setState({ key, curves }),
      (e: Error) => current && setState({ key, error: e.message }),
    );
    return () => void (current = false);
  }, [run.trading, run.runDir, epoch, key, request]);
  if (!run.trading || !run.runDir || epoch < 1) return null;
  const shown = state.key === key ? state : undefined;
  return (
    <section className="panel trading-wide" aria-labelledby="trading-curves-title" data-testid="trading-curves">
      <div className="panel-head">
        <h2 id="trading-curves-title">Evaluation curves{member ? ` of ${member.name}` : ''}</h2>
        {member && (
          <label title="A seed group has no curves of its own: these are one member's">
            member{' '}
            <select aria-label="group member" value={member.runDir} onChange={(e) => setMemberDir(e.target.value)}>
              {members.map((m) => (
                <option key={m.runDir} value={m.runDir}>
                  {m.name}
                </option>
              ))}
            </select>
          </label>
        )}
        <label>
          epoch{' '}
          <select aria-label="evaluation epoch" value={picked !== undefined && picked <= run.epoch ? picked : 'latest'} onChange={(e) => setPicked(e.target.value === 'latest' ? undefined : Number(e.target.value))}>
            <option value="latest">latest ({run.epoch})</option>
            {Array.from({ length: run.epoch }, (_, i) => run.epoch - i).map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </label>
      </div>
      {!shown && <p className="muted">loading…</p>}
      {shown?.error && <p className="muted">could not read the curves: {shown.error}</p>}
      {shown && shown.curves === null && <p className="muted">this evaluation kept no curves (a run from before they were kept)</p>}
      {shown?.curves && <TradingCurvesView curves={shown.curves} />}
    </section>
  );
}
