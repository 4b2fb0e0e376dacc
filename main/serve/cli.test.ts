import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';
import { BridgeServerMessageSchema, type HostMessage } from '../../common/protocol.ts';
import { TINY_CARTPOLE } from '../../e2e/flow.ts';
import { until } from '../testing/until.ts';

const CLI = resolve(dirname(fileURLToPath(import.meta.url)), 'cli.ts');

/** Runs `npm run serve -- ...args` to its exit (it exits at once when it cannot listen). */
function serve(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => (child.kill('SIGKILL'), fail(new Error(`serve did not exit within 30 s; stdout: ${stdout} stderr: ${stderr}`))), 30_000);
    child.on('exit', (code) => (clearTimeout(timer), done({ code, stdout, stderr })));
  });
}

test('a second serve on a busy port says which port is in use and what to do, and exits 1', async () => {
  const first: Server = createServer();
  await new Promise<void>((r) => first.listen(0, '127.0.0.1', r));
  const port = (first.address() as AddressInfo).port;
  const data = mkdtempSync(join(tmpdir(), 'dqn-serve-cli-'));
  try {
    const r = await serve(['--port', String(port), '--no-build', '--data-dir', data, '--runs-dir', data]);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, `serve: port ${port} on 127.0.0.1 is in use: pass --port N (or stop the other server)\n`);
  } finally {
    await new Promise((r) => first.close(r));
    rmSync(data, { recursive: true, force: true });
  }
});

test('a wildcard --host (0.0.0.0, ::) is refused before anything starts: the page answers only to the name it serves', async () => {
  const data = mkdtempSync(join(tmpdir(), 'dqn-serve-cli-'));
  try {
    for (const host of ['0.0.0.0', '::', '[::]']) {
      const r = await serve(['--host', host, '--port', '0', '--no-build', '--data-dir', data, '--runs-dir', data]);
      assert.equal(r.code, 1, host);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, new RegExp(`option '--host <address>' argument '${host.replace(/[[\]]/g, '\\$&')}' is invalid\\. '.+' listens on every interface, .*pass the address or name they will use, e\\.g\\. --host 192\\.0\\.2\\.10`));
    }
  } finally {
    rmSync(data, { recursive: true, force: true });
  }
});

test('a --data-dir under /proc is refused at start, saying what to fix (the host log\'s recursive mkdir spun there and serve stopped answering)', { skip: !existsSync('/proc/self/status') && 'no procfs' }, async () => {
  const runs = mkdtempSync(join(tmpdir(), 'dqn-serve-cli-'));
  try {
    const r = await serve(['--port', '0', '--no-build', '--data-dir', '/proc/nope', '--runs-dir', runs]);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^serve: cannot create folder \/proc\/nope: \/proc does not accept a new folder there \(.*\); pass a folder you can write to\n$/);
  } finally {
    rmSync(runs, { recursive: true, force: true });
  }
});

test('a dashboard start with a runs folder under /proc is answered with what to fix, and the host stays up', { skip: !existsSync('/proc/self/status') && 'no procfs', timeout: 120_000 }, async () => {
  const data = mkdtempSync(join(tmpdir(), 'dqn-serve-cli-'));
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, '--port', '0', '--no-build', '--data-dir', data, '--runs-dir', '/proc/nope'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise((r) => child.once('exit', r));
  const messages: HostMessage[] = [];
  try {
    const url = await until(() => /DQN Console: (http:\S+)/.exec(out)?.[1], () => `the URL; output: ${out}`);
    const { port, search } = new URL(url);
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws${search}`);
    ws.on('message', (raw) => {
      const m = BridgeServerMessageSchema.parse(JSON.parse(raw.toString()));
      if (m.channel === 'trainer') messages.push(m.message);
    });
    await new Promise((r, j) => (ws.once('open', r), ws.once('error', j)));
    const ready = await until(() => messages.find((m) => m.type === 'hostReady'), 'hostReady');
    ws.send(JSON.stringify({ channel: 'trainer', command: { type: 'start', config: TINY_CARTPOLE } }));
    const refused = await until(() => messages.find((m) => m.type === 'error' || m.type === 'hostExit'), () => `an answer; got ${messages.map((m) => m.type).join(', ')}`);
    assert.ok(refused.type === 'error', `an error answer, not ${JSON.stringify(refused)}`);
    assert.match(refused.message, /^cannot create folder \/proc\/nope: \/proc does not accept a new folder there \(.*\); pass a folder you can write to$/);
    assert.ok(ready.type === 'hostReady');
    ws.send(JSON.stringify({ channel: 'trainer', command: { type: 'ping', id: 9 } }));
    await until(() => messages.some((m) => m.type === 'pong' && m.id === 9), 'the same host answering a ping');
    assert.equal(messages.some((m) => m.type === 'hostExit'), false);
    ws.close();
  } finally {
    child.kill('SIGTERM');
    await exited;
    rmSync(data, { recursive: true, force: true });
  }
});
