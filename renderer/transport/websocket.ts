// Browser-mode transport: one WebSocket to the serve server (URL with the session token, see
// token.ts), reconnecting with a growing delay when it drops. Every incoming frame is parsed with
// BridgeServerMessageSchema; outgoing commands are checked with BridgeClientMessageSchema.
import type { RunConfigInput } from '../../common/config.ts';
import { BridgeClientMessageSchema, BridgeServerMessageSchema, issuesText, type HostMessage, type Preset, type PresetRequestInput } from '../../common/protocol.ts';
import { NO_TOKEN } from './token.ts';
import type { ConnectionState, Transport } from './transport.ts';

/** The subset of the WebSocket API used here (the browser's, or the ws package's in tests). */
export interface WebSocketLike {
  readonly readyState: number;
  onopen: ((ev: unknown) => void) | null;
  onclose: ((ev: { code: number; reason: string }) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  send(data: string): void;
  close(): void;
}
export type WebSocketFactory = (url: string) => WebSocketLike;

const OPEN = 1;

/**
 * `ws://host:port/ws?token=...` for a page served at `pageUrl`, with `token` (by default the
 * page URL's own `?token=`).
 */
export function socketUrlFor(pageUrl: string, token = new URL(pageUrl).searchParams.get('token') ?? ''): string {
  const u = new URL(pageUrl);
  return `${u.protocol === 'https:' ? 'wss' : 'ws'}://${u.host}/ws?token=${encodeURIComponent(token)}`;
}

/**
 * Opens the browser-mode transport. Commands sent while disconnected throw; on each (re)connect
 * a `hello` and a `listRuns` are sent so the dashboard catches up with the host. Without a `url`
 * (the page has no token) it never connects and says why (NO_TOKEN).
 * @param retryMs first reconnect delay, doubled up to 5 s
 */
export function createWebSocketTransport(url: string | undefined, open: WebSocketFactory = (u) => new WebSocket(u) as unknown as WebSocketLike, retryMs = 500): Transport & { close(): void } {
  const listeners = new Set<(m: HostMessage) => void>();
  const connListeners = new Set<(s: ConnectionState, d?: string) => void>();
  const pending = new Map<number, { resolve: (p: Preset[]) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  let state: ConnectionState = 'connecting';
  let detail: string | undefined;
  let socket: WebSocketLike | undefined;
  let closed = false;
  let delay = retryMs;

  const setState = (s: ConnectionState, d?: string) => {
    state = s;
    detail = d;
    for (const l of connListeners) l(s, d);
  };
  const post = (msg: unknown) => {
    if (!socket || socket.readyState !== OPEN) throw new Error('not connected to the trainer host (the server is unreachable); retrying');
    const checked = BridgeClientMessageSchema.safeParse(msg);
    if (!checked.success) throw new Error(issuesText(checked.error, msg)); // e.g. 'request.name: use letters, digits, ...'
    socket.send(JSON.stringify(checked.data));
  };

  const connect = () => {
    const ws = open(url!);
    socket = ws;
    ws.onopen = () => {
      delay = retryMs;
      // hello first: what the 'open' listeners send (a ?run= link's openRun) is answered after the host's state.
      post({ channel: 'trainer', command: { type: 'hello' } });
      post({ channel: 'trainer', command: { type: 'listRuns' } });
      setState('open');
    };
    ws.onmessage = (ev) => {
      let data: unknown;
      try {
        data = JSON.parse(String(ev.data));
      } catch {
        console.error('ignored a non-JSON message from the server');
        return;
      }
      const parsed = BridgeServerMessageSchema.safeParse(data);
      if (!parsed.success) {
        console.error('ignored an invalid message from the server', parsed.error.issues.slice(0, 3));
        return;
      }
      const msg = parsed.data;
      if (msg.channel === 'trainer') {
        for (const l of listeners) l(msg.message);
      } else {
        const p = pending.get(msg.id);
        pending.delete(msg.id);
        if (msg.ok) p?.resolve(msg.presets ?? []);
        else p?.reject(new Error(msg.error ?? 'preset request failed'));
      }
    };
    ws.onerror = () => undefined;
    ws.onclose = (ev) => {
      for (const p of pending.values()) p.reject(new Error('connection lost'));
      pending.clear();
      if (closed) return;
      setState('closed', ev.code === 1008 ? `refused: ${ev.reason}` : `connection lost (code ${ev.code}); reconnecting`);
      setTimeout(connect, delay);
      delay = Math.min(5000, delay * 2);
    };
  };

  const presetRequest = (request: PresetRequestInput) =>
    new Promise<Preset[]>((resolve, reject) => {
      const id = nextId++;
      try {
        post({ channel: 'presets', id, request });
        pending.set(id, { resolve, reject });
      } catch (e) {
        reject(e as Error);
      }
    });

  if (url === undefined) setState('closed', NO_TOKEN);
  else connect();
  return {
    kind: 'browser',
    send: (command) => post({ channel: 'trainer', command }),
    subscribe: (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    onConnection: (l) => {
      connListeners.add(l);
      l(state, detail);
      return () => connListeners.delete(l);
    },
    listPresets: () => presetRequest({ op: 'list' }),
    savePreset: (name: string, config: RunConfigInput) => presetRequest({ op: 'save', name, config }),
    restartHost: () => post({ channel: 'supervisor', request: { op: 'restart' } }),
    close: () => {
      closed = true;
      socket?.close();
    },
  };
}
