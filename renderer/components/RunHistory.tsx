// Past runs from the runs folder: open one to see its charts from the metrics on disk, resume it,
// rename it, or move it to the trash (after a confirmation).
import { useMemo, useState } from 'react';
import { useStore } from 'zustand';
import type { RunSummary } from '../../common/protocol.ts';
import { groupRuns } from '../lib/run-groups.ts';
import { createdText, resumeBlocker, RUN_COLUMNS, runMeta, runTable, runTitle, TABLE_COLUMNS, withLiveEpoch, type RunSort } from '../lib/run-table.ts';
import type { Dashboard } from '../store.ts';
import type { Transport } from '../transport/transport.ts';
import { ConfigCompare, type ComparedRun } from './ConfigCompare.tsx';
import { GroupRow } from './GroupRow.tsx';
import { HparamTable } from './HparamTable.tsx';
import { OverlayToggle } from './OverlayToggle.tsx';

/** Past runs from the runs folder as a table of key results that fits the side panel, sorts (a heading or the sort list) and filters (runs of one `--seeds` group together): open one (its name) to draw its charts from disk; resume, rename or delete it from its row's menu. */
export function RunHistory({ dashboard, transport, send }: { dashboard: Dashboard; transport: Transport; send: (f: () => void) => void }) {
  const runs = useStore(dashboard.store, (s) => s.runs);
  const groups = useStore(dashboard.store, (s) => s.groups);
  const state = useStore(dashboard.store, (s) => s.runState);
  const startPending = useStore(dashboard.store, (s) => s.startPending);
  const view = useStore(dashboard.store, (s) => s.view);
  const busy = state === 'running' || state === 'stopping';
  const liveRunDir = useStore(dashboard.store, (s) => s.runDir);
  const isLive = (r: RunSummary) => busy && r.runDir === liveRunDir;
  /** Why a row's Rename or Delete is off (the live run here) or will be refused (a run another process trained when the list was read). */
  const heldBy = (r: RunSummary) => (isLive(r) ? 'this is the live run: stop it first' : r.state === 'live' ? 'another process (a CLI run or another console) was training this run when the list was read: it is refused while that process lives' : undefined);
  const overlayDirs = useStore(dashboard.store, (s) => s.overlayDirs);
  const runConfig = useStore(dashboard.store, (s) => s.runConfig);
  const compared = chartRuns(
    view.kind === 'history'
      ? { runDir: view.runDir, config: view.config, role: 'opened' }
      : view.kind === 'group'
        ? { runDir: view.group, config: view.config, role: 'seed group' }
        : liveRunDir && runConfig ? { runDir: liveRunDir, config: runConfig, role: busy ? 'live' : 'last run' } : undefined,
    overlayDirs.length ? dashboard.overlays() : [],
  );
  const [sort, setSort] = useState<RunSort>({ key: 'name', dir: 'desc' });
  const [filter, setFilter] = useState('');
  const [hparamsOpen, setHparamsOpen] = useState(false);
  const lastEpoch = useStore(dashboard.store, (s) => s.lastEpoch);
  const shown = useMemo(() => runTable(runs.map((r) => (busy && r.runDir === liveRunDir ? withLiveEpoch(r, lastEpoch) : r)), sort, filter), [runs, sort, filter, busy, liveRunDir, lastEpoch]);
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
        <OverlayToggle run={r} dashboard={dashboard} transport={transport} send={send} />
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
          <span title="started">{createdText(r.createdMs)}</span>
          {runMeta(r).map((m) => (
            <span key={m.key} data-col={m.key} title={m.title}>
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
              disabled={resumeBlocker(r, { busy, startPending }) !== undefined}
              title={resumeBlocker(r, { busy, startPending }) ?? 'Continue this run from its latest checkpoint'}
              onClick={(e) =>
                act(e, () =>
                  send(() => {
                    dashboard.expectResume(r.runDir);
                    transport.send({ type: 'resume', runDir: r.runDir });
                    dashboard.startSent();
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
        <span>
          <button type="button" onClick={() => setHparamsOpen(true)} disabled={runs.length === 0} title="Every run's config fields beside its results, sortable">
            Hyperparameters
          </button>{' '}
          <button type="button" onClick={() => send(() => transport.send({ type: 'listRuns' }))}>
            Refresh
          </button>
        </span>
      </div>
      <HparamTable open={hparamsOpen} onClose={() => setHparamsOpen(false)} dashboard={dashboard} transport={transport} send={send} />
      {view.kind !== 'live' && (
        <p className="viewing">
          Viewing <code>{view.kind === 'history' ? view.runDir.split(/[\\/]/).pop() : `seed group ${view.group}`}</code>{' '}
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
                <GroupRow key={block.group} name={block.group} listing={groups.find((g) => g.name === block.group)} members={block.runs} row={row} current={view.kind === 'group' && view.group === block.group} onOpen={() => send(() => transport.send({ type: 'openGroup', group: block.group! }))} />
              ),
            )}
          </tbody>
        </table>
        {shown.length === 0 && <p className="muted">No run matches the filter.</p>}
        {compared.length >= 2 && <ConfigCompare runs={compared} />}
        </>
      )}
    </section>
  );
}

/** The runs on the charts, for the config diff: the shown one (opened, or the live or last run), then the overlaid ones. */
function chartRuns(shown: { runDir: string; config: ComparedRun['config']; role: string } | undefined, overlays: ReturnType<Dashboard['overlays']>): ComparedRun[] {
  const out: ComparedRun[] = shown ? [{ name: shown.runDir.split(/[\\/]/).pop() ?? shown.runDir, config: shown.config, role: shown.role }] : [];
  for (const o of overlays) out.push({ name: o.name, config: o.config, color: o.color, role: 'overlay' });
  return out;
}
