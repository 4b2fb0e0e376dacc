// Browser mode: an HTTP server for the built renderer plus a WebSocket that bridges the same
// messages the Electron app sends over its MessagePort. The page and the socket need the
// session token (a random value printed in the URL); assets are public code and need none.
// The trainer host runs in a supervised child process (restarted when it dies).
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';
import { timingSafeEqual } from 'node:crypto';
import { WebSocketServer, type WebSocket } from 'ws';
import { BridgeClientMessageSchema, HostMessageSchema, type BridgeServerMessage, type HostMessage } from '../../common/protocol.ts';
import { HostSupervisor, type HostProcess } from '../host-supervisor.ts';
import type { PresetStore } from '../presets-store.ts';

/** Header CSP of the served page (the page also carries it as a meta tag). */
export const PAGE_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

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
  /** Largest message a client may send, in bytes (default 1 MiB). */
  maxPayload?: number;
}

export interface BridgeServer {
  /** Page URL with the token, e.g. http://127.0.0.1:8787/?token=... */
  url: string;
  port: number;
  supervisor: HostSupervisor;
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

/** Starts the server; resolves once it listens. */
export async function startBridgeServer(o: BridgeServerOptions): Promise<BridgeServer> {
  const clients = new Set<WebSocket>();
  /** The last host lifecycle messages, replayed to each new client (so it knows the host's pid). */
  let lastReady: HostMessage | undefined;
  let lastExit: HostMessage | undefined;

  const sendTo = (ws: WebSocket, msg: BridgeServerMessage) => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(msg));
  };
  const broadcast = (message: HostMessage) => {
    for (const ws of clients) sendTo(ws, { channel: 'trainer', message });
  };

  const supervisor = new HostSupervisor({
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

  const http = createServer((req, res) => serveStatic(req, res, o));
  const wss = new WebSocketServer({ noServer: true, maxPayload: o.maxPayload ?? 1 << 20 });

  http.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const origin = req.headers.origin;
    const refuse = (why: string) => {
      socket.write(`HTTP/1.1 401 Unauthorized\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n${why}\n`);
      socket.destroy();
    };
    if (url.pathname !== '/ws') return refuse('unknown path');
    if (!tokenMatches(url.searchParams.get('token'), o.token)) return refuse('missing or wrong token');
    // A page of another site must not drive the trainer even if it learned the token.
    if (origin && origin !== `http://${req.headers.host}`) return refuse('cross-origin connection refused');
    wss.handleUpgrade(req, socket, head, (ws) => {
      clients.add(ws);
      ws.on('close', () => clients.delete(ws));
      ws.on('message', (raw) => onClientMessage(ws, raw.toString()));
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
      const why = parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
      const cmd = (data as { command?: { type?: unknown } })?.command?.type;
      sendTo(ws, { channel: 'trainer', message: { type: 'error', command: typeof cmd === 'string' ? cmd : 'bridge', message: `rejected: ${why}` } });
      return;
    }
    const msg = parsed.data;
    if (msg.channel === 'trainer') {
      const host = supervisor.current;
      if (!host) sendTo(ws, { channel: 'trainer', message: { type: 'error', command: msg.command.type, message: 'the trainer host is not running (it is being restarted); try again in a moment' } });
      else host.postMessage({ type: 'command', command: msg.command });
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
  const hostPart = o.host.includes(':') ? `[${o.host}]` : o.host;
  return {
    url: `http://${hostPart}:${port}/?token=${o.token}`,
    port,
    supervisor,
    close: async () => {
      await supervisor.shutdown();
      for (const ws of clients) ws.close(1001, 'server shutting down');
      wss.close();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}

function serveStatic(req: IncomingMessage, res: ServerResponse, o: BridgeServerOptions): void {
  const security = { 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer', 'Cross-Origin-Opener-Policy': 'same-origin', 'X-Frame-Options': 'DENY' };
  const fail = (code: number, text: string) => {
    res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8', ...security });
    res.end(`${text}\n`);
  };
  if (req.method !== 'GET' && req.method !== 'HEAD') return fail(405, 'method not allowed');
  const url = new URL(req.url ?? '/', 'http://localhost');
  let path = decodeURIComponent(url.pathname);
  if (path === '/' || path === '/index.html') {
    if (!tokenMatches(url.searchParams.get('token'), o.token)) return fail(401, 'this page needs the token printed by `npm run serve` (…/?token=…)');
    path = '/index.html';
  }
  const file = normalize(join(o.staticDir, path));
  if (!file.startsWith(normalize(o.staticDir) + sep)) return fail(404, 'not found');
  if (!existsSync(file) || !statSync(file).isFile()) return fail(404, 'not found');
  const headers: Record<string, string> = { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream', ...security };
  if (path === '/index.html') Object.assign(headers, { 'Content-Security-Policy': PAGE_CSP, 'Cache-Control': 'no-store' });
  res.writeHead(200, headers);
  if (req.method === 'HEAD') return void res.end();
  createReadStream(file).pipe(res);
}
