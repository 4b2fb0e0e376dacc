// Preload (sandboxed, context-isolated): exposes `window.dqn`, a few typed functions, never
// ipcRenderer or a raw port. Main hands us a MessagePort straight to the trainer host (a new one
// after each host restart); commands are checked with HostCommandSchema before they leave and
// every incoming message is parsed with HostMessageSchema before the page sees it.
import { contextBridge, ipcRenderer } from 'electron';
import { z } from 'zod';
import type { DqnBridgeApi } from '../common/bridge-api.ts';
import type { RunConfigInput } from '../common/config.ts';
import { HostCommandSchema, HostMessageSchema, PresetSchema, type HostCommandInput, type HostMessage } from '../common/protocol.ts';

const listeners = new Set<(m: HostMessage) => void>();
let port: MessagePort | undefined;
/** Messages that arrived before the page subscribed (the answer to our hello, with the live run's history, can beat React's first effect); bounded. */
const early: HostMessage[] = [];
const MAX_EARLY = 64;

function deliver(data: unknown): void {
  const parsed = HostMessageSchema.safeParse(data);
  if (!parsed.success) {
    console.error('dqn: ignored an invalid message from the trainer host', parsed.error.issues.slice(0, 3));
    return;
  }
  if (listeners.size === 0) {
    if (early.length < MAX_EARLY) early.push(parsed.data);
    return;
  }
  for (const l of listeners) l(parsed.data);
}

function post(command: HostCommandInput): void {
  const checked = HostCommandSchema.parse(command);
  if (!port) throw new Error('the trainer host is not connected yet (it is starting or restarting)');
  port.postMessage(checked);
}

ipcRenderer.on('trainer:port', (event) => {
  port?.close();
  port = event.ports[0];
  if (!port) return;
  port.onmessage = (e) => deliver(e.data);
  post({ type: 'hello' });
  post({ type: 'listRuns' });
});
ipcRenderer.on('trainer:supervisor', (_event, message: unknown) => deliver(message));

const Presets = z.array(PresetSchema);

const api: DqnBridgeApi = {
  trainer: {
    start: (config: RunConfigInput) => post({ type: 'start', config }),
    resume: (runDir: string) => post({ type: 'resume', runDir }),
    stop: () => post({ type: 'stop' }),
    hello: () => post({ type: 'hello' }),
    listRuns: () => post({ type: 'listRuns' }),
    openRun: (runDir: string) => post({ type: 'openRun', runDir }),
    restartHost: () => void ipcRenderer.invoke('trainer:restart'),
    onMessage: (listener) => {
      listeners.add(listener);
      for (const m of early.splice(0)) listener(m);
      return () => void listeners.delete(listener);
    },
  },
  presets: {
    list: async () => Presets.parse(await ipcRenderer.invoke('presets', { op: 'list' })),
    save: async (name: string, config: RunConfigInput) => Presets.parse(await ipcRenderer.invoke('presets', { op: 'save', name, config })),
  },
};

contextBridge.exposeInMainWorld('dqn', api);
