import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseRunConfig, type RunConfig } from '../../common/config.ts';
import { HostMessageSchema, type HostMessage, type HostToParent, type RunSummary } from '../../common/protocol.ts';
import type { RunOutcome } from './session-api.ts';
import type { RunCallbacks, RunHandle, StartOptions } from './session-api.ts';
import { TrainerHost, type HostPort, type MetricsRecord, type SessionApi } from './host.ts';
import { BUNDLED_DATA_DIR } from './paths.ts';
import { createRunDir, metricsChunks, MetricsWriter, readRunConfig } from './run-dir.ts';
import { RunIndex } from './run-index.ts';
import { serveOverFork } from './host-ports.ts';
import { LOCK_FILE } from './run-lock.ts';
import { until } from '../testing/until.ts';

/** A session whose runs the test drives by hand through the captured callbacks. */
class FakeSession implements SessionApi {
  starts: { opts: StartOptions; cb: RunCallbacks; stopCalls: number; finish: (o: RunOutcome) => void }[] = [];
  runs: RunSummary[] = [];
  configs = new Map<string, RunConfig>();
  metrics = new Map<string, MetricsRecord[]>();

  async startRun(opts: StartOptions, cb: RunCallbacks): Promise<RunHandle> {
    let finish!: (o: RunOutcome) => void;
    const done = new Promise<RunOutcome>((r) => (finish = r));
    const entry = { opts, cb, stopCalls: 0, finish };
    this.starts.push(entry);
    cb.onState?.('running');
    return {
      runDir: opts.resume ?? `/runs/run-${this.starts.length}`,
      done,
      stop: async () => {
        entry.stopCalls++;
        cb.onState?.('stopping');
        finish({ state: 'stopped', steps: 0, env_steps: 0, wall_s: 0 });
        await done;
      },
    };
  }
  async listRuns(_runsDir: string, _fresh?: boolean): Promise<RunSummary[]> {
    return this.runs;
  }
  readRunConfig(runDir: string): RunConfig {
    const c = this.configs.get(runDir);
    if (!c) throw new Error(`${runDir} is not a run directory (no config.json)`);
    return c;
  }
  async *metricsChunks(runDir: string): AsyncGenerator<{ records: MetricsRecord[] }> {
    yield { records: this.metrics.get(runDir) ?? [] };
  }
}

/** A port that records what the host sends, each message checked against the protocol schema. */
function fakePort() {
  const sent: HostMessage[] = [];
  let listener: ((data: unknown) => void) | undefined;
  const port: HostPort = {
    post: (m) => sent.push(HostMessageSchema.parse(JSON.parse(JSON.stringify(m)))),
    listen: (l) => {
      listener = l;
      return () => (listener = undefined);
    },
  };
  return { port, sent, send: (data: unknown) => listener?.(data) };
}

const tick = () => new Promise((r) => setImmediate(r));
const cartpole = { env: { kind: 'cartpole' }, schedule: { steps_per_epoch: 50 } };

/** A host with one attached port that has been sent `start` for `config` (default: cartpole). */
async function startedHost(options: Partial<ConstructorParameters<typeof TrainerHost>[1]> = {}, config: unknown = cartpole) {
  const session = new FakeSession();
  const host = new TrainerHost(session, { runsDir: '/runs', framePeriodMs: 60_000, ...options });
  const { port, sent, send } = fakePort();
  host.attach(port);
  send({ type: 'start', config });
  await tick();
  return { session, host, sent, send };
}

test('a start command starts a run and the session callbacks arrive batched in one frame', async () => {
  const { session, host, sent } = await startedHost();
  assert.equal(session.starts.length, 1);
  const runningAt = sent.findIndex((m) => m.type === 'state' && m.state === 'running');
  assert.ok(runningAt >= 0 && sent.slice(runningAt).some((m) => m.type === 'runs'), 'after the running state, the run history (which lists the new run)');
  assert.equal(session.starts[0]!.opts.runsDir, '/runs');
  assert.equal(parseRunConfig(session.starts[0]!.opts.config).schedule.steps_per_epoch, 50);
  const cb = session.starts[0]!.cb;
  cb.onScalars?.([{ step: 1, wall_s: 0.1, values: { 'losses/td_loss': 0.5 } }]);
  cb.onScalars?.([{ step: 2, wall_s: 0.2, values: { 'losses/td_loss': 'NaN' } }]);
  cb.onEpisodes?.([{ step: 40, value: 12 }]);
  assert.equal(sent.filter((m) => m.type === 'frame').length, 0, 'nothing is sent before the frame period ends');
  host.flush();
  const frames = sent.filter((m) => m.type === 'frame');
  assert.equal(frames.length, 1);
  const f = frames[0]!;
  assert.ok(f.type === 'frame');
  assert.equal(f.runDir, '/runs/run-1');
  assert.equal(f.seq, 1);
  assert.deepEqual(f.steps, { from: 1, to: 2 });
  assert.deepEqual(f.series['losses/td_loss'], { x0: 1, x1: 2, n: 2, min: [1, 0.5], max: [1, 0.5], mean: 0.5, last: 'NaN', nonFinite: { x: 2, value: 'NaN' } });
  assert.deepEqual(f.series['charts/episodic_return'], { x0: 40, x1: 40, n: 1, min: [40, 12], max: [40, 12], mean: 12, last: 12 });
  const running = sent.filter((m) => m.type === 'state' && m.state === 'running' && m.runDir === '/runs/run-1');
  assert.equal(running.length, 1, 'a running state with the new run folder is announced');
  await host.shutdown();
});

