// Dashboard benchmark (DESIGN section 8 targets):
//  1. redraw: debiased-EMA smoothing + min/max/last downsampling of a 1,000,000-point series to
//     a 1000-px chart must take < 16 ms (one frame); also the incremental path the dashboard
//     uses (smoothing kept up to date as points arrive, so a redraw only downsamples);
//  2. memory: a simulated week-long run (15 series at 5 points/s) stays within the series bound;
//  3. streaming: the cost of the live stream (host batching, serialization, parsing and the
//     store) per second of training, as a share of one core; and, when the native trainer is
//     built, CartPole steps/s with the trainer host attached vs the bare session (< 2 % apart),
//     with the run-to-run spread that tells a real cost from noise.
//   npm run bench -- dashboard [--points 1000000] [--width 1000] [--ab-steps 20000] [--json]
//  4. the real page under a live stream (dashboard-page.ts): round trip, Stop to Idle, frames and memory
//   npm run bench -- dashboard --stream RATE [--seconds 300] [--cpu-profile FILE] [--json]   (synthetic host at RATE steps/s)
//   npm run bench -- dashboard --trainer [--seconds 300] [--json]       (the real CPU trainer, tiny network)
import { performance } from 'node:perf_hooks';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HostMessageSchema, type HostMessage } from '../common/protocol.ts';
import { SCALAR_NAMES, type ScalarPoint } from '../common/run.ts';
import { TrainerHost, type SessionApi } from '../main/trainer/host.ts';
import type { RunCallbacks, StartOptions } from '../main/trainer/session-api.ts';
import { smoothAndDownsample, Series, DEFAULT_MAX_POINTS } from '../renderer/lib/series.ts';
import { createDashboard } from '../renderer/store.ts';
import type { PageBenchOptions } from './dashboard-page.ts';

export const summary = 'dashboard: redraw of a 1M-point series, memory of a week-long run, cost of live streaming';

interface Options {
  points: number;
  width: number;
  abSteps: number;
  json: boolean;
}

function parseArgs(args: string[]): Options {
  const o: Options = { points: 1_000_000, width: 1000, abSteps: 20_000, json: false };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const int = (name: string) => {
      const v = Number(args[++i]);
      if (!Number.isInteger(v) || v < 1) throw new Error(`${name} expects a positive integer, got '${args[i]}'`);
      return v;
    };
    if (a === '--json') o.json = true;
    else if (a === '--points') o.points = int(a);
    else if (a === '--width') o.width = int(a);
    else if (a === '--ab-steps') o.abSteps = int(a);
    else throw new Error(`unknown option '${a}' (expected --points N, --width PX, --ab-steps N, --json)`);
  }
  return o;
}

/** Options of the page benchmark, or undefined when neither --stream nor --trainer is given. */
function pageArgs(args: string[]): PageBenchOptions | undefined {
  if (!args.includes('--stream') && !args.includes('--trainer')) return undefined;
  const o: PageBenchOptions = { seconds: 300, json: false };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const num = (name: string) => {
      const v = Number(args[++i]);
      if (!(v > 0)) throw new Error(`${name} expects a positive number, got '${args[i]}'`);
      return v;
    };
    if (a === '--stream') o.rate = num(a);
    else if (a === '--seconds') o.seconds = num(a);
    else if (a === '--json') o.json = true;
    else if (a === '--cpu-profile') o.cpuProfile = args[++i];
    else if (a !== '--trainer') throw new Error(`unknown option '${a}' for the page benchmark (expected --stream STEPS_PER_S | --trainer, --seconds S, --cpu-profile FILE, --json)`);
  }
  if (o.rate !== undefined && args.includes('--trainer')) throw new Error('give either --stream RATE (synthetic host) or --trainer (the real CPU trainer), not both');
  return o;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function time(fn: () => void, reps: number): number {
  fn(); // warm-up
  const ts: number[] = [];
  for (let r = 0; r < reps; r++) {
    const t0 = performance.now();
    fn();
    ts.push(performance.now() - t0);
  }
  return median(ts);
}

/** A loss-like series: decaying noise with spikes and a few NaNs. */
function lossSeries(n: number): { xs: Float64Array; ys: Float64Array } {
  const xs = new Float64Array(n);
  const ys = new Float64Array(n);
  let s = 12345;
  for (let i = 0; i < n; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    xs[i] = i;
    ys[i] = Math.exp(-i / n) + (s / 2 ** 32) * 0.1 + (i % 99_991 === 0 ? 5 : 0);
  }
  ys[n >> 1] = NaN;
  return { xs, ys };
}

