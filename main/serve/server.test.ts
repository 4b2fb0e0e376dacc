import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect, connect as netConnect, type NetConnectOpts, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import type { HostMessage } from '../../common/protocol.ts';
import { createWebSocketTransport, socketUrlFor, type WebSocketLike } from '../../renderer/transport/websocket.ts';
import type { HostProcess } from '../host-supervisor.ts';
import { PresetStore } from '../presets-store.ts';
import { TrainerHost, type SessionApi } from '../trainer/host.ts';
import { serveOverFork } from '../trainer/host-ports.ts';
import type { RunCallbacks } from '../trainer/session-api.ts';
import { allowedHosts, MAX_CLIENT_MESSAGE_BYTES, parseTarget, startBridgeServer, tokenMatches, type BridgeServer, type BridgeServerOptions } from './server.ts';
import { FLOOD_REASON, MAX_CONNECTIONS, MESSAGE_BURST, POLICY_VIOLATION } from './client-limits.ts';
import { until } from '../testing/until.ts';

/** A session whose run reports one scalar point and runs until stopped. */
function fakeSession(seen: { cb?: RunCallbacks }): SessionApi {
  return {
    startRun: async (_opts, cb) => {
      seen.cb = cb;
      let finish!: () => void;
      const done = new Promise<{ state: 'stopped'; steps: number; env_steps: number; wall_s: number }>((r) => (finish = () => r({ state: 'stopped', steps: 1, env_steps: 8, wall_s: 0.1 })));
      cb.onState?.('running');
      cb.onBackends?.({ compute: { backend: 'cpu', reason: 'no CUDA device' }, replay: { backend: 'cpu', reason: '' } });
      setTimeout(() => cb.onScalars?.([{ step: 1, wall_s: 0.05, values: { 'losses/td_loss': 0.75 } }]), 5);
      return { runDir: '/runs/r1', done, stop: async () => finish() };
    },
    listRuns: async () => [],
    readRunConfig: () => {
      throw new Error('no runs');
    },
    metricsChunks: async function* () {},
  };
}

/** The trainer host in this process, behind the same fork envelopes a child would use; `say` sends a message as the host. */
function inProcessHost(session: SessionApi, pid: number): HostProcess & { die(reason: string): void; say(message: HostMessage): void } {
  const toHost = new EventEmitter();
  // eslint-disable-next-line prefer-const
  let host: TrainerHost;
  let onMsg: ((d: unknown) => void) | undefined;
  let onExit: ((r: string) => void) | undefined;
  const send = (m: unknown) => {
    const copy = structuredClone(m);
    setImmediate(() => onMsg?.(copy));
    return true;
  };
  const die = (reason: string) => {
    void host.shutdown(); // a dead process runs no timers
    const l = onExit;
    onExit = undefined;
    setImmediate(() => l?.(reason));
  };
  host = new TrainerHost(session, { runsDir: '/runs', framePeriodMs: 10, notifyParent: send });
  serveOverFork(host, { on: (ev: string, l: (m: unknown) => void) => toHost.on(ev, l), send }, () => die('exited normally (code 0)'));
  return {
    pid,
    stdout: null,
    stderr: null,
    postMessage: (m) => void setImmediate(() => toHost.emit('message', structuredClone(m))),
    onMessage: (l) => void (onMsg = l),
    onExit: (l) => void (onExit = l),
    kill: () => die('killed by SIGTERM'),
    die,
    say: (message) => send({ type: 'message', message }),
  };
}

function waitFor<T>(messages: HostMessage[], pred: (m: HostMessage) => m is HostMessage & T, what: string, timeoutMs = 5000): Promise<HostMessage & T> {
  return new Promise((resolve, reject) => {
    const t0 = Date.now();
    const poll = () => {
      const m = messages.find(pred);
      if (m) return resolve(m);
      if (Date.now() - t0 > timeoutMs) return reject(new Error(`timed out waiting for ${what}; got ${messages.map((x) => x.type).join(', ')}`));
      setTimeout(poll, 5);
    };
    poll();
  });
}

