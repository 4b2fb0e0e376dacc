// The training session: the epoch loop over the native trainer (collect + train on a worker
// thread, evaluate, checkpoint), live scalar streaming from the scalar block, and the run
// directory. Used by the CLI, the Electron trainer host and the browser-mode server alike; it
// imports no Electron.
import { freemem } from 'node:os';
import { join } from 'node:path';
import { parseRunConfig, type HeadsConfig, type RunConfig } from '../../common/config.ts';
import { estimateMemory, memoryShortfall, type MemoryAvailable } from '../../common/memory-estimate.ts';
import { evalWalks, finishedAtTargetText, NO_RESUME_AT_TARGET, reachedReturnText, SCALAR_NAMES, type EpochSummary, type RunEvent, type ScalarPoint, type TargetReached } from '../../common/run.ts';
import { numberText } from '../../common/config-problems.ts';
import { SYSTEM_PERIOD_MS } from '../../common/protocol.ts';
import { loadAddon, type NativeAddon } from '../../native/addon.ts';
import { nanTensors, readScalars, type Scalars } from '../../native/scalars.ts';
import { buildTrainer, type MarketArrays, type NativeTrainer, type TrainerOptions } from '../../native/trainer.ts';
import { removeStaleTemps } from './atomic-file.ts';
import { chooseBackend } from './backend-choice.ts';
import { putHeadScalars } from './head-scalars.ts';
import { InputError } from './input-error.ts';
import { acquireRunLock, type RunLock } from './run-lock.ts';
import { writeEvalCurves } from './eval-curves.ts';
import { expectationFor, nextCheckpoint, pruneCheckpoints, verifiedCheckpoints, writeCheckpoint, type Checkpoint, type CheckpointMeta } from './checkpoint.ts';
import { loadOhlcvOffThread } from './data/ohlcv.ts';
import { REPO_ROOT } from './paths.ts';
import { resolveDataPath } from './paths-policy.ts';
import { writeGroupMarker } from './seed-groups.ts';
import { appendEvent, createRunDir, MetricsWriter, readRunConfig, trimRunMetrics } from './run-dir.ts';
import type { RunCallbacks, RunHandle, RunOutcome, StartOptions } from './session-api.ts';
import { nvmlReader, SystemSampler } from './system-stats.ts';

/** How often live scalars are read from the scalar block and sent (DESIGN: 100-250 ms). */
const SCALAR_PERIOD_MS = 200;
/** Largest run() call: bounds how late episode returns and stop requests are seen. */
const MAX_CHUNK_STEPS = 2000;
/** How often metrics.jsonl is appended to while a run is live (DESIGN: every few seconds). */
export const METRICS_FLUSH_MS = 2000;

/** Bars of the trading environment and one warning per skipped row. */
export interface LoadedMarket {
  bars: MarketArrays;
  warnings: string[];
}

/** What the session needs from outside; tests replace it. */
export interface SessionDeps {
  addon: () => NativeAddon;
  /** Builds a trainer; the default (buildTrainer) allocates off the event loop. */
  createTrainer: (options: TrainerOptions) => NativeTrainer | Promise<NativeTrainer>;
  /** Memory a run may use now (RAM available; free GPU memory from the addon for a CUDA run). */
  memory: (addon: NativeAddon) => MemoryAvailable;
  /** Reads the trading bars; the default does it on a worker thread (the event loop stays free). */
  loadMarket: (path: string, badRows: 'refuse' | 'skip') => Promise<LoadedMarket> | LoadedMarket;
  now: () => number;
  /** Period of the live metrics.jsonl flush (METRICS_FLUSH_MS). */
  metricsFlushMs: number;
  /** Least time between two system samples (SYSTEM_PERIOD_MS; tests use 0: one per scalar read). */
  systemPeriodMs: number;
}

export const defaultDeps: SessionDeps = {
  addon: loadAddon,
  createTrainer: buildTrainer,
  memory: availableMemory,
  loadMarket: async (path, badRows) => {
    const { bars, problems } = await loadOhlcvOffThread(path, { badRows });
    return { bars, warnings: problems.map((p) => `line ${p.line}: ${p.message}`) };
  },
  now: () => performance.now(),
  metricsFlushMs: METRICS_FLUSH_MS,
  systemPeriodMs: SYSTEM_PERIOD_MS,
};