function redraw(o: Options) {
  const { xs, ys } = lossSeries(o.points);
  const scratch = new Float64Array(o.points);
  const full = time(() => smoothAndDownsample(xs, ys, o.points, 0.6, o.width, scratch), 15);
  const series = new Series(Math.max(o.points, 1024), 0.6, o.points);
  for (let i = 0; i < o.points; i++) series.push(xs[i]!, ys[i]!);
  const incremental = time(() => series.view(o.width), 15);
  const zoomed = time(() => series.view(o.width, o.points * 0.25, o.points * 0.5), 15);
  const t0 = performance.now();
  for (let i = 0; i < 100_000; i++) series.push(o.points + i, 0.5);
  const appendNs = ((performance.now() - t0) / 100_000) * 1e6;
  return { points: o.points, width: o.width, smoothAndDownsampleMs: full, downsampleOnlyMs: incremental, zoomedQuarterMs: zoomed, appendNsPerPoint: appendNs };
}

function memory() {
  const seriesCount = 15;
  const weekPoints = 5 * 86_400 * 7;
  const d = createDashboard();
  const heap0 = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
  const names = Object.values(SCALAR_NAMES).slice(0, seriesCount);
  const t0 = performance.now();
  const batch: ScalarPoint[] = [];
  for (let i = 0; i < weekPoints; i++) {
    const values: ScalarPoint['values'] = {};
    for (let k = 0; k < names.length; k++) values[names[k]!] = Math.sin(i / 1000 + k);
    batch.push({ step: i * 10, wall_s: i / 5, values });
    if (batch.length === 5000) {
      d.live.addScalars(batch);
      batch.length = 0;
    }
  }
  d.live.addScalars(batch);
  const seconds = (performance.now() - t0) / 1000;
  const heap1 = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
  return {
    series: seriesCount,
    pointsPerSeries: weekPoints,
    keptPerSeries: d.live.get(names[0]!)!.length,
    boundPerSeries: DEFAULT_MAX_POINTS,
    seriesMiB: d.live.bytes / 2 ** 20,
    heapGrowthMiB: (heap1 - heap0) / 2 ** 20,
    ingestSeconds: seconds,
  };
}

/** Cost of one frame's way from the session callback to the store, per second of training. */
async function streamingMicro() {
  // A plain Q run's scalars (the heads' are streamed only for runs that enable them), as measured before heads existed.
  const names = Object.values(SCALAR_NAMES).filter((n) => !n.startsWith('heads/'));
  const point = (step: number): ScalarPoint => ({ step, wall_s: step / 1000, values: Object.fromEntries(names.map((n, k) => [n, Math.sin(step + k)])) });
  let cb: RunCallbacks = {};
  const session: SessionApi = {
    startRun: async (_o: StartOptions, c: RunCallbacks) => {
      cb = c;
      let finish!: () => void;
      const done = new Promise<{ state: 'stopped'; steps: number; env_steps: number; wall_s: number }>((r) => (finish = () => r({ state: 'stopped', steps: 0, env_steps: 0, wall_s: 0 })));
      return { runDir: '/bench', done, stop: async () => finish() };
    },
    listRuns: async () => [],
    readRunConfig: () => {
      throw new Error('unused');
    },
    metricsChunks: async function* () {},
  };
  const d = createDashboard();
  const host = new TrainerHost(session, { runsDir: '/bench', framePeriodMs: 60_000 });
  // What crosses the process boundary: serialize on one side, parse with the schema on the other.
  host.attach({ post: (m: HostMessage) => d.apply(HostMessageSchema.parse(JSON.parse(JSON.stringify(m)))), listen: () => () => undefined });
  await host.receive({ type: 'start', config: { env: { kind: 'cartpole' } } });
  const framesPerSecond = 5;
  let step = 0;
  const perFrame = time(() => {
    cb.onScalars?.([point((step += 100))]);
    cb.onEpisodes?.([{ step, value: 20 }]);
    host.flush();
  }, 2000);
  await host.shutdown();
  return { framesPerSecond, msPerFrame: perFrame, shareOfOneCore: (perFrame * framesPerSecond) / 1000 };
}

