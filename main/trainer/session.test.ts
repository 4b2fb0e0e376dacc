// The epoch loop against a scripted trainer (the real native trainer is exercised by the CLI
// tests): epochs, checkpoints, stop + resume, NaN halt and backend fallback.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { loadAddon, type NativeAddon } from '../../native/addon.ts';
import type { NativeTrainer, RunResult, TrainerOptions } from '../../native/trainer.ts';
import { defaultDeps, startRun, toScalarPoint, type PointMemory, type SessionDeps } from './session.ts';
import { readRunMetrics } from './run-dir.ts';
import type { SystemSample } from '../../common/protocol.ts';
import { parseRunConfig, type RunConfigInput } from '../../common/config.ts';
import { readCheckpointHeader, RUN_ID_FILE, writeCheckpoint } from './checkpoint.ts';
import { renameRunDir } from './run-files.ts';
import { LOCK_FILE, runLockHolder } from './run-lock.ts';
import { BUNDLED_DATA_DIR } from './paths.ts';
import { RunIndex } from './run-index.ts';

const layout = loadAddon().scalarLayout;

/** A trainer whose step counter advances by the steps asked; optionally halts with a NaN. */
class ScriptedTrainer implements NativeTrainer {
  readonly scalars = new ArrayBuffer(layout.size);
  readonly view = new DataView(this.scalars);
  stopFlag = false;
  loaded?: Uint8Array;
  constructor(
    readonly options: TrainerOptions,
    readonly script: { nanAtStep?: number; deviceLostAtStep?: number; stopAfterStep?: (t: ScriptedTrainer) => void; afterEvaluate?: (t: ScriptedTrainer) => void; pauseAt?: { step: number; reached: () => void; until: Promise<void> } } = {},
  ) {}
  replayFallbackReason = '';
  collectorReason = '';
  /** Where the environments step; by default the device on CUDA unless a reason says why not. */
  collector?: 'host' | 'device';
  get info() {
    const replayBackend = this.replayFallbackReason ? ('cpu' as const) : this.options.backend;
    const collector = this.collector ?? (this.options.backend === 'cuda' && !this.collectorReason ? ('device' as const) : ('host' as const));
    return { backend: this.options.backend, replayBackend, replayFallbackReason: this.replayFallbackReason, collector, collectorReason: this.collectorReason, stateDim: 4, nActions: 2, causalFeatureNames: ['x'] };
  }
  get step() {
    return Number(this.view.getBigInt64(layout.fields.step!.offset, true));
  }
  private set(step: number) {
    this.view.setBigInt64(layout.fields.step!.offset, BigInt(step), true);
    this.view.setBigInt64(layout.fields.env_steps!.offset, BigInt(step * 4), true);
    this.view.setFloat64(layout.fields.loss!.offset, 1 / (1 + step), true);
  }
  async run(steps: number): Promise<RunResult> {
    this.stopFlag = false;
    for (let i = 0; i < steps; i++) {
      if (this.stopFlag) return { steps: i, stopped: true, episodeReturns: [], episodeEnvSteps: [] };
      if (this.script.nanAtStep === this.step) {
        this.view.setUint32(layout.fields.nan_flags!.offset, 1, true);
        throw new Error(`NaN in loss at step ${this.step}`);
      }
      if (this.options.backend === 'cuda' && this.script.deviceLostAtStep === this.step)
        throw new Error('CUDA context lost: kernel fault while finishing the queued training steps (cudaErrorIllegalAddress)');
      this.set(this.step + 1);
      this.script.stopAfterStep?.(this);
      const pause = this.script.pauseAt;
      if (pause?.step === this.step) {
        pause.reached();
        await pause.until;
      }
      await Promise.resolve();
    }
    return { steps, stopped: false, episodeReturns: [this.step], episodeEnvSteps: [this.step * 4 - 1] };
  }
  stop() {
    this.stopFlag = true;
  }
  async evaluate(episodes: number) {
    this.script.afterEvaluate?.(this);
    return { stopped: false, episodes, meanReturn: this.step / 10, returns: [], metrics: {} };
  }
  saveState() {
    return new Uint8Array(new BigInt64Array([BigInt(this.step)]).buffer);
  }
  loadState(state: Uint8Array) {
    this.loaded = state;
    this.set(Number(new BigInt64Array(state.slice().buffer)[0]));
  }
  /** close() calls so far (the session must free each trainer exactly once). */
  closes = 0;
  get closed() {
    return this.closes > 0;
  }
  close() {
    this.closes++;
  }
}

function deps(make: (o: TrainerOptions) => ScriptedTrainer, addon: NativeAddon = loadAddon()): SessionDeps {
  return { ...defaultDeps, addon: () => addon, createTrainer: make };
}

const config = { name: 't', env: { kind: 'cartpole' as const }, backend: 'cpu' as const, schedule: { epochs: 2, steps_per_epoch: 50, eval_episodes: 3 } };
/** The heads of a plain Q run (the defaults). */
const PLAIN = parseRunConfig(config).heads;

test('a run of two epochs writes an epoch record and a checkpoint per epoch, then finishes', async () => {
  const runsDir = mkdtempSync(join(tmpdir(), 'runs-'));
  const epochs: number[] = [];
  const h = await startRun({ config, runsDir }, { onEpoch: (e) => epochs.push(e.eval_mean_return) }, deps((o) => new ScriptedTrainer(o)));
  const out = await h.done;
  assert.equal(out.state, 'finished');
  assert.equal(out.steps, 100);
  assert.equal(out.env_steps, 400);
  assert.deepEqual(epochs, [5, 10]);
  assert.deepEqual(readdirSync(join(h.runDir, 'checkpoints')).sort(), ['epoch-1', 'epoch-2']);
  const recs = (await readRunMetrics(h.runDir));
  assert.deepEqual(recs.filter((r) => r.type === 'epoch').map((r) => r.step), [50, 100]);
  assert.match(readFileSync(join(h.runDir, 'events.log'), 'utf8'), /"kind":"finish"/);
});

