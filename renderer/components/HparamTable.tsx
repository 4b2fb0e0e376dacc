// The hyperparameter table (lib/hparams.ts) in a dialog as wide as the window: every run of the
// history with its results and its config fields (those that differ, or all), sorted by a click
// on any heading; a run ticked here is drawn over the charts as from the run history.
import { useMemo, useState } from 'react';
import { useStore } from 'zustand';
import { hparamColumns, hparamRows, hparamText, sortHparamRows, type HparamSort } from '../lib/hparams.ts';
import type { Dashboard } from '../store.ts';
import type { Transport } from '../transport/transport.ts';
import { Dialog } from './Dialog.tsx';
import { OverlayToggle } from './OverlayToggle.tsx';

/** The runs' hyperparameters and results while `open`. */
export function HparamTable({ open, onClose, dashboard, transport, send }: { open: boolean; onClose: () => void; dashboard: Dashboard; transport: Transport; send: (f: () => void) => void }) {
  const runs = useStore(dashboard.store, (s) => s.runs);
  const [allFields, setAllFields] = useState(false);
  const [sort, setSort] = useState<HparamSort>({ key: 'lastEvalReturn', dir: 'desc' });
  const rows = useMemo(() => hparamRows(runs), [runs]);
  const columns = useMemo(() => hparamColumns(rows, allFields), [rows, allFields]);
  const sorted = useMemo(() => sortHparamRows(rows, columns, sort), [rows, columns, sort]);
  const sortBy = (key: string) => setSort((s) => ({ key, dir: s.key === key && s.dir === 'desc' ? 'asc' : 'desc' }));
  const configColumns = columns.filter((c) => c.kind === 'config').length;
  return (
    <Dialog open={open} onClose={onClose} title="Hyperparameters" className="hparams">
      <p className="hparams-note">
        {runs.length} run{runs.length === 1 ? '' : 's'}; {allFields ? `all ${configColumns} config fields` : `${configColumns} config field${configColumns === 1 ? '' : 's'} that differ between them`}. Click a heading to sort; tick a run to draw it over the charts.{' '}
        <label>
          <input type="checkbox" checked={allFields} onChange={(e) => setAllFields(e.target.checked)} /> show every config field
        </label>
      </p>
      <div className="hparams-scroll">
        <table className="runs hparams-table" aria-label="Hyperparameters of runs">
          <thead>
            <tr>
              <th scope="col">overlay</th>
              {[{ key: 'name', label: 'Run', kind: 'result' as const }, ...columns].map((c) => (
                <th key={c.key} scope="col" className={c.kind === 'config' ? 'config-col' : undefined} aria-sort={sort.key === c.key ? (sort.dir === 'asc' ? 'ascending' : 'descending') : 'none'}>
                  <button type="button" className="sort" onClick={() => sortBy(c.key)} title={`Sort by ${c.label}`}>
                    {c.label}
                    {sort.key === c.key ? (sort.dir === 'asc' ? ' ▲' : ' ▼') : ''}
                  </button>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {sorted.map((r) => (
              <tr key={r.run.runDir}>
                <td>
                  <OverlayToggle run={r.run} dashboard={dashboard} transport={transport} send={send} />
                </td>
                <th scope="row" title={r.run.runDir}>
                  {r.run.name}
                </th>
                {columns.map((c) => (
                  <td key={c.key} data-col={c.key} className={c.kind === 'config' ? 'config-col' : undefined}>
                    {hparamText(r, c)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Dialog>
  );
}