async function setup(supervision?: BridgeServerOptions['supervision']) {
  const dir = mkdtempSync(join(tmpdir(), 'dqn-serve-'));
  const staticDir = join(dir, 'renderer');
  mkdirSync(join(staticDir, 'assets'), { recursive: true });
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>DQN Console</title>');
  writeFileSync(join(staticDir, 'assets', 'app.js'), 'console.log(1)');
  writeFileSync(join(dir, 'secret.txt'), 'secret');
  symlinkSync(join(dir, 'secret.txt'), join(staticDir, 'assets', 'link.txt'));
  mkdirSync(join(dir, 'bundled'));
  const seen: { cb?: RunCallbacks } = {};
  const hosts: ReturnType<typeof inProcessHost>[] = [];
  const server = await startBridgeServer({
    host: '127.0.0.1',
    port: 0,
    token: 'tok123',
    staticDir,
    presets: new PresetStore(join(dir, 'user'), join(dir, 'bundled')),
    spawnHost: () => {
      const h = inProcessHost(fakeSession(seen), 1000 + hosts.length);
      hosts.push(h);
      return h;
    },
    logDir: join(dir, 'logs'),
    supervision,
  });
  return { dir, server, seen, hosts, cleanup: async () => (await server.close(), rmSync(dir, { recursive: true, force: true })) };
}

test('tokens are compared whole', () => {
  assert.equal(tokenMatches('abc', 'abc'), true);
  assert.equal(tokenMatches('abd', 'abc'), false);
  assert.equal(tokenMatches('ab', 'abc'), false);
  assert.equal(tokenMatches(null, 'abc'), false);
});

test('a page URL with a wrong token is refused, and nothing outside the renderer folder is served', async () => {
  const { server, cleanup } = await setup();
  try {
    const base = `http://127.0.0.1:${server.port}`;
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/\?token=tok123$/);
    assert.equal((await fetch(`${base}/?token=wrong`)).status, 401, 'a page URL with a wrong token');
    const page = await fetch(server.url);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-security-policy')!, /script-src 'self'/);
    assert.equal(page.headers.get('referrer-policy'), 'no-referrer');
    assert.equal((await fetch(`${base}/assets/app.js`)).status, 200);
    assert.equal((await fetch(`${base}/../secret.txt`)).status, 404);
    assert.equal((await fetch(`${base}/%2e%2e/secret.txt`)).status, 404);
    assert.equal((await fetch(`${base}/assets/link.txt`)).status, 404, 'a link out of the renderer folder is not followed');
    assert.equal((await fetch(`${base}/`, { method: 'POST' })).status, 405);
  } finally {
    await cleanup();
  }
});

test('no cookie carries the token (cookies ignore ports: every server on 127.0.0.1 would get it); a tokenless bookmark gets the page, whose socket sends the token it kept (issue 26 item 5)', async () => {
  const { server, cleanup } = await setup();
  try {
    const base = `http://127.0.0.1:${server.port}`;
    const page = await fetch(server.url);
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('set-cookie'), null, 'a tokened load sets no cookie');
    const bookmark = await fetch(`${base}/?run=some-run`);
    assert.equal(bookmark.status, 200, 'the page of a bookmark without the token (the page keeps it in its own storage)');
    assert.equal(bookmark.headers.get('set-cookie'), null);
    const status = (url: string, headers: Record<string, string> = {}) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(url, { headers });
        ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.on('open', () => (ws.close(), resolve(101)));
        ws.on('error', () => undefined);
      });
    assert.equal(await status(`ws://127.0.0.1:${server.port}/ws`, { Cookie: `dqn_token_${server.port}=tok123`, Origin: base }), 401, 'a cookie is no token');
    assert.equal(await status(socketUrlFor(`${base}/?run=some-run`, 'tok123'), { Origin: base }), 101, 'the token the page kept, in the handshake');
  } finally {
    await cleanup();
  }
});

