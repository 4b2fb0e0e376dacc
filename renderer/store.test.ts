import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRunConfig } from '../common/config.ts';
import { FrameBuilder } from '../common/frame-builder.ts';
import { HostMessageSchema, SYSTEM_SERIES, systemSeriesPoints, type HostMessage, type SystemSample } from '../common/protocol.ts';
import type { EpochSummary } from '../common/run.ts';
import { createDashboard, EPOCH_TIME_SERIES, EPISODE_SERIES } from './store.ts';

const config = parseRunConfig({ env: { kind: 'cartpole' }, schedule: { epochs: 2, steps_per_epoch: 500 } });
/** A frame as the host builds it from scalar reads [step, wall_s, loss] and the other records. */
const frame = (
  runDir: string,
  points: [number, number, number | 'NaN'][],
  extra: { episodes?: { step: number; value: number }[]; epochs?: EpochSummary[] } = {},
): HostMessage => {
  const b = new FrameBuilder(runDir);
  b.addScalars(points.map(([step, wall_s, loss]) => ({ step, wall_s, values: { 'losses/td_loss': loss } })));
  b.addEpisodes(extra.episodes ?? []);
  for (const e of extra.epochs ?? []) b.addEpoch(e);
  return HostMessageSchema.parse(JSON.parse(JSON.stringify(b.take())));
};

test('frames fill the live series; steps/s and ETA come from the points', () => {
  const d = createDashboard();
  d.apply({ type: 'state', state: 'running', runDir: '/runs/a', config });
  d.apply(frame('/runs/a', [[0, 0, 1]]), 800);
  d.apply(frame('/runs/a', [[100, 1, 0.5]]), 1000);
  d.apply(frame('/runs/a', [[200, 2, 'NaN']], { episodes: [{ step: 150, value: 21 }] }), 1200);
  const loss = d.live.get('losses/td_loss')!;
  assert.deepEqual(Array.from(loss.x.subarray(0, loss.length)), [0, 100, 200]);
  assert.ok(Number.isNaN(loss.y[2]!), 'a NaN on the wire is a NaN in the series');
  assert.equal(d.live.get(EPISODE_SERIES)!.y[0], 21);
  const p = d.store.getState().progress;
  assert.equal(p.stepsPerSec, 100); // (200 - 0) steps over (2 - 0) s
  assert.equal(p.etaSec, 8); // (2 * 500 - 200) / 100
  assert.equal(p.lastUpdateMs, 1200);
  assert.equal(d.store.getState().version, 4);
});

test('an epoch summary adds an epoch-time point; a new run clears the live series', () => {
  const d = createDashboard();
  d.apply({ type: 'state', state: 'running', runDir: '/runs/a', config });
  d.apply(frame('/runs/a', [[10, 0.1, 1]], { epochs: [{ epoch: 1, step: 500, env_steps: 4000, epoch_time_s: 3.5, steps_per_s: 142, eval_mean_return: 30, eval_episodes: 10, eval_metrics: {} }] }));
  assert.deepEqual([d.live.get(EPOCH_TIME_SERIES)!.x[0], d.live.get(EPOCH_TIME_SERIES)!.y[0]], [1, 3.5]);
  assert.equal(d.store.getState().progress.epoch, 1);
  d.apply({ type: 'state', state: 'idle', runDir: '/runs/a' });
  d.apply({ type: 'state', state: 'running', runDir: '/runs/b', config });
  assert.equal(d.live.get('losses/td_loss'), undefined);
  assert.equal(d.store.getState().lastEpoch, undefined);
  d.apply(frame('/runs/a', [[20, 0.2, 1]]));
  assert.equal(d.live.get('losses/td_loss'), undefined, 'a late frame of the old run is dropped');
});

test('a resumed run keeps its history from disk as the start of the live series', () => {
  const d = createDashboard();
  d.expectResume('/runs/old');
  d.apply({ type: 'runData', runDir: '/runs/old', config, scalars: [{ step: 5, wall_s: 1, values: { 'losses/td_loss': 2 } }], episodes: [], epochs: [] });
  d.apply({ type: 'state', state: 'running', runDir: '/runs/old', config });
  d.apply(frame('/runs/old', [[6, 1.1, 1.5]]));
  const loss = d.live.get('losses/td_loss')!;
  assert.deepEqual(Array.from(loss.y.subarray(0, loss.length)), [2, 1.5]);
  assert.equal(d.store.getState().view.kind, 'live');
});