test('stop keeps a checkpoint, and resume continues the step count to the end', async () => {
  const runsDir = mkdtempSync(join(tmpdir(), 'runs-'));
  const box: { handle?: Awaited<ReturnType<typeof startRun>> } = {};
  const stopAt = (t: ScriptedTrainer) => {
    if (t.step === 70) void box.handle!.stop();
  };
  const handle = (box.handle = await startRun({ config, runsDir }, {}, deps((o) => new ScriptedTrainer(o, { stopAfterStep: stopAt }))));
  const first = await handle.done;
  assert.equal(first.state, 'stopped');
  assert.equal(first.steps, 70);
  assert.ok(readdirSync(join(handle.runDir, 'checkpoints')).includes('stop-step-70'));

  let resumed: ScriptedTrainer | undefined;
  const h2 = await startRun({ config, runsDir, resume: handle.runDir }, {}, deps((o) => (resumed = new ScriptedTrainer(o))));
  const second = await h2.done;
  assert.equal(second.state, 'finished');
  assert.equal(second.steps, 100, 'resume runs only the 30 steps left in epoch 2');
  assert.equal(resumed!.loaded!.byteLength, 8);
  const epochsDone = (await readRunMetrics(handle.runDir)).filter((r) => r.type === 'epoch').map((r) => r.step);
  assert.deepEqual(epochsDone, [50, 100]);
});

test('a NaN halts the run at once, names the tensor and writes no further checkpoint', async () => {
  const runsDir = mkdtempSync(join(tmpdir(), 'runs-'));
  const states: string[] = [];
  const h = await startRun({ config, runsDir }, { onState: (s, d) => states.push(d ? `${s}: ${d}` : s) }, deps((o) => new ScriptedTrainer(o, { nanAtStep: 60 })));
  const out = await h.done;
  assert.equal(out.state, 'halted');
  assert.equal(out.haltReason, 'NaN in loss at step 60');
  assert.deepEqual(states, ['running', 'halted: NaN in loss at step 60']);
  assert.deepEqual(readdirSync(join(h.runDir, 'checkpoints')), ['epoch-1']);
  assert.match(readFileSync(join(h.runDir, 'events.log'), 'utf8'), /"kind":"halt","message":"NaN in loss at step 60 \(last good checkpoint kept\)"/);
});

test('the end of a run is announced once its lock is released: a run history listed then says how it ended', async () => {
  for (const [script, ending] of [[{ nanAtStep: 60 }, 'halted'], [{}, 'idle']] as const) {
    const runsDir = mkdtempSync(join(tmpdir(), 'runs-'));
    // The one run folder of runsDir, found when the end is announced (the handle may not be back yet).
    const holder = () => runLockHolder(join(runsDir, readdirSync(runsDir).find((n) => !n.startsWith('.'))!));
    const ends: { state: string; holder: string | undefined }[] = [];
    const h = await startRun({ config, runsDir }, { onState: (s) => s !== 'running' && ends.push({ state: s, holder: holder() }) }, deps((o) => new ScriptedTrainer(o, script)));
    assert.ok(holder(), 'the lock is held while the run trains');
    await h.done;
    assert.deepEqual(ends, [{ state: ending, holder: undefined }]);
  }
});

test('asking for CUDA without a device refuses to start and says why; auto falls back to the CPU and says why', async () => {
  const runsDir = mkdtempSync(join(tmpdir(), 'runs-'));
  const real = loadAddon();
  const noGpu = { ...real, backendInfo: () => ({ cudaCompiled: true, cudaAvailable: false, reason: 'no CUDA device' }) } as NativeAddon;
  await assert.rejects(
    startRun({ config: { ...config, backend: 'cuda' }, runsDir }, {}, deps((o) => new ScriptedTrainer(o), noGpu)),
    /backend 'cuda' was asked for, but no CUDA device: use backend 'auto' or 'cpu'/,
  );
  assert.deepEqual(readdirSync(runsDir), [], 'a refused run leaves no run folder');
  let compute = '';
  const h = await startRun({ config: { ...config, backend: 'auto' }, runsDir }, { onBackends: (b) => (compute = `${b.compute.backend} (${b.compute.reason})`) }, deps((o) => new ScriptedTrainer(o), noGpu));
  await h.done;
  assert.equal(compute, 'cpu (no CUDA device)');
  assert.match(readFileSync(join(h.runDir, 'events.log'), 'utf8'), /"kind":"fallback","message":"compute on CPU: no CUDA device"/);
});

test('heads the GPU learner lacks: auto trains on the CPU and says why in the badge and events.log; an explicit cuda refuses naming them first', async () => {
  const runsDir = mkdtempSync(join(tmpdir(), 'runs-'));
  const real = loadAddon();
  const gpu = { ...real, backendInfo: () => ({ cudaCompiled: true, cudaAvailable: true, reason: '', deviceName: 'Test GPU' }) } as NativeAddon;
  const noGpu = { ...real, backendInfo: () => ({ cudaCompiled: true, cudaAvailable: false, reason: 'no CUDA device' }) } as NativeAddon;
  const c51 = { ...config, heads: { main: 'c51' as const } };
  const built: string[] = [];
  const make = (o: TrainerOptions) => (built.push(o.backend), new ScriptedTrainer(o));
  let compute = '';
  const h = await startRun({ config: { ...c51, backend: 'auto' }, runsDir }, { onBackends: (b) => (compute = `${b.compute.backend} (${b.compute.reason})`) }, deps(make, gpu));
  await h.done;
  assert.deepEqual(built, ['cpu']);
  assert.equal(compute, 'cpu (the GPU learner has no C51 head yet (heads.main = c51))');
  assert.match(readFileSync(join(h.runDir, 'events.log'), 'utf8'), /"kind":"fallback","message":"compute on CPU: the GPU learner has no C51 head yet \(heads\.main = c51\)"/);
  const before = readdirSync(runsDir);
  await assert.rejects(startRun({ config: { ...c51, backend: 'cuda' }, runsDir }, {}, deps(make, noGpu)), {
    message: "backend 'cuda' was asked for, but the GPU learner has no C51 head yet (heads.main = c51); no CUDA device: use backend 'auto' or 'cpu' to train on the CPU",
  });
  assert.deepEqual(readdirSync(runsDir), before, 'the refused run leaves no run folder');
  assert.deepEqual(built, ['cpu'], 'nothing built for the refused run');
});