test('the frame pending when the state changes is sent before the state', async () => {
  const { session, sent, send } = await startedHost();
  const cb = session.starts[0]!.cb;
  cb.onEpoch?.({ epoch: 1, step: 50, env_steps: 400, epoch_time_s: 1.5, steps_per_s: 33.3, eval_mean_return: 20, eval_episodes: 10, eval_metrics: {} });
  send({ type: 'stop' });
  await tick();
  await tick();
  assert.equal(session.starts[0]!.stopCalls, 1);
  const tail = sent.slice(-4).map((m) => (m.type === 'state' ? `state:${m.state}` : m.type));
  assert.deepEqual(tail, ['frame', 'state:stopping', 'state:idle', 'runs'], 'then the run history, with how the run ended');
});

test('an invalid config is rejected with the field, in the words `npm run train` prints, and the session is not called', async () => {
  const session = new FakeSession();
  const host = new TrainerHost(session, { runsDir: '/runs' });
  const { port, sent, send } = fakePort();
  host.attach(port);
  send({ type: 'start', config: { env: { kind: 'cartpole' }, optim: { lr: -0.001 } } });
  await tick();
  assert.equal(session.starts.length, 0);
  const err = sent.find((m) => m.type === 'error');
  assert.ok(err && err.type === 'error');
  assert.equal(err.command, 'start');
  assert.equal(err.message, 'rejected start command: config.optim.lr: must be in (0, 1] 1/step (got -0.001): raise it above 0');
  assert.throws(() => parseRunConfig({ env: { kind: 'cartpole' }, optim: { lr: -0.001 } }), { problems: ['optim.lr: must be in (0, 1] 1/step (got -0.001): raise it above 0'] });
});

test('a second start while a run is live is refused; a halted run reports its reason', async () => {
  const { session, host, sent, send } = await startedHost();
  send({ type: 'start', config: cartpole });
  await tick();
  assert.equal(session.starts.length, 1);
  const err = sent.find((m) => m.type === 'error');
  assert.ok(err && err.type === 'error' && /already running/.test(err.message));
  session.starts[0]!.finish({ state: 'halted', haltReason: 'NaN in loss at step 17', steps: 17, env_steps: 100, wall_s: 1 });
  await tick();
  assert.equal(sent.at(-1)?.type, 'runs', 'the run history follows the state');
  const last = sent.at(-2);
  assert.ok(last && last.type === 'state');
  assert.equal(last.state, 'halted');
  assert.equal(last.detail, 'NaN in loss at step 17');
  send({ type: 'start', config: cartpole });
  await tick();
  assert.equal(session.starts.length, 2, 'after the halt a new run may start');
  await host.shutdown();
});