/** CartPole steps/s through the real session, bare vs with the trainer host streaming to a port. */
async function streamingAB(steps: number) {
  let startRun: SessionApi['startRun'];
  try {
    ({ startRun } = await import('../main/trainer/session.ts'));
    const { loadAddon } = await import('../native/addon.ts');
    if (typeof loadAddon().Trainer !== 'function') return { skipped: 'the native addon has no Trainer binding yet' };
  } catch (e) {
    return { skipped: `the session cannot run here: ${(e as Error).message}` };
  }
  const dir = mkdtempSync(join(tmpdir(), 'dqn-bench-'));
  // A small, fast network: the faster the training, the larger the streaming's share (the worst case).
  const config = {
    backend: 'cpu' as const,
    env: { kind: 'cartpole' as const, num_envs: 8 },
    network: { hidden: [32, 32] },
    optim: { batch_size: 32 },
    schedule: { epochs: 1, steps_per_epoch: steps, learning_starts: 256, eval_episodes: 1 },
  };
  const once = async (withHost: boolean) => {
    const t0 = performance.now();
    if (withHost) {
      let done!: () => void;
      const finished = new Promise<void>((r) => (done = r));
      const session: SessionApi = { startRun, listRuns: async () => [], readRunConfig: () => { throw new Error('unused'); }, metricsChunks: async function* () {} };
      const host = new TrainerHost(session, { runsDir: dir });
      const d = createDashboard();
      host.attach({
        post: (m) => {
          d.apply(HostMessageSchema.parse(JSON.parse(JSON.stringify(m))));
          if (m.type === 'state' && m.state === 'idle' && m.runDir) done();
        },
        listen: () => () => undefined,
      });
      await host.receive({ type: 'start', config });
      await finished;
    } else {
      const h = await startRun({ config, runsDir: dir }, {});
      await h.done;
    }
    return steps / ((performance.now() - t0) / 1000);
  };
  const bare: number[] = [];
  const hosted: number[] = [];
  try {
    for (let r = 0; r < 3; r++) {
      bare.push(await once(false));
      hosted.push(await once(true));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const b = median(bare);
  const h = median(hosted);
  // Run-to-run noise: the larger spread (max - min) of the three runs of either setup, as a % of its median.
  const spread = (xs: number[], m: number) => ((Math.max(...xs) - Math.min(...xs)) / m) * 100;
  return { steps, bareStepsPerSec: b, hostedStepsPerSec: h, costPercent: ((b - h) / b) * 100, noisePercent: Math.max(spread(bare, b), spread(hosted, h)) };
}

/** Runs the three measurements and prints them (or one JSON object with --json); throws on a bad argument. With --stream RATE or --trainer, runs the page benchmark (dashboard-page.ts) instead. */
export async function run(args: string[]): Promise<void> {
  const page = pageArgs(args);
  if (page) {
    const { runPageBench } = await import('./dashboard-page.ts');
    await runPageBench(page);
    return;
  }
  const o = parseArgs(args);
  const r = redraw(o);
  const m = memory();
  const s = await streamingMicro();
  const ab = await streamingAB(o.abSteps);
  if (o.json) {
    console.log(JSON.stringify({ redraw: r, memory: m, streaming: s, streamingAB: ab }, null, 2));
    return;
  }
  const f = (x: number, d = 2) => x.toFixed(d);
  console.log(`redraw, ${r.points.toLocaleString('en')} points to ${r.width} buckets (target < 16 ms):`);
  console.log(`  smooth (debiased EMA) + downsample, from scratch  ${f(r.smoothAndDownsampleMs)} ms`);
  console.log(`  downsample only (smoothing kept incrementally)     ${f(r.downsampleOnlyMs)} ms`);
  console.log(`  zoomed to a quarter of the series                  ${f(r.zoomedQuarterMs)} ms`);
  console.log(`  append (with incremental smoothing)                ${f(r.appendNsPerPoint, 1)} ns/point`);
  console.log(`memory, ${m.series} series x ${m.pointsPerSeries.toLocaleString('en')} points (a week at 5 points/s):`);
  console.log(`  kept ${m.keptPerSeries.toLocaleString('en')} points per series (bound ${m.boundPerSeries.toLocaleString('en')}), series ${f(m.seriesMiB, 1)} MiB, heap growth ${f(m.heapGrowthMiB, 1)} MiB, ingest ${f(m.ingestSeconds, 1)} s`);
  console.log(`streaming, ${s.framesPerSecond} frames/s: ${f(s.msPerFrame, 3)} ms per frame (batch, serialize, parse, store) = ${f(s.shareOfOneCore * 100, 3)} % of one core`);
  if ('skipped' in ab) console.log(`streaming A/B on the CartPole trainer: skipped (${ab.skipped})`);
  else console.log(`streaming A/B, CartPole CPU, ${ab.steps} steps, median of 3: bare ${f(ab.bareStepsPerSec, 0)} steps/s, with host + stream ${f(ab.hostedStepsPerSec, 0)} steps/s; streaming cost ${f(ab.costPercent, 1)} % of steps/s (target < 2 %; runs of one setup vary by ${f(ab.noisePercent, 1)} %, so a cost within ±${f(ab.noisePercent, 1)} % is run-to-run noise)`);
}