test('a WebSocket without the token, or from another origin, is refused', { timeout: 60_000 }, async () => {
  const { server, cleanup } = await setup();
  try {
    const status = (url: string, headers: Record<string, string> = {}) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(url, { headers });
        ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.on('open', () => (ws.close(), resolve(101)));
        ws.on('error', () => undefined);
      });
    const ws = `ws://127.0.0.1:${server.port}/ws`;
    assert.equal(await status(ws), 401);
    assert.equal(await status(`${ws}?token=nope`), 401);
    assert.equal(await status(`${ws}?token=tok123`, { Origin: 'http://evil.example' }), 401);
    assert.equal(await status(`${ws}?token=tok123`, { Origin: `http://127.0.0.1:${server.port}` }), 101);
    // A message that does not match the protocol is answered with the reason, and the host never sees it.
    const raw = new WebSocket(`${ws}?token=tok123`);
    const answers: string[] = [];
    raw.on('message', (d) => answers.push(d.toString()));
    await new Promise((r) => raw.on('open', r));
    raw.send(JSON.stringify({ channel: 'trainer', command: { type: 'start', config: { env: { kind: 'cartpole' }, optim: { lr: -1 } } } }));
    raw.send('not json');
    while (answers.filter((a) => a.includes('"error"')).length < 2) await new Promise((r) => setTimeout(r, 10));
    const errors = answers.map((a) => JSON.parse(a)).filter((a) => a.message?.type === 'error').map((a) => a.message);
    assert.equal(errors[0].command, 'start');
    assert.equal(errors[0].message, 'rejected: command.config.optim.lr: must be in (0, 1] 1/step (got -1): raise it above 0');
    assert.match(errors[1].message, /not JSON/);
    raw.close();
  } finally {
    await cleanup();
  }
});

test('the browser transport starts a run, receives frames, uses presets and sees a host death and restart', async () => {
  const { server, hosts, cleanup } = await setup();
  const messages: HostMessage[] = [];
  const transport = createWebSocketTransport(socketUrlFor(server.url), (u) => new WebSocket(u) as unknown as WebSocketLike, 20);
  try {
    transport.subscribe((m) => messages.push(m));
    const ready = await waitFor(messages, (m): m is Extract<HostMessage, { type: 'hostReady' }> => m.type === 'hostReady', 'hostReady');
    assert.equal(ready.pid, 1000);
    await waitFor(messages, (m): m is HostMessage => m.type === 'state' && m.state === 'idle', 'hello answer');
    await waitFor(messages, (m): m is HostMessage => m.type === 'runs', 'run list');

    assert.throws(() => transport.send({ type: 'start', config: { env: { kind: 'cartpole' }, optim: { lr: -1 } } }), /lr/, 'the transport refuses an invalid config');

    transport.send({ type: 'start', config: { env: { kind: 'cartpole' } } });
    await waitFor(messages, (m): m is HostMessage => m.type === 'state' && m.state === 'running' && m.runDir === '/runs/r1', 'running');
    const backends = await waitFor(messages, (m): m is Extract<HostMessage, { type: 'backends' }> => m.type === 'backends', 'backends');
    assert.equal(backends.status.compute.reason, 'no CUDA device');
    const frame = await waitFor(messages, (m): m is Extract<HostMessage, { type: 'frame' }> => m.type === 'frame' && m.series['losses/td_loss'] !== undefined, 'frame');
    assert.equal(frame.series['losses/td_loss']!.last, 0.75);

    const saved = await transport.savePreset('tiny', { env: { kind: 'cartpole' }, schedule: { steps_per_epoch: 10 } });
    assert.deepEqual(saved.map((p) => `${p.source}:${p.name}`), ['user:tiny']);
    await assert.rejects(transport.savePreset('bad name!', { env: { kind: 'cartpole' } }), /name/);
    assert.equal((await transport.listPresets()).length, 1);

    hosts[0]!.die('killed by SIGKILL');
    const exit = await waitFor(messages, (m): m is Extract<HostMessage, { type: 'hostExit' }> => m.type === 'hostExit', 'hostExit');
    assert.deepEqual([exit.pid, exit.reason, exit.restarting], [1000, 'killed by SIGKILL', true]);
    const again = await waitFor(messages, (m): m is Extract<HostMessage, { type: 'hostReady' }> => m.type === 'hostReady' && m.pid === 1001, 'second host');
    assert.equal(again.restarts, 1);
  } finally {
    transport.close();
    await cleanup();
  }
});