test('resume sends the run history from disk first, then resumes that folder', async () => {
  const session = new FakeSession();
  const config = parseRunConfig(cartpole);
  const runs = mkdtempSync(join(tmpdir(), 'dqn-host-runs-'));
  const old = join(runs, 'old');
  mkdirSync(old);
  session.configs.set(old, config);
  session.metrics.set(old, [
    { type: 'scalars', step: 10, wall_s: 1, values: { 'losses/td_loss': 2 } },
    { type: 'episode', step: 80, value: 9 },
    { type: 'epoch', epoch: 1, step: 50, env_steps: 400, epoch_time_s: 2, steps_per_s: 25, eval_mean_return: 11, eval_episodes: 10, eval_metrics: {} },
  ]);
  const { port, sent, send } = fakePort();
  const parent: unknown[] = [];
  const host = new TrainerHost(session, { runsDir: runs, framePeriodMs: 60_000, notifyParent: (m) => parent.push(m) });
  host.attach(port);
  send({ type: 'resume', runDir: 'old' }); // a bare name resolves in the runs folder
  await tick();
  const data = sent.find((m) => m.type === 'runData');
  assert.ok(data && data.type === 'runData');
  assert.deepEqual(data.scalars.map((p) => p.step), [10]);
  assert.deepEqual(data.episodes, [{ step: 80, value: 9 }]);
  assert.deepEqual(data.epochs.map((e) => [e.epoch, e.epoch_time_s]), [[1, 2]]);
  assert.equal(session.starts[0]!.opts.resume, old);
  assert.deepEqual(parent, [{ type: 'runDir', runDir: old }]);
  assert.ok(sent.indexOf(data) < sent.findIndex((m) => m.type === 'state' && m.runDir === old));
  await host.shutdown();
});

test('opening a folder that is not a run answers an error naming it; malformed commands are answered too', async () => {
  const session = new FakeSession();
  const runs = mkdtempSync(join(tmpdir(), 'dqn-host-runs-'));
  mkdirSync(join(runs, 'nope'));
  const host = new TrainerHost(session, { runsDir: runs });
  const { port, sent, send } = fakePort();
  host.attach(port);
  send({ type: 'openRun', runDir: join(runs, 'nope') });
  send({ type: 'launch' });
  send('start');
  await tick();
  const errors = sent.filter((m) => m.type === 'error');
  assert.equal(errors.length, 3);
  assert.match(errors[0]!.type === 'error' ? errors[0]!.message : '', /\/nope is not a run directory/);
  assert.equal(errors[1]!.type === 'error' && errors[1]!.command, 'launch');
  assert.equal(errors[2]!.type === 'error' && errors[2]!.command, 'unknown');
});

test('shutdown stops the live run and sends what was pending', async () => {
  const { session, host, sent } = await startedHost();
  session.starts[0]!.cb.onScalars?.([{ step: 3, wall_s: 0.3, values: { 'losses/td_loss': 1 } }]);
  await host.shutdown();
  assert.equal(session.starts[0]!.stopCalls, 1);
  const frame = sent.find((m) => m.type === 'frame');
  assert.ok(frame && frame.type === 'frame' && frame.steps?.to === 3 && frame.series['losses/td_loss']!.last === 1);
  const last = sent.filter((m) => m.type === 'state').at(-1);
  assert.ok(last?.type === 'state' && last.state === 'idle');
});

