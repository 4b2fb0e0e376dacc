import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { HostToParentSchema, HostMessageSchema } from '../../common/protocol.ts';
import { TrainerHost, type SessionApi } from './host.ts';
import { serveOverFork, serveOverParentPort, type MessagePortLike } from './host-ports.ts';

const session: SessionApi = {
  startRun: () => Promise.reject(new Error('not used')),
  listRuns: () => [{ runDir: '/runs/a', name: 'a', createdMs: 1, env: 'cartpole', epochs: 2, lastStep: 100 }],
  readRunConfig: (d) => {
    throw new Error(`${d} is not a run directory`);
  },
  readRunMetrics: () => [],
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