/** RAM available to this process now (the cgroup limit when lower) and the GPU's free bytes. */
export function availableMemory(addon: NativeAddon): MemoryAvailable {
  const limit = process.constrainedMemory?.() || Infinity; // 0 or undefined: no cgroup limit
  return { ramBytes: Math.min(freemem(), limit), gpuFreeBytes: addon.backendInfo().freeBytes };
}

/** Applies CLI-style overrides and validates. */
export function resolveConfig(opts: StartOptions): RunConfig {
  const base = opts.resume ? readRunConfig(opts.resume) : parseRunConfig(opts.config);
  const o = opts.overrides ?? {};
  return parseRunConfig({
    ...base,
    seed: o.seed ?? base.seed,
    backend: o.backend ?? base.backend,
    network: { ...base.network, precision: o.precision ?? base.network.precision },
    schedule: { ...base.schedule, epochs: o.epochs ?? base.schedule.epochs, steps_per_epoch: o.steps_per_epoch ?? base.schedule.steps_per_epoch },
  });
}

/**
 * The target an evaluation mean return `value` reached (schedule.target_return, value >= it), or
 * undefined when the config sets none or `value` is below it (or not a number).
 */
export function targetReachedBy(config: RunConfig, value: number | null | undefined): { target: number; value: number } | undefined {
  const target = config.schedule.target_return;
  return target !== null && typeof value === 'number' && value >= target ? { target, value } : undefined;
}

/** True for a trading run that holds out a test span (env.test_fraction > 0). */
export function hasTestSpan(config: RunConfig): boolean {
  return config.env.kind === 'trading' && config.env.test_fraction > 0;
}

/** The CUDA learner lost its context (a sticky error): the run continues on the CPU (DESIGN section 5). */
/**
 * The events.log fallback line of where the environments step, or '' when nothing fell back: the training environments
 * on the host although the device was asked for (`reason` says why), or, with them on the device, a trading run's
 * evaluation walks on the host (common/run.ts, evalWalks, reads why from the reason).
 */
export function collectorFallbackText(where: 'host' | 'device', reason: string): string {
  if (!reason) return '';
  if (where === 'host') return `environments on the host: ${reason}`;
  const walks = evalWalks({ where, reason });
  return walks?.where === 'host' ? `evaluation walks on the host: ${walks.why}` : '';
}

export function isDeviceLost(e: unknown): boolean {
  return e instanceof Error && e.message.startsWith('CUDA context lost');
}

/** What toScalarPoint remembers between reads: the last probe steps and the cumulative sums. */
export interface PointMemory {
  qStep: number;
  causalStep: number;
  /** loss_sum, td_mse_sum, grad_norm_sum and sum_steps at the previous read. */
  sums?: { loss: number; td_mse: number; grad_norm: number; steps: number };
}

/**
 * Maps one scalar-block read to a chart point; Q-stats and causal values only when fresh, and
 * the heads' values only for the parts `heads` enables (putHeadScalars). Loss, TD mse and grad
 * norm are the exact means over the steps since the previous read (the difference of the block's
 * cumulative sums over the difference of its step counts), so a point summarises every step it
 * covers instead of sampling one; the last step's values when no earlier read exists or no step
 * passed.
 */
export function toScalarPoint(s: Scalars, wallS: number, last: PointMemory, causalNames: string[], heads: HeadsConfig): ScalarPoint {
  const values: ScalarPoint['values'] = {};
  const put = (name: string, v: number) => {
    values[name] = Number.isFinite(v) ? v : (String(v) as 'NaN' | 'Infinity' | '-Infinity');
  };
  const sums = { loss: s.loss_sum!, td_mse: s.td_mse_sum!, grad_norm: s.grad_norm_sum!, steps: s.sum_steps! };
  const prev = last.sums;
  const covered = prev && sums.steps > prev.steps ? sums.steps - prev.steps : 0;
  for (const key of ['loss', 'td_mse', 'grad_norm'] as const) put(SCALAR_NAMES[key], covered ? (sums[key] - prev![key]) / covered : s[key]!);
  last.sums = sums;
  for (const key of ['per_total', 'per_max_priority', 'is_weight_mean', 'beta', 'epsilon'] as const) put(SCALAR_NAMES[key], s[key]!);
  const qFresh = s.q_stats_step! >= 0 && s.q_stats_step !== last.qStep;
  if (qFresh) {
    for (const key of ['q_mean', 'q_min', 'q_max', 'q_var', 'mean_max_q'] as const) put(SCALAR_NAMES[key], s[key]!);
    last.qStep = s.q_stats_step!;
  }
  putHeadScalars(s, heads, qFresh, put);
  if (s.causal_step! >= 0 && s.causal_step !== last.causalStep) {
    put(SCALAR_NAMES.causal_sensitivity, s.causal_sensitivity!);
    s.causal_per_feature.forEach((v, i) => put(`causal/${causalNames[i] ?? `f${i}`}`, v));
    last.causalStep = s.causal_step!;
  }
  return { step: s.step!, wall_s: wallS, values };
}

