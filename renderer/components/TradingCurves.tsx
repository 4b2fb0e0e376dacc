// The per-bar curves of one trading evaluation of the run shown (issue 16 item 5): the agent's
// compounded equity on the validation span beside buy-and-hold's, its position over time and
// both drawdowns. The latest evaluation by default; any earlier epoch can be picked. The curves
// come from the run folder (eval/epoch-<N>.json) through the host, at most MAX_CURVE_POINTS
// points each, so they are drawn as they come (no further downsampling).
import { useEffect, useState } from 'react';
import { useStore } from 'zustand';
import { useShallow } from 'zustand/react/shallow';
import type { Curve, EvalCurves } from '../../common/trading-curves.ts';
import type { EvalCurvesRequest } from '../lib/eval-curves-request.ts';
import { SERIES_COLORS } from '../lib/palette.ts';
import { ink } from '../lib/theme.ts';
import { useTheme } from '../lib/theme-store.ts';
import type { Dashboard, DashboardState } from '../store.ts';

const W = 320;
const H = 110;
const PAD = { l: 44, r: 6, t: 6, b: 16 };

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
 * SVG path of `c` in a W x H box, x over [0, xMax] and y over `range`; `step` draws it as a step
 * function (a position held over each bar). Non-finite points break the line.
 */
export function curvePath(c: Curve, xMax: number, range: [number, number], step = false): string {
  const sx = (x: number) => PAD.l + ((W - PAD.l - PAD.r) * x) / Math.max(xMax, 1);
  const sy = (y: number) => PAD.t + (H - PAD.t - PAD.b) * (1 - (y - range[0]) / (range[1] - range[0]));
  let d = '';
  let pen = false;
  c.x.forEach((x, i) => {
    const y = c.y[i]!;
    if (!Number.isFinite(y)) return void (pen = false);
    if (pen && step) d += `H${sx(x - 1).toFixed(1)}V${sy(y).toFixed(1)}`;
    d += `${pen ? 'L' : 'M'}${sx(x).toFixed(1)},${sy(y).toFixed(1)}`;
    pen = true;
  });
  return d;
}

const fmt = (v: number, pct: boolean) => (pct ? `${(100 * v).toFixed(1)}%` : v.toFixed(2));

/** One small plot: its lines (label, colour, curve) with a legend and the y range printed. */
function Plot({ title, lines, xMax, pct = false, step = false, note }: { title: string; lines: { label: string; color: string; curve: Curve }[]; xMax: number; pct?: boolean; step?: boolean; note: string }) {
  const range = yRange(lines.map((l) => l.curve));
  const theme = useTheme();
  return (
    <figure className="trading-plot" aria-label={title} title={note}>
      <figcaption>
        {title}{' '}
        {lines.map((l) => (
          <span key={l.label} className="legend-item" style={{ color: ink(theme, l.color) }}>
            ■ {l.label} {fmt(l.curve.y.at(-1) ?? NaN, pct)}
          </span>
        ))}
      </figcaption>
      <svg width={W} height={H} role="img" aria-label={`${title} chart`}>
        <text x={PAD.l - 4} y={PAD.t + 8} textAnchor="end" fontSize="9" fill="currentColor">
          {fmt(range[1], pct)}
        </text>
        <text x={PAD.l - 4} y={H - PAD.b} textAnchor="end" fontSize="9" fill="currentColor">
          {fmt(range[0], pct)}
        </text>
        <text x={W - PAD.r} y={H - 4} textAnchor="end" fontSize="9" fill="currentColor">
          bar {xMax}
        </text>
        {lines.map((l) => (
          <path key={l.label} d={curvePath(l.curve, xMax, range, step)} fill="none" stroke={ink(theme, l.color)} strokeWidth={1.2} data-series={l.label} />
        ))}
      </svg>
    </figure>
  );
}

/** The three plots of one evaluation's curves. */
export function TradingCurvesView({ curves }: { curves: EvalCurves }) {
  const xMax = curves.bars;
  const span = `validation walk of ${curves.bars} bars (x: bars since its first decision bar), epoch ${curves.epoch} at step ${curves.step}`;
  return (
    <div className="trading-curves">
      <Plot title="Equity" pct={false} xMax={xMax} note={`Compounded equity, 1 = initial; ${span}`} lines={[{ label: 'agent', color: SERIES_COLORS.orange, curve: curves.equity }, { label: 'buy and hold', color: SERIES_COLORS.blue, curve: curves.buy_and_hold_equity }]} />
      <Plot title="Position" xMax={xMax} step note={`Position held over each bar, a multiple of equity (+ long, − short); ${span}`} lines={[{ label: 'agent', color: SERIES_COLORS.yellow, curve: curves.position }]} />
      <Plot title="Drawdown" pct xMax={xMax} note={`1 − equity / running peak of equity; ${span}`} lines={[{ label: 'agent', color: SERIES_COLORS.orange, curve: curves.drawdown }, { label: 'buy and hold', color: SERIES_COLORS.blue, curve: curves.buy_and_hold_drawdown }]} />
    </div>
  );
}

/** The panel: the shown trading run's latest evaluation (or a picked epoch) as curves; nothing for other runs. */
export function TradingCurves({ dashboard, request }: { dashboard: Dashboard; request: EvalCurvesRequest }) {
  const run = useStore(dashboard.store, useShallow(shownTradingRun));
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
    <section className="panel" aria-labelledby="trading-curves-title" data-testid="trading-curves">
      <div className="panel-head">
        <h2 id="trading-curves-title">Evaluation curves</h2>
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