test('a GPU that loses its context mid-run: the run goes on on the CPU from the last checkpoint and says why', async () => {
  const runsDir = mkdtempSync(join(tmpdir(), 'runs-'));
  const real = loadAddon();
  const gpu = { ...real, backendInfo: () => ({ cudaCompiled: true, cudaAvailable: true, reason: '', deviceName: 'Test GPU' }) } as NativeAddon;
  const made: ScriptedTrainer[] = [];
  const badges: string[] = [];
  const make = (o: TrainerOptions) => {
    assert.equal(made.every((t) => t.closed), true, 'the lost CUDA trainer is freed before the CPU one is built');
    const t = new ScriptedTrainer(o, { deviceLostAtStep: 70 });
    made.push(t);
    return t;
  };
  const h = await startRun({ config: { ...config, backend: 'cuda' }, runsDir }, { onBackends: (b) => badges.push(`${b.compute.backend}: ${b.compute.reason}`) }, deps(make, gpu));
  const out = await h.done;
  assert.equal(out.state, 'finished');
  assert.equal(out.steps, 100);
  assert.deepEqual(made.map((t) => t.options.backend), ['cuda', 'cpu']);
  assert.deepEqual(made.map((t) => t.closes), [1, 1], 'each trainer freed once');
  assert.equal(Number(new BigInt64Array(made[1]!.loaded!.slice().buffer)[0]), 50, 'the CPU trainer starts from the epoch-1 checkpoint');
  assert.equal(badges.at(-1), 'cpu: CUDA context lost: kernel fault while finishing the queued training steps (cudaErrorIllegalAddress)');
  const log = readFileSync(join(h.runDir, 'events.log'), 'utf8');
  assert.match(log, /"kind":"fallback","message":"compute on CPU: CUDA context lost: .*; continuing from .*epoch-1"/);
  assert.doesNotMatch(log, /"kind":"halt"/);
  assert.deepEqual(readdirSync(join(h.runDir, 'checkpoints')).sort(), ['epoch-1', 'epoch-2']);
});

test('a replay fallback during the run is logged once and re-announced to the badges', async () => {
  const runsDir = mkdtempSync(join(tmpdir(), 'runs-'));
  const badges: string[] = [];
  const failAt = (t: ScriptedTrainer) => {
    if (t.step === 30) t.replayFallbackReason = 'replay kernel failed (cudaErrorLaunchFailure)';
  };
  const h = await startRun({ config, runsDir }, { onBackends: (b) => badges.push(`${b.replay.backend}:${b.replay.reason}`) }, deps((o) => new ScriptedTrainer(o, { stopAfterStep: failAt })));
  await h.done;
  assert.deepEqual(badges, ['cpu:', 'cpu:replay kernel failed (cudaErrorLaunchFailure)']);
  const fallbacks = readFileSync(join(h.runDir, 'events.log'), 'utf8').split('\n').filter((l) => l.includes('"fallback"'));
  assert.equal(fallbacks.length, 1);
  assert.match(fallbacks[0]!, /replay on CPU: replay kernel failed/);
});

test('environments that cannot step on the device say why in events.log and the badges, at the start and when it changes mid-run', async () => {
  const runsDir = mkdtempSync(join(tmpdir(), 'runs-'));
  const badges: string[] = [];
  const moveAt = (t: ScriptedTrainer) => {
    if (t.step === 30) t.collectorReason = 'the replay buffer moved to the CPU (cpu), so collection went on on the host';
  };
  const make = (o: TrainerOptions) => {
    const t = new ScriptedTrainer(o, { stopAfterStep: moveAt });
    t.collectorReason = 'the replay buffer is on the CPU (replay.device), and the device collector writes into the GPU replay';
    return t;
  };
  const h = await startRun({ config, runsDir }, { onBackends: (b) => badges.push(`${b.collector?.where}:${b.collector?.reason}`) }, deps(make));
  await h.done;
  assert.deepEqual(badges, ['host:the replay buffer is on the CPU (replay.device), and the device collector writes into the GPU replay', 'host:the replay buffer moved to the CPU (cpu), so collection went on on the host']);
  const fallbacks = readFileSync(join(h.runDir, 'events.log'), 'utf8').split('\n').filter((l) => l.includes('"fallback"'));
  assert.equal(fallbacks.length, 2);
  assert.match(fallbacks[0]!, /environments on the host: the replay buffer is on the CPU/);
  assert.match(fallbacks[1]!, /environments on the host: the replay buffer moved to the CPU/);
});

test("a note from environments on the device (trading's evaluation walks on the GPU too) reaches the badges but is no fallback; a later move to the host is", async () => {
  const runsDir = mkdtempSync(join(tmpdir(), 'runs-'));
  const badges: string[] = [];
  const note = 'training episodes and evaluation walks step on the GPU';
  const moveAt = (t: ScriptedTrainer) => {
    if (t.step !== 30) return;
    t.collector = 'host';
    t.collectorReason = 'the replay buffer moved to the CPU (cpu), so collection went on on the host';
  };
  const make = (o: TrainerOptions) => {
    const t = new ScriptedTrainer(o, { stopAfterStep: moveAt });
    t.collector = 'device';
    t.collectorReason = note;
    return t;
  };
  const h = await startRun({ config, runsDir }, { onBackends: (b) => badges.push(`${b.collector?.where}:${b.collector?.reason}`) }, deps(make));
  await h.done;
  assert.deepEqual(badges, [`device:${note}`, 'host:the replay buffer moved to the CPU (cpu), so collection went on on the host']);
  const fallbacks = readFileSync(join(h.runDir, 'events.log'), 'utf8').split('\n').filter((l) => l.includes('"fallback"'));
  assert.equal(fallbacks.length, 1);
  assert.match(fallbacks[0]!, /environments on the host: the replay buffer moved to the CPU/);
});

test("trading's evaluation walks that move to the host (a GPU walk failed) are a fallback in events.log and the badges, once", async () => {
  const runsDir = mkdtempSync(join(tmpdir(), 'runs-'));
  const badges: string[] = [];
  const onGpu = 'training episodes and evaluation walks step on the GPU';
  const onHost = 'training episodes step on the GPU; evaluation walks step on the host: a GPU walk failed (stepping the GPU evaluation walk: simulated launch failure), so they went on on the host';
  const make = (o: TrainerOptions) => {
    const t = new ScriptedTrainer(o, { afterEvaluate: (x) => void (x.collectorReason = onHost) });
    t.collector = 'device';
    t.collectorReason = onGpu;
    return t;
  };
  const h = await startRun({ config, runsDir }, { onBackends: (b) => badges.push(`${b.collector?.where}:${b.collector?.reason}`) }, deps(make));
  await h.done;
  assert.deepEqual(badges, [`device:${onGpu}`, `device:${onHost}`]);
  const fallbacks = readFileSync(join(h.runDir, 'events.log'), 'utf8').split('\n').filter((l) => l.includes('"fallback"'));
  assert.equal(fallbacks.length, 1);
  assert.match(fallbacks[0]!, /evaluation walks on the host: a GPU walk failed \(stepping the GPU evaluation walk: simulated launch failure\)/);
});

