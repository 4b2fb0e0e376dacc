// The real trainer host process (host-entry.ts forked under Node, as browser mode starts it):
// it keeps answering the supervisor's heartbeat while a large trainer is being built, and it
// refuses a config larger than the machine before allocating anything, with the estimate.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HostMessageSchema, HostToParentSchema, type HostMessage, type HostToParent, type ParentToHost } from '../../common/protocol.ts';

const ENTRY = join(dirname(fileURLToPath(import.meta.url)), 'host-entry.ts');

/** What the host sent, in order: control messages and (unwrapped) messages for the dashboard. */
type Seen = { control: HostToParent } | { message: HostMessage };

function startHost(runsDir: string): { child: ChildProcess; seen: Seen[]; send: (m: ParentToHost) => void; exited: Promise<void> } {
  const child = fork(ENTRY, [], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'], env: { ...process.env, DQN_RUNS_DIR: runsDir }, serialization: 'advanced' });
  const seen: Seen[] = [];
  child.on('message', (data) => {
    const m = HostToParentSchema.parse(data);
    seen.push(m.type === 'message' ? { message: HostMessageSchema.parse(m.message) } : { control: m });
  });
  child.stdout!.resume();
  child.stderr!.resume();
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return { child, seen, send: (m) => void child.send(m), exited };
}

async function until<T>(check: () => T | undefined, what: string, seen: Seen[]): Promise<T> {
  for (let t0 = Date.now(); ; await new Promise((r) => setTimeout(r, 10))) {
    const v = check();
    if (v !== undefined) return v;
    if (Date.now() - t0 > 60_000) throw new Error(`timed out waiting for ${what}; seen ${JSON.stringify(seen).slice(0, 2000)}`);
  }
}

const indexOf = (seen: Seen[], pred: (s: Seen) => boolean) => {
  const i = seen.findIndex(pred);
  return i < 0 ? undefined : i;
};

test('the host answers heartbeats while it builds a large trainer, then runs it', { timeout: 120_000 }, async () => {
  const runsDir = mkdtempSync(join(tmpdir(), 'dqn-host-entry-'));
  const h = startHost(runsDir);
  const arrivals: { what: string; id?: number; at: number }[] = [];
  h.child.on('message', (data: { type: string; id?: number; message?: { type: string } }) => arrivals.push({ what: data.message?.type ?? data.type, id: data.id, at: performance.now() }));
  let beat: ReturnType<typeof setInterval> | undefined;
  try {
    // ~1.3 GiB of replay: allocating it takes hundreds of ms, far longer than a heartbeat's round trip.
    const config = { name: 'big', backend: 'cpu', env: { kind: 'cartpole' }, network: { hidden: [16] }, replay: { capacity: 1 << 24 }, schedule: { epochs: 1, steps_per_epoch: 100, learning_starts: 64 } };
    await until(() => (h.send({ type: 'heartbeat', id: 0 }), arrivals.find((a) => a.what === 'heartbeat')), 'the host to be up', h.seen);
    h.send({ type: 'command', command: { type: 'start', config } });
    let id = 1;
    beat = setInterval(() => h.send({ type: 'heartbeat', id: id++ }), 10);
    await until(() => indexOf(h.seen, (s) => 'message' in s && s.message.type === 'state' && s.message.state === 'running'), 'the run to start', h.seen);
    clearInterval(beat);
    // The build ends where the run's first messages (its backends) arrive. Echoes of heartbeats
    // sent after the start that arrive well before that were answered during the build; a build
    // on the event loop would queue them all and answer them in one burst after it.
    const built = arrivals.find((a) => a.what === 'backends')!.at;
    const echoes = arrivals.filter((a) => a.what === 'heartbeat' && a.id! >= 1).map((a) => built - a.at);
    const during = echoes.filter((ahead) => ahead > 100);
    assert.ok(during.length >= 3, `heartbeats answered during the build (ms before it ended: ${echoes.map((e) => e.toFixed(0)).join(', ')})`);
    h.send({ type: 'shutdown' });
    await h.exited;
    assert.ok(h.seen.some((s) => 'control' in s && s.control.type === 'shutdownDone'));
  } finally {
    clearInterval(beat);
    h.child.kill('SIGKILL');
    rmSync(runsDir, { recursive: true, force: true });
  }
});

test('a config larger than the machine is refused with the estimate, and nothing is built', { timeout: 120_000 }, async () => {
  const runsDir = mkdtempSync(join(tmpdir(), 'dqn-host-entry-'));
  const h = startHost(runsDir);
  try {
    // 8 layers of 4096 units over batches of 65536: ~50 GiB of activations alone.
    const config = { name: 'huge', backend: 'cpu', env: { kind: 'cartpole' }, network: { hidden: Array(8).fill(4096) }, replay: { capacity: 100_000 }, optim: { batch_size: 65_536 } };
    h.send({ type: 'command', command: { type: 'start', config } });
    const error = await until(() => h.seen.find((s): s is { message: Extract<HostMessage, { type: 'error' }> } => 'message' in s && s.message.type === 'error'), 'the refusal', h.seen);
    assert.equal(error.message.command, 'start');
    assert.match(error.message.message, /^this config needs about \d+\.\d\d GiB of RAM \(replay .* networks 2\.\d\d GiB, batch 48\.\d\d GiB\), more than the .* available: lower replay.capacity, optim.batch_size or network.hidden$/);
    assert.deepEqual(readdirSync(runsDir), [], 'no run folder');
    h.send({ type: 'shutdown' });
    await h.exited;
  } finally {
    h.child.kill('SIGKILL');
    rmSync(runsDir, { recursive: true, force: true });
  }
});