test('a renderer that connects mid-run gets the run so far (metrics file + unflushed records, system samples too) before later frames, nothing twice', async () => {
  const session = new FakeSession();
  const host = new TrainerHost(session, { runsDir: '/runs', framePeriodMs: 60_000 });
  const first = fakePort();
  host.attach(first.port);
  first.send({ type: 'start', config: cartpole });
  await tick();
  const cb = session.starts[0]!.cb;
  const pt = (step: number, loss: number) => ({ step, wall_s: step / 10, values: { 'losses/td_loss': loss } });
  const epoch1 = { epoch: 1, step: 50, env_steps: 400, epoch_time_s: 1.5, steps_per_s: 33.3, eval_mean_return: 20, eval_episodes: 10, eval_metrics: {} };
  const sys = (step: number, stepsPerSec: number) => ({
    step, env_steps: 8 * step, wall_s: step / 10, stepsPerSec, envStepsPerSec: 8 * stepsPerSec, processCpuPercent: 95, hostCpuPercent: 50, rssBytes: 2e8,
    gpu: { available: false, reason: 'NVML not found' },
  });
  cb.onScalars?.([pt(10, 1), pt(50, 0.9)]);
  cb.onEpisodes?.([{ step: 300, value: 14 }]);
  cb.onSystem?.(sys(40, 400));
  // The session flushes metrics.jsonl (every few seconds and at the epoch boundary), says so, then reports the epoch.
  session.metrics.set('/runs/run-1', [
    { type: 'scalars', ...pt(10, 1) },
    { type: 'episode', step: 300, value: 14 },
    { type: 'system', ...sys(40, 400) },
    { type: 'scalars', ...pt(50, 0.9) },
    { type: 'epoch', ...epoch1 },
  ]);
  cb.onFlushed?.();
  cb.onEpoch?.(epoch1);
  cb.onScalars?.([pt(60, 0.8)]);
  host.flush(); // the first renderer has seen step 60 in a frame; it is not in the file yet
  cb.onScalars?.([pt(70, 0.7)]);
  cb.onSystem?.(sys(70, 300)); // not in the file yet either
  cb.onEpisodes?.([{ step: 520, value: 31 }]); // pending, not sent yet

  const late = fakePort();
  host.attach(late.port);
  late.send({ type: 'hello' });
  await tick();
  const i = late.sent.findIndex((m) => m.type === 'liveHistory');
  const h = late.sent[i];
  assert.ok(h && h.type === 'liveHistory', 'the late renderer gets the history');
  assert.equal(h.runDir, '/runs/run-1');
  assert.deepEqual(h.scalars.map((p) => [p.step, p.values['losses/td_loss']]), [[10, 1], [50, 0.9], [60, 0.8], [70, 0.7]]);
  assert.deepEqual(h.episodes, [{ step: 300, value: 14 }, { step: 520, value: 31 }]);
  assert.deepEqual(h.epochs.map((e) => e.epoch), [1]);
  assert.deepEqual(h.system?.map((x) => [x.step, x.stepsPerSec]), [[40, 400], [70, 300]], 'the system samples of the file and the unflushed one');
  assert.equal(h.compactedBelow, undefined);
  assert.ok(late.sent.findIndex((m) => m.type === 'state' && m.runDir === '/runs/run-1') < i, 'the state (with the run folder) comes first');
  assert.equal(late.sent.slice(0, i).filter((m) => m.type === 'frame').length, 0, 'no frame before the history');
  // The first renderer got the pending records as a frame, not the history.
  assert.equal(first.sent.filter((m) => m.type === 'liveHistory').length, 0);
  const stepsOf = (m: HostMessage) => (m.type === 'frame' && m.steps ? [m.steps.from, m.steps.to] : []);
  assert.deepEqual(first.sent.flatMap(stepsOf), [10, 60, 70, 70]);

  cb.onScalars?.([pt(80, 0.6)]);
  host.flush();
  const after = late.sent.slice(i + 1).flatMap(stepsOf);
  assert.deepEqual(after, [80, 80], 'later frames hold only records newer than the history');
  await host.shutdown();
});

test('the history of a long run is bounded to historyMaxPoints', async () => {
  const { session, host, sent, send } = await startedHost({ historyMaxPoints: 10 });
  session.starts[0]!.cb.onScalars?.(Array.from({ length: 40 }, (_, k) => ({ step: k + 1, wall_s: k, values: { 'losses/td_loss': k } })));
  send({ type: 'hello' });
  await tick();
  const h = sent.find((m) => m.type === 'liveHistory');
  assert.ok(h && h.type === 'liveHistory');
  // 40 points, max 10: the newest 5 stay (steps 36..40); the 35 older ones make floor((10 - 5) / 3)
  // = 1 bucket -> 3 points: min 0 at its first step (1), max 34 at its middle (18), last 34 at step 35.
  assert.deepEqual(h.scalars.map((p) => [p.step, p.values['losses/td_loss']]), [[1, 0], [18, 34], [35, 34], [36, 35], [37, 36], [38, 37], [39, 38], [40, 39]]);
  assert.equal(h.compactedBelow, 36);
  // A past run opened from the history is bounded the same way (its episodes too).
  const past = mkdtempSync(join(tmpdir(), 'dqn-host-past-'));
  mkdirSync(join(past, 'old'));
  session.configs.set(join(past, 'old'), parseRunConfig(cartpole));
  session.metrics.set(join(past, 'old'), Array.from({ length: 40 }, (_, k) => ({ type: 'episode' as const, step: 10 * (k + 1), value: k })));
  const h2 = new TrainerHost(session, { runsDir: past, framePeriodMs: 60_000, historyMaxPoints: 10 });
  const p2 = fakePort();
  h2.attach(p2.port);
  p2.send({ type: 'openRun', runDir: 'old' });
  await tick();
  const data = p2.sent.find((m) => m.type === 'runData');
  assert.ok(data && data.type === 'runData');
  assert.deepEqual(data.episodes.map((e) => e.step), [10, 180, 350, 360, 370, 380, 390, 400]);
  await host.shutdown();
});

