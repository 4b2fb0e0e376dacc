// Training runs from a headless CLI (`npm run train`, `npm run sweep`): one run with a progress
// display on stderr, and the seeds of one config as a seed group, at once on the GPU when they
// fit (main/trainer/seed-group.ts) and one after another otherwise. Ctrl-C stops every run that
// trains (each keeps a checkpoint) and starts no other.
import type { RunConfig } from '../../common/config.ts';
import { seedGroupDeps } from '../trainer/seed-group.ts';
import { resolveConfig, startRun, type SessionDeps } from '../trainer/session.ts';
import type { StartOptions } from '../trainer/session-api.ts';
import { prefixedStream, ProgressLine } from './progress.ts';
import { summaryJson, type RunSource, type RunSummary } from './summary.ts';

/** The runs a Ctrl-C stops (several at once for a seed group); `requested` once it came. */
export interface Stopper {
  requested: boolean;
  current: Set<() => Promise<unknown>>;
}

/** A Stopper wired to SIGINT and SIGTERM (once each): the runs stop after their current step, keeping a checkpoint. */
export function stopOnSignals(): Stopper {
  const stop: Stopper = { requested: false, current: new Set() };
  const onSignal = () => {
    stop.requested = true;
    process.stderr.write('stopping (checkpoint will be kept)...\n');
    for (const s of stop.current) void s();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return stop;
}

/**
 * Trains one run with a progress display on stderr (each line behind `prefix` when given: a seed
 * group's members print together); returns its summary (summaryJson). `onRunDir` hears the run
 * folder as soon as it exists (before training).
 */
export async function trainOne(opts: StartOptions, source: RunSource, stop: Stopper, deps?: SessionDeps, prefix?: string, onRunDir?: (runDir: string) => void): Promise<{ summary: RunSummary; config: RunConfig }> {
  const resolved = resolveConfig(opts);
  const out = prefix ? prefixedStream(process.stderr, prefix) : process.stderr;
  const progress = new ProgressLine(out, resolved.schedule.epochs * resolved.schedule.steps_per_epoch, {
    rewardScale: resolved.env.kind === 'trading' ? resolved.env.reward_scale : undefined,
    mayStopEarly: resolved.schedule.target_return !== null,
  });
  let backend = '?';
  let replay = '?';
  const handle = await startRun(opts, {
    onBackends: (b) => {
      backend = b.compute.backend;
      replay = b.replay.backend;
      const collector = b.collector ? `, environments: ${b.collector.where}${b.collector.reason ? ` (${b.collector.reason})` : ''}` : '';
      progress.message(`compute: ${b.compute.backend}${b.compute.reason ? ` (${b.compute.reason})` : ''}, replay: ${b.replay.backend}${b.replay.reason ? ` (${b.replay.reason})` : ''}${collector}`);
    },
    onScalars: (points) => progress.scalars(points),
    onEpisodes: (eps) => progress.episodes(eps),
    onEpoch: (e) => progress.epoch(e, resolved.schedule.epochs),
    onEvent: (e) => (e.kind === 'fallback' || e.kind === 'halt' || e.kind === 'error' || e.kind === 'warning' ? progress.message(`${e.kind}: ${e.message}`) : undefined),
  }, deps);
  onRunDir?.(handle.runDir);
  progress.message(`run directory: ${handle.runDir}`);
  const stopThis = () => handle.stop();
  stop.current.add(stopThis);
  if (stop.requested) void stopThis();
  const outcome = await handle.done;
  stop.current.delete(stopThis);
  progress.done(outcome);
  return { summary: summaryJson(source, outcome, backend, replay, handle.runDir, resolved), config: resolved };
}

/** One member of a seed group to train: its seed and its start options (a new run, or `resume` of a stopped one). */
export interface SeedJob {
  seed: number;
  opts: StartOptions;
}

/**
 * Trains the seeds of one config (`base`, resolved): at once as one GPU seed group when the
 * backend is CUDA, every job is a new run and the group fits (seedGroupDeps), else one after
 * another, saying why. After a Ctrl-C no further seed starts, so fewer summaries than jobs may
 * come back (in job order). `onRunDir(seed, runDir)` hears each run folder when it exists.
 */
export async function trainSeeds(base: RunConfig, jobs: readonly SeedJob[], source: RunSource, stop: Stopper, onRunDir?: (seed: number, runDir: string) => void): Promise<RunSummary[]> {
  const seeds = jobs.map((j) => j.seed);
  const resuming = jobs.some((j) => j.opts.resume);
  const gpuGroup = resuming ? { reason: 'a stopped member resumes from its checkpoint' } : jobs.length > 1 ? await seedGroupDeps(base, seeds) : { reason: 'one seed' };
  if ('deps' in gpuGroup) {
    // One GPU seed group: the seeds train at once, one launch of the step kernel for all.
    process.stderr.write(`training seeds ${seeds.join(', ')} at once as one GPU seed group\n`);
    const runs = jobs.map((j, k) => trainOne(j.opts, source, stop, gpuGroup.deps[k], `[seed ${j.seed}] `, (d) => onRunDir?.(j.seed, d)));
    return (await Promise.all(runs)).map((r) => r.summary);
  }
  if (jobs.length > 1) process.stderr.write(`training the seeds one after another: ${gpuGroup.reason}\n`);
  const summaries: RunSummary[] = [];
  for (const [k, j] of jobs.entries()) {
    if (stop.requested) break;
    process.stderr.write(`seed ${j.seed} (${k + 1} of ${jobs.length})\n`);
    summaries.push((await trainOne(j.opts, source, stop, undefined, undefined, (d) => onRunDir?.(j.seed, d))).summary);
  }
  return summaries;
}
