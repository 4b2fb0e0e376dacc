// Past runs from the runs folder: open one to see its charts from the metrics on disk, resume it,
// rename it, or move it to the trash (after a confirmation).
import { Fragment, useMemo, useState } from 'react';
import { useStore } from 'zustand';
import type { RunSummary } from '../../common/protocol.ts';
import { configDiff } from '../config/fields.ts';
import { groupRuns } from '../lib/run-groups.ts';
import { RUN_COLUMNS, runMeta, runTable, runTitle, TABLE_COLUMNS, type RunSort } from '../lib/run-table.ts';
import type { Dashboard, Overlay } from '../store.ts';
import type { Transport } from '../transport/transport.ts';

/** When a run started, short: "Dec 2, 08:01". */
const created = (ms: number) => new Date(ms).toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });

/** Past runs from the runs folder as a table of key results that fits the side panel, sorts (a heading or the sort list) and filters (runs of one `--seeds` group together): open one (its name) to draw its charts from disk; resume, rename or delete it from its row's menu. */
export function RunHistory({ dashboard, transport, send }: { dashboard: Dashboard; transport: Transport; send: (f: () => void) => void }) {
  const runs = useStore(dashboard.store, (s) => s.runs);
  const state = useStore(dashboard.store, (s) => s.runState);
  const view = useStore(dashboard.store, (s) => s.view);
  const busy = state === 'running' || state === 'stopping';
  const liveRunDir = useStore(dashboard.store, (s) => s.runDir);
  const isLive = (r: RunSummary) => busy && r.runDir === liveRunDir;
  /** Why a row's Rename or Delete is off (the live run here) or will be refused (a run another process trained when the list was read). */
  const heldBy = (r: RunSummary) => (isLive(r) ? 'this is the live run: stop it first' : r.state === 'live' ? 'another process (a CLI run or another console) was training this run when the list was read: it is refused while that process lives' : undefined);
  const overlayDirs = useStore(dashboard.store, (s) => s.overlayDirs);
  const loaded = overlayDirs.length >= 2 ? dashboard.overlays() : [];
  const compared = loaded.length >= 2 ? loaded.slice(0, 2) : undefined;
  const [sort, setSort] = useState<RunSort>({ key: 'name', dir: 'desc' });
  const [filter, setFilter] = useState('');
  const shown = useMemo(() => runTable(runs, sort, filter), [runs, sort, filter]);
  const sortBy = (key: RunSort['key']) => setSort((s) => ({ key, dir: s.key === key && s.dir === 'desc' ? 'asc' : 'desc' }));
  const shownDir = view.kind === 'history' ? view.runDir : busy ? liveRunDir : undefined;
  /** Runs the row action `f` and closes the row's action menu. */
  const act = (e: React.MouseEvent<HTMLElement>, f: () => void) => {
    e.currentTarget.closest('details')?.removeAttribute('open');
    f();
  };
  const row = (r: RunSummary) => (
    <tr key={r.runDir} data-name={r.name} aria-current={r.runDir === shownDir ? 'true' : undefined}>
      <td className="tick">
        <input
          type="checkbox"
          aria-label={`Overlay ${r.name}`}
          title="Draw this run over the charts (pick two to compare their configs)"
          checked={overlayDirs.includes(r.runDir)}
          onChange={(e) => {
            if (!e.target.checked) return dashboard.removeOverlay(r.runDir);
            send(() => {
              dashboard.addOverlay(r.runDir);
              transport.send({ type: 'openRun', runDir: r.runDir });
            });
          }}
        />
      </td>
      <td className="run-cell">
        <button
          type="button"
          className="run-name"
          data-col="name"
          aria-label={`Open ${r.name}`}
          title={isLive(r) ? `${r.name}: the live run; its charts are the live ones` : `${r.name}: open it (its charts and config)`}
          onClick={() => (isLive(r) ? dashboard.showLive() : send(() => transport.send({ type: 'openRun', runDir: r.runDir })))}
        >
          {runTitle(r.name)}
        </button>
        <span className="run-meta">
          <span title="started">{created(r.createdMs)}</span>
          {runMeta(r).map((m) => (
            <span key={m.key} data-col={m.key}>
              {m.text}
            </span>
          ))}
        </span>
      </td>
      {TABLE_COLUMNS.filter((c) => c.key !== 'name').map((c) => (
        <td key={c.key} className="num" data-col={c.key}>
          {c.text(r)}
        </td>
      ))}
      <td className="row-actions">
        <details>
          <summary aria-label={`Actions for ${r.name}`} title="Resume, rename or delete this run">
            ⋯
          </summary>
          <div className="row-menu">
            <button
              type="button"
              aria-label={`Resume ${r.name}`}
              disabled={busy}
              title={busy ? 'a run is live: stop it first' : 'Continue this run from its latest checkpoint'}
              onClick={(e) =>
                act(e, () =>
                  send(() => {
                    dashboard.expectResume(r.runDir);
                    transport.send({ type: 'resume', runDir: r.runDir });
                  }),
                )
              }
            >
              Resume
            </button>
            <button
              type="button"
              aria-label={`Rename ${r.name}`}
              disabled={isLive(r)}
              title={heldBy(r)}
              onClick={(e) =>
                act(e, () => {
                  const name = window.prompt(`New name for run ${r.name} (letters, digits, ".", "_" and "-"):`, r.name);
                  if (name && name !== r.name) send(() => transport.send({ type: 'renameRun', runDir: r.runDir, name }));
                })
              }
            >
              Rename
            </button>
            <button
              type="button"
              aria-label={`Delete ${r.name}`}
              disabled={isLive(r)}
              title={heldBy(r)}
              onClick={(e) =>
                act(e, () => {
                  if (!window.confirm(`Move run ${r.name} to the trash? It goes to .trash/ in the runs folder, where it can be taken back.`)) return;
                  if (view.kind === 'history' && view.runDir === r.runDir) dashboard.showLive();
                  send(() => transport.send({ type: 'deleteRun', runDir: r.runDir }));
                })
              }
            >
              Delete
            </button>
          </div>
        </details>
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
        <>
        <div className="runs-tools">
          <input className="runs-filter" type="search" aria-label="Filter runs" placeholder="filter: name, env, state, backend" value={filter} onChange={(e) => setFilter(e.target.value)} />
          <select aria-label="Sort runs by" value={`${sort.key}:${sort.dir}`} onChange={(e) => setSort({ key: e.target.value.split(':')[0] as RunSort['key'], dir: e.target.value.endsWith(':asc') ? 'asc' : 'desc' })}>
            {RUN_COLUMNS.flatMap((c) => [
              <option key={`${c.key}:desc`} value={`${c.key}:desc`}>
                {c.label} ▼
              </option>,
              <option key={`${c.key}:asc`} value={`${c.key}:asc`}>
                {c.label} ▲
              </option>,
            ])}
          </select>
        </div>
        <table className="runs run-history" aria-label="Runs">
          <thead>
            <tr>
              <th className="tick" title="overlay on the charts" />
              {TABLE_COLUMNS.map((c) => (
                <th key={c.key} className={c.key === 'name' ? undefined : 'num'} aria-sort={sort.key === c.key ? (sort.dir === 'asc' ? 'ascending' : 'descending') : 'none'}>
                  <button type="button" className="sort" onClick={() => sortBy(c.key)} title={`Sort by ${c.label.toLowerCase()}`}>
                    {c.label}
                    {sort.key === c.key ? (sort.dir === 'asc' ? ' ▲' : ' ▼') : ''}
                  </button>
                </th>
              ))}
              <th />
            </tr>
          </thead>
          <tbody>
            {groupRuns(shown).map((block) =>
              block.group === undefined ? (
                row(block.runs[0]!)
              ) : (
                <Fragment key={block.group}>
                  <tr className="run-group">
                    <th colSpan={TABLE_COLUMNS.length + 2} scope="rowgroup" title="trained together by --seeds; the summary over seeds is this name + .json in the runs folder">
                      {block.group}: {block.runs.length} seed{block.runs.length === 1 ? '' : 's'}
                    </th>
                  </tr>
                  {block.runs.map(row)}
                </Fragment>
              ),
            )}
          </tbody>
        </table>
        {shown.length === 0 && <p className="muted">No run matches the filter.</p>}
        {compared && <ConfigCompare a={compared[0]!} b={compared[1]!} />}
        </>
      )}
    </section>
  );
}

const fmt = (v: unknown) => (v === undefined ? '–' : Array.isArray(v) ? `[${v.join(', ')}]` : String(v));

/** The configs of two overlaid runs side by side: every field whose value differs. */
function ConfigCompare({ a, b }: { a: Overlay; b: Overlay }) {
  const diff = configDiff(a.config, b.config).filter((d) => d.path !== 'name');
  return (
    <div className="diff" aria-label="Config diff">
      <h3>
        Config diff: <span style={{ color: a.color }}>{a.name}</span> vs <span style={{ color: b.color }}>{b.name}</span> ({diff.length})
      </h3>
      {diff.length === 0 ? (
        <p className="muted">the same config (names aside)</p>
      ) : (
        <table className="runs">
          <tbody>
            {diff.map((d) => (
              <tr key={d.path}>
                <td>
                  <code>{d.path}</code>
                </td>
                <td>{fmt(d.from)}</td>
                <td>{fmt(d.to)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