test('opening a past run shows it without touching the live run, until back to live', () => {
  const d = createDashboard();
  d.apply({ type: 'state', state: 'running', runDir: '/runs/live', config });
  d.apply(frame('/runs/live', [[1, 0.1, 9]]));
  d.apply({ type: 'runData', runDir: '/runs/past', config, scalars: [{ step: 7, wall_s: 1, values: { 'losses/td_loss': 4 } }], episodes: [], epochs: [] });
  assert.equal(d.store.getState().view.kind, 'history');
  assert.equal(d.shown().get('losses/td_loss')!.y[0], 4);
  assert.equal(d.live.get('losses/td_loss')!.y[0], 9);
  d.showLive();
  assert.equal(d.shown().get('losses/td_loss')!.y[0], 9);
});

test('a run that starts while a past run is open takes the charts: they draw the new run, not the past one (issue 26 item 8)', () => {
  const d = createDashboard();
  d.apply({ type: 'state', state: 'idle', runDir: '/runs/old', config });
  d.apply({ type: 'runData', runDir: '/runs/past', config, scalars: [{ step: 7, wall_s: 1, values: { 'losses/td_loss': 4 } }], episodes: [], epochs: [] });
  assert.equal(d.store.getState().view.kind, 'history');
  d.apply({ type: 'state', state: 'running', runDir: '/runs/new', config });
  d.apply(frame('/runs/new', [[3, 0.1, 0.25]]));
  assert.equal(d.store.getState().view.kind, 'live');
  assert.equal(d.shown(), d.live);
  assert.deepEqual(Array.from(d.shown().get('losses/td_loss')!.y.subarray(0, 1)), [0.25]);
  // A state message of the same run (stopping, idle) leaves a past run opened meanwhile open.
  d.apply({ type: 'runData', runDir: '/runs/past', config, scalars: [{ step: 7, wall_s: 1, values: { 'losses/td_loss': 4 } }], episodes: [], epochs: [] });
  d.apply({ type: 'state', state: 'stopping', runDir: '/runs/new' });
  assert.equal(d.store.getState().view.kind, 'history');
  assert.equal(d.shown().get('losses/td_loss')!.y[0], 4);
});

test('the host\'s state on connecting is a snapshot: a past run a ?run= link opened before it arrived stays shown; a run that starts later takes the charts', () => {
  const d = createDashboard();
  d.setConnection('open');
  d.apply({ type: 'runData', runDir: '/runs/past', config, scalars: [{ step: 7, wall_s: 1, values: { 'losses/td_loss': 4 } }], episodes: [], epochs: [] });
  d.apply({ type: 'state', state: 'idle', runDir: '/runs/last', config });
  assert.equal(d.store.getState().view.kind, 'history');
  assert.equal(d.shown().get('losses/td_loss')!.y[0], 4);
  assert.equal(d.store.getState().runDir, '/runs/last', 'the snapshot still names the host\'s run');
  d.apply({ type: 'state', state: 'running', runDir: '/runs/new', config });
  assert.equal(d.store.getState().view.kind, 'live');
  // After a reconnect the host's snapshot is again only a snapshot.
  d.apply({ type: 'runData', runDir: '/runs/past', config, scalars: [], episodes: [], epochs: [] });
  d.setConnection('closed');
  d.setConnection('open');
  d.apply({ type: 'state', state: 'running', runDir: '/runs/other', config });
  assert.equal(d.store.getState().view.kind, 'history');
});

test('a host that dies mid-run halts the run with the exit reason; the new host is recorded', () => {
  const d = createDashboard();
  d.apply({ type: 'hostReady', pid: 41, restarts: 0 });
  d.apply({ type: 'state', state: 'running', runDir: '/runs/a', config });
  d.apply({ type: 'hostExit', pid: 41, reason: 'killed by SIGKILL', restarting: true });
  let s = d.store.getState();
  assert.equal(s.runState, 'halted');
  assert.equal(s.stateDetail, 'trainer host killed by SIGKILL');
  assert.deepEqual(s.host.lastExit, { pid: 41, reason: 'killed by SIGKILL', restarting: true });
  d.apply({ type: 'hostReady', pid: 42, restarts: 1 });
  d.apply({ type: 'error', command: 'start', message: 'config.optim.lr: Too small' });
  s = d.store.getState();
  assert.equal(s.host.pid, 42);
  assert.equal(s.host.restarts, 1);
  assert.equal(s.errors[0]!.message, 'config.optim.lr: Too small');
  d.apply({ type: 'state', state: 'running', runDir: '/runs/b', config });
  assert.equal(d.store.getState().host.lastExit, undefined, 'a new run clears the old exit notice');
});