/**
 * Starts (or resumes) a run. Resolves once the trainer is built and the run directory exists;
 * the epoch loop then runs in the background until `handle.done`.
 * @throws ConfigError for an invalid config; InputError (OhlcvError) for unusable data or a run
 *   folder that cannot resume; Error when the machine cannot (no GPU for backend cuda, too
 *   little memory, a runs folder that cannot be written).
 */
export async function startRun(opts: StartOptions, cb: RunCallbacks = {}, deps: SessionDeps = defaultDeps): Promise<RunHandle> {
  const config = resolveConfig(opts);
  const addon = deps.addon();
  const warnings: string[] = [];
  let market: MarketArrays | undefined;
  if (config.env.kind === 'trading') {
    const loaded = await deps.loadMarket(resolveDataPath(config.env.data, REPO_ROOT, opts.dataDirs), config.env.bad_rows);
    market = loaded.bars;
    warnings.push(...loaded.warnings.map((w) => `skipped bad row, ${w}`));
  }

  const chosen = chooseBackend(config.backend, config.heads, () => addon.backendInfo()); // an impossible backend leaves no run folder
  // A config the machine cannot hold is refused before anything is allocated (and no run folder made).
  const replayOnGpu = chosen.backend === 'cuda' && config.replay.device !== 'cpu';
  const shortfall = memoryShortfall(estimateMemory(config), { compute: chosen.backend, replayOnGpu }, deps.memory(addon));
  if (shortfall) throw new Error(shortfall);
  const runDir = opts.resume ?? createRunDir(opts.runsDir, config);
  const lock = acquireRunLock(runDir); // before anything is written: one process trains a run folder at a time
  try {
    if (opts.group && !opts.resume) writeGroupMarker(runDir, opts.group);
    return await trainLocked({ config, addon, warnings, market, chosen, runDir, resume: opts.resume, lock }, cb, deps);
  } catch (e) {
    lock.release();
    throw e;
  }
}

/**
 * Loads into `trainer` the first of `first` and then `rest` (verifiedCheckpoints: most steps
 * first) whose state it accepts. One it refuses (its checksum is valid but its content is not
 * a trainer state of this build: "not a trainer state (bad magic number)") is skipped, with
 * `onSkip` told why, for the previous good one (DESIGN section 6).
 * @returns the checkpoint loaded, or undefined when none loads.
 */
function loadNewestGood(trainer: NativeTrainer, first: Checkpoint | undefined, rest: Iterator<Checkpoint, void>, onSkip: (reason: string) => void): Checkpoint | undefined {
  for (let c = first; c; c = nextCheckpoint(rest)) {
    try {
      trainer.loadState(c.state);
      return c;
    } catch (e) {
      onSkip(`${c.path}: the trainer cannot load its state: ${(e as Error).message}`);
    }
  }
  return undefined;
}

/** What startRun hands to trainLocked once it holds the run's lock. */
interface LockedStart {
  config: RunConfig;
  addon: NativeAddon;
  /** Warnings to write to events.log once the run folder is in use (skipped data rows). */
  warnings: string[];
  market: MarketArrays | undefined;
  chosen: { backend: 'cpu' | 'cuda'; reason: string };
  runDir: string;
  /** The run folder when resuming (StartOptions.resume). */
  resume: string | undefined;
  lock: RunLock;
}

/**
 * startRun's part under the run's lock: builds the trainer, loads the checkpoint when resuming and
 * starts the epoch loop, whose end (or a throw before it starts) releases the lock.
 */
