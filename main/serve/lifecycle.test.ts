// Front-end deaths against a real `npm run serve` (its trainer host forked under Node, a real CPU
// run): Ctrl-C in a terminal (SIGINT to the whole process group) and a killed serve process must
// both leave the live run stopped with a checkpoint, a stop event and its metrics flushed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';
import { BridgeServerMessageSchema, type HostMessage } from '../../common/protocol.ts';
import { TINY_CARTPOLE } from '../../e2e/flow.ts'; // a CartPole run still going when the test ends it
import { until } from '../testing/until.ts';

const CLI = resolve(dirname(fileURLToPath(import.meta.url)), 'cli.ts');
/** The test's bound on each wait (until's default). */
const LIMIT_MS = 90_000;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

interface Served {
  serve: ChildProcess;
  dir: string;
  runsDir: string;
  messages: HostMessage[];
  output: () => string;
  exited: Promise<number | null>;
  ws: WebSocket;
  /** The WebSocket URL (with the token) for more connections. */
  socketUrl: string;
}

/** Starts serve in its own process group (as a terminal does) and a run through its WebSocket; resolves once steps are streaming. */
async function serveWithLiveRun(): Promise<Served & { hostPid: number; runDir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'dqn-lifecycle-'));
  const runsDir = join(dir, 'runs');
  const serve = spawn(process.execPath, ['--import', 'tsx', CLI, '--port', '0', '--no-build', '--data-dir', join(dir, 'data'), '--runs-dir', runsDir], {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  serve.stdout!.on('data', (d) => (out += d));
  serve.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((r) => serve.once('exit', (code) => r(code)));
  const url = await until(() => /DQN Console: (http:\S+)/.exec(out)?.[1], `serve's URL; output: ${out}`);
  const { port, search } = new URL(url);
  const socketUrl = `ws://127.0.0.1:${port}/ws${search}`;
  const ws = new WebSocket(socketUrl);
  const messages: HostMessage[] = [];
  ws.on('message', (raw) => {
    const m = BridgeServerMessageSchema.parse(JSON.parse(raw.toString()));
    if (m.channel === 'trainer') messages.push(m.message);
  });
  ws.on('error', () => undefined); // the server goes away in these tests
  await new Promise((r, j) => (ws.once('open', r), ws.once('error', j)));
  const ready = await until(() => messages.find((m) => m.type === 'hostReady'), 'hostReady');
  ws.send(JSON.stringify({ channel: 'trainer', command: { type: 'start', config: TINY_CARTPOLE } }));
  const running = await until(() => messages.find((m) => m.type === 'state' && m.state === 'running' && m.runDir), `the run to start; messages: ${messages.map((m) => m.type).join(', ')}`);
  assert.ok(running.type === 'state' && running.runDir && ready.type === 'hostReady');
  const runDir = running.runDir;
  // Steps are trained once the periodic flush has written a scalar record past step 0.
  await until(() => flushedSteps(runDir).some((step) => step > 0), 'trained steps in metrics.jsonl');
  return { serve, dir, runsDir, messages, output: () => out, exited, ws, socketUrl, hostPid: ready.pid, runDir };
}

/** Steps of the scalar records in a run's metrics.jsonl so far. */
function flushedSteps(runDir: string): number[] {
  const path = join(runDir, 'metrics.jsonl');
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{"type":"scalars"'))
    .map((l) => (JSON.parse(l) as { step: number }).step);
}

/** The run folder holds a stop-step checkpoint, a stop event, and metrics up to that step. */
function assertStoppedCleanly(runDir: string, context: string): void {
  const ckpts = readdirSync(join(runDir, 'checkpoints'));
  const stop = ckpts.find((n) => /^stop-step-\d+$/.test(n));
  assert.ok(stop, `a stop-step checkpoint in ${ckpts.join(', ')}; ${context}`);
  const step = Number(stop.slice('stop-step-'.length));
  assert.ok(step > 0, `the checkpoint holds trained steps (${stop})`);
  const events = readFileSync(join(runDir, 'events.log'), 'utf8');
  assert.match(events, new RegExp(`"kind":"stop","message":"stopped at step ${step}"`), events);
  assert.equal(flushedSteps(runDir).at(-1), step, 'metrics.jsonl is flushed up to the stop step');
}

test('Ctrl-C on serve in a terminal stops the live run with a checkpoint before exiting', { timeout: 2 * LIMIT_MS }, async () => {
  const s = await serveWithLiveRun();
  try {
    process.kill(-s.serve.pid!, 'SIGINT'); // what the terminal does: the whole foreground process group
    const code = await Promise.race([s.exited, until(() => false, 'serve to exit')]);
    assert.equal(code, 0, s.output());
    await until(() => !alive(s.hostPid), 'the trainer host to exit');
    assertStoppedCleanly(s.runDir, s.output());
  } finally {
    s.ws.terminate();
    if (s.serve.exitCode === null) process.kill(-s.serve.pid!, 'SIGKILL');
    if (alive(s.hostPid)) process.kill(s.hostPid, 'SIGKILL');
    rmSync(s.dir, { recursive: true, force: true });
  }
});

test('a killed serve process leaves the trainer host to stop the live run with a checkpoint, then exit', { timeout: 2 * LIMIT_MS }, async () => {
  const s = await serveWithLiveRun();
  try {
    process.kill(s.serve.pid!, 'SIGKILL'); // the front end dies; the host is not signalled
    await s.exited;
    assert.ok(alive(s.hostPid) || existsSync(s.runDir), 'the host outlives serve');
    await until(() => !alive(s.hostPid), 'the orphaned trainer host to exit');
    assertStoppedCleanly(s.runDir, `events: ${readFileSync(join(s.runDir, 'events.log'), 'utf8')}`);
  } finally {
    s.ws.terminate();
    if (alive(s.hostPid)) process.kill(s.hostPid, 'SIGKILL');
    rmSync(s.dir, { recursive: true, force: true });
  }
});

/** The last step the live frames have covered so far. */
const lastFrameStep = (messages: HostMessage[]) => Math.max(0, ...messages.flatMap((m) => (m.type === 'frame' && m.steps ? [m.steps.to] : [])));

test('a burst of 10,000 listRuns beside a run with a large metrics file leaves the host answering and the live run training (issue 26 item 1)', { timeout: 3 * LIMIT_MS }, async () => {
  const s = await serveWithLiveRun();
  const flood = new WebSocket(s.socketUrl);
  flood.on('error', () => undefined); // the server may close this connection
  try {
    // A past run whose metrics.jsonl holds 250,000 records (about 25 MB).
    const big = join(s.runsDir, '20260101-000000-big');
    mkdirSync(big);
    writeFileSync(join(big, 'config.json'), readFileSync(join(s.runDir, 'config.json')));
    const lines = Array.from({ length: 250_000 }, (_, i) => JSON.stringify({ type: 'scalars', step: i, wall_s: i / 1000, values: { 'losses/td_loss': 1 / (i + 1), 'q/mean': i / 7 } }));
    writeFileSync(join(big, 'metrics.jsonl'), `${lines.join('\n')}\n`);
    await new Promise((r, j) => (flood.once('open', r), flood.once('error', j)));
    const before = lastFrameStep(s.messages);
    for (let i = 0; i < 10_000; i++) flood.send(JSON.stringify({ channel: 'trainer', command: { type: 'listRuns' } }));
    s.ws.send(JSON.stringify({ channel: 'trainer', command: { type: 'ping', id: 77 } }));
    // Either the host keeps answering and training, or the supervisor kills it (no heartbeat answer for 16 s).
    const outcome = await until(
      () => s.messages.find((m) => m.type === 'hostExit') ?? (s.messages.some((m) => m.type === 'pong' && m.id === 77) && lastFrameStep(s.messages) > before ? 'answering and training' : undefined),
      'a pong and frames past the burst, or the host exit',
    );
    assert.equal(outcome, 'answering and training', `${JSON.stringify(outcome)}; output: ${s.output()}`);
    assert.ok(alive(s.hostPid), 'the same host');
  } finally {
    flood.terminate();
    s.ws.terminate();
    process.kill(-s.serve.pid!, 'SIGINT');
    await s.exited;
    await until(() => !alive(s.hostPid), 'the trainer host to exit');
    rmSync(s.dir, { recursive: true, force: true });
  }
});

test('a host that stops answering heartbeats for a while is asked to stop: it saves the live run with a checkpoint and is restarted, not killed (issue 26 item 1)', { timeout: 3 * LIMIT_MS }, async () => {
  const s = await serveWithLiveRun();
  const log = join(s.runDir, 'host.log');
  try {
    process.kill(s.hostPid, 'SIGSTOP'); // held up: no heartbeat answered, as in a blocked event loop
    const asked = await until(
      () => (existsSync(log) && readFileSync(log, 'utf8').includes('asking it to stop its run and exit') ? 'asked' : s.messages.find((m) => m.type === 'hostExit')),
      'the supervisor to give up on the heartbeats',
    );
    if (alive(s.hostPid)) process.kill(s.hostPid, 'SIGCONT');
    assert.equal(asked, 'asked', `the supervisor asks before it kills; got ${JSON.stringify(asked)}`);
    const exit = await until(() => s.messages.find((m) => m.type === 'hostExit'), 'the host to exit');
    assert.ok(exit.type === 'hostExit');
    assert.match(exit.reason, /^stopped answering \(no answer to \d+ heartbeats over [\d.]+ s\); asked to stop \(a live run keeps a checkpoint\): it exited$/);
    assert.equal(exit.restarting, true);
    assertStoppedCleanly(s.runDir, readFileSync(log, 'utf8'));
  } finally {
    if (alive(s.hostPid)) process.kill(s.hostPid, 'SIGCONT');
    s.ws.terminate();
    process.kill(-s.serve.pid!, 'SIGINT');
    await s.exited;
    rmSync(s.dir, { recursive: true, force: true });
  }
});