test('resuming a finished run says it is complete and how to extend it, without touching it', async () => {
  const runsDir = mkdtempSync(join(tmpdir(), 'runs-'));
  const h = await startRun({ config, runsDir }, {}, deps((o) => new ScriptedTrainer(o)));
  await h.done;
  const before = readFileSync(join(h.runDir, 'metrics.jsonl'), 'utf8');
  await assert.rejects(
    startRun({ config, runsDir, resume: h.runDir }, {}, deps((o) => new ScriptedTrainer(o))),
    { message: `${h.runDir} is already complete (2 epochs, 100 steps): pass --epochs N with N > 2 to train it further` },
  );
  assert.equal(readFileSync(join(h.runDir, 'metrics.jsonl'), 'utf8'), before);
  assert.equal(existsSync(join(h.runDir, LOCK_FILE)), false, 'a refused resume leaves no lock behind');
  const more = await startRun({ config, runsDir, resume: h.runDir, overrides: { epochs: 3 } }, {}, deps((o) => new ScriptedTrainer(o)));
  const out = await more.done;
  assert.equal(out.steps, 150);
  assert.equal(out.last?.steps_per_s !== undefined && out.last.step, 150);
});

test('a chart point carries the exact mean loss, TD mse and grad norm over the steps since the previous read', () => {
  const read = (step: number, sums: [number, number, number, number], last: number) =>
    ({ step, loss: last, td_mse: last, grad_norm: last, loss_sum: sums[0], td_mse_sum: sums[1], grad_norm_sum: sums[2], sum_steps: sums[3],
      per_total: 1, per_max_priority: 1, is_weight_mean: 1, beta: 0.4, epsilon: 1, q_stats_step: -1, causal_step: -1, causal_per_feature: [], c51_greedy_dist: [] }) as never;
  const memory: PointMemory = { qStep: -1, causalStep: -1 };
  const first = toScalarPoint(read(10, [5, 7, 30, 10], 0.25), 1, memory, [], PLAIN);
  assert.equal(first.values['losses/td_loss'], 0.25, 'no earlier read: the last step');
  const second = toScalarPoint(read(14, [7, 8, 50, 14], 0.9), 2, memory, [], PLAIN);
  assert.equal(second.values['losses/td_loss'], 0.5);
  assert.equal(second.values['losses/td_mse'], 0.25);
  assert.equal(second.values['losses/grad_norm'], 5);
  const idle = toScalarPoint(read(14, [7, 8, 50, 14], 0.9), 3, memory, [], PLAIN);
  assert.equal(idle.values['losses/td_loss'], 0.9, 'no step in between: the last step');
});

test("the heads' scalars are streamed for the parts a run enables only; a plain Q run streams what it did before heads", async () => {
  /** A learner that fills every part's field (as if all were on) and takes Q-stats at every step. */
  class HeadsTrainer extends ScriptedTrainer {
    override async run(steps: number): Promise<RunResult> {
      const res = await super.run(steps);
      const f = layout.fields;
      for (const [k, name] of ['main', 'iqn', 'ensemble', 'cql'].entries())
        for (const [i, what] of ['loss', 'grad_norm', 'grad_clipped'].entries()) this.view.setFloat64(f[`${name}_${what}`]!.offset, 10 * k + i + 1, true);
      this.view.setFloat64(f.ensemble_disagreement!.offset, 0.5, true);
      this.view.setFloat64(f.sigma_max_seen!.offset, 1.25, true);
      this.view.setInt32(f.c51_atoms!.offset, 3, true);
      for (const [j, p] of [0.2, 0.5, 0.3].entries()) this.view.setFloat64(f.c51_greedy_dist!.offset + 8 * j, p, true);
      this.view.setBigInt64(f.q_stats_step!.offset, BigInt(this.step), true);
      return res;
    }
  }
  const streamed = async (heads: RunConfigInput['heads']) => {
    const h = await startRun({ config: { ...config, heads }, runsDir: mkdtempSync(join(tmpdir(), 'runs-')) }, {}, deps((o) => new HeadsTrainer(o)));
    await h.done;
    const points = (await readRunMetrics(h.runDir)).flatMap((r) => (r.type === 'scalars' ? [r] : []));
    return { names: new Set(points.flatMap((p) => Object.keys(p.values))), last: points.at(-1)!.values };
  };
  const c51 = await streamed({ main: 'c51', ensemble: { heads: 4 } });
  assert.deepEqual([...c51.names].filter((n) => n.startsWith('heads/')).sort(), [
    'heads/c51_dist/0', 'heads/c51_dist/1', 'heads/c51_dist/2', 'heads/ensemble_disagreement', 'heads/ensemble_grad_norm', 'heads/ensemble_grad_norm_clipped', 'heads/ensemble_loss',
    'heads/main_grad_norm', 'heads/main_grad_norm_clipped', 'heads/main_loss',
  ]);
  assert.deepEqual([c51.last['heads/main_loss'], c51.last['heads/main_grad_norm_clipped'], c51.last['heads/ensemble_grad_norm'], c51.last['heads/c51_dist/1']], [1, 3, 22, 0.5]);
  const spectralIqn = await streamed({ iqn: { auxiliary: true }, cql: { alpha: 0.1 }, spectral: { sigma_max: 1 } });
  assert.deepEqual([...spectralIqn.names].filter((n) => n.startsWith('heads/')).sort(), [
    'heads/cql_grad_norm', 'heads/cql_grad_norm_clipped', 'heads/cql_loss', 'heads/iqn_grad_norm', 'heads/iqn_grad_norm_clipped', 'heads/iqn_loss',
    'heads/main_grad_norm', 'heads/main_grad_norm_clipped', 'heads/main_loss', 'heads/sigma_max',
  ]);
  assert.equal(spectralIqn.last['heads/sigma_max'], 1.25);
  const plain = await streamed({});
  assert.deepEqual([...plain.names].sort(), [
    'causal/sensitivity', 'charts/epsilon', 'losses/grad_norm', 'losses/td_loss', 'losses/td_mse', 'q/max', 'q/mean', 'q/mean_max', 'q/min', 'q/var',
    'replay/beta', 'replay/is_weight_mean', 'replay/max_priority', 'replay/total_priority',
  ]);
});

/** Waits (polling, no fixed sleep) until `ready()` holds. */
async function until(ready: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await ready())) await new Promise((r) => setTimeout(r, 10));
}

