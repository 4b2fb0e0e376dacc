import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderToStaticMarkup } from 'react-dom/server';
import { createDashboard } from '../store.ts';
import { HostBanner } from './HostBanner.tsx';

const banner = (d: ReturnType<typeof createDashboard>) => renderToStaticMarkup(<HostBanner host={d.store.getState().host} onRestart={() => undefined} />);

test('the host banner says why the host ended, and offers Restart only when the supervisor gave up and no host runs', () => {
  const d = createDashboard();
  d.apply({ type: 'hostReady', pid: 40, restarts: 0 });
  assert.equal(banner(d), '', 'nothing before an exit');
  d.apply({ type: 'hostExit', pid: 40, reason: 'killed by SIGKILL', restarting: true });
  assert.match(banner(d), />Trainer host \(pid 40\) killed by SIGKILL; a new host was started\.</);
  assert.doesNotMatch(banner(d), /<button/);
  d.apply({ type: 'hostReady', pid: 41, restarts: 1 });
  d.apply({ type: 'hostExit', pid: 41, reason: 'exited with code 1; it ended 6 times within 60 s, so it is not restarted automatically: use Restart trainer host', restarting: false });
  assert.match(banner(d), /not restarted automatically: use Restart trainer host\.<button type="button">Restart trainer host<\/button>/);
  d.apply({ type: 'hostReady', pid: 42, restarts: 2 });
  assert.doesNotMatch(banner(d), /<button/, 'a host runs again');
});
