// Renderer entry: picks the transport (the preload's bridge in Electron, a WebSocket in browser
// mode) and mounts the dashboard. The rest of the React code does not know which one it got.
import { createRoot } from 'react-dom/client';
import type { DqnBridgeApi } from '../common/bridge-api.ts';
import { App } from './components/App.tsx';
import { createProbe } from './probe.ts';
import { createDashboard } from './store.ts';
import { createElectronTransport } from './transport/electron.ts';
import { createWebSocketTransport, socketUrlFor } from './transport/websocket.ts';
import './styles.css';

const bridge = (window as unknown as { dqn?: DqnBridgeApi }).dqn;
const transport = bridge ? createElectronTransport(bridge) : createWebSocketTransport(socketUrlFor(window.location.href));
const dashboard = createDashboard();
(window as unknown as { dqnProbe: unknown }).dqnProbe = createProbe(transport, dashboard);
createRoot(document.getElementById('root')!).render(<App dashboard={dashboard} transport={transport} />);