test('metrics.jsonl is appended while an epoch runs, not only at its end', async () => {
  const runsDir = mkdtempSync(join(tmpdir(), 'runs-'));
  let flushed = 0;
  let seenMidEpoch: number[] = [];
  /** Stops at step 30 of the 50-step epoch until the file holds step 30. */
  class SlowTrainer extends ScriptedTrainer {
    override async run(steps: number): Promise<RunResult> {
      const res = await super.run(this.step < 30 ? Math.min(steps, 30 - this.step) : steps);
      if (this.step === 30) {
        // Mid-epoch: wait until the live flush has put step 30's scalars into the file.
        const file = () => readRunMetrics(this.runDir!);
        await until(async () => this.runDir !== undefined && (await file()).some((r) => r.type === 'scalars' && r.step === 30));
        seenMidEpoch = (await file()).map((r) => r.step);
        assert.equal((await file()).filter((r) => r.type === 'epoch').length, 0, 'no epoch has ended yet');
      }
      return res;
    }
    runDir?: string;
  }
  const box: { t?: SlowTrainer } = {};
  const h = await startRun({ config, runsDir }, { onFlushed: () => flushed++ }, { ...deps((o) => (box.t = new SlowTrainer(o))), metricsFlushMs: 20 });
  box.t!.runDir = h.runDir;
  const out = await h.done;
  assert.equal(out.state, 'finished');
  assert.ok(seenMidEpoch.includes(30), `records in the file mid-epoch: ${seenMidEpoch.join(',')}`);
  assert.ok(flushed >= 3, `onFlushed called ${flushed} times (live, two epoch ends, the end)`);
});

test('resuming from an older checkpoint drops the metrics records past it: no duplicate epochs, a torn line is gone', async () => {
  const runsDir = mkdtempSync(join(tmpdir(), 'runs-'));
  const h = await startRun({ config, runsDir }, {}, deps((o) => new ScriptedTrainer(o)));
  await h.done;
  // As if the process died after epoch 2's records were flushed but before its checkpoint was good.
  const ckpt2 = join(h.runDir, 'checkpoints', 'epoch-2');
  const bytes = readFileSync(ckpt2);
  bytes[bytes.length - 1]! ^= 0xff;
  writeFileSync(ckpt2, bytes);
  appendFileSync(join(h.runDir, 'metrics.jsonl'), '{"type":"scalars","st');
  const events: string[] = [];
  const h2 = await startRun({ config, runsDir, resume: h.runDir }, { onEvent: (e) => events.push(`${e.kind}: ${e.message}`) }, deps((o) => new ScriptedTrainer(o)));
  const out = await h2.done;
  assert.equal(out.steps, 100);
  assert.equal(out.session_steps, 50, 'this session trained epoch 2 again');
  assert.ok(events.some((e) => /^warning: skipped checkpoint: .*epoch-2: checksum mismatch/.test(e)), events.join('\n'));
  assert.ok(!events.some((e) => e.startsWith('error:')));
  assert.ok(events.some((e) => /^resume: resumed from .*epoch-1 at step 50; dropped \d+ metrics records past it/.test(e)), events.join('\n'));
  const recs = (await readRunMetrics(h.runDir));
  assert.deepEqual(recs.filter((r) => r.type === 'epoch').map((r) => r.step), [50, 100]);
  const scalarSteps = recs.filter((r) => r.type === 'scalars').map((r) => r.step);
  assert.deepEqual(scalarSteps, [...scalarSteps].sort((a, b) => a - b), 'scalar steps never go back');
  assert.equal(new Set(scalarSteps).size, scalarSteps.length, 'no scalar step twice');
  const episodeSteps = recs.filter((r) => r.type === 'episode').map((r) => r.step);
  assert.equal(new Set(episodeSteps).size, episodeSteps.length, 'no episode twice');
  assert.ok(readFileSync(join(h.runDir, 'metrics.jsonl'), 'utf8').endsWith('}\n'), 'the torn line is gone');
});

test('checkpoints are pruned to checkpoint_keep plus the best by evaluation, with the eval return in the header', async () => {
  const runsDir = mkdtempSync(join(tmpdir(), 'runs-'));
  const returns = [5, 90, 7, 8, 6, 9, 4, 3];
  class EvalTrainer extends ScriptedTrainer {
    override async evaluate(episodes: number) {
      return { stopped: false, episodes, meanReturn: returns[this.step / 10 - 1]!, returns: [], metrics: {} };
    }
  }
  const cfg = { ...config, schedule: { epochs: 8, steps_per_epoch: 10, eval_episodes: 1, checkpoint_keep: 2 } };
  const h = await startRun({ config: cfg, runsDir }, {}, deps((o) => new EvalTrainer(o)));
  await h.done;
  const dir = join(h.runDir, 'checkpoints');
  assert.deepEqual(readdirSync(dir).sort(), ['epoch-2', 'epoch-7', 'epoch-8']);
  assert.equal(readCheckpointHeader(join(dir, 'epoch-2')).eval_mean_return, 90);
  assert.equal(readCheckpointHeader(join(dir, 'epoch-8')).eval_mean_return, 3);
  assert.match(readFileSync(join(h.runDir, 'events.log'), 'utf8'), /removed epoch-1 \(keeping the last 2 and the best by evaluation\)/);
});

