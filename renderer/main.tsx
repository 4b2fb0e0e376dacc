// Renderer entry: picks the transport (the preload's bridge in Electron, a WebSocket in browser
// mode) and mounts the dashboard. The rest of the React code does not know which one it got.
import { createRoot } from 'react-dom/client';
import type { DqnBridgeApi } from '../common/bridge-api.ts';
import { App } from './components/App.tsx';
import { applyThemeTo } from './lib/theme-store.ts';
import { createProbe } from './probe.ts';
import { createDashboard } from './store.ts';
import { createElectronTransport } from './transport/electron.ts';
import { pageToken } from './transport/token.ts';
import { createWebSocketTransport, socketUrlFor } from './transport/websocket.ts';
import './styles.css';

const bridge = (window as unknown as { dqn?: DqnBridgeApi }).dqn;
/** Browser mode: the URL's token (kept in this origin's storage) or the one kept from an earlier load. */
function browserTransport() {
  const token = pageToken(window.location.href, window.localStorage, (url) => window.history.replaceState(null, '', url));
  return createWebSocketTransport(token === undefined ? undefined : socketUrlFor(window.location.href, token));
}
const transport = bridge ? createElectronTransport(bridge) : browserTransport();
const dashboard = createDashboard();
(window as unknown as { dqnProbe: unknown }).dqnProbe = createProbe(transport, dashboard);
applyThemeTo(document.documentElement);
createRoot(document.getElementById('root')!).render(<App dashboard={dashboard} transport={transport} />);
