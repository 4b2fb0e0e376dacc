// Browser mode: an HTTP server for the built renderer plus a WebSocket that bridges the same
// messages the Electron app sends over its MessagePort. The socket needs the session token (a
// random value printed in the URL); the page and its assets are public code (the page keeps the
// token in its origin's own storage and sends it in the WebSocket handshake: renderer/transport/
// token.ts), and a page URL naming a wrong token is refused. No cookie carries the token:
// cookies ignore ports, so every other server on 127.0.0.1 would receive it.
// The trainer host runs in a supervised child process (restarted when it dies).
// Every request and frame is untrusted (DESIGN section 9): a malformed one gets an error answer
// and closes its own connection, never the process; the Host header must name the served
// address (no DNS rebinding); static files resolve inside the renderer folder only; connections,
// the messages each may send and what may wait for a client that does not read are bounded
// (client-limits.ts).
import { createReadStream } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { timingSafeEqual } from 'node:crypto';
import { WebSocketServer, type WebSocket } from 'ws';
import { BridgeClientMessageSchema, HostMessageSchema, issuesText, type BridgeServerMessage, type HostMessage } from '../../common/protocol.ts';
import { HostSupervisor, type HostProcess, type SupervisorOptions, type SupervisorState } from '../host-supervisor.ts';
import type { PresetStore } from '../presets-store.ts';
import { FLOOD_REASON, MAX_BACKLOG_BYTES, MAX_CONNECTIONS, MessageBudget, POLICY_VIOLATION } from './client-limits.ts';
import { contentTypeOf, fileInsideFolder, PAGE_CSP, parseTarget, SECURITY_HEADERS } from '../static-files.ts';

export { parseTarget };

/**
 * Largest WebSocket message a client may send, in bytes. The largest legal client message is a
 * preset save (or a start command) with a full run config: about 2.3 KB of JSON with every
 * number at its longest, plus the trading data path, at most PATH_MAX = 4 KB: under 6.5 KB in
 * all. 16 KiB leaves room for that and refuses anything else before it is buffered.
 */
export const MAX_CLIENT_MESSAGE_BYTES = 16 * 1024;

/** Bind addresses whose page may be reached by any loopback name. */
const LOOPBACK = ['127.0.0.1', 'localhost', '::1'];

export interface BridgeServerOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  token: string;
  /** The built renderer (out/renderer). */
  staticDir: string;
  presets: PresetStore;
  /** Starts a trainer host process (child_process.fork of host-entry.ts in production). */
  spawnHost: () => HostProcess;
  /** Folder of the host's log between runs. */
  logDir: string;
  /** Largest message a client may send, in bytes (default MAX_CLIENT_MESSAGE_BYTES). */
  maxPayload?: number;
  /** Restart and heartbeat limits of the host's supervisor (tests shorten them). */
  supervision?: Pick<SupervisorOptions, 'maxRestarts' | 'restartWindowMs' | 'restartDelayMs' | 'heartbeatMs' | 'heartbeatTimeoutMs'>;
}

export interface BridgeServer {
  /** Page URL with the token, e.g. http://127.0.0.1:8787/?token=... */
  url: string;
  port: number;
  supervisor: HostSupervisor;
  /** WebSocket connections open now (at most MAX_CONNECTIONS). */
  connections(): number;
  /** Stops the run cleanly (checkpoint kept), the host and the server. */
  close(): Promise<void>;
}