test('a resume removes stale temporary files and refuses checkpoints of another network shape, saying why', async () => {
  const runsDir = mkdtempSync(join(tmpdir(), 'runs-'));
  const box: { handle?: Awaited<ReturnType<typeof startRun>> } = {};
  const stopAt = (t: ScriptedTrainer) => void (t.step === 70 && box.handle!.stop());
  const h = (box.handle = await startRun({ config, runsDir }, {}, deps((o) => new ScriptedTrainer(o, { stopAfterStep: stopAt }))));
  await h.done;
  const dead = spawnSync(process.execPath, ['-e', '']).pid!;
  const stale = [join(h.runDir, 'checkpoints', `.epoch-2.tmp-${dead}`), join(h.runDir, `.config.json.tmp-${dead}`)];
  for (const p of stale) writeFileSync(p, 'half');
  const events: string[] = [];
  const h2 = await startRun({ config, runsDir, resume: h.runDir }, { onEvent: (e) => events.push(`${e.kind}: ${e.message}`) }, deps((o) => new ScriptedTrainer(o)));
  await h2.done;
  for (const p of stale) assert.ok(!existsSync(p), `${p} removed`);
  assert.equal(events.filter((e) => e.startsWith('warning: removed stale temporary file')).length, 2);
  assert.ok(events.some((e) => /^resume: resumed from .*stop-step-70 at step 70/.test(e)));

  const cfgPath = join(h.runDir, 'config.json');
  writeFileSync(cfgPath, readFileSync(cfgPath, 'utf8').replace(/"dueling": true/, '"dueling": false'));
  await assert.rejects(
    startRun({ config, runsDir, resume: h.runDir, overrides: { epochs: 3 } }, {}, deps((o) => new ScriptedTrainer(o))),
    /cannot resume .*: it has no valid checkpoint \(.*header does not match the run: network dueling is true, the run's config says false/,
  );
});

test('a checkpoint with a valid checksum whose content is not a trainer state is skipped for the previous good one, with a warning (real trainer)', async () => {
  const runsDir = mkdtempSync(join(tmpdir(), 'runs-'));
  const tiny = { name: 'tiny', backend: 'cpu' as const, env: { kind: 'cartpole' as const, num_envs: 2 }, network: { hidden: [16, 16] }, replay: { capacity: 1024 }, optim: { batch_size: 16 }, schedule: { epochs: 2, steps_per_epoch: 40, learning_starts: 32, eval_episodes: 1 } };
  const h = await startRun({ config: tiny, runsDir }, {}, defaultDeps);
  assert.equal((await h.done).state, 'finished');
  const path = join(h.runDir, 'checkpoints', 'epoch-2');
  const { run: _run, bytes: _bytes, sha256: _sha, network, ...meta } = readCheckpointHeader(path);
  writeCheckpoint(h.runDir, 'epoch-2', meta, new Uint8Array(256).fill(7), network); // a right header and checksum over a wrong state
  const events: string[] = [];
  const h2 = await startRun({ config: tiny, runsDir, resume: h.runDir, overrides: { epochs: 3 } }, { onEvent: (e) => events.push(`${e.kind}: ${e.message}`) }, defaultDeps);
  const out = await h2.done;
  assert.equal(out.state, 'finished');
  assert.equal(out.steps, 120, 'epochs 2 and 3 trained again from the end of epoch 1');
  assert.deepEqual(events.slice(0, 1), [`warning: skipped checkpoint: ${path}: the trainer cannot load its state: not a trainer state (bad magic number)`]);
  assert.ok(events.some((e) => e.startsWith(`resume: resumed from ${join(h.runDir, 'checkpoints', 'epoch-1')} at step 40`)), events.join('\n'));
});

test('a client config naming data outside the allowed folders is refused before a run folder exists; allowed data loads off the main thread', async () => {
  const runsDir = mkdtempSync(join(tmpdir(), 'runs-'));
  const outside = mkdtempSync(join(tmpdir(), 'dqn-outside-'));
  const secret = join(outside, 'secret.csv');
  copyFileSync(join(BUNDLED_DATA_DIR, 'spy_1d_1999-2020.csv'), secret);
  const trading = (data: string) => ({ ...config, env: { kind: 'trading' as const, data }, schedule: { epochs: 1, steps_per_epoch: 10, eval_episodes: 1 } });
  await assert.rejects(startRun({ config: trading(secret), runsDir, dataDirs: [BUNDLED_DATA_DIR] }, {}, deps((o) => new ScriptedTrainer(o))), {
    message: `env.data must be inside one of: ${BUNDLED_DATA_DIR} (got ${secret})`,
  });
  assert.deepEqual(readdirSync(runsDir), []);

  let market: TrainerOptions['market'];
  const make = (o: TrainerOptions) => ((market = o.market), new ScriptedTrainer(o));
  const h = await startRun({ config: trading('resources/data/spy_1d_1999-2020.csv'), runsDir, dataDirs: [BUNDLED_DATA_DIR] }, {}, deps(make));
  await h.done;
  assert.equal(market?.close.length, 5241);
  // The CLI (no dataDirs) trains on any file its user names.
  const cli = await startRun({ config: trading(secret), runsDir }, {}, deps(make));
  await cli.done;
  assert.equal(market?.close.length, 5241);
});

test('a finished, a stopped and a halted run each free their trainer at once (not at GC)', async () => {
  const runsDir = mkdtempSync(join(tmpdir(), 'runs-'));
  const made: ScriptedTrainer[] = [];
  const keep = (t: ScriptedTrainer) => (made.push(t), t);
  const finished = await startRun({ config, runsDir }, {}, deps((o) => keep(new ScriptedTrainer(o))));
  assert.equal((await finished.done).state, 'finished');
  const box: { handle?: Awaited<ReturnType<typeof startRun>> } = {};
  const stopAt = (t: ScriptedTrainer) => void (t.step === 20 && box.handle!.stop());
  box.handle = await startRun({ config, runsDir }, {}, deps((o) => keep(new ScriptedTrainer(o, { stopAfterStep: stopAt }))));
  assert.equal((await box.handle.done).state, 'stopped');
  const halted = await startRun({ config, runsDir }, {}, deps((o) => keep(new ScriptedTrainer(o, { nanAtStep: 30 }))));
  assert.equal((await halted.done).state, 'halted');
  assert.deepEqual(made.map((t) => t.closes), [1, 1, 1]);
});

test('a config the machine cannot hold is refused before anything is built, with the estimate, and leaves no run folder', async () => {
  const runsDir = mkdtempSync(join(tmpdir(), 'runs-'));
  let built = 0;
  const big = { ...config, replay: { capacity: 50_000_000 } };
  await assert.rejects(
    startRun({ config: big, runsDir }, {}, { ...deps((o) => (built++, new ScriptedTrainer(o))), memory: () => ({ ramBytes: 2 * 1024 ** 3 }) }),
    { message: 'this config needs about 4.29 GiB of RAM (replay 4.28 GiB, networks 1.3 MiB, batch 3.0 MiB), more than the 2.00 GiB available: lower replay.capacity, optim.batch_size or network.hidden' },
  );
  assert.equal(built, 0);
  assert.deepEqual(readdirSync(runsDir), []);
});

test('Stop during an evaluation ends it at once: no epoch record, a stop-step checkpoint', async () => {
  const runsDir = mkdtempSync(join(tmpdir(), 'runs-'));
  /** An evaluation that runs until stop() (as a long trading validation span would). */
  class LongEval extends ScriptedTrainer {
    evaluating = false;
    override async evaluate() {
      this.evaluating = true;
      this.stopFlag = false;
      while (!this.stopFlag) await new Promise((r) => setImmediate(r));
      return { stopped: true, episodes: 0, meanReturn: 0, returns: [], metrics: {} };
    }
  }
  let t!: LongEval;
  const h = await startRun({ config, runsDir }, {}, deps((o) => (t = new LongEval(o))));
  while (!t.evaluating) await new Promise((r) => setImmediate(r));
  await h.stop();
  const out = await h.done;
  assert.equal(out.state, 'stopped');
  assert.equal(out.steps, 50);
  assert.deepEqual(readdirSync(join(h.runDir, 'checkpoints')), ['stop-step-50']);
  assert.deepEqual((await readRunMetrics(h.runDir)).filter((r) => r.type === 'epoch'), [], 'the interrupted epoch is not recorded');
});

test('a run writes each system sample it streams to metrics.jsonl as a system record, and they read back', async () => {
  const runsDir = mkdtempSync(join(tmpdir(), 'runs-'));
  const gpu = { available: true, reason: '', utilPercent: 73, memUsedBytes: 5 * 2 ** 30, memTotalBytes: 80 * 2 ** 30, temperatureC: 58, powerW: 250 };
  // The addon's own exports, with NVML readings the test chooses.
  const addon = Object.assign(Object.create(loadAddon()) as NativeAddon, { nvmlSample: () => gpu });
  const streamed: SystemSample[] = [];
  // systemPeriodMs 0: a sample at every scalar read after the first (two epoch ends and the end at least).
  const h = await startRun({ config, runsDir }, { onSystem: (s) => streamed.push(s) }, { ...deps((o) => new ScriptedTrainer(o), addon), systemPeriodMs: 0 });
  assert.equal((await h.done).state, 'finished');
  const stored = (await readRunMetrics(h.runDir)).flatMap((r) => (r.type === 'system' ? [r] : []));
  assert.ok(streamed.length >= 2, `samples streamed: ${streamed.length}`);
  assert.deepEqual(stored, streamed.map((s) => ({ type: 'system', ...s })), 'every streamed sample is in the file, in order, unchanged');
  assert.equal(stored.at(-1)!.step, 100, 'the last sample is taken at the run end');
  for (const s of stored) {
    assert.equal(s.env_steps, 4 * s.step, 'the counters at the sample');
    assert.deepEqual(s.gpu, gpu);
    assert.ok(s.rssBytes > 0 && s.stepsPerSec >= 0 && Number.isFinite(s.stepsPerSec));
  }
  assert.ok(stored.some((s) => s.stepsPerSec > 0), 'steps passed between two samples');
  assert.ok(stored.every((s, i) => i === 0 || s.step >= stored[i - 1]!.step), 'in step order');
});

test('one process trains a run folder at a time: a resume while it trains is refused, naming the holder; the lock ends with the run', async () => {
  const runsDir = mkdtempSync(join(tmpdir(), 'runs-'));
  let reached!: () => void;
  const atStep30 = new Promise<void>((r) => (reached = r));
  let resume!: () => void;
  const until = new Promise<void>((r) => (resume = r));
  const h = await startRun({ config, runsDir }, {}, deps((o) => new ScriptedTrainer(o, { pauseAt: { step: 30, reached, until } })));
  await atStep30;
  assert.ok(existsSync(join(h.runDir, LOCK_FILE)), 'the live run holds its lock');
  const eventsBefore = readFileSync(join(h.runDir, 'events.log'), 'utf8');
  await assert.rejects(startRun({ config, runsDir, resume: h.runDir }, {}, deps((o) => new ScriptedTrainer(o))), new RegExp(`^Error: ${h.runDir} is being trained by this process \\(since `));
  assert.equal(readFileSync(join(h.runDir, 'events.log'), 'utf8'), eventsBefore, 'the refused resume wrote nothing into the run');
  resume();
  const out = await h.done;
  assert.equal(out.state, 'finished');
  assert.equal(existsSync(join(h.runDir, LOCK_FILE)), false, 'released when the run ends');
  const epochs = (await readRunMetrics(h.runDir)).filter((r) => r.type === 'epoch').map((r) => r.step);
  assert.deepEqual(epochs, [50, 100], 'each epoch once');
});

test('a renamed run resumes: through the console (also one made before runs kept a run-id) or by hand once run-id names it', async () => {
  const runsDir = mkdtempSync(join(tmpdir(), 'runs-'));
  const finished = async () => {
    const h = await startRun({ config, runsDir }, {}, deps((o) => new ScriptedTrainer(o)));
    await h.done;
    return h.runDir;
  };
  const resumeTo3 = async (runDir: string) => (await (await startRun({ config, runsDir, resume: runDir, overrides: { epochs: 3 } }, {}, deps((o) => new ScriptedTrainer(o)))).done).steps;
  // Renamed in the console (the dashboard's Rename).
  const a = await finished();
  assert.equal(readFileSync(join(a, RUN_ID_FILE), 'utf8'), `${basename(a)}\n`, 'a new run records its run id');
  assert.equal(await resumeTo3(renameRunDir(runsDir, a, 'renamed')), 150);
  // A run from before run-id files, renamed in the console: the rename records the old name first.
  const b = await finished();
  rmSync(join(b, RUN_ID_FILE));
  assert.equal(await resumeTo3(renameRunDir(runsDir, b, 'renamed-legacy')), 150);
  // The same, renamed by hand: refused with the way out, which works.
  const c = await finished();
  rmSync(join(c, RUN_ID_FILE));
  const byHand = join(runsDir, 'by-hand');
  renameSync(c, byHand);
  await assert.rejects(startRun({ config, runsDir, resume: byHand, overrides: { epochs: 3 } }, {}, deps((o) => new ScriptedTrainer(o))), (e: Error) => {
    assert.ok(e.message.includes(`belongs to run '${basename(c)}', not 'by-hand' (a run folder renamed by hand resumes once its ${RUN_ID_FILE} file holds '${basename(c)}')`), e.message);
    return true;
  });
  writeFileSync(join(byHand, RUN_ID_FILE), `${basename(c)}\n`);
  assert.equal(await resumeTo3(byHand), 150);
});

// schedule.target_return (SB3's StopTrainingOnRewardThreshold): the scripted evaluation returns step / 10, so with 50
// steps an epoch they rise 5, 10, 15, 20, ... and a target of 12 is first reached at epoch 3 (evaluation 15).
const toTarget = { ...config, schedule: { ...config.schedule, epochs: 10, target_return: 12 } };

/** The events.log messages of `runDir` of one kind. */
const eventsOf = (runDir: string, kind: string) =>
  readFileSync(join(runDir, 'events.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { kind: string; message: string }).filter((e) => e.kind === kind).map((e) => e.message);

test('a run ends after the first epoch whose evaluation reaches target_return: finished (not stopped), with its checkpoint, the reason in events.log and the epoch in its results', async () => {
  const runsDir = mkdtempSync(join(tmpdir(), 'runs-'));
  const states: string[] = [];
  const h = await startRun({ config: toTarget, runsDir }, { onState: (s) => states.push(s) }, deps((o) => new ScriptedTrainer(o)));
  const out = await h.done;
  assert.equal(out.state, 'finished');
  assert.deepEqual(states, ['running', 'idle'], 'never stopping');
  assert.equal(out.steps, 150, '3 of the 10 epochs');
  assert.deepEqual(out.target, { target_return: 12, epoch: 3, epochs: 10, eval_mean_return: 15 });
  const epochs = (await readRunMetrics(h.runDir)).flatMap((r) => (r.type === 'epoch' ? [[r.epoch, r.eval_mean_return, r.target_return]] : []));
  assert.deepEqual(epochs, [[1, 5, undefined], [2, 10, undefined], [3, 15, 12]], 'only the epoch that reached the target carries it');
  assert.deepEqual(readdirSync(join(h.runDir, 'checkpoints')).sort(), ['epoch-1', 'epoch-2', 'epoch-3']);
  assert.equal(readCheckpointHeader(join(h.runDir, 'checkpoints', 'epoch-3')).eval_mean_return, 15);
  assert.deepEqual(eventsOf(h.runDir, 'finish'), ['reached the target return 12 (evaluation 15.0) at epoch 3 of 10; finished 3 epochs, 150 steps']);
  assert.deepEqual(eventsOf(h.runDir, 'stop'), []);
  const [listed] = await new RunIndex().list(runsDir);
  assert.equal(listed!.state, 'finished');
  assert.deepEqual(listed!.stoppedAtTarget, { epoch: 3, evalReturn: 15, targetReturn: 12 });
});

test('a trading run that reaches target_return walks its test span exactly once, after the validation walk of the epoch that reached it, and keeps that epoch\'s checkpoint', async () => {
  const runsDir = mkdtempSync(join(tmpdir(), 'runs-'));
  /** Records each evaluation's span; the test walk returns -1 (never read by the target). */
  class Spans extends ScriptedTrainer {
    static walks: string[] = [];
    override async evaluate(episodes: number, span: 'validation' | 'test' = 'validation') {
      Spans.walks.push(`${span}@${this.step}`);
      if (span === 'test') return { stopped: false, episodes, meanReturn: -1, returns: [], metrics: { return: -0.01 } };
      return super.evaluate(episodes);
    }
  }
  const trading = {
    ...toTarget,
    env: { kind: 'trading' as const, data: 'bars.csv', test_fraction: 0.2 },
    // A checkpoint every 5 epochs: the epoch that reached the target is written anyway, as a last epoch is.
    schedule: { ...toTarget.schedule, checkpoint_every: 5 },
  };
  const market = { ...deps((o) => new Spans(o)), loadMarket: () => ({ bars: {} as NonNullable<TrainerOptions['market']>, warnings: [] }) };
  const h = await startRun({ config: trading, runsDir }, {}, market);
  const out = await h.done;
  assert.equal(out.state, 'finished');
  assert.deepEqual(Spans.walks, ['validation@50', 'validation@100', 'validation@150', 'test@150']);
  const epochs = (await readRunMetrics(h.runDir)).flatMap((r) => (r.type === 'epoch' ? [[r.epoch, r.test_mean_return, r.target_return]] : []));
  assert.deepEqual(epochs, [[1, undefined, undefined], [2, undefined, undefined], [3, -1, 12]]);
  assert.equal(out.last?.test_mean_return, -1);
  assert.deepEqual(readdirSync(join(h.runDir, 'checkpoints')), ['epoch-3']);
  assert.deepEqual(eventsOf(h.runDir, 'finish'), ['reached the target return 12 (evaluation 15.0) at epoch 3 of 10; finished 3 epochs, 150 steps']);
});

test('target_return null (the default), or a target never reached, runs every epoch and finishes as before', async () => {
  for (const target_return of [null, 1000]) {
    const runsDir = mkdtempSync(join(tmpdir(), 'runs-'));
    const h = await startRun({ config: { ...config, schedule: { ...config.schedule, epochs: 4, target_return } }, runsDir }, {}, deps((o) => new ScriptedTrainer(o)));
    const out = await h.done;
    assert.equal(out.state, 'finished');
    assert.equal(out.steps, 200, `target ${target_return}: all 4 epochs`);
    assert.equal(out.target, undefined);
    assert.equal(out.last?.target_return, undefined);
    assert.deepEqual(eventsOf(h.runDir, 'finish'), ['finished 4 epochs, 200 steps']);
  }
});

test('resuming a run that finished at its target return trains no further, even with more --epochs, and leaves it untouched', async () => {
  const runsDir = mkdtempSync(join(tmpdir(), 'runs-'));
  const h = await startRun({ config: toTarget, runsDir }, {}, deps((o) => new ScriptedTrainer(o)));
  await h.done;
  const before = readFileSync(join(h.runDir, 'metrics.jsonl'), 'utf8');
  let built = 0;
  for (const overrides of [{}, { epochs: 20 }])
    await assert.rejects(startRun({ config: toTarget, runsDir, resume: h.runDir, overrides }, {}, deps((o) => (built++, new ScriptedTrainer(o)))), {
      message: `${h.runDir} already finished at its target return: epoch 3's evaluation 15.0 >= 12 (schedule.target_return), so it trains no further; to train longer, start a new run with a higher target_return or none`,
    });
  assert.equal(built, 0, 'no trainer built');
  assert.equal(readFileSync(join(h.runDir, 'metrics.jsonl'), 'utf8'), before);
  assert.equal(existsSync(join(h.runDir, LOCK_FILE)), false, 'a refused resume leaves no lock behind');
});

test('a run stopped before its target resumes and still ends at the target', async () => {
  const runsDir = mkdtempSync(join(tmpdir(), 'runs-'));
  const box: { handle?: Awaited<ReturnType<typeof startRun>> } = {};
  const stopAt = (t: ScriptedTrainer) => void (t.step === 70 && box.handle!.stop());
  box.handle = await startRun({ config: toTarget, runsDir }, {}, deps((o) => new ScriptedTrainer(o, { stopAfterStep: stopAt })));
  assert.equal((await box.handle.done).state, 'stopped');
  const out = await (await startRun({ config: toTarget, runsDir, resume: box.handle.runDir }, {}, deps((o) => new ScriptedTrainer(o)))).done;
  assert.equal(out.state, 'finished');
  assert.equal(out.steps, 150);
  assert.deepEqual(out.target, { target_return: 12, epoch: 3, epochs: 10, eval_mean_return: 15 });
});
