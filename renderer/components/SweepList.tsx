// The list of the runs folder's sweeps (issue 25 item 3), beside the run history: each sweep's
// state, trials done and best trial so far; opening one shows its table (SweepPanel).
import { useEffect } from 'react';
import { useStore } from 'zustand';
import { useShallow } from 'zustand/react/shallow';
import type { Dashboard } from '../store.ts';
import type { Transport } from '../transport/transport.ts';
import { listingText } from '../sweep-view.ts';
import { pollWhile, SWEEP_POLL_MS } from '../lib/poll.ts';

/** The Sweeps panel: asks for the list whenever the host connection opens, on Refresh, and every few seconds while a sweep runs. */
export function SweepList({ dashboard, transport, send }: { dashboard: Dashboard; transport: Transport; send: (f: () => void) => void }) {
  const { sweeps, connection, opened } = useStore(dashboard.store, useShallow((s) => ({ sweeps: s.sweeps, connection: s.connection, opened: s.sweep?.name })));
  useEffect(() => {
    if (connection === 'open') send(() => transport.send({ type: 'listSweeps' }));
  }, [connection, transport, send]);
  // While a listed sweep runs, the list (trials done, best so far) is asked for again.
  const anyRunning = connection === 'open' && sweeps.some((s) => s.state === 'running');
  useEffect(() => pollWhile(anyRunning, SWEEP_POLL_MS, () => send(() => transport.send({ type: 'listSweeps' }))), [anyRunning, transport, send]);
  return (
    <section className="panel" aria-labelledby="sweeps-title">
      <div className="panel-head">
        <h2 id="sweeps-title">Sweeps</h2>
        <button type="button" onClick={() => send(() => transport.send({ type: 'listSweeps' }))}>
          Refresh
        </button>
      </div>
      {sweeps.length === 0 ? (
        <p className="muted">
          No sweeps yet: <code>npm run sweep -- --config FILE</code>
        </p>
      ) : (
        <ul className="sweep-list" aria-label="Sweeps">
          {sweeps.map((s) => (
            <li key={s.name} className={s.name === opened ? 'current' : undefined}>
              <button type="button" className="run-name" aria-label={`Open sweep ${s.name}`} onClick={() => send(() => transport.send({ type: 'openSweep', name: s.name }))}>
                {s.name}
              </button>
              <span className="muted">{listingText(s)}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
