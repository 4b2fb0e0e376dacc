// "All scalars": one chart for every scalar the shown run logged (TensorBoard's scalars
// dashboard), including those no other chart draws (gradient norm, TD mse, Q variance, epsilon,
// NaN flags), grouped by prefix, with a filter. Closed until asked for: its charts appear (and are
// drawn) only while it is open.
import { useMemo, useState } from 'react';
import { useStore } from 'zustand';
import { seriesX } from '../../common/protocol.ts';
import type { CsvRequest } from '../lib/csv-request.ts';
import { SERIES_COLORS } from '../lib/palette.ts';
import type { RedrawScheduler } from '../lib/redraw.ts';
import { scalarGroups } from '../lib/scalar-catalog.ts';
import type { Dashboard } from '../store.ts';
import { SeriesChart, type ChartLine } from './SeriesChart.tsx';

/** One chart's line for the scalar `name`, labelled by its name after the prefix (the chart's title is the whole name); smoothed like TensorBoard's, epoch series as dots. */
function lineOf(name: string): ChartLine[] {
  return [{ name, label: name.slice(name.indexOf('/') + 1), color: SERIES_COLORS.amber, ...(seriesX(name) === 'epoch' ? { smooth: false, dots: true } : {}) }];
}

/** The panel; `dashboard.shown()` decides whose scalars it lists. */
export function ScalarsPanel({ dashboard, scheduler, csv }: { dashboard: Dashboard; scheduler: RedrawScheduler; csv: CsvRequest }) {
  // The list changes when a series appears or another run is shown, not with every frame.
  const names = useStore(dashboard.store, () => dashboard.shown().names('').join('\n'));
  const [open, setOpen] = useState(false);
  const [filter, setFilter] = useState('');
  const all = useMemo(() => (names ? names.split('\n') : []), [names]);
  const groups = useMemo(() => scalarGroups(all, filter), [all, filter]);
  const lines = useMemo(() => new Map(all.map((n) => [n, lineOf(n)])), [all]);
  const count = scalarGroups(all, '').reduce((n, g) => n + g.names.length, 0);
  return (
    <section className="scalars-panel" aria-labelledby="scalars-title">
      <div className="scalars-head">
        <h2 id="scalars-title">All scalars</h2>
        {/* Nothing logged yet: say so rather than offer to "Show all 0 logged scalars". */}
        <button type="button" aria-expanded={open} aria-controls="scalars-body" disabled={!open && count === 0} onClick={() => setOpen(!open)}>
          {open ? 'Hide' : count === 0 ? 'No scalars logged yet' : `Show all ${count} logged scalars`}
        </button>
        {open && <input type="search" aria-label="Filter scalars" placeholder="filter: grad, epsilon, q/ …" value={filter} onChange={(e) => setFilter(e.target.value)} />}
        {!open && <span className="chart-note">one chart per logged series (gradient norm, TD mse, Q variance, epsilon, …)</span>}
      </div>
      {open && (
        <div id="scalars-body">
          {groups.length === 0 && <p className="muted">{count === 0 ? 'No scalars logged yet.' : 'No scalar matches the filter.'}</p>}
          {groups.map((g) => (
            <details key={g.prefix} open className="scalar-group">
              <summary>
                {g.prefix || '(no prefix)'} <span className="muted">({g.names.length})</span>
              </summary>
              <div className="scalar-charts">
                {g.names.map((name) => {
                  const x = seriesX(name);
                  return x === 'epoch' ? (
                    <SeriesChart key={name} dashboard={dashboard} scheduler={scheduler} csv={csv} title={name} lines={lines.get(name)!} xLabel="epoch" xInteger />
                  ) : (
                    <SeriesChart key={name} dashboard={dashboard} scheduler={scheduler} csv={csv} title={name} lines={lines.get(name)!} xLabel={x === 'env' ? 'env step' : 'step'} xKind={x} />
                  );
                })}
              </div>
            </details>
          ))}
        </div>
      )}
    </section>
  );
}