/** Constant-time token comparison. */
export function tokenMatches(given: string | null, token: string): boolean {
  if (given === null) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The Host header values that name this server: every loopback name when it binds a loopback
 * address, else the bound address itself; each with the port (and also bare on port 80, where
 * browsers leave the port out). Lower case; compare with `host.toLowerCase()`.
 */
export function allowedHosts(bind: string, port: number): Set<string> {
  const names = LOOPBACK.includes(bind.toLowerCase()) ? LOOPBACK : [bind.toLowerCase()];
  const hosts = names.map((n) => (n.includes(':') ? `[${n}]` : n));
  return new Set([...hosts.map((h) => `${h}:${port}`), ...(port === 80 ? hosts : [])]);
}

/** Starts the server; resolves once it listens. */
export async function startBridgeServer(o: BridgeServerOptions): Promise<BridgeServer> {
  const clients = new Set<WebSocket>();
  /** The last host lifecycle messages, replayed to each new client (so it knows the host's pid). */
  let lastReady: HostMessage | undefined;
  let lastExit: HostMessage | undefined;

  /** Sends `text` unless the client left MAX_BACKLOG_BYTES unread: then it is closed instead. */
  const sendText = (ws: WebSocket, text: string) => {
    if (ws.readyState !== ws.OPEN) return;
    if (ws.bufferedAmount > MAX_BACKLOG_BYTES) {
      console.error(`serve: closed a WebSocket that does not read (${Math.round(ws.bufferedAmount / 2 ** 20)} MiB waiting, at most ${MAX_BACKLOG_BYTES / 2 ** 20})`);
      ws.terminate(); // a close frame would only queue behind the backlog
      return;
    }
    ws.send(text);
  };
  const sendTo = (ws: WebSocket, msg: BridgeServerMessage) => sendText(ws, JSON.stringify(msg));
  const broadcast = (message: HostMessage) => {
    const text = JSON.stringify({ channel: 'trainer', message } satisfies BridgeServerMessage);
    for (const ws of clients) sendText(ws, text);
  };

  const supervisor = new HostSupervisor({
    ...o.supervision,
    spawn: o.spawnHost,
    logDir: o.logDir,
    notify: (m) => {
      if (m.type === 'hostReady') lastReady = m;
      if (m.type === 'hostExit') lastExit = m;
      broadcast(m);
    },
    onHostMessage: (data) => {
      const parsed = HostMessageSchema.safeParse(data);
      if (parsed.success) broadcast(parsed.data);
      else console.error(`serve: dropped an invalid message from the trainer host: ${parsed.error.issues[0]?.message}`);
    },
  });

  /** Filled once the port is known; until then every Host is refused. */
  let hosts = new Set<string>();
  const hostOk = (req: IncomingMessage) => hosts.has(req.headers.host?.toLowerCase() ?? '');

  const http = createServer((req, res) => serveStatic(req, res, o, hostOk(req)));
  // Node routes errors of a socket still speaking HTTP (parse errors, oversized headers, resets)
  // here; without a listener it answers on its own, with one we answer 400 and drop the socket.
  http.on('clientError', (_err, socket: Socket) => {
    if (socket.writable) socket.write('HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nbad request\n');
    socket.destroy();
  });
  // Node drops its own socket 'error' listener when it hands a socket to 'upgrade'; this one
  // stays, so an error there (or in a refused upgrade) closes that socket only.
  http.on('connection', (socket: Socket) => socket.on('error', () => socket.destroy()));
  const wss = new WebSocketServer({ noServer: true, maxPayload: o.maxPayload ?? MAX_CLIENT_MESSAGE_BYTES });

  http.on('upgrade', (req, socket, head) => {
    const target = parseTarget(req.url);
    const origin = req.headers.origin;
    const refuse = (status: string, why: string) => {
      if (socket.writable) socket.write(`HTTP/1.1 ${status}\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n${why}\n`);
      socket.destroy();
    };
    if (!target) return refuse('400 Bad Request', 'bad request');
    if (!hostOk(req)) return refuse('403 Forbidden', 'unknown Host');
    if (target.path !== '/ws') return refuse('401 Unauthorized', 'unknown path');
    if (!tokenMatches(target.query.get('token'), o.token)) return refuse('401 Unauthorized', 'missing or wrong token');
    // A page of another site must not drive the trainer even if it learned the token.
    if (origin && origin !== `http://${req.headers.host}`) return refuse('401 Unauthorized', 'cross-origin connection refused');
    if (clients.size >= MAX_CONNECTIONS) return refuse('503 Service Unavailable', `too many connections: at most ${MAX_CONNECTIONS} (close another tab of this dashboard)`);
    // A malformed handshake is answered 400 by ws itself.
    wss.handleUpgrade(req, socket, head, (ws) => {
      clients.add(ws);
      ws.on('close', () => clients.delete(ws));
      // Oversized frames, invalid UTF-8 and protocol violations: ws closes this connection
      // (1009, 1007, 1002) and reports it here; without a listener the process would exit.
      ws.on('error', (e) => console.error(`serve: closed a WebSocket: ${e.message}`));
      const budget = new MessageBudget();
      ws.on('message', (raw) => {
        if (ws.readyState !== ws.OPEN) return; // closed for flooding: what is still buffered goes nowhere
        if (budget.take()) return onClientMessage(ws, raw.toString());
        console.error(`serve: closed a WebSocket: ${FLOOD_REASON}`);
        ws.close(POLICY_VIOLATION, FLOOD_REASON);
      });
      if (lastExit) sendTo(ws, { channel: 'trainer', message: lastExit });
      if (lastReady && supervisor.current) sendTo(ws, { channel: 'trainer', message: lastReady });
    });
  });

  const onClientMessage = (ws: WebSocket, text: string) => {
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      sendTo(ws, { channel: 'trainer', message: { type: 'error', command: 'bridge', message: 'message is not JSON' } });
      return;
    }
    const parsed = BridgeClientMessageSchema.safeParse(data);
    if (!parsed.success) {
      const why = issuesText(parsed.error, data);
      const cmd = (data as { command?: { type?: unknown } })?.command?.type;
      sendTo(ws, { channel: 'trainer', message: { type: 'error', command: typeof cmd === 'string' ? cmd : 'bridge', message: `rejected: ${why}` } });
      return;
    }
    const msg = parsed.data;
    if (msg.channel === 'trainer') {
      const host = supervisor.current;
      if (host) host.postMessage({ type: 'command', command: msg.command });
      else sendTo(ws, { channel: 'trainer', message: { type: 'error', command: msg.command.type, message: hostDownMessage(supervisor.state) } });
      return;
    }
    if (msg.channel === 'supervisor') {
      supervisor.restart();
      return;
    }
    try {
      sendTo(ws, { channel: 'presets', id: msg.id, ok: true, presets: o.presets.handle(msg.request) });
    } catch (e) {
      sendTo(ws, { channel: 'presets', id: msg.id, ok: false, error: (e as Error).message });
    }
  };

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(o.port, o.host, () => resolve());
  });
  supervisor.start();
  const port = (http.address() as AddressInfo).port;
  hosts = allowedHosts(o.host, port);
  const hostPart = o.host.includes(':') ? `[${o.host}]` : o.host;
  return {
    url: `http://${hostPart}:${port}/?token=${o.token}`,
    port,
    supervisor,
    connections: () => clients.size,
    close: async () => {
      await supervisor.shutdown();
      for (const ws of clients) ws.close(1001, 'server shutting down');
      wss.close();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}

/** Why a command cannot reach the trainer host now, and what the user can do. */
export function hostDownMessage(state: SupervisorState): string {
  if (state === 'gaveUp') return 'the trainer host is not running: it ended too often and is not restarted automatically; press Restart trainer host';
  if (state === 'stopped') return 'the trainer host is not running: the server is shutting down';
  return 'the trainer host is not running: a new one is starting, send the command again once it is up';
}

/** Answers one HTTP request; never throws (a failure becomes an error answer). */
function serveStatic(req: IncomingMessage, res: ServerResponse, o: BridgeServerOptions, hostOk: boolean): void {
  const security = SECURITY_HEADERS;
  const fail = (code: number, text: string) => {
    res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8', ...security });
    res.end(`${text}\n`);
  };
  try {
    if (!hostOk) return fail(403, 'this server answers only to the address it serves (Host header)');
    if (req.method !== 'GET' && req.method !== 'HEAD') return fail(405, 'method not allowed');
    const target = parseTarget(req.url);
    if (!target) return fail(400, 'bad request');
    let path = target.path;
    if (path === '/' || path === '/index.html') {
      // Tokenless: a bookmark (the page has the token in its storage). A wrong token is refused,
      // so a link with one never replaces the kept token.
      const given = target.query.get('token');
      if (given !== null && !tokenMatches(given, o.token)) return fail(401, 'wrong token: use the URL printed by `npm run serve` (…/?token=…)');
      path = '/index.html';
    }
    const file = fileInsideFolder(o.staticDir, path);
    if (!file) return fail(404, 'not found');
    const headers: Record<string, string> = { 'Content-Type': contentTypeOf(file), ...security };
    if (path === '/index.html') Object.assign(headers, { 'Content-Security-Policy': PAGE_CSP, 'Cache-Control': 'no-store' });
    res.writeHead(200, headers);
    if (req.method === 'HEAD') return void res.end();
    createReadStream(file)
      .on('error', () => res.destroy())
      .pipe(res);
  } catch {
    if (!res.headersSent) fail(500, 'internal error');
    else res.destroy();
  }
}
