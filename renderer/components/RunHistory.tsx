// Past runs from the runs folder: open one to see its charts from the metrics on disk, or resume it.
import { Fragment } from 'react';
import { useStore } from 'zustand';
import type { RunSummary } from '../../common/protocol.ts';
import { groupRuns } from '../lib/run-groups.ts';
import type { Dashboard } from '../store.ts';
import type { Transport } from '../transport/transport.ts';

/** Past runs from the runs folder (runs of one `--seeds` group together): open one to draw its charts from disk, or resume it. */
export function RunHistory({ dashboard, transport, send }: { dashboard: Dashboard; transport: Transport; send: (f: () => void) => void }) {
  const runs = useStore(dashboard.store, (s) => s.runs);
  const state = useStore(dashboard.store, (s) => s.runState);
  const view = useStore(dashboard.store, (s) => s.view);
  const busy = state === 'running' || state === 'stopping';
  const row = (r: RunSummary) => (
    <tr key={r.runDir}>
      <td title={r.runDir}>{r.name}</td>
      <td>{r.env}</td>
      <td>{r.epochs}</td>
      <td>{r.lastEvalReturn?.toFixed(1) ?? '–'}</td>
      <td className="actions">
        <button type="button" aria-label={`Open ${r.name}`} onClick={() => send(() => transport.send({ type: 'openRun', runDir: r.runDir }))}>
          Open
        </button>
        <button
          type="button"
          aria-label={`Resume ${r.name}`}
          disabled={busy}
          onClick={() =>
            send(() => {
              dashboard.expectResume(r.runDir);
              transport.send({ type: 'resume', runDir: r.runDir });
            })
          }
        >
          Resume
        </button>
      </td>
    </tr>
  );
  return (
    <section className="panel" aria-labelledby="history-title">
      <div className="panel-head">
        <h2 id="history-title">Run history</h2>
        <button type="button" onClick={() => send(() => transport.send({ type: 'listRuns' }))}>
          Refresh
        </button>
      </div>
      {view.kind === 'history' && (
        <p className="viewing">
          Viewing <code>{view.runDir.split(/[\\/]/).pop()}</code>{' '}
          <button type="button" onClick={() => dashboard.showLive()}>
            Back to live
          </button>
        </p>
      )}
      {runs.length === 0 ? (
        <p className="muted">No runs yet.</p>
      ) : (
        <table className="runs">
          <thead>
            <tr>
              <th>Run</th>
              <th>Env</th>
              <th>Epochs</th>
              <th>Eval return</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {groupRuns(runs).map((block) =>
              block.group === undefined ? (
                row(block.runs[0]!)
              ) : (
                <Fragment key={block.group}>
                  <tr className="run-group">
                    <th colSpan={5} scope="rowgroup" title="trained together by --seeds; the summary over seeds is this name + .json in the runs folder">
                      {block.group}: {block.runs.length} seed{block.runs.length === 1 ? '' : 's'}
                    </th>
                  </tr>
                  {block.runs.map(row)}
                </Fragment>
              ),
            )}
          </tbody>
        </table>
      )}
    </section>
  );
}