/** Sends `data` on a fresh connection; resolves with all the server sent once the connection closes. */
function rawExchange(port: number, data: string | Buffer): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1', () => socket.write(data));
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', () => undefined); // the server may reset a connection it refused
    socket.on('close', () => resolve(Buffer.concat(chunks)));
  });
}

/** The status code of a raw HTTP answer (0 when there was none). */
const statusOf = (reply: Buffer) => Number(/^HTTP\/1\.1 (\d{3}) /.exec(reply.toString('latin1'))?.[1] ?? 0);

/** One request with `Connection: close`, sent as raw bytes (so nothing on the client side fixes it up). */
const rawGet = (port: number, target: string, host = `127.0.0.1:${port}`, extra = '') =>
  rawExchange(port, `GET ${target} HTTP/1.1\r\nHost: ${host}\r\n${extra}Connection: close\r\n\r\n`).then(statusOf);

/** The server still serves the page to a normal tokened request. */
async function assertAlive(server: BridgeServer, after: string): Promise<void> {
  const res = await fetch(server.url);
  assert.equal(res.status, 200, `the page after ${after}`);
  await res.text();
}

const UPGRADE = 'Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n';
const KEY = 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n';

test('request targets are parsed without throwing; odd ones are refused', () => {
  assert.deepEqual(parseTarget('/assets/app.js')?.path, '/assets/app.js');
  assert.equal(parseTarget('/?token=a%2Bb')?.query.get('token'), 'a+b');
  assert.equal(parseTarget('/?token=%')?.query.get('token'), '%', 'a bad query escape is left as is');
  for (const bad of [undefined, '', '/%', '//', '/a//b', '/..%2f..%2fetc/passwd', '/%2e%2e/x', '/a/./b', '/a\\b', '/a%5cb', '/a%00b', '/%c3%28', '*', 'http://evil.example/', `/${'a'.repeat(3000)}`])
    assert.equal(parseTarget(bad), null, String(bad));
});

test('the Host header must name the served address', () => {
  assert.deepEqual([...allowedHosts('127.0.0.1', 8787)], ['127.0.0.1:8787', 'localhost:8787', '[::1]:8787']);
  assert.deepEqual([...allowedHosts('::1', 80)], ['127.0.0.1:80', 'localhost:80', '[::1]:80', '127.0.0.1', 'localhost', '[::1]']);
  assert.deepEqual([...allowedHosts('192.168.1.5', 8787)], ['192.168.1.5:8787']);
  assert.deepEqual([...allowedHosts('fe80::1', 9)], ['[fe80::1]:9']);
});

