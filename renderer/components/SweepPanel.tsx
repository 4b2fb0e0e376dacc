// The opened sweep (issue 25 item 3): its trials, ranked on the validation figure (mean ± the
// half-width of its 95% Student-t interval over seeds, with n), the best marked, the top trial's
// test-span figure once evaluated; a trial opens on the charts (its seed group, or its one run).
// With constraints, a column per constrained figure, and a trial that breaks one says why in its
// status (it has no rank and is never chosen).
import { useEffect } from 'react';
import { useStore } from 'zustand';
import type { Dashboard } from '../store.ts';
import type { Transport } from '../transport/transport.ts';
import { constraintsTexts, sweepRows } from '../sweep-view.ts';
import { pollWhile, SWEEP_POLL_MS } from '../lib/poll.ts';

/** The Sweep view's table; nothing until a sweep is opened from the Sweeps list. */
export function SweepPanel({ dashboard, transport, send }: { dashboard: Dashboard; transport: Transport; send: (f: () => void) => void }) {
  const sweep = useStore(dashboard.store, (s) => s.sweep);
  // A running sweep's table is asked for again every few seconds (its trials go on).
  const running = sweep?.state === 'running' ? sweep.name : undefined;
  useEffect(() => pollWhile(running !== undefined, SWEEP_POLL_MS, () => send(() => transport.send({ type: 'openSweep', name: running! }))), [running, transport, send]);
  if (!sweep) return null;
  const rows = sweepRows(sweep);
  const constraints = constraintsTexts(sweep);
  const figures = Object.keys(sweep.constraints ?? {});
  const noneChosen = sweep.test && sweep.test.trial === undefined ? sweep.test.skipped : undefined;
  const goal = sweep.goal === 'max' ? 'higher is better' : 'lower is better';
  return (
    <section className="panel sweep-panel" aria-label={`Sweep ${sweep.name}`}>
      <div className="panel-head">
        <h2>
          Sweep <code>{sweep.name}</code>: {sweep.state}
          {sweep.state === 'running' && <span className="muted"> (refreshes every {SWEEP_POLL_MS / 1000} s)</span>}
        </h2>
        <span>
          <button type="button" onClick={() => send(() => transport.send({ type: 'openSweep', name: sweep.name }))}>
            Refresh
          </button>{' '}
          <button type="button" onClick={() => dashboard.closeSweep()}>
            Close
          </button>
        </span>
      </div>
      <p className="muted">
        {sweep.method} search, {sweep.trials.length} {sweep.trials.length === 1 ? 'trial' : 'trials'} x {sweep.seeds.length} {sweep.seeds.length === 1 ? `seed (seed ${sweep.seeds[0]})` : `seeds (seeds ${sweep.seeds.join(', ')})`}, ranked by the validation span&apos;s {sweep.metric} ({goal}): mean ± half-width of the 95% Student-t
        interval over seeds.{constraints.length > 0 && ` Only trials whose validation means keep ${constraints.join(', ')} are ranked and can be chosen.`} Only the top trial is evaluated on the held-out test span,
        once, after every trial ended.
      </p>
      {noneChosen && <p role="status">{noneChosen}.</p>}
      <div className="sweep-table-wrap">
        <table className="runs sweep-table" aria-label="Trials">
          <thead>
            <tr>
              <th>rank</th>
              <th>trial</th>
              {sweep.param_paths.map((p) => (
                <th key={p}>{p}</th>
              ))}
              <th>status</th>
              <th>validation {sweep.metric}</th>
              <th>95% CI</th>
              <th>n</th>
              {figures.map((f, k) => (
                <th key={f}>validation {constraints[k]}</th>
              ))}
              <th>test span</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.index} className={r.best ? 'best' : undefined} data-trial={r.index}>
                <td>{r.rank ?? ''}</td>
                <td>
                  <button type="button" className="run-name" disabled={!r.open} aria-label={`Open trial ${r.index}`} title={r.open ? 'open on the charts' : 'no run yet'} onClick={() => r.open && send(() => transport.send(r.open!))}>
                    {r.index}
                  </button>
                  {r.best && <span className="best-mark"> ★ best</span>}
                </td>
                {r.params.map((p, k) => (
                  <td key={sweep.param_paths[k]}>{p}</td>
                ))}
                <td>{r.ineligible ? `${r.status}; not eligible: ${r.ineligible}` : r.status}</td>
                <td data-col="validation">{r.validation}</td>
                <td>{r.interval}</td>
                <td>{r.n ?? ''}</td>
                {r.constrained.map((c, k) => (
                  <td key={figures[k]} data-col={`validation-${figures[k]}`}>
                    {c}
                  </td>
                ))}
                <td data-col="test">{r.test ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