test('changing the smoothing weight re-smooths every series', () => {
  const d = createDashboard();
  d.apply({ type: 'state', state: 'running', runDir: '/runs/a', config });
  d.apply(frame('/runs/a', [[1, 0.1, 1]]));
  d.apply(frame('/runs/a', [[2, 0.2, 3]]));
  d.setSmoothing(0);
  const loss = d.live.get('losses/td_loss')!;
  assert.deepEqual(Array.from(loss.smoothed.subarray(0, 2)), [1, 3]);
  d.setSmoothing(0.5);
  // w = 0.5: (0.5 * 1) / 0.5 = 1, then (0.5 * 0.5 + 0.5 * 3) / 0.75 = 2.333...
  assert.ok(Math.abs(loss.smoothed[1]! - 1.75 / 0.75) < 1e-12);
});

test('the live history sent after a reconnect replaces the live series; one for another run is ignored', () => {
  const d = createDashboard();
  d.apply({ type: 'state', state: 'running', runDir: '/runs/a', config });
  d.apply(frame('/runs/a', [[70, 7, 0.7]]));
  const epoch = { epoch: 1, step: 50, env_steps: 400, epoch_time_s: 1.5, steps_per_s: 33, eval_mean_return: 20, eval_episodes: 10, eval_metrics: {} };
  const scalars = [10, 50, 70].map((step) => ({ step, wall_s: step / 10, values: { 'losses/td_loss': step / 100 } }));
  d.apply({ type: 'liveHistory', runDir: '/runs/b', scalars: scalars.slice(0, 1), episodes: [], epochs: [] });
  assert.equal(d.live.get('losses/td_loss')!.length, 1, 'a history of a run we do not show changes nothing');
  d.apply({ type: 'liveHistory', runDir: '/runs/a', scalars, episodes: [{ step: 300, value: 14 }], epochs: [epoch] });
  d.apply(frame('/runs/a', [[80, 8, 0.6]]));
  const loss = d.live.get('losses/td_loss')!;
  assert.deepEqual(Array.from(loss.x.subarray(0, loss.length)), [10, 50, 70, 80], 'the earlier points are back, the step-70 point once');
  assert.deepEqual(Array.from(d.live.get(EPOCH_TIME_SERIES)!.y.subarray(0, 1)), [1.5]);
  assert.equal(d.live.get(EPISODE_SERIES)!.y[0], 14);
  assert.equal(d.store.getState().progress.epoch, 1);
  assert.equal(d.store.getState().progress.step, 80);
});

test('a frame summarising thousands of records adds at most four points: min, max, last and a NaN marker', () => {
  const d = createDashboard();
  d.apply({ type: 'state', state: 'running', runDir: '/runs/a', config });
  const b = new FrameBuilder('/runs/a');
  const losses: number[] = [];
  for (let step = 1; step <= 5000; step++) {
    const v = step === 1234 ? 50 : step === 4321 ? -7 : step === 3000 ? NaN : Math.sin(step);
    losses.push(v);
    b.addScalars([{ step, wall_s: step / 1000, values: { 'losses/td_loss': Number.isNaN(v) ? 'NaN' : v } }]);
  }
  const eps = Array.from({ length: 2000 }, (_, i) => ({ step: 10 * (i + 1), value: i % 7 }));
  b.addEpisodes(eps);
  const f = HostMessageSchema.parse(JSON.parse(JSON.stringify(b.take())));
  assert.ok(f.type === 'frame');
  assert.ok(JSON.stringify(f).length < 1000, `the frame is small (${JSON.stringify(f).length} bytes)`);
  d.apply(f, 1000);
  const loss = d.live.get('losses/td_loss')!;
  assert.deepEqual(Array.from(loss.x.subarray(0, loss.length)), [1234, 3000, 4321, 5000]);
  assert.deepEqual(Array.from(loss.y.subarray(0, loss.length)), [50, NaN, -7, Math.sin(5000)]);
  // The smoothed curve starts from the mean of the finite values, not from an extreme.
  const finite = losses.filter((v) => Number.isFinite(v));
  const mean = finite.reduce((a, v) => a + v, 0) / finite.length;
  assert.ok(Math.abs(loss.smoothed[0]! - mean) < 1e-9, `smoothed ${loss.smoothed[0]} = mean ${mean}`);
  assert.ok(Number.isNaN(loss.smoothed[1]!), 'the NaN marker stays a NaN');
  const ret = d.live.get(EPISODE_SERIES)!;
  assert.deepEqual(Array.from(ret.x.subarray(0, ret.length)), [10, 70, 20_000]);
  assert.deepEqual(Array.from(ret.y.subarray(0, ret.length)), [0, 6, 1999 % 7]);
  assert.equal(d.store.getState().progress.step, 5000);
  assert.deepEqual(d.stream, { frames: 1, lost: 0, lastSeq: 1 });
});