test('malformed HTTP requests get 400 (unknown paths 404) and the server keeps serving', { timeout: 60_000 }, async () => {
  const { server, cleanup } = await setup();
  const port = server.port;
  try {
    const cases: [string, string | Buffer, number[]][] = [
      ['GET /%', `GET /% HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`, [400]],
      ['GET //', `GET // HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`, [400]],
      ['encoded ../', `GET /..%2f..%2fetc/passwd HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`, [400]],
      ['encoded dot segments', `GET /%2e%2e/secret.txt HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`, [400]],
      ['raw dot segments', `GET /assets/../../secret.txt HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`, [400]],
      ['encoded backslashes', `GET /assets/..%5c..%5csecret.txt HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`, [400]],
      ['encoded NUL', `GET /index.html%00.js HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`, [400]],
      ['raw NUL', `GET /a\0b HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`, [400]],
      ['invalid UTF-8 escape', `GET /%c3%28 HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`, [400]],
      ['a 4 KB path', `GET /${'a'.repeat(4000)} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`, [400]],
      // Past Node's 16 KB header limit the parser refuses it; the server may reset the socket
      // before the answer is read, so no answer is also accepted.
      ['a 100 KB path', `GET /${'a'.repeat(100_000)} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`, [400, 0]],
      ['absolute-form target', `GET http://evil.example/ HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`, [400]],
      ['not HTTP', Buffer.from([0x16, 0x03, 0x01, 0x00, 0x05, 0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x0d, 0x0a, 0x0d, 0x0a]), [400]],
      ['unknown file', `GET /nope.js HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`, [404]],
      ['a folder', `GET /assets/ HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`, [404]],
      ['upgrade to //', `GET // HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${UPGRADE}${KEY}\r\n`, [400]],
      ['garbage handshake', `GET /ws?token=tok123 HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${UPGRADE}Sec-WebSocket-Key: ???\r\n\r\n`, [400]],
    ];
    for (const [name, request, expected] of cases) {
      const status = statusOf(await rawExchange(port, request));
      assert.ok(expected.includes(status), `${name}: got ${status}, expected ${expected.join(' or ')}`);
      await assertAlive(server, name);
    }
  } finally {
    await cleanup();
  }
});

test('a Host that does not name the server gets 403, over HTTP and for the WebSocket', { timeout: 60_000 }, async () => {
  const { server, cleanup } = await setup();
  const port = server.port;
  try {
    for (const host of [`localhost:${port}`, `LocalHost:${port}`, `[::1]:${port}`, `127.0.0.1:${port}`]) assert.equal(await rawGet(port, '/?token=tok123', host), 200, host);
    for (const host of [`evil.example:${port}`, `127.0.0.1:1`, '127.0.0.1', `127.0.0.1:${port}.evil.example`, '']) {
      assert.equal(await rawGet(port, '/?token=tok123', host), 403, host);
      assert.equal(await rawGet(port, '/assets/app.js', host), 403, host);
      await assertAlive(server, `Host ${host}`);
    }
    const http10 = statusOf(await rawExchange(port, 'GET /?token=tok123 HTTP/1.0\r\n\r\n'));
    assert.equal(http10, 403, 'no Host at all');
    // DNS rebinding: a page of evil.example, its name now resolving to 127.0.0.1, with the token.
    const upgrade = (host: string, origin: string) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(`ws://127.0.0.1:${port}/ws?token=tok123`, { headers: { Host: host, Origin: origin } });
        ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.on('open', () => (ws.close(), resolve(101)));
        ws.on('error', () => undefined);
      });
    assert.equal(await upgrade(`evil.example:${port}`, `http://evil.example:${port}`), 403);
    await assertAlive(server, 'a rebinding WebSocket');
    assert.equal(await upgrade(`localhost:${port}`, `http://localhost:${port}`), 101);
  } finally {
    await cleanup();
  }
});