async function trainLocked(ctx: LockedStart, cb: RunCallbacks, deps: SessionDeps): Promise<RunHandle> {
  const { config, addon, warnings, market, chosen, runDir, resume, lock } = ctx;
  const layout = addon.scalarLayout;
  const event = (kind: RunEvent['kind'], message: string) => {
    const e: RunEvent = { time: new Date().toISOString(), kind, message };
    appendEvent(runDir, e);
    cb.onEvent?.(e);
  };

  for (const dir of [runDir, join(runDir, 'checkpoints')])
    for (const name of removeStaleTemps(dir)) event('warning', `removed stale temporary file ${join(dir, name)} (left by an interrupted write)`);
  const expect = expectationFor(runDir, config);
  const skipped: string[] = [];
  const skip = (why: string) => {
    skipped.push(why);
    event('warning', `skipped checkpoint: ${why}`);
  };
  const candidates = resume ? verifiedCheckpoints(runDir, skip, expect) : undefined;
  let ckpt = candidates && nextCheckpoint(candidates);
  if (resume) {
    if (!ckpt) throw new InputError(`cannot resume ${runDir}: it has no valid checkpoint${skipped.length ? ` (${skipped.join('; ')})` : ''}`);
    const total = config.schedule.epochs * config.schedule.steps_per_epoch;
    if (ckpt.meta.step >= total)
      throw new InputError(`${runDir} is already complete (${ckpt.meta.epoch} epochs, ${ckpt.meta.step} steps): pass --epochs N with N > ${ckpt.meta.epoch} to train it further`);
    const reached = targetReachedBy(config, ckpt.meta.eval_mean_return);
    if (reached)
      throw new InputError(`${runDir} already ${finishedAtTargetText(ckpt.meta.epoch, reached.value, reached.target)}, ${NO_RESUME_AT_TARGET}`);
  }

  let trainer: NativeTrainer;
  try {
    trainer = await deps.createTrainer({ config, market, backend: chosen.backend });
  } catch (e) {
    if (chosen.backend !== 'cuda') throw e;
    chosen.backend = 'cpu';
    chosen.reason = `CUDA trainer unavailable: ${(e as Error).message}`;
    trainer = await deps.createTrainer({ config, market, backend: 'cpu' });
  }
  /** Frees the trainer's native memory now (a stopped, finished or failed run releases it at once, not at GC). */
  const closeTrainer = () => {
    try {
      trainer.close();
    } catch (e) {
      event('warning', `could not free the trainer: ${(e as Error).message}`);
    }
  };
  if (chosen.backend === 'cpu' && chosen.reason) event('fallback', `compute on CPU: ${chosen.reason}`);
  if (trainer.info.replayFallbackReason) event('fallback', `replay on CPU: ${trainer.info.replayFallbackReason}`);
  const collectorFallback = collectorFallbackText(trainer.info.collector, trainer.info.collectorReason);
  if (collectorFallback) event('fallback', collectorFallback);
  for (const w of warnings) event('warning', w);

  let meta: CheckpointMeta = { step: 0, env_steps: 0, epoch: 0, wall_s: 0 };
  if (ckpt) {
    ckpt = loadNewestGood(trainer, ckpt, candidates!, skip);
    if (!ckpt) {
      closeTrainer();
      throw new InputError(`cannot resume ${runDir}: it has no checkpoint the trainer can load (${skipped.join('; ')})`);
    }
    meta = { ...ckpt.meta };
    const dropped = trimRunMetrics(runDir, meta.step, meta.env_steps);
    event('resume', `resumed from ${ckpt.path} at step ${meta.step}${dropped ? `; dropped ${dropped} metrics records past it (they are trained again)` : ''}`);
  } else {
    event('start', `run ${config.name} on ${chosen.backend}`);
  }
  const deviceName = addon.backendInfo().deviceName;
  let replayReason = trainer.info.replayFallbackReason;
  let collectorReason = trainer.info.collectorReason;
  const announceBackends = () =>
    cb.onBackends?.({
      compute: { backend: trainer.info.backend, reason: chosen.reason },
      replay: { backend: trainer.info.replayBackend, reason: replayReason },
      collector: { where: trainer.info.collector, reason: collectorReason },
      deviceName,
    });
  /**
   * A replay kernel that fails mid-run moves the buffer to the CPU (and device collection to the host), a failing GPU
   * evaluation walk moves trading's evaluation walks to the host: say so once.
   */
  const watchReplay = () => {
    const replayNow = trainer.info.replayFallbackReason, collectorNow = trainer.info.collectorReason;
    if (replayNow === replayReason && collectorNow === collectorReason) return;
    if (replayNow !== replayReason) event('fallback', `replay on CPU: ${replayNow}`);
    const fallbackNow = collectorNow !== collectorReason ? collectorFallbackText(trainer.info.collector, collectorNow) : '';
    if (fallbackNow) event('fallback', fallbackNow);
    replayReason = replayNow;
    collectorReason = collectorNow;
    announceBackends();
  };
  announceBackends();

  const metrics = new MetricsWriter(join(runDir, 'metrics.jsonl'));
  /** Appends the buffered records and tells the front end that the file now holds them. */
  const flushMetrics = () => {
    metrics.flush();
    cb.onFlushed?.();
  };
  let lastFlushError = '';
  /** The periodic flush: a failure is a warning (once per cause); the epoch-end flush halts on it. */
  const flushLive = () => {
    try {
      flushMetrics();
      lastFlushError = '';
    } catch (e) {
      if ((e as Error).message !== lastFlushError) event('warning', (lastFlushError = (e as Error).message));
    }
  };
  let stopRequested = false;
  const firstStep = meta.step;
  const t0 = deps.now();
  const wall = () => meta.wall_s + (deps.now() - t0) / 1000;
  const fresh: PointMemory = { qStep: -1, causalStep: -1 };
  const causalNames = trainer.info.causalFeatureNames; // fixed for the run: read once, not per poll
  let lastStep = ckpt ? meta.step : -1; // metrics.jsonl already holds the checkpoint's step
  const system = new SystemSampler(nvmlReader(addon), deps.systemPeriodMs); // at most one sample per period
  const pollScalars = () => {
    const s = readScalars(trainer.scalars, layout);
    const sample = system.sample(s.step!, s.env_steps!, wall());
    if (sample) {
      metrics.add({ type: 'system', ...sample }); // a past run's system panel reads these back
      cb.onSystem?.(sample);
    }
    if (s.step === lastStep) return;
    lastStep = s.step!;
    const point = toScalarPoint(s, wall(), fresh, causalNames, config.heads);
    metrics.add({ type: 'scalars', ...point });
    cb.onScalars?.([point]);
  };

  /** Writes a checkpoint (with the evaluation return that goes with it), then applies retention. */
  const checkpoint = (name: string, evalReturn: number | null) => {
    const path = writeCheckpoint(runDir, name, { ...meta, wall_s: wall(), eval_mean_return: evalReturn }, trainer.saveState(), expect.network);
    const removed = pruneCheckpoints(runDir, config.schedule.checkpoint_keep);
    event('checkpoint', `wrote ${path}${removed.length ? `; removed ${removed.join(', ')} (keeping the last ${config.schedule.checkpoint_keep} and the best by evaluation)` : ''}`);
  };

  /**
   * The GPU is gone for this process: the run goes on with a CPU trainer from the last
   * checkpoint (or from the start when there is none yet), and the badges say why.
   */
  const continueOnCpu = async (why: string) => {
    closeTrainer();
    trainer = await deps.createTrainer({ config, market, backend: 'cpu' });
    const warn = (why: string) => event('warning', `skipped checkpoint: ${why}`);
    const all = verifiedCheckpoints(runDir, warn, expect);
    const good = loadNewestGood(trainer, nextCheckpoint(all), all, warn);
    if (good) {
      meta = { ...good.meta };
    } else {
      meta = { step: 0, env_steps: 0, epoch: 0, wall_s: meta.wall_s };
    }
    flushMetrics();
    trimRunMetrics(runDir, meta.step, meta.env_steps); // the steps past the checkpoint are trained again
    chosen.backend = 'cpu';
    chosen.reason = why;
    replayReason = trainer.info.replayFallbackReason;
    lastStep = good ? meta.step : -1;
    event('fallback', `compute on CPU: ${why}; continuing from ${good ? good.path : 'the start'}`);
    announceBackends();
  };

  const loop = async (): Promise<RunOutcome> => {
    cb.onState?.('running');
    const { epochs, steps_per_epoch: spe, eval_episodes, checkpoint_every } = config.schedule;
    let last: EpochSummary | undefined;
    let target: TargetReached | undefined;
    const timers = [setInterval(pollScalars, SCALAR_PERIOD_MS), setInterval(flushLive, deps.metricsFlushMs)];
    const stopTimers = () => timers.forEach(clearInterval);
    // The epochs; a lost GPU context continues them on a CPU trainer (continueOnCpu).
    for (;;) {
      try {
        while (meta.epoch < epochs && !stopRequested) {
          const epochStart = deps.now();
          const epochFirstStep = meta.step; // a resumed run may start inside an epoch
          let remaining = (meta.epoch + 1) * spe - meta.step;
          while (remaining > 0 && !stopRequested) {
            const res = await trainer.run(Math.min(remaining, MAX_CHUNK_STEPS));
            watchReplay();
            const s = readScalars(trainer.scalars, layout);
            meta.step = s.step!;
            meta.env_steps = s.env_steps!;
            remaining = (meta.epoch + 1) * spe - meta.step;
            if (res.episodeReturns.length) {
              const eps = res.episodeReturns.map((value, i) => ({ step: res.episodeEnvSteps[i]!, value }));
              for (const e of eps) metrics.add({ type: 'episode', ...e });
              cb.onEpisodes?.(eps);
            }
            if (res.stopped) break;
          }
          if (stopRequested) break;
          const epochTime = (deps.now() - epochStart) / 1000;
          pollScalars();
          const ev = await trainer.evaluate(eval_episodes);
          watchReplay();
          if (ev.stopped || stopRequested) break; // Stop during the evaluation: the epoch is not complete
          // An evaluation at or above schedule.target_return ends the run after this epoch (SB3's
          // StopTrainingOnRewardThreshold), which then ends as the last epoch does.
          const reached = targetReachedBy(config, ev.meanReturn);
          const lastEpoch = meta.epoch + 1 === epochs || reached !== undefined;
          // The run's end: the test span, held out from every selection, is walked once.
          const test = lastEpoch && hasTestSpan(config) ? await trainer.evaluate(eval_episodes, 'test') : undefined;
          if (test) watchReplay();
          if (test?.stopped || stopRequested) break;
          meta.epoch += 1;
          last = {
            epoch: meta.epoch,
            step: meta.step,
            env_steps: meta.env_steps,
            epoch_time_s: epochTime,
            steps_per_s: (meta.step - epochFirstStep) / Math.max(epochTime, 1e-9),
            eval_mean_return: ev.meanReturn,
            eval_episodes: ev.episodes,
            eval_metrics: ev.metrics,
            ...(test ? { test_mean_return: test.meanReturn, test_metrics: test.metrics } : {}),
            ...(reached ? { target_return: reached.target } : {}),
          };
          try {
            writeEvalCurves(runDir, ev.series, meta.epoch, meta.step);
          } catch (e) {
            event('warning', `evaluation curves of epoch ${meta.epoch} not kept: ${(e as Error).message}`);
          }
          metrics.add({ type: 'epoch', ...last });
          flushMetrics();
          cb.onEpoch?.(last);
          if (meta.epoch % checkpoint_every === 0 || lastEpoch) checkpoint(`epoch-${meta.epoch}`, ev.meanReturn);
          if (reached) {
            target = { target_return: reached.target, epoch: meta.epoch, epochs, eval_mean_return: ev.meanReturn };
            break;
          }
        }
        break;
      } catch (e) {
        if (isDeviceLost(e) && trainer.info.backend === 'cuda') {
          await continueOnCpu((e as Error).message);
          continue;
        }
        stopTimers();
        const message = (e as Error).message;
        const flags = nanTensors(readScalars(trainer.scalars, layout).nan_flags!, layout);
        const haltReason = /NaN|Inf/.test(message) || flags.length ? message : `error: ${message}`;
        flushLive(); // a halt from a failing disk must still be reported
        event('halt', `${haltReason} (last good checkpoint kept)`);
        return { state: 'halted', haltReason, ...counts(), last };
      }
    }
    stopTimers();
    pollScalars();
    flushMetrics();
    if (stopRequested) {
      checkpoint(`stop-step-${meta.step}`, null);
      event('stop', `stopped at step ${meta.step}`);
    } else {
      const at = target ? `reached the target return ${numberText(target.target_return)} (evaluation ${reachedReturnText(target.eval_mean_return, target.target_return)}) at epoch ${target.epoch} of ${epochs}; ` : '';
      event('finish', `${at}finished ${meta.epoch} epoch${meta.epoch === 1 ? '' : 's'}, ${meta.step} steps`);
    }
    return { state: stopRequested ? 'stopped' : 'finished', ...counts(), last, ...(target && !stopRequested ? { target } : {}) };
  };
  const counts = () => ({ steps: meta.step, env_steps: meta.env_steps, wall_s: wall(), session_steps: meta.step - firstStep, session_wall_s: (deps.now() - t0) / 1000 });

  // The end is announced once the run's lock is released, so that a run history listed on it
  // says how the run ended (not 'live').
  const done = loop()
    .finally(() => {
      closeTrainer();
      lock.release();
    })
    .then((outcome) => {
      if (outcome.state === 'halted') cb.onState?.('halted', outcome.haltReason);
      else cb.onState?.('idle');
      return outcome;
    });
  return {
    runDir,
    done,
    async stop() {
      if (!stopRequested) {
        stopRequested = true;
        cb.onState?.('stopping');
        trainer.stop();
      }
      await done;
    },
  };
}