test('a gap in the frame sequence is counted as lost frames', () => {
  const d = createDashboard();
  d.apply({ type: 'state', state: 'running', runDir: '/runs/a', config });
  const b = new FrameBuilder('/runs/a');
  const next = (step: number) => {
    b.addScalars([{ step, wall_s: step, values: { 'losses/td_loss': 1 } }]);
    return b.take()!;
  };
  d.apply(next(1));
  next(2); // never delivered
  next(3); // never delivered
  d.apply(next(4));
  assert.deepEqual(d.stream, { frames: 2, lost: 2, lastSeq: 4 });
});

test('frames and epochs give the run its step <-> wall time <-> env step samples for the x-axis choice', () => {
  const d = createDashboard();
  d.apply({ type: 'state', state: 'running', runDir: '/runs/a', config });
  d.apply(frame('/runs/a', [[100, 1, 1]]));
  d.apply(frame('/runs/a', [[300, 2, 1]], { epochs: [{ epoch: 1, step: 300, env_steps: 2400, epoch_time_s: 2, steps_per_s: 150, eval_mean_return: 9, eval_episodes: 1, eval_metrics: {} }] }));
  const axis = d.live.axis;
  assert.equal(axis.convert('step', 'wall', 200), 1.5);
  assert.equal(axis.convert('env', 'step', 1200), 150, 'one epoch sample: proportional');
  assert.equal(d.store.getState().xAxis, 'step');
  d.setXAxis('wall');
  assert.equal(d.store.getState().xAxis, 'wall');
});

test('before the first epoch ends, system samples map env steps to steps: episodes are drawn at their gradient step (issue 26 item 10)', () => {
  const d = createDashboard();
  d.apply({ type: 'state', state: 'running', runDir: '/runs/a', config });
  const b = new FrameBuilder('/runs/a');
  const sample = (step: number, env_steps: number): SystemSample => ({
    step, env_steps, wall_s: step / 100, stepsPerSec: 100, envStepsPerSec: 400, processCpuPercent: 90, hostCpuPercent: 50, rssBytes: 1, gpu: { available: false, reason: 'none' },
  });
  b.addScalars([{ step: 200, wall_s: 2, values: { 'losses/td_loss': 1 } }]);
  b.addSystem(sample(200, 1800));
  b.addEpisodes([{ step: 1700, value: 30 }]);
  d.apply(HostMessageSchema.parse(JSON.parse(JSON.stringify(b.take()))));
  const axis = d.live.axis;
  assert.equal(axis.convert('env', 'step', 1800), 200, 'the sample itself');
  assert.equal(axis.convert('env', 'step', 900), 100, 'between the run start and the sample');
  // The same run read back (a reload, or opened as a past run): its system samples give the same map.
  d.apply({ type: 'liveHistory', runDir: '/runs/a', scalars: [{ step: 200, wall_s: 2, values: { 'losses/td_loss': 1 } }], episodes: [{ step: 1700, value: 30 }], epochs: [], system: [sample(200, 1800)] });
  assert.equal(d.live.axis.convert('env', 'step', 900), 100);
});

test('past runs picked as overlays get their own books and colours, without replacing the charts', () => {
  const d = createDashboard();
  d.apply({ type: 'state', state: 'idle', runDir: '/runs/live', config });
  d.apply(frame('/runs/live', [[1, 0.1, 9]]));
  d.addOverlay('/runs/a');
  d.addOverlay('/runs/b');
  const data = (runDir: string, loss: number): HostMessage => ({ type: 'runData', runDir, config, scalars: [{ step: 5, wall_s: 1, values: { 'losses/td_loss': loss } }], episodes: [], epochs: [] });
  d.apply(data('/runs/a', 4));
  d.apply(data('/runs/b', 6));
  assert.equal(d.store.getState().view.kind, 'live', 'the charts still show the live run');
  assert.deepEqual(d.store.getState().overlayDirs, ['/runs/a', '/runs/b']);
  const [a, b] = d.overlays();
  assert.deepEqual([a!.name, a!.book.get('losses/td_loss')!.y[0], b!.book.get('losses/td_loss')!.y[0]], ['a', 4, 6]);
  assert.notEqual(a!.color, b!.color);
  d.removeOverlay('/runs/a');
  assert.deepEqual(d.store.getState().overlayDirs, ['/runs/b']);
  d.apply(data('/runs/c', 1));
  assert.equal(d.store.getState().view.kind, 'history', 'a run not asked for as an overlay opens as before');
});

