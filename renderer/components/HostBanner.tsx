// The trainer host's last exit, as the supervisor reported it: the reason, whether a new host
// was started, and, when the supervisor gave up restarting it, the Restart button (the only way
// back; there is no "try again in a moment").
import type { DashboardState } from '../store.ts';

interface Props {
  host: DashboardState['host'];
  /** Asks the supervisor for a new host (transport.restartHost). */
  onRestart: () => void;
}

/** Nothing until a host has exited; then the reason, and the Restart button while no host runs after the supervisor gave up. */
export function HostBanner({ host, onRestart }: Props) {
  const exit = host.lastExit;
  if (!exit) return null;
  return (
    <div className="banner warn" role="alert" data-testid="host-exit">
      Trainer host (pid {exit.pid}) {exit.reason}
      {exit.restarting ? '; a new host was started.' : '.'}
      {!exit.restarting && host.pid === undefined && (
        <button type="button" onClick={onRestart}>
          Restart trainer host
        </button>
      )}
    </div>
  );
}
