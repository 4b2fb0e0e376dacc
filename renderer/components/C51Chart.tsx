// The C51 greedy-action distribution at the latest Q-stats probe (issue 23 item 5): probability
// of each atom against its return z_j = v_min + j (v_max - v_min) / (atoms - 1), from the series
// `heads/c51_dist/<j>` (common/run.ts C51_DIST_PREFIX), redrawn through the RedrawScheduler like
// every chart.
import { useCallback, useMemo, useRef } from 'react';
import { Bar, CartesianGrid, ComposedChart, Tooltip, XAxis, YAxis } from 'recharts';
import type { HeadsConfig } from '../../common/config.ts';
import { atomValue } from '../../common/heads.ts';
import { C51_DIST_PREFIX } from '../../common/run.ts';
import { chartFrame, TOOLTIP_STYLE } from '../lib/chart-style.ts';
import { tooltipValue } from '../lib/format.ts';
import type { RedrawScheduler } from '../lib/redraw.ts';
import { ink } from '../lib/theme.ts';
import { useTheme } from '../lib/theme-store.ts';
import { useScheduledRedraw } from '../lib/use-redraw.ts';
import type { SeriesBook } from '../series-book.ts';
import type { Dashboard } from '../store.ts';
import { SERIES_COLORS } from '../lib/palette.ts';
import { tick } from './SeriesChart.tsx';

/** The chart's size: small, beside the step charts. */
const WIDTH = 440;
const HEIGHT = 180;
/** About this many atom labels on the x axis. */
const X_TICKS = 8;

/** The distribution at one probe: the probe's step and, per atom, its return z and probability p. */
export interface AtomDistribution {
  step: number;
  atoms: { z: number; p: number }[];
}

/**
 * The latest probe's distribution in `book` (the last point of each atom's series), or undefined
 * until every one of the support's atoms has a point.
 */
export function latestDistribution(book: SeriesBook, c51: HeadsConfig['c51']): AtomDistribution | undefined {
  const atoms: AtomDistribution['atoms'] = [];
  let step = -Infinity;
  for (let j = 0; j < c51.atoms; j++) {
    const s = book.get(`${C51_DIST_PREFIX}${j}`);
    if (!s || s.length === 0) return undefined;
    atoms.push({ z: atomValue(c51, j), p: s.y[s.length - 1]! });
    step = Math.max(step, s.x[s.length - 1]!);
  }
  return { step, atoms };
}

/** What the picture depends on: the book shown and the versions of the atoms' series. */
function signature(book: SeriesBook, atoms: number): string {
  let sig = `${book.id}`;
  for (let j = 0; j < atoms; j++) sig += `:${book.get(`${C51_DIST_PREFIX}${j}`)?.version ?? -1}`;
  return sig;
}

/** Bars of the latest greedy-action distribution of a C51 run (the support from its config). */
export function C51Chart({ dashboard, scheduler, c51 }: { dashboard: Dashboard; scheduler: RedrawScheduler; c51: HeadsConfig['c51'] }) {
  const drawnSig = useRef('');
  const changed = useCallback(() => signature(dashboard.shown(), c51.atoms) !== drawnSig.current, [dashboard, c51.atoms]);
  const { ref, tick: drawTick } = useScheduledRedraw(scheduler, changed);
  const theme = useTheme();
  const frame = chartFrame(theme);
  const dist = useMemo(() => {
    const book = dashboard.shown();
    drawnSig.current = signature(book, c51.atoms);
    return latestDistribution(book, c51);
    // `drawTick` moves when the scheduler finds the atoms' series changed (or the view switched).
  }, [dashboard, c51, drawTick]);
  return (
    <section ref={ref} className="chart" aria-labelledby="chart-c51-dist-title" data-testid="chart-c51-dist">
      <div className="chart-head">
        <h2 id="chart-c51-dist-title">C51 greedy-action distribution</h2>
        <span className="chart-note" title="Mean over the Q-stats batch of the distribution of the greedy action at s; latest probe only">
          {dist ? `latest probe, step ${dist.step}` : 'latest probe'} · {c51.atoms} atoms on [{c51.v_min}, {c51.v_max}]
        </span>
      </div>
      <div className="chart-body">
        {!dist ? (
          <p className="chart-empty">No data yet.</p>
        ) : (
          <ComposedChart width={WIDTH} height={HEIGHT} data={dist.atoms} margin={{ top: 8, right: 12, bottom: 4, left: 4 }}>
            <CartesianGrid strokeDasharray="3 3" stroke={frame.grid} />
            <XAxis dataKey="z" interval={Math.max(0, Math.ceil(c51.atoms / X_TICKS) - 1)} stroke={frame.axis} tick={frame.tick} tickFormatter={tick} label={{ value: 'return z_j', position: 'insideBottomRight', offset: -2, ...frame.label }} />
            <YAxis domain={[0, 'auto']} stroke={frame.axis} tick={frame.tick} tickFormatter={tick} width={72} label={{ value: 'probability', angle: -90, position: 'insideLeft', offset: 4, ...frame.label, style: { textAnchor: 'middle' } }} />
            <Tooltip isAnimationActive={false} formatter={tooltipValue} labelFormatter={(z) => `z = ${tick(Number(z))}`} {...TOOLTIP_STYLE} />
            <Bar dataKey="p" name="probability" fill={ink(theme, SERIES_COLORS.amber)} isAnimationActive={false} />
          </ComposedChart>
        )}
      </div>
    </section>
  );
}