test('a page that just connected ignores frames until it knows the live run; the history then brings their records', () => {
  const d = createDashboard();
  d.apply(frame('/runs/a', [[60, 6, 0.6]]));
  assert.equal(d.live.get('losses/td_loss'), undefined, 'no run known yet: the frame is dropped');
  d.apply({ type: 'state', state: 'running', runDir: '/runs/a', config });
  const scalars = [10, 60].map((step) => ({ step, wall_s: step / 10, values: { 'losses/td_loss': step / 100 } }));
  d.apply({ type: 'liveHistory', runDir: '/runs/a', scalars, episodes: [], epochs: [] });
  d.apply(frame('/runs/a', [[70, 7, 0.7]]));
  const loss = d.live.get('losses/td_loss')!;
  assert.deepEqual(Array.from(loss.x.subarray(0, loss.length)), [10, 60, 70]);
});

test("a past run's system samples fill the system series (names as in live frames) and its GPU status, not the live one", () => {
  const d = createDashboard();
  d.apply({ type: 'state', state: 'running', runDir: '/runs/live', config });
  const live = new FrameBuilder('/runs/live');
  const noGpu = { available: false, reason: 'NVML not found' };
  const at = (step: number, stepsPerSec: number, gpu: SystemSample['gpu']): SystemSample => ({
    step, env_steps: 4 * step, wall_s: step / 100, stepsPerSec, envStepsPerSec: 4 * stepsPerSec, processCpuPercent: 95, hostCpuPercent: 40, rssBytes: 512 * 1024 * 1024, gpu,
  });
  live.addSystem(at(10, 7, noGpu));
  d.apply(HostMessageSchema.parse(JSON.parse(JSON.stringify(live.take()))));
  const gpu = { available: true, reason: '', utilPercent: 88, memUsedBytes: 3 * 1024 ** 3, memTotalBytes: 80 * 1024 ** 3, temperatureC: 64, powerW: 410 };
  const system = [at(100, 1200, gpu), at(200, 1350, { ...gpu, utilPercent: 91 })];
  d.apply(HostMessageSchema.parse({ type: 'runData', runDir: '/runs/past', config, scalars: [], episodes: [], epochs: [], system }));
  const view = d.store.getState().view;
  assert.equal(view.kind, 'history');
  assert.deepEqual(view.kind === 'history' && view.system, { samples: 2, gpu: { available: true, reason: '' } });
  assert.deepEqual(d.store.getState().gpu, noGpu, "the live run's GPU status is untouched");
  const series = (name: string) => {
    const s = d.shown().get(name)!;
    return [Array.from(s.x.subarray(0, s.length)), Array.from(s.y.subarray(0, s.length))];
  };
  assert.deepEqual(series(SYSTEM_SERIES.stepsPerSec), [[100, 200], [1200, 1350]]);
  assert.deepEqual(series(SYSTEM_SERIES.envStepsPerSec), [[100, 200], [4800, 5400]]);
  assert.deepEqual(series(SYSTEM_SERIES.rssMiB), [[100, 200], [512, 512]]);
  assert.deepEqual(series(SYSTEM_SERIES.gpuUtil), [[100, 200], [88, 91]]);
  assert.deepEqual(series(SYSTEM_SERIES.gpuMemUsedMiB), [[100, 200], [3072, 3072]]);
  assert.deepEqual(series(SYSTEM_SERIES.gpuPower), [[100, 200], [410, 410]]);
  // Every series a live sample makes, the past run has too.
  assert.deepEqual(d.shown().names('system/').sort(), systemSeriesPoints(system[0]!).map(([n]) => n).sort());
  assert.deepEqual(Array.from(d.live.get(SYSTEM_SERIES.stepsPerSec)!.y.subarray(0, 1)), [7], 'the live series keep their own samples');
  // A run recorded before runs kept system samples: none, and no GPU status.
  d.apply({ type: 'runData', runDir: '/runs/older', config, scalars: [], episodes: [], epochs: [] });
  const older = d.store.getState().view;
  assert.deepEqual(older.kind === 'history' && older.system, { samples: 0 });
  assert.equal(d.shown().get(SYSTEM_SERIES.stepsPerSec), undefined);
});