test('openRun and resume accept only folders of the runs folder: no other path, no .., no hidden name, no symlink out', async () => {
  const session = new FakeSession();
  const runs = mkdtempSync(join(tmpdir(), 'dqn-host-runs-'));
  const elsewhere = mkdtempSync(join(tmpdir(), 'dqn-host-elsewhere-'));
  for (const dir of [join(runs, '.hidden'), join(runs, 'good')]) mkdirSync(dir);
  symlinkSync(elsewhere, join(runs, 'escape'));
  const config = parseRunConfig(cartpole);
  for (const dir of [elsewhere, join(runs, '.hidden'), join(runs, 'escape'), join(runs, 'good')]) session.configs.set(dir, config);
  const host = new TrainerHost(session, { runsDir: runs, framePeriodMs: 60_000 });
  const { port, sent, send } = fakePort();
  host.attach(port);
  const refusals: [string, string][] = [
    [elsewhere, `run '${elsewhere}' is not inside the runs folder ${runs}`],
    ['..', `run '..' is not inside the runs folder ${runs}`],
    [join(runs, 'good', '..', '..'), `run '${join(runs, 'good', '..', '..')}' is not inside the runs folder ${runs}`],
    [join(runs, 'good', 'checkpoints'), `run '${join(runs, 'good', 'checkpoints')}' is not inside the runs folder ${runs}`],
    ['.hidden', "run '.hidden' must not start with '.' (no hidden files, no '..')"],
    ['escape', `run 'escape' is not inside the runs folder ${runs}`],
    ['missing', `run 'missing' does not exist in the runs folder ${runs}`],
  ];
  for (const [runDir] of refusals) {
    send({ type: 'openRun', runDir });
    send({ type: 'resume', runDir });
  }
  send({ type: 'openRun', runDir: join(runs, 'good') });
  await tick();
  const errors = sent.flatMap((m) => (m.type === 'error' ? [`${m.command}: ${m.message}`] : []));
  assert.deepEqual(errors, refusals.flatMap(([, why]) => [`openRun: ${why}`, `resume: ${why}`]));
  assert.equal(session.starts.length, 0);
  const data = sent.find((m) => m.type === 'runData');
  assert.equal(data?.type === 'runData' && data.runDir, join(runs, 'good'));
});

test('a start from a client limits env.data to the bundled data unless the front end names more folders', async () => {
  const session = new FakeSession();
  const host = new TrainerHost(session, { runsDir: '/runs', framePeriodMs: 60_000 });
  const { port, send } = fakePort();
  host.attach(port);
  send({ type: 'start', config: cartpole });
  await tick();
  assert.deepEqual(session.starts[0]!.opts.dataDirs, [BUNDLED_DATA_DIR]);
  await host.shutdown();
  const wider = new TrainerHost(session, { runsDir: '/runs', framePeriodMs: 60_000, dataDirs: [BUNDLED_DATA_DIR, '/srv/data'] });
  const other = fakePort();
  wider.attach(other.port);
  other.send({ type: 'start', config: cartpole });
  await tick();
  assert.deepEqual(session.starts[1]!.opts.dataDirs, [BUNDLED_DATA_DIR, '/srv/data']);
  await wider.shutdown();
});

test('a CSV export holds every raw record of the live run (file + unflushed) and is answered to the port that asked', async () => {
  const { session, host, sent, send } = await startedHost();
  const cb = session.starts[0]!.cb;
  session.metrics.set('/runs/run-1', [
    { type: 'scalars', step: 1, wall_s: 0.1, values: { 'losses/td_loss': 0.5 } },
    { type: 'episode', step: 30, value: 9 },
  ]);
  cb.onFlushed?.();
  cb.onScalars?.([{ step: 2, wall_s: 0.2, values: { 'losses/td_loss': 'NaN' } }, { step: 3, wall_s: 0.3, values: { 'losses/td_loss': 0.25 } }]);
  cb.onEpisodes?.([{ step: 70, value: 11 }]);
  send({ type: 'exportCsv', id: 7, runDir: '/runs/run-1', series: ['losses/td_loss', 'charts/episodic_return'] });
  await tick();
  const csv = sent.find((m) => m.type === 'csv');
  assert.ok(csv && csv.type === 'csv');
  assert.equal(csv.id, 7);
  assert.equal(csv.text, 'series,step,value\nlosses/td_loss,1,0.5\nlosses/td_loss,2,NaN\nlosses/td_loss,3,0.25\ncharts/episodic_return,30,9\ncharts/episodic_return,70,11\n');
  assert.equal(csv.rows, 5);
  send({ type: 'exportCsv', id: 8, runDir: '../etc', series: ['losses/td_loss'] });
  await tick();
  const err = sent.find((m) => m.type === 'error' && m.command === 'exportCsv');
  assert.ok(err && err.type === 'error', 'a run folder outside the runs folder is refused');
  await host.shutdown();
});