test('an oversized, an invalid UTF-8 or a malformed WebSocket frame closes that connection only', { timeout: 60_000 }, async () => {
  const { server, cleanup } = await setup();
  const url = `ws://127.0.0.1:${server.port}/ws?token=tok123`;
  const open = async () => {
    const ws = new WebSocket(url);
    const closed = new Promise<number>((r) => ws.on('close', (code) => r(code)));
    const answers: string[] = [];
    ws.on('message', (d) => answers.push(d.toString()));
    ws.on('error', () => undefined);
    await new Promise((r) => ws.once('open', r));
    return { ws, closed, answers };
  };
  try {
    const bystander = await open();

    // The largest legal message (a preset save with a 4 KB data path) passes.
    const legal = await open();
    const config = { env: { kind: 'trading', data: `/${'d'.repeat(4000)}.csv` }, network: { hidden: [4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096] } };
    const save = JSON.stringify({ channel: 'presets', id: 7, request: { op: 'save', name: 'a'.repeat(64), config } });
    assert.ok(save.length > 4000 && save.length < MAX_CLIENT_MESSAGE_BYTES);
    legal.ws.send(save);
    while (!legal.answers.some((a) => a.includes('"presets"'))) await new Promise((r) => setTimeout(r, 10));
    assert.match(legal.answers.find((a) => a.includes('"presets"')) ?? 'no answer', /"id":7,"ok":true/);
    assert.equal(legal.ws.readyState, WebSocket.OPEN);
    legal.ws.close();

    const big = await open();
    big.ws.send('x'.repeat(MAX_CLIENT_MESSAGE_BYTES + 1));
    assert.equal(await big.closed, 1009, 'message too big');
    await assertAlive(server, 'an oversized frame');

    const utf8 = await open();
    utf8.ws.send(Buffer.from([0x7b, 0xc3, 0x28, 0x7d]), { binary: false });
    assert.equal(await utf8.closed, 1007, 'invalid UTF-8');
    await assertAlive(server, 'an invalid UTF-8 frame');

    // A valid handshake followed by an unmasked frame (clients must mask): protocol error 1002.
    const reply = await rawExchange(server.port, Buffer.concat([
      Buffer.from(`GET /ws?token=tok123 HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n${UPGRADE}${KEY}\r\n`),
      Buffer.from([0x81, 0x02, 0x68, 0x69]),
    ]));
    assert.equal(statusOf(reply), 101);
    // After the replayed host messages, the last frame is a close frame with code 1002 (0x03ea).
    assert.deepEqual([...reply.subarray(-4)], [0x88, 0x02, 0x03, 0xea], 'a close frame with 1002');
    await assertAlive(server, 'an unmasked frame');

    // The other client was never disturbed.
    assert.equal(bystander.ws.readyState, WebSocket.OPEN);
    bystander.ws.send(JSON.stringify({ channel: 'presets', id: 8, request: { op: 'list' } }));
    while (!bystander.answers.some((a) => a.includes('"id":8'))) await new Promise((r) => setTimeout(r, 10));
    assert.match(bystander.answers.find((a) => a.includes('"id":8')) ?? 'no answer', /"ok":true/);
    bystander.ws.close();
  } finally {
    await cleanup();
  }
});

test('when the supervisor gives up, commands say to press Restart, and the Restart request brings a new host', async () => {
  const { server, hosts, cleanup } = await setup({ maxRestarts: 0, restartDelayMs: 1 });
  const messages: HostMessage[] = [];
  const transport = createWebSocketTransport(socketUrlFor(server.url), (u) => new WebSocket(u) as unknown as WebSocketLike, 20);
  try {
    transport.subscribe((m) => messages.push(m));
    await waitFor(messages, (m): m is HostMessage => m.type === 'state', 'hello answer');
    hosts[0]!.die('exited with code 3');
    const exit = await waitFor(messages, (m): m is Extract<HostMessage, { type: 'hostExit' }> => m.type === 'hostExit', 'hostExit');
    assert.equal(exit.restarting, false);
    assert.match(exit.reason, /^exited with code 3; it ended 1 time within 60 s, so it is not restarted automatically: use Restart trainer host$/);
    transport.send({ type: 'listRuns' });
    const refused = await waitFor(messages, (m): m is Extract<HostMessage, { type: 'error' }> => m.type === 'error', 'the refusal');
    assert.equal(refused.message, 'the trainer host is not running: it ended too often and is not restarted automatically; press Restart trainer host');
    transport.restartHost();
    const ready = await waitFor(messages, (m): m is Extract<HostMessage, { type: 'hostReady' }> => m.type === 'hostReady' && m.pid === 1001, 'the restarted host');
    assert.equal(ready.restarts, 1);
    assert.equal(hosts.length, 2);
  } finally {
    transport.close();
    await cleanup();
  }
});

