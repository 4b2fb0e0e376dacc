import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { HostMessage, ParentToHost } from '../common/protocol.ts';
import { describeExit, HostSupervisor, type HostProcess } from './host-supervisor.ts';

/** A host process the test ends by hand. */
class FakeProcess implements HostProcess {
  static nextPid = 100;
  readonly pid = FakeProcess.nextPid++;
  readonly stdout = new PassThrough();
  readonly stderr = new PassThrough();
  received: ParentToHost[] = [];
  killed = false;
  private messageListener: ((d: unknown) => void) | undefined;
  private exitListener: ((r: string) => void) | undefined;
  /** When true, a shutdown request makes the process exit on its own. */
  exitsOnShutdown = true;
  /** When true, heartbeats are echoed as the real host does (host-ports.ts). */
  answersHeartbeats = true;

  postMessage(m: ParentToHost): void {
    this.received.push(m);
    if (m.type === 'shutdown' && this.exitsOnShutdown) setImmediate(() => this.exit('exited normally (code 0)'));
    if (m.type === 'heartbeat' && this.answersHeartbeats) setImmediate(() => this.emit({ type: 'heartbeat', id: m.id }));
  }
  onMessage(l: (d: unknown) => void): void {
    this.messageListener = l;
  }
  onExit(l: (r: string) => void): void {
    this.exitListener = l;
  }
  kill(): void {
    this.killed = true;
    setImmediate(() => this.exit('killed by SIGTERM'));
  }
  emit(data: unknown): void {
    this.messageListener?.(data);
  }
  exit(reason: string): void {
    const l = this.exitListener;
    this.exitListener = undefined;
    l?.(reason);
  }
}

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` every 2 ms until it holds (at most 10 s). */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let t0 = Date.now(); !check(); await wait(2)) if (Date.now() - t0 > 10_000) throw new Error(`timed out waiting for ${what}`);
}

function setup(opts: { maxRestarts?: number; heartbeatMs?: number; heartbeatTimeoutMs?: number } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'dqn-sup-'));
  const spawned: FakeProcess[] = [];
  const notes: HostMessage[] = [];
  const sup = new HostSupervisor({
    spawn: () => {
      const p = new FakeProcess();
      spawned.push(p);
      return p;
    },
    notify: (m) => notes.push(m),
    logDir: join(dir, 'logs'),
    restartDelayMs: 1,
    maxRestarts: opts.maxRestarts,
    heartbeatMs: opts.heartbeatMs,
    heartbeatTimeoutMs: opts.heartbeatTimeoutMs,
  });
  return { dir, sup, spawned, notes, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

test('exit reasons read as a user would say them', () => {
  assert.equal(describeExit(null, 'SIGKILL'), 'killed by SIGKILL');
  assert.equal(describeExit(3, null), 'exited with code 3');
  assert.equal(describeExit(0, null), 'exited normally (code 0)');
});

test('a host that dies is restarted, the reason reaches the dashboard and the run log', async () => {
  const { dir, sup, spawned, notes, cleanup } = setup();
  try {
    sup.start();
    await wait(5);
    const first = spawned[0]!;
    const runDir = join(dir, 'run-a');
    first.emit({ type: 'runDir', runDir });
    first.stdout.write('epoch 1 done\n');
    first.exit('killed by SIGKILL');
    await wait(20);
    assert.equal(spawned.length, 2, 'a new host was spawned');
    assert.deepEqual(
      notes.map((n) => n.type === 'hostExit' ? `exit ${n.pid} ${n.reason} ${n.restarting}` : n.type === 'hostReady' ? `ready ${n.pid} ${n.restarts}` : n.type),
      [`ready ${first.pid} 0`, `exit ${first.pid} killed by SIGKILL true`, `ready ${spawned[1]!.pid} 1`],
    );
    const log = readFileSync(join(runDir, 'host.log'), 'utf8');
    assert.match(log, /epoch 1 done\n/);
    assert.match(log, new RegExp(`trainer host \\(pid ${first.pid}\\) killed by SIGKILL; restarting it`));
    const event = JSON.parse(readFileSync(join(runDir, 'events.log'), 'utf8').trim());
    assert.equal(event.kind, 'error');
    assert.match(event.message, /killed by SIGKILL; restarted/);
    spawned[1]!.stderr.write('between runs\n');
    assert.match(readFileSync(join(dir, 'logs', 'host.log'), 'utf8'), /between runs/, 'without a live run the output goes to the app log');
    await sup.shutdown();
  } finally {
    cleanup();
  }
});

test('after too many deaths in the window the supervisor stops restarting and says so', async () => {
  const { sup, spawned, notes, cleanup } = setup({ maxRestarts: 2 });
  try {
    sup.start();
    for (let i = 0; i < 3; i++) {
      spawned.at(-1)!.exit('exited with code 1');
      await wait(20);
    }
    assert.equal(spawned.length, 3);
    const exits = notes.filter((n) => n.type === 'hostExit');
    assert.deepEqual(exits.map((e) => e.type === 'hostExit' && e.restarting), [true, true, false]);
  } finally {
    cleanup();
  }
});

test('shutdown asks the host to stop and kills it when it does not exit in time', async () => {
  const { sup, spawned, notes, cleanup } = setup();
  try {
    sup.start();
    const p = spawned[0]!;
    p.exitsOnShutdown = false;
    await sup.shutdown(30);
    assert.deepEqual(p.received, [{ type: 'shutdown' }]);
    assert.equal(p.killed, true);
    assert.equal(spawned.length, 1, 'no restart after a shutdown');
    const exit = notes.at(-1);
    assert.ok(exit?.type === 'hostExit' && !exit.restarting);
  } finally {
    cleanup();
  }
});

test('a host that stops answering heartbeats and then the shutdown request is killed and restarted, and the dashboard is told why', async () => {
  const { sup, spawned, notes, cleanup } = setup({ heartbeatMs: 5, heartbeatTimeoutMs: 60 });
  try {
    sup.start();
    const first = spawned[0]!;
    const beats = () => first.received.filter((m) => m.type === 'heartbeat').length;
    await until(() => beats() >= 30, 'thirty heartbeats'); // 150 ms of answered beats: well past the timeout
    assert.equal(first.killed, false, 'a host that answers is left alone');
    first.answersHeartbeats = false; // stuck: its event loop no longer runs
    first.exitsOnShutdown = false;
    await until(() => spawned.length === 2 && notes.some((n) => n.type === 'hostReady' && n.pid === spawned[1]!.pid), 'a new host');
    assert.equal(first.killed, true);
    assert.deepEqual(first.received.filter((m) => m.type !== 'heartbeat'), [{ type: 'shutdown' }], 'asked to stop first');
    const exit = notes.find((n) => n.type === 'hostExit');
    assert.ok(exit?.type === 'hostExit');
    assert.equal(exit.reason, 'stopped answering (no answer to 12 heartbeats over 0.1 s); asked to stop, it did not exit within 0.1 s: killed');
    assert.equal(exit.restarting, true);
    const ids = first.received.flatMap((m) => (m.type === 'heartbeat' ? [m.id] : []));
    assert.deepEqual(ids, ids.map((_, i) => i), 'heartbeat ids count up from 0');
    await sup.shutdown();
  } finally {
    cleanup();
  }
});

test('a host held up past the heartbeat timeout is asked to stop, saves its live run and exits: it is not killed (issue 26 item 1)', async () => {
  const { sup, spawned, notes, cleanup } = setup({ heartbeatMs: 5, heartbeatTimeoutMs: 60 });
  try {
    sup.start();
    const first = spawned[0]!;
    await until(() => first.received.some((m) => m.type === 'heartbeat'), 'a heartbeat');
    first.answersHeartbeats = false; // held up (a long read), but it still handles the shutdown when it comes to it
    await until(() => spawned.length === 2, 'the restart');
    assert.equal(first.killed, false, 'it stopped on request, its run saved, instead of being killed');
    assert.deepEqual(first.received.filter((m) => m.type !== 'heartbeat'), [{ type: 'shutdown' }]);
    const exit = notes.find((n) => n.type === 'hostExit');
    assert.ok(exit?.type === 'hostExit' && exit.restarting);
    assert.equal(exit.reason, 'stopped answering (no answer to 12 heartbeats over 0.1 s); asked to stop (a live run keeps a checkpoint): it exited');
    await sup.shutdown();
  } finally {
    cleanup();
  }
});

test('after giving up the supervisor says so plainly, and a restart request starts a host with a fresh count', async () => {
  const { sup, spawned, notes, cleanup } = setup({ maxRestarts: 1 });
  try {
    sup.start();
    assert.equal(sup.state, 'running');
    spawned[0]!.exit('exited with code 1');
    assert.equal(sup.state, 'restarting');
    await until(() => spawned.length === 2, 'the automatic restart');
    spawned[1]!.exit('exited with code 1');
    assert.equal(sup.state, 'gaveUp');
    const last = notes.at(-1);
    assert.ok(last?.type === 'hostExit' && !last.restarting);
    assert.equal(last.reason, 'exited with code 1; it ended 2 times within 60 s, so it is not restarted automatically: use Restart trainer host');
    sup.restart();
    assert.equal(spawned.length, 3);
    assert.equal(sup.state, 'running');
    await until(() => notes.at(-1)?.type === 'hostReady', 'hostReady');
    assert.deepEqual(notes.at(-1), { type: 'hostReady', pid: spawned[2]!.pid, restarts: 2 });
    sup.restart();
    assert.equal(spawned.length, 3, 'no second host while one runs');
    spawned[2]!.exit('exited with code 1');
    assert.equal(sup.state, 'restarting', 'the count started over: one automatic restart again');
    await sup.shutdown();
    assert.equal(sup.state, 'stopped');
  } finally {
    cleanup();
  }
});

test('a supervisor that could not send beats for a while (the machine slept) does not kill a host that answers', async () => {
  const { sup, spawned, notes, cleanup } = setup({ heartbeatMs: 5, heartbeatTimeoutMs: 20 });
  try {
    sup.start();
    const host = spawned[0]!;
    const beats = () => host.received.filter((m) => m.type === 'heartbeat').length;
    await until(() => beats() >= 2, 'the first beats');
    // A long pause of this process: no timer runs, so no beat goes out and none can be missed.
    const end = Date.now() + 100;
    while (Date.now() < end);
    await until(() => beats() >= 12, 'beats after the pause');
    assert.equal(host.killed, false);
    assert.equal(notes.some((n) => n.type === 'hostExit'), false);
    await sup.shutdown();
  } finally {
    cleanup();
  }
});
