import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { HostToParentSchema, HostMessageSchema } from '../../common/protocol.ts';
import { TrainerHost, type SessionApi } from './host.ts';
import { serveOverFork, serveOverParentPort, watchParentPid, type MessagePortLike } from './host-ports.ts';

const session: SessionApi = {
  startRun: () => Promise.reject(new Error('not used')),
  listRuns: async () => [{ runDir: '/runs/a', name: 'a', createdMs: 1, env: 'cartpole', epochs: 2, lastStep: 100 }],
  readRunConfig: (d) => {
    throw new Error(`${d} is not a run directory`);
  },
  metricsChunks: async function* () {},
};

class FakeMessagePort extends EventEmitter implements MessagePortLike {
  posted: unknown[] = [];
  started = false;
  postMessage(m: unknown): void {
    this.posted.push(structuredClone(m));
  }
  start(): void {
    this.started = true;
  }
  close(): void {
    this.emit('close');
  }
}

const tick = () => new Promise((r) => setImmediate(r));

test('under Electron each connect brings a renderer port that gets answers until it closes', async () => {
  const parent = Object.assign(new EventEmitter(), { posted: [] as unknown[], postMessage(m: unknown) { this.posted.push(m); } });
  let exited = 0;
  serveOverParentPort(new TrainerHost(session, { runsDir: '/runs' }), parent, () => exited++);
  const port = new FakeMessagePort();
  parent.emit('message', { data: { type: 'connect' }, ports: [port] });
  assert.equal(port.started, true);
  port.emit('message', { data: { type: 'listRuns' } });
  await tick();
  const runs = HostMessageSchema.parse(port.posted[0]);
  assert.ok(runs.type === 'runs');
  assert.equal(runs.runs[0]!.runDir, '/runs/a');
  port.close();
  port.emit('message', { data: { type: 'listRuns' } });
  await tick();
  assert.equal(port.posted.length, 1, 'a closed port is detached');
  parent.emit('message', { data: { type: 'shutdown' }, ports: [] });
  await tick();
  assert.deepEqual(parent.posted, [{ type: 'shutdownDone' }]);
  assert.equal(exited, 1);
});

test('under Node fork commands and answers travel in envelopes, and losing the parent shuts down', async () => {
  const channel = Object.assign(new EventEmitter(), { sent: [] as unknown[], send(m: unknown) { this.sent.push(structuredClone(m)); return true; } });
  let exited = 0;
  serveOverFork(new TrainerHost(session, { runsDir: '/runs' }), channel, () => exited++);
  channel.emit('message', { type: 'command', command: { type: 'openRun', runDir: '/elsewhere' } });
  channel.emit('message', { type: 'bogus' });
  await tick();
  assert.equal(channel.sent.length, 1, 'a malformed control message is ignored');
  const env = HostToParentSchema.parse(channel.sent[0]);
  assert.ok(env.type === 'message');
  const msg = HostMessageSchema.parse(env.message);
  assert.ok(msg.type === 'error');
  assert.equal(msg.command, 'openRun');
  assert.match(msg.message, /run '\/elsewhere' is not inside the runs folder \/runs/);
  channel.emit('disconnect');
  await tick();
  assert.equal(exited, 1);
});

test('once the parent is gone the host sends nothing more (Node would raise a fatal ERR_IPC_CHANNEL_CLOSED) and still shuts down', async () => {
  const channel = Object.assign(new EventEmitter(), {
    connected: true,
    sent: [] as unknown[],
    send(m: unknown, cb?: (e: Error | null) => void) {
      if (!this.connected) {
        // What Node does: the callback gets the error; without one the process would crash.
        assert.ok(cb, 'a send after the parent left must pass a callback');
        setImmediate(() => cb(new Error('Channel closed')));
        return false;
      }
      this.sent.push(structuredClone(m));
      return true;
    },
  });
  let exited = 0;
  serveOverFork(new TrainerHost(session, { runsDir: '/runs' }), channel, () => exited++);
  channel.connected = false;
  channel.emit('message', { type: 'command', command: { type: 'listRuns' } });
  channel.emit('disconnect');
  channel.emit('disconnect');
  await tick();
  await tick();
  assert.deepEqual(channel.sent, [], 'nothing reaches a closed channel');
  assert.equal(exited, 1, 'one shutdown, however many reasons');
});

test('a re-parented host (its parent died without a word) is told once', { timeout: 60_000 }, async () => {
  let ppid = 100;
  let gone = 0;
  watchParentPid(() => ppid, () => gone++, 5);
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(gone, 0, 'same parent: nothing happens');
  ppid = 1;
  while (gone === 0) await new Promise((r) => setTimeout(r, 5));
  assert.equal(gone, 1);
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(gone, 1, 'told only once');
});

test('the host echoes the supervisor heartbeat on both channels', async () => {
  const parent = Object.assign(new EventEmitter(), { posted: [] as unknown[], postMessage(m: unknown) { this.posted.push(m); } });
  serveOverParentPort(new TrainerHost(session, { runsDir: '/runs' }), parent, () => undefined);
  parent.emit('message', { data: { type: 'heartbeat', id: 7 }, ports: [] });
  const channel = Object.assign(new EventEmitter(), { sent: [] as unknown[], send(m: unknown) { this.sent.push(structuredClone(m)); return true; } });
  serveOverFork(new TrainerHost(session, { runsDir: '/runs' }), channel, () => undefined);
  channel.emit('message', { type: 'heartbeat', id: 8 });
  await tick();
  assert.deepEqual(parent.posted, [{ type: 'heartbeat', id: 7 }]);
  assert.deepEqual(channel.sent, [{ type: 'heartbeat', id: 8 }]);
});