test('Stop or a shutdown while the trainer is being built stops the run as soon as it exists', async () => {
  /** Builds take until the test opens the gate (a large replay buffer takes seconds). */
  class GatedSession extends FakeSession {
    gates: (() => void)[] = [];
    override async startRun(opts: StartOptions, cb: RunCallbacks): Promise<RunHandle> {
      await new Promise<void>((r) => this.gates.push(r));
      return super.startRun(opts, cb);
    }
  }
  const session = new GatedSession();
  const host = new TrainerHost(session, { runsDir: '/runs', framePeriodMs: 60_000 });
  const { port, sent, send } = fakePort();
  host.attach(port);
  send({ type: 'start', config: cartpole });
  await tick();
  send({ type: 'stop' });
  await tick();
  assert.equal(session.starts.length, 0, 'still building');
  session.gates[0]!();
  for (let i = 0; i < 100 && session.starts[0]?.stopCalls !== 1; i++) await tick();
  assert.equal(session.starts[0]!.stopCalls, 1, 'the Stop given during the build stops the run');
  assert.equal(sent.filter((m) => m.type === 'state').at(-1)?.state, 'idle');

  send({ type: 'start', config: cartpole });
  for (let i = 0; i < 100 && session.gates.length < 2; i++) await tick();
  let shutDown = false;
  const shutdown = host.shutdown().then(() => (shutDown = true));
  await tick();
  assert.equal(shutDown, false, 'shutdown waits for the build');
  session.gates[1]!();
  await shutdown;
  assert.equal(session.starts[1]!.stopCalls >= 1, true, 'and then stops the run (its checkpoint kept) before the host exits');
});

test('a past run is renamed or moved to the trash (never the live one), and every page gets the new list', async () => {
  const runs = mkdtempSync(join(tmpdir(), 'dqn-host-rename-'));
  const makeRun = (name: string) => {
    mkdirSync(join(runs, name));
    writeFileSync(join(runs, name, 'config.json'), JSON.stringify(parseRunConfig(cartpole)));
  };
  for (const name of ['old', 'other', 'gone']) makeRun(name);
  const session = new FakeSession();
  const listed: string[][] = [];
  session.listRuns = async () => {
    const names = readdirSync(runs).filter((n) => !n.startsWith('.')).sort();
    listed.push(names);
    return names.map((name) => ({ runDir: join(runs, name), name, createdMs: 0, env: 'cartpole', epochs: 0, lastStep: 0 }));
  };
  const host = new TrainerHost(session, { runsDir: runs, framePeriodMs: 60_000 });
  const { port, sent, send } = fakePort();
  host.attach(port);
  send({ type: 'renameRun', runDir: 'old', name: 'baseline-32x32' });
  await tick();
  assert.deepEqual(listed.at(-1), ['baseline-32x32', 'gone', 'other']);
  send({ type: 'renameRun', runDir: 'other', name: 'gone' });
  send({ type: 'renameRun', runDir: 'other', name: '../escape' });
  send({ type: 'deleteRun', runDir: '../..' });
  await tick();
  const errors = sent.filter((m) => m.type === 'error').map((m) => (m.type === 'error' ? m.message : ''));
  assert.match(errors[0]!, /a run named 'gone' already exists/);
  assert.match(errors[1]!, /new run name '\.\.\/escape'/);
  assert.match(errors[2]!, /is not inside the runs folder/);
  send({ type: 'deleteRun', runDir: 'gone' });
  await tick();
  assert.deepEqual(readdirSync(join(runs, '.trash')), ['gone'], 'the deleted run waits in the trash');
  assert.deepEqual(listed.at(-1), ['baseline-32x32', 'other']);
  makeRun('gone');
  send({ type: 'deleteRun', runDir: 'gone' });
  await tick();
  assert.equal(readdirSync(join(runs, '.trash')).length, 2, 'a second run of the same name gets its own place in the trash');
  // The live run cannot be renamed or deleted.
  session.configs.set(join(runs, 'other'), parseRunConfig(cartpole));
  send({ type: 'resume', runDir: 'other' });
  await tick();
  assert.equal(session.starts.length, 1);
  send({ type: 'deleteRun', runDir: 'other' });
  await tick();
  const refused = sent.filter((m) => m.type === 'error').at(-1);
  assert.ok(refused?.type === 'error' && /is the live run: stop it first/.test(refused.message), JSON.stringify(refused));
  assert.ok(readdirSync(runs).includes('other'), 'the live run stays');
  // Nor can a run that another process trains (its live.lock names a live process: here our parent).
  writeFileSync(join(runs, 'baseline-32x32', LOCK_FILE), JSON.stringify({ pid: process.ppid, hostname: hostname(), started: '2026-12-01T10:00:00.000Z' }));
  send({ type: 'renameRun', runDir: 'baseline-32x32', name: 'mine-now' });
  await tick();
  const held = sent.filter((m) => m.type === 'error').at(-1);
  assert.ok(held?.type === 'error' && held.message.includes(`is being trained by process ${process.ppid} (since 2026-12-01T10:00:00.000Z): stop that run first`), JSON.stringify(held));
  assert.ok(readdirSync(runs).includes('baseline-32x32'), 'the other process keeps its run folder');
  await host.shutdown();
});

