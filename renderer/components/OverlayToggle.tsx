// The checkbox that draws a past run over the charts (or takes it off), in the run history and
// in the hyperparameter table.
import { useStore } from 'zustand';
import type { RunSummary } from '../../common/protocol.ts';
import type { Dashboard } from '../store.ts';
import type { Transport } from '../transport/transport.ts';

/** Ticked while `run` is overlaid; ticking asks the host for its records. */
export function OverlayToggle({ run, dashboard, transport, send }: { run: RunSummary; dashboard: Dashboard; transport: Transport; send: (f: () => void) => void }) {
  const overlaid = useStore(dashboard.store, (s) => s.overlayDirs.includes(run.runDir));
  return (
    <input
      type="checkbox"
      aria-label={`Overlay ${run.name}`}
      title="Draw this run over the charts (its config joins the config diff)"
      checked={overlaid}
      onChange={(e) => {
        if (!e.target.checked) return dashboard.removeOverlay(run.runDir);
        send(() => {
          dashboard.addOverlay(run.runDir);
          transport.send({ type: 'openRun', runDir: run.runDir });
        });
      }}
    />
  );
}
