import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
import { startBridgeServer, tokenMatches } from './server.ts';

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
    listRuns: () => [],
    readRunConfig: () => {
      throw new Error('no runs');
    },
    readRunMetrics: () => [],
  };
}

/** The trainer host in this process, behind the same fork envelopes a child would use. */
function inProcessHost(session: SessionApi, pid: number): HostProcess & { die(reason: string): void } {
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

async function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'dqn-serve-'));
  const staticDir = join(dir, 'renderer');
  mkdirSync(join(staticDir, 'assets'), { recursive: true });
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>DQN Console</title>');
  writeFileSync(join(staticDir, 'assets', 'app.js'), 'console.log(1)');
  writeFileSync(join(dir, 'secret.txt'), 'secret');
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
  });
  return { dir, server, seen, hosts, cleanup: async () => (await server.close(), rmSync(dir, { recursive: true, force: true })) };
}

test('tokens are compared whole', () => {
  assert.equal(tokenMatches('abc', 'abc'), true);
  assert.equal(tokenMatches('abd', 'abc'), false);
  assert.equal(tokenMatches('ab', 'abc'), false);
  assert.equal(tokenMatches(null, 'abc'), false);
});

test('the page needs the token, assets do not, and nothing outside the renderer folder is served', async () => {
  const { server, cleanup } = await setup();
  try {
    const base = `http://127.0.0.1:${server.port}`;
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/\?token=tok123$/);
    assert.equal((await fetch(`${base}/`)).status, 401);
    assert.equal((await fetch(`${base}/?token=wrong`)).status, 401);
    const page = await fetch(server.url);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-security-policy')!, /script-src 'self'/);
    assert.equal(page.headers.get('referrer-policy'), 'no-referrer');
    assert.equal((await fetch(`${base}/assets/app.js`)).status, 200);
    assert.equal((await fetch(`${base}/../secret.txt`)).status, 404);
    assert.equal((await fetch(`${base}/%2e%2e/secret.txt`)).status, 404);
    assert.equal((await fetch(`${base}/`, { method: 'POST' })).status, 405);
  } finally {
    await cleanup();
  }
});

test('a WebSocket without the token, or from another origin, is refused', async () => {
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
    for (let i = 0; i < 200 && answers.filter((a) => a.includes('"error"')).length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    const errors = answers.map((a) => JSON.parse(a)).filter((a) => a.message?.type === 'error').map((a) => a.message);
    assert.equal(errors[0].command, 'start');
    assert.match(errors[0].message, /command\.config\.optim\.lr/);
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
    const frame = await waitFor(messages, (m): m is Extract<HostMessage, { type: 'frame' }> => m.type === 'frame' && m.scalars.length > 0, 'frame');
    assert.equal(frame.scalars[0]!.values['losses/td_loss'], 0.75);

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