/** Opens a WebSocket to the test server; resolves once open, with what it receives and how it closed. */
async function openSocket(server: BridgeServer, options: ConstructorParameters<typeof WebSocket>[2] = {}) {
  const ws = new WebSocket(`ws://127.0.0.1:${server.port}/ws?token=tok123`, options);
  const answers: string[] = [];
  ws.on('message', (d) => answers.push(d.toString()));
  ws.on('error', () => undefined);
  const closed = new Promise<{ code: number; reason: string }>((r) => ws.on('close', (code, reason) => r({ code, reason: reason.toString() })));
  await new Promise((r, j) => (ws.once('open', r), ws.once('unexpected-response', (_q, res) => j(new Error(`status ${res.statusCode}`)))));
  return { ws, answers, closed };
}

const pongs = (answers: string[], ids: (id: number) => boolean) => answers.filter((a) => { const m = JSON.parse(a).message; return m?.type === 'pong' && ids(m.id); }).length;

test('a client that floods messages is closed with 1008 past its budget, the host sees no more of them, and other clients are served (issue 26 items 1, 7)', { timeout: 60_000 }, async () => {
  const { server, cleanup } = await setup();
  try {
    const bystander = await openSocket(server);
    const flood = await openSocket(server);
    for (let id = 1; id <= 10_000; id++) flood.ws.send(JSON.stringify({ channel: 'trainer', command: { type: 'ping', id } }));
    assert.deepEqual(await flood.closed, { code: POLICY_VIOLATION, reason: FLOOD_REASON });
    bystander.ws.send(JSON.stringify({ channel: 'trainer', command: { type: 'ping', id: 0 } }));
    await until(() => pongs(bystander.answers, (id) => id === 0) === 1, 'the bystander\'s pong');
    // Host answers are broadcast in browser mode: the bystander saw every pong the flood got.
    const answered = pongs(bystander.answers, (id) => id > 0);
    assert.ok(answered >= MESSAGE_BURST && answered < MESSAGE_BURST + 100, `${answered} flood pings reached the host: the burst and what refilled while it was read`);
    assert.equal(server.connections(), 1);
    await assertAlive(server, 'a flood');
  } finally {
    await cleanup();
  }
});

test('at most MAX_CONNECTIONS WebSockets are held; one more is refused with 503 and the reason, and a freed place is taken again', { timeout: 60_000 }, async () => {
  const { server, cleanup } = await setup();
  try {
    const open = await Promise.all(Array.from({ length: MAX_CONNECTIONS }, () => openSocket(server)));
    await assert.rejects(openSocket(server), /status 503/);
    open[0]!.ws.close();
    await until(() => server.connections() === MAX_CONNECTIONS - 1, 'the server to see the close');
    const again = await openSocket(server);
    assert.equal(server.connections(), MAX_CONNECTIONS);
    for (const c of [...open.slice(1), again]) c.ws.close();
    await assertAlive(server, 'the connection cap');
  } finally {
    await cleanup();
  }
});

test('a client that does not read is closed once MAX_BACKLOG_BYTES wait for it; a client that reads gets everything', { timeout: 120_000 }, async () => {
  const { server, hosts, cleanup } = await setup();
  try {
    let stalled: Socket | undefined;
    await openSocket(server, { createConnection: (opts: unknown) => (stalled = netConnect(opts as NetConnectOpts)) });
    stalled!.pause(); // never reads again
    const reader = await openSocket(server);
    // About 1.2 MB per message: 40 of them make 48 MB, past the backlog a non-reader may hold.
    const runs = Array.from({ length: 8000 }, (_, i) => ({ runDir: `/runs/${'r'.repeat(100)}-${i}`, name: `${'r'.repeat(40)}-${i}`, createdMs: i, env: 'cartpole', epochs: 1, lastStep: 100 }));
    const received = () => reader.answers.filter((a) => a.startsWith('{"channel":"trainer","message":{"type":"runs"')).length;
    for (let i = 1; i <= 40; i++) {
      hosts[0]!.say({ type: 'runs', runs });
      await until(() => received() === i, 'the reader to get the message'); // a reader keeps its backlog small
    }
    await until(() => server.connections() === 1, 'the non-reading client to be closed');
    assert.equal(reader.ws.readyState, WebSocket.OPEN);
    reader.ws.close();
    stalled!.destroy();
  } finally {
    await cleanup();
  }
});