test('openRun of a run folder with system records sends them in runData, thinned evenly to historyMaxPoints with the last kept', async () => {
  const runs = mkdtempSync(join(tmpdir(), 'dqn-host-runs-'));
  const dir = createRunDir(runs, parseRunConfig({ ...cartpole, name: 'sys' }));
  const w = new MetricsWriter(join(dir, 'metrics.jsonl'));
  const longReason = `NVML not found: ${'x'.repeat(2000)}`;
  for (let k = 0; k < 25; k++) {
    const gpu = k === 0 ? { available: false, reason: longReason } : { available: true, reason: '', utilPercent: k, memUsedBytes: k * 2 ** 20, memTotalBytes: 2 ** 30 };
    w.add({ type: 'system', step: 100 * (k + 1), env_steps: 400 * (k + 1), wall_s: k + 1, stepsPerSec: 100 + k, envStepsPerSec: 400, processCpuPercent: 90, hostCpuPercent: 45, rssBytes: 3e8, gpu });
    w.add({ type: 'scalars', step: 100 * (k + 1), wall_s: k + 1, values: { 'losses/td_loss': 1 / (k + 1) } });
  }
  w.flush();
  appendFileSync(join(dir, 'metrics.jsonl'), '{"type":"system","step":-1}\n'); // malformed: skipped, not sent
  // The real run-folder readers behind the fake session.
  const session = new FakeSession();
  session.readRunConfig = readRunConfig;
  session.metricsChunks = metricsChunks;
  const host = new TrainerHost(session, { runsDir: runs, framePeriodMs: 60_000, historyMaxPoints: 10 });
  const { port, sent, send } = fakePort(); // every message checked against HostMessageSchema
  host.attach(port);
  send({ type: 'openRun', runDir: dir });
  await until(() => sent.some((m) => m.type === 'runData' || m.type === 'error'), 'the answer (files are read off the event loop)');
  const data = sent.find((m) => m.type === 'runData');
  assert.ok(data && data.type === 'runData', JSON.stringify(sent.filter((m) => m.type === 'error')));
  // 25 samples, at most 10: indices round(i * 24 / 9) = 0, 3, 5, 8, 11, 13, 16, 19, 21, 24.
  assert.deepEqual(data.system!.map((s) => s.step), [100, 400, 600, 900, 1200, 1400, 1700, 2000, 2200, 2500]);
  assert.deepEqual(data.system!.map((s) => s.stepsPerSec), [100, 103, 105, 108, 111, 113, 116, 119, 121, 124]);
  assert.deepEqual(data.system!.at(-1)!.gpu, { available: true, reason: '', utilPercent: 24, memUsedBytes: 24 * 2 ** 20, memTotalBytes: 2 ** 30 });
  assert.equal(data.system![0]!.gpu.reason, longReason.slice(0, 500), 'a long reason is cut to MAX_GPU_REASON_CHARS');
  assert.ok(data.scalars.length <= 10 && data.scalars.at(-1)!.step === 2500, 'the scalars are bounded as before');
  // A run recorded before system records were kept: an empty list.
  const old = createRunDir(runs, parseRunConfig({ ...cartpole, name: 'old' }));
  appendFileSync(join(old, 'metrics.jsonl'), `${JSON.stringify({ type: 'scalars', step: 1, wall_s: 0, values: {} })}\n`);
  send({ type: 'openRun', runDir: old });
  await until(() => sent.filter((m) => m.type === 'runData').length === 2, 'the second runData');
  const oldData = [...sent].reverse().find((m) => m.type === 'runData');
  assert.ok(oldData && oldData.type === 'runData' && oldData.runDir === old);
  assert.deepEqual(oldData.system, []);
});