test("a reloaded page's live history brings the run's system samples so far, and the last one's GPU status", () => {
  const d = createDashboard();
  d.apply({ type: 'state', state: 'running', runDir: '/runs/a', config });
  const gpu = { available: true, reason: '', utilPercent: 87, memUsedBytes: 1.13 * 1024 ** 3, memTotalBytes: 140 * 1024 ** 3, temperatureC: 39, powerW: 138 };
  const at = (step: number, stepsPerSec: number): SystemSample => ({
    step, env_steps: 4 * step, wall_s: step / 1000, stepsPerSec, envStepsPerSec: 4 * stepsPerSec, processCpuPercent: 99, hostCpuPercent: 6, rssBytes: 235 * 1024 * 1024, gpu,
  });
  const scalars = [1000, 2000].map((step) => ({ step, wall_s: step / 1000, values: { 'losses/td_loss': 0.5 } }));
  d.apply(HostMessageSchema.parse({ type: 'liveHistory', runDir: '/runs/a', scalars, episodes: [], epochs: [], system: [at(1000, 12875), at(2000, 12969)] }));
  const s = d.live.get(SYSTEM_SERIES.stepsPerSec)!;
  assert.deepEqual([Array.from(s.x.subarray(0, s.length)), Array.from(s.y.subarray(0, s.length))], [[1000, 2000], [12875, 12969]]);
  const u = d.live.get(SYSTEM_SERIES.gpuUtil)!;
  assert.deepEqual(Array.from(u.y.subarray(0, u.length)), [87, 87]);
  assert.deepEqual(d.store.getState().gpu, { available: true, reason: '' });
});

test('a run the charts show is drawn once, as itself, even while it is also ticked as an overlay', () => {
  const d = createDashboard();
  d.apply({ type: 'state', state: 'idle', runDir: '/runs/last', config });
  const data = (runDir: string): HostMessage => ({ type: 'runData', runDir, config, scalars: [{ step: 5, wall_s: 1, values: { 'losses/td_loss': 1 } }], episodes: [], epochs: [] });
  for (const dir of ['/runs/last', '/runs/other']) {
    d.addOverlay(dir);
    d.apply(data(dir));
  }
  assert.deepEqual(d.overlays().map((o) => o.runDir), ['/runs/other'], 'the last run, shown live, is not overlaid on itself');
  d.apply(data('/runs/other')); // opened: the charts show it
  assert.equal(d.store.getState().view.kind, 'history');
  assert.deepEqual(d.overlays().map((o) => o.runDir), ['/runs/last'], 'the opened run is not overlaid on itself; the last run now is');
  d.showLive();
  assert.deepEqual(d.overlays().map((o) => o.runDir), ['/runs/other']);
  assert.deepEqual(d.store.getState().overlayDirs, ['/runs/last', '/runs/other'], 'both stay ticked');
});

test('a start sent keeps Start off until the host answers it: its state message or an error for that command', () => {
  const d = createDashboard();
  const pending = () => d.store.getState().startPending;
  assert.equal(pending(), false);
  d.startSent();
  assert.equal(pending(), true, 'the host loads the data and builds the trainer meanwhile');
  d.apply({ type: 'error', command: 'listRuns', message: 'busy' });
  assert.equal(pending(), true, "another command's error is not the answer");
  d.apply({ type: 'error', command: 'start', message: 'env.data: file not found: x.csv' });
  assert.equal(pending(), false, 'a refused start');
  d.startSent();
  d.apply({ type: 'state', state: 'idle' });
  assert.equal(pending(), true, "an idle state (the host's snapshot for a page that just connected) is not the answer");
  d.apply({ type: 'state', state: 'running', runDir: '/runs/a', config });
  assert.equal(pending(), false, 'the run started');
  d.startSent();
  d.apply({ type: 'error', command: 'resume', message: 'no checkpoint' });
  assert.equal(pending(), false, 'a refused resume');
  d.startSent();
  d.apply({ type: 'hostExit', pid: 40, reason: 'killed by SIGKILL', restarting: true });
  assert.equal(pending(), false, 'a host that died answers nothing');
  d.startSent();
  d.setConnection('closed');
  assert.equal(pending(), false, 'no answer comes over a closed connection');
});