test('a burst of listRuns from one connection makes one listing; the heartbeat is answered before it, and a large run is read in chunks behind it', async () => {
  const runs = mkdtempSync(join(tmpdir(), 'dqn-host-burst-'));
  const big = createRunDir(runs, parseRunConfig({ ...cartpole, name: 'big' }));
  const lines = Array.from({ length: 100_000 }, (_, i) => JSON.stringify({ type: 'scalars', step: i, wall_s: i / 1000, values: { 'losses/td_loss': 1 / (i + 1) } }));
  writeFileSync(join(big, 'metrics.jsonl'), `${lines.join('\n')}\n`);
  const index = new RunIndex();
  let listings = 0;
  const session = new FakeSession();
  session.readRunConfig = readRunConfig;
  session.metricsChunks = metricsChunks;
  session.listRuns = (dir, fresh) => (listings++, index.list(dir, fresh));
  const host = new TrainerHost(session, { runsDir: runs, framePeriodMs: 60_000 });
  // Browser mode's channel: every client's commands and the supervisor's heartbeats, in arrival order.
  const channel = new EventEmitter();
  const out: HostToParent[] = [];
  serveOverFork(host, Object.assign(channel, { send: (m: unknown) => (out.push(m as HostToParent), true) }), () => undefined);
  const command = (c: unknown) => channel.emit('message', { type: 'command', command: c });
  for (let i = 0; i < 300; i++) command({ type: 'listRuns' });
  command({ type: 'openRun', runDir: big });
  command({ type: 'exportCsv', id: 1, runDir: big, series: ['losses/td_loss'] });
  channel.emit('message', { type: 'heartbeat', id: 5 });
  const messages = () => out.flatMap((m) => (m.type === 'message' ? [m.message as HostMessage] : []));
  const types = () => out.map((m) => (m.type === 'message' ? (m.message as HostMessage).type : m.type));
  assert.deepEqual(types(), ['heartbeat'], 'the heartbeat is answered at once, before any listing or read');
  await until(() => (['runs', 'runData', 'csv'] as const).every((t) => types().includes(t)), () => `the answers; got ${types().join(', ')}`);
  assert.deepEqual(types().filter((t) => t === 'runs'), ['runs'], 'one answer for the burst');
  assert.equal(listings, 1);
  const csv = messages().find((m) => m.type === 'csv');
  assert.ok(csv?.type === 'csv' && csv.rows === 100_000);
  command({ type: 'listRuns' });
  await until(() => types().filter((t) => t === 'runs').length === 2, 'a later listRuns answered again');
});

test("while a late renderer's history is read, frames for it wait behind it, and a flush of the file meanwhile loses and doubles nothing", async () => {
  const { session, host } = await startedHost();
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  // The file as it is when the read is asked for (as metricsChunks does), delivered once the gate opens.
  session.metricsChunks = (runDir: string) => {
    const atCall = [...(session.metrics.get(runDir) ?? [])];
    return (async function* () {
      await gate;
      yield { records: atCall };
    })();
  };
  const cb = session.starts[0]!.cb;
  const pt = (step: number) => ({ step, wall_s: step / 10, values: { 'losses/td_loss': 1 / step } });
  cb.onScalars?.([pt(10)]);
  session.metrics.set('/runs/run-1', [{ type: 'scalars', ...pt(10) }]);
  cb.onFlushed?.();
  cb.onScalars?.([pt(20)]); // reported, not yet in the file
  const late = fakePort();
  host.attach(late.port);
  late.send({ type: 'hello' });
  await tick();
  late.send({ type: 'hello' }); // a second hello while the history is on its way gets that one
  await tick();
  // While the history is read: the session flushes step 20 to the file and reports step 30, which a frame carries.
  session.metrics.set('/runs/run-1', [{ type: 'scalars', ...pt(10) }, { type: 'scalars', ...pt(20) }]);
  cb.onFlushed?.();
  cb.onScalars?.([pt(30)]);
  host.flush();
  assert.deepEqual(late.sent.map((m) => m.type), ['state'], 'the second answer and the frame wait for the history');
  release();
  await until(() => late.sent.some((m) => m.type === 'frame'), 'the history and what waited');
  assert.deepEqual(late.sent.map((m) => m.type), ['state', 'liveHistory', 'state', 'frame'], 'one history for both hellos, then the rest in order');
  const [, h, , next] = late.sent;
  assert.ok(h?.type === 'liveHistory');
  assert.deepEqual(h.scalars.map((p) => p.step), [10, 20], 'the file as it was asked for plus what was reported then');
  assert.ok(next?.type === 'frame');
  assert.deepEqual(next.steps, { from: 30, to: 30 }, 'then the frame, holding only newer records');
  await host.shutdown();
});
