// The messages between the dashboard (renderer) and the trainer host, and between the host and
// whoever supervises it (Electron main, the browser-mode server). Every message that crosses a
// process boundary is parsed with one of these schemas on arrival, in both directions.
//
//   renderer --HostCommand--> trainer host        (MessagePort in Electron, WebSocket in browser mode)
//   renderer <--HostMessage-- trainer host        (live records summarised into one frame every FRAME_PERIOD_MS)
//   renderer <--HostMessage-- supervisor          (hostReady / hostExit: the host's own lifecycle)
//   supervisor <--ParentMessage--> trainer host   (connect a port, shutdown, heartbeats, the current run folder)
//   browser <--Bridge*Message--> serve server     (the above wrapped in channels, plus presets)
import { z } from 'zod';
import { RunConfigSchema } from './config.ts';
import { configProblems, valueAt } from './config-problems.ts';
import { EvalCurvesSchema } from './trading-curves.ts';
import { GroupListingSchema, GroupNameSchema, MAX_GROUP_MEMBERS } from './seed-group.ts';
import { SweepNameSchema } from './sweep.ts';
import { MAX_LISTED_SWEEPS, SweepListingSchema, SweepViewSchema } from './sweep-state.ts';
import { BackendStatusSchema, EpochSummarySchema, RunEventSchema, RunStateSchema, ScalarPointSchema, type EpochSummary } from './run.ts';

/** How often the trainer host sends a frame of batched live records (DESIGN: 100-250 ms). */
export const FRAME_PERIOD_MS = 200;

/** A finished training episode: env step at which it ended, and its return. */
export const EpisodePointSchema = z.object({ step: z.number().nonnegative(), value: z.number() });
export type EpisodePoint = z.infer<typeof EpisodePointSchema>;

/** A past run as listed in the run history. */
export const RunSummarySchema = z.object({
  runDir: z.string(),
  name: z.string(),
  createdMs: z.number(),
  env: z.string(),
  epochs: z.number().int().nonnegative(),
  lastStep: z.number().int().nonnegative(),
  lastEvalReturn: z.number().optional(),
  /** The `--seeds` group (its summary file's name) the run belongs to, if any. */
  seedGroup: z.string().optional(),
  /** Key results (main/trainer/run-results.ts): last TD loss, last epoch's steps/s, wall seconds, backend, how it ended (live: a process trains it now). */
  finalLoss: z.number().optional(),
  stepsPerSec: z.number().optional(),
  wallS: z.number().optional(),
  backend: z.enum(['cpu', 'cuda']).optional(),
  state: z.enum(['finished', 'stopped', 'halted', 'incomplete', 'live']).optional(),
  /** A run that ended early at schedule.target_return: the epoch whose evaluation reached it, that evaluation's mean return and the target. */
  stoppedAtTarget: z.object({ epoch: z.number().int().positive(), evalReturn: z.number(), targetReturn: z.number() }).optional(),
  /** The run's config.json with its defaults filled in, for the hyperparameter table (a host's listing always has it). */
  config: RunConfigSchema.optional(),
});
export type RunSummary = z.infer<typeof RunSummarySchema>;

// ---------------------------------------------------------------------------------------------
// renderer -> trainer host

/** Commands the dashboard sends to the trainer host. */
export const HostCommandSchema = z.discriminatedUnion('type', [
  /** Start a new run from `config`, or resume the run folder `resume` (its own config is used). */
  z.object({ type: z.literal('start'), config: RunConfigSchema }),
  z.object({ type: z.literal('resume'), runDir: z.string().min(1) }),
  /** Stop the current run after the current step; a checkpoint is kept. */
  z.object({ type: z.literal('stop') }),
  /** Ask for a snapshot (state, backends, current run folder): sent on connect. */
  z.object({ type: z.literal('hello') }),
  z.object({ type: z.literal('listRuns') }),
  /** Read a past run's metrics from disk (answered by `runData`). */
  z.object({ type: z.literal('openRun'), runDir: z.string().min(1) }),
  /** Read the metrics of every member of a seed group (common/seed-group.ts), answered by `groupData`. */
  z.object({ type: z.literal('openGroup'), group: GroupNameSchema }),
  /** The sweeps of the runs folder (`<name>-sweep` folders, common/sweep-state.ts), answered by `sweeps`. */
  z.object({ type: z.literal('listSweeps') }),
  /** One sweep's trials, ranking and test figure, answered by `sweepData`. */
  z.object({ type: z.literal('openSweep'), name: SweepNameSchema }),
  /** Answered at once by `pong` with the same id: measures the round trip (bench, liveness). */
  z.object({ type: z.literal('ping'), id: z.number().int().nonnegative() }),
  /**
   * The raw records of `series` in the run `runDir` (the live run or a past one) as CSV, answered
   * by `csv` with the same id: charts draw summaries, the export holds every logged record.
   */
  /** Rename a past run's folder (not the live run's); answered by the new `runs` list. */
  z.object({ type: z.literal('renameRun'), runDir: z.string().min(1), name: z.string().min(1).max(128) }),
  /** Move a past run's folder to the runs folder's trash (`.trash/`); answered by the new `runs` list. */
  z.object({ type: z.literal('deleteRun'), runDir: z.string().min(1) }),
  /** The per-bar curves of epoch `epoch`'s trading evaluation in `runDir`, answered by `evalCurves` with the same id. */
  z.object({ type: z.literal('evalCurves'), id: z.number().int().nonnegative(), runDir: z.string().min(1), epoch: z.number().int().nonnegative() }),
  z.object({ type: z.literal('exportCsv'), id: z.number().int().nonnegative(), runDir: z.string().min(1), series: z.array(z.string().min(1).max(200)).min(1).max(64) }),
]);
export type HostCommand = z.infer<typeof HostCommandSchema>;
/** A command as the renderer builds it (the config before defaults are filled in). */
export type HostCommandInput = z.input<typeof HostCommandSchema>;

// ---------------------------------------------------------------------------------------------
// trainer host (and supervisor) -> renderer

/** Series the frames carry besides the scalar names of common/run.ts (x axis in brackets). */
export const FRAME_SERIES = {
  /** Training episode returns [env step]. */
  episodicReturn: 'charts/episodic_return',
  /** Wall seconds of each epoch [epoch]. */
  epochTime: 'epoch/time_s',
  /** Gradient steps per second of each epoch [epoch]. */
  epochStepsPerSec: 'epoch/steps_per_s',
  /** Mean evaluation return at each epoch end [env step]; `eval/<metric>` for the other metrics. */
  evalReturn: 'eval/mean_return',
} as const;

/** The series points of one epoch summary: [series name, x, value] (x as in FRAME_SERIES). */
export function epochSeriesPoints(e: EpochSummary): [string, number, number][] {
  const out: [string, number, number][] = [
    [FRAME_SERIES.epochTime, e.epoch, e.epoch_time_s],
    [FRAME_SERIES.epochStepsPerSec, e.epoch, e.steps_per_s],
    [FRAME_SERIES.evalReturn, e.env_steps, e.eval_mean_return],
  ];
  for (const k in e.eval_metrics) out.push([`eval/${k}`, e.env_steps, e.eval_metrics[k]!]);
  return out;
}

/** What a series is drawn against, by its name: the epoch for `epoch/*`, the env step for `eval/*` and the training episodes' returns, the gradient step for the rest (scalars, system samples). */
export function seriesX(name: string): 'step' | 'env' | 'epoch' {
  if (name.startsWith('epoch/')) return 'epoch';
  return name.startsWith('eval/') || name === FRAME_SERIES.episodicReturn ? 'env' : 'step';
}

/**
 * Series of the system panel, x = gradient step at the sample (one sample about every
 * SYSTEM_PERIOD_MS on the trainer host): rates over the last sample period, the host's CPU and
 * resident memory, and the GPU readings from NVML where it is present.
 */
export const SYSTEM_SERIES = {
  /** Gradient steps per second since the previous sample. */
  stepsPerSec: 'system/steps_per_s',
  /** Environment steps per second since the previous sample. */
  envStepsPerSec: 'system/env_steps_per_s',
  /** CPU time of the trainer host process, percent of one core (above 100 with several threads). */
  processCpu: 'system/process_cpu_percent',
  /** CPU use of the whole machine, percent of all cores. */
  hostCpu: 'system/host_cpu_percent',
  /** Resident memory of the trainer host process, MiB. */
  rssMiB: 'system/rss_mib',
  gpuUtil: 'system/gpu_util_percent',
  gpuMemUsedMiB: 'system/gpu_mem_used_mib',
  gpuMemTotalMiB: 'system/gpu_mem_total_mib',
  gpuTemperature: 'system/gpu_temperature_c',
  gpuPower: 'system/gpu_power_w',
} as const;

/** How often the trainer host samples system statistics (cheap reads; at most about once a second). */
export const SYSTEM_PERIOD_MS = 1000;

/** Whether GPU readings (NVML) are there, and if not, why (shown in place of the GPU charts). */
export const GpuStatusSchema = z.object({ available: z.boolean(), reason: z.string() });
export type GpuStatus = z.infer<typeof GpuStatusSchema>;

/** One sample of the system panel (main/trainer/system-stats.ts); GPU fields only where NVML gave them. */
export const SystemSampleSchema = z.object({
  step: z.number().nonnegative(),
  env_steps: z.number().nonnegative(),
  wall_s: z.number().nonnegative(),
  stepsPerSec: z.number().nonnegative(),
  envStepsPerSec: z.number().nonnegative(),
  processCpuPercent: z.number().nonnegative(),
  hostCpuPercent: z.number().nonnegative(),
  rssBytes: z.number().nonnegative(),
  gpu: GpuStatusSchema.extend({
    utilPercent: z.number().optional(),
    memUsedBytes: z.number().optional(),
    memTotalBytes: z.number().optional(),
    temperatureC: z.number().optional(),
    powerW: z.number().optional(),
  }),
});
export type SystemSample = z.infer<typeof SystemSampleSchema>;

/** Most system samples a `runData` message carries (about nine hours at one a second; the host thins longer runs). */
export const MAX_RUN_SYSTEM_SAMPLES = 1 << 15;
/** Longest GPU reason a stored system sample carries in `runData` (the host cuts longer ones). */
export const MAX_GPU_REASON_CHARS = 500;

/** A system sample read back from a run's metrics.jsonl, its one free-text field bounded. */
export const RunSystemSampleSchema = SystemSampleSchema.extend({
  gpu: SystemSampleSchema.shape.gpu.extend({ reason: z.string().max(MAX_GPU_REASON_CHARS) }),
});

/** The series points of one system sample: [series name, value], all at x = sample.step. */
export function systemSeriesPoints(s: SystemSample): [string, number][] {
  const MiB = 1024 * 1024;
  const out: [string, number][] = [
    [SYSTEM_SERIES.stepsPerSec, s.stepsPerSec],
    [SYSTEM_SERIES.envStepsPerSec, s.envStepsPerSec],
    [SYSTEM_SERIES.processCpu, s.processCpuPercent],
    [SYSTEM_SERIES.hostCpu, s.hostCpuPercent],
    [SYSTEM_SERIES.rssMiB, s.rssBytes / MiB],
  ];
  const g = s.gpu;
  if (g.utilPercent !== undefined) out.push([SYSTEM_SERIES.gpuUtil, g.utilPercent]);
  if (g.memUsedBytes !== undefined) out.push([SYSTEM_SERIES.gpuMemUsedMiB, g.memUsedBytes / MiB]);
  if (g.memTotalBytes !== undefined) out.push([SYSTEM_SERIES.gpuMemTotalMiB, g.memTotalBytes / MiB]);
  if (g.temperatureC !== undefined) out.push([SYSTEM_SERIES.gpuTemperature, g.temperatureC]);
  if (g.powerW !== undefined) out.push([SYSTEM_SERIES.gpuPower, g.powerW]);
  return out;
}

/** Most events one frame carries; the rest are counted in `eventsOmitted` (events.log has them all). */
export const MAX_FRAME_EVENTS = 20;

const NonFiniteSchema = z.enum(['NaN', 'Infinity', '-Infinity']);

/**
 * One series over one frame period: every record of it since the previous frame, summarised, so
 * a frame's size does not depend on how many steps passed (DESIGN section 8). Minimum, maximum
 * and mean are over the finite values (absent when none was finite), each extreme with the x at
 * which it occurred; `last` is the last value as it was (non-finite included); `nonFinite` is the
 * first non-finite value and its x, drawn as a marker.
 */
export const SeriesSummarySchema = z.object({
  /** x (step, env step or epoch: see FRAME_SERIES) of the first and last record covered. */
  x0: z.number(),
  x1: z.number(),
  /** Records covered (>= 1). */
  n: z.number().int().positive(),
  min: z.tuple([z.number(), z.number()]).optional(),
  max: z.tuple([z.number(), z.number()]).optional(),
  mean: z.number().optional(),
  last: z.union([z.number(), NonFiniteSchema]),
  nonFinite: z.object({ x: z.number(), value: NonFiniteSchema }).optional(),
});
export type SeriesSummary = z.infer<typeof SeriesSummarySchema>;

/** Counters of the live run at the end of a frame period. */
export const FrameProgressSchema = z.object({
  step: z.number().int().nonnegative(),
  env_steps: z.number().int().nonnegative(),
  epoch: z.number().int().nonnegative(),
  /** Run wall seconds at `step` (from the scalar block's last read). */
  wall_s: z.number().nonnegative(),
});

/**
 * What the live run did over one frame period (FRAME_PERIOD_MS), in a size bounded by the
 * number of series, whatever the step rate: a summary per series (`series`, keyed by name), the
 * gradient steps covered (`steps`), the counters at its end, the last epoch summary with the
 * number of epochs that ended, and at most MAX_FRAME_EVENTS events. `seq` counts the frames of
 * the run (1, 2, ...), so a receiver can tell a lost frame. metrics.jsonl keeps every raw record.
 */
export const FrameSchema = z.object({
  type: z.literal('frame'),
  runDir: z.string(),
  seq: z.number().int().positive(),
  steps: z.object({ from: z.number(), to: z.number() }).optional(),
  progress: FrameProgressSchema.optional(),
  series: z.record(z.string(), SeriesSummarySchema),
  /** Epochs that ended in this period, and the last of their summaries. */
  epochsEnded: z.number().int().nonnegative(),
  lastEpoch: EpochSummarySchema.optional(),
  events: z.array(RunEventSchema).max(MAX_FRAME_EVENTS),
  eventsOmitted: z.number().int().nonnegative(),
  /** GPU readings' status at the period's last system sample (absent when none was taken). */
  gpu: GpuStatusSchema.optional(),
  /**
   * The step and env steps of the period's last system sample, read together: the dashboard maps
   * env steps to steps with them between epoch ends (absent when no sample was taken).
   */
  envStepsAt: z.object({ step: z.number().int().nonnegative(), env_steps: z.number().int().nonnegative() }).optional(),
});
export type Frame = z.infer<typeof FrameSchema>;

/** Run state of the host; `runDir` is the live run's folder (absent when none ran yet). */
export const StateMessageSchema = z.object({
  type: z.literal('state'),
  state: RunStateSchema,
  detail: z.string().optional(),
  runDir: z.string().optional(),
  /** The live run's config (validated, defaults filled in); used for ETA and the chart legend. */
  config: RunConfigSchema.optional(),
});

export const HostMessageSchema = z.discriminatedUnion('type', [
  FrameSchema,
  StateMessageSchema,
  z.object({ type: z.literal('backends'), status: BackendStatusSchema }),
  /** The run history: runs newest first, and the seed groups among them (their members name them in `seedGroup`). */
  z.object({ type: z.literal('runs'), runs: z.array(RunSummarySchema), groups: z.array(GroupListingSchema).optional() }),
  z.object({
    type: z.literal('runData'),
    runDir: z.string(),
    config: RunConfigSchema,
    scalars: z.array(ScalarPointSchema),
    episodes: z.array(EpisodePointSchema),
    epochs: z.array(EpochSummarySchema),
    /**
     * The run's system samples (metrics.jsonl `system` records), thinned evenly to at most
     * historyMaxPoints keeping the last; absent or empty for a run recorded before they were kept.
     */
    system: z.array(RunSystemSampleSchema).max(MAX_RUN_SYSTEM_SAMPLES).optional(),
  }),
  /**
   * The answer to `openGroup`: each present member's config and records, in seed order, each
   * bounded to a share of the history budget (scalar points and episodes as in runData), so the
   * message is about as large as one run's `runData`; no system samples.
   */
  z.object({
    type: z.literal('groupData'),
    group: GroupNameSchema,
    members: z
      .array(z.object({ runDir: z.string(), config: RunConfigSchema, scalars: z.array(ScalarPointSchema), episodes: z.array(EpisodePointSchema), epochs: z.array(EpochSummarySchema) }))
      .min(1)
      .max(MAX_GROUP_MEMBERS),
  }),
  /** The answer to `listSweeps`: the sweeps of the runs folder, most recently updated first. */
  z.object({ type: z.literal('sweeps'), sweeps: z.array(SweepListingSchema).max(MAX_LISTED_SWEEPS) }),
  /** The answer to `openSweep`: the sweep's state as its sweep.json holds it (trials, ranking, the top trial's test figure). */
  z.object({ type: z.literal('sweepData'), sweep: SweepViewSchema }),
  /**
   * The records of the run in `runDir` so far (its metrics file plus what is not flushed yet),
   * sent to a renderer that says `hello` while that run is live or was the last one, before any
   * later frame; the renderer replaces its live series with these. Long runs arrive bounded:
   * scalar points and episodes older than the newest half of the budget are merged into
   * min / max / last per bucket (`compactedBelow` is the first step that is not merged).
   */
  z.object({
    type: z.literal('liveHistory'),
    runDir: z.string(),
    scalars: z.array(ScalarPointSchema),
    episodes: z.array(EpisodePointSchema),
    epochs: z.array(EpochSummarySchema),
    compactedBelow: z.number().optional(),
    /** The run's system samples so far, thinned as runData's. */
    system: z.array(RunSystemSampleSchema).max(MAX_RUN_SYSTEM_SAMPLES).optional(),
  }),
  /** The answer to `ping`, sent to the port that asked (to every client in browser mode). */
  z.object({ type: z.literal('pong'), id: z.number().int().nonnegative() }),
  /** The answer to `exportCsv`: `series,step,value` rows (main/trainer/csv-export.ts). */
  z.object({ type: z.literal('csv'), id: z.number().int().nonnegative(), runDir: z.string(), rows: z.number().int().nonnegative(), text: z.string() }),
  /**
   * The answer to `evalCurves`: the curves (each at most MAX_CURVE_POINTS points,
   * common/trading-curves.ts), or null when that evaluation kept none (not a trading run, an
   * older run, an epoch that did not end).
   */
  z.object({ type: z.literal('evalCurves'), id: z.number().int().nonnegative(), runDir: z.string(), epoch: z.number().int().nonnegative(), curves: EvalCurvesSchema.nullable() }),
  /** A command failed (invalid config, unreadable run folder...): `message` says why. */
  z.object({ type: z.literal('error'), command: z.string(), message: z.string() }),
  /** Sent by the supervisor: a trainer host process is up. */
  z.object({ type: z.literal('hostReady'), pid: z.number().int(), restarts: z.number().int().nonnegative() }),
  /** Sent by the supervisor: the trainer host process ended; `restarting` says whether a new one follows. */
  z.object({ type: z.literal('hostExit'), pid: z.number().int(), reason: z.string(), restarting: z.boolean() }),
]);
export type HostMessage = z.infer<typeof HostMessageSchema>;

// ---------------------------------------------------------------------------------------------
// supervisor <-> trainer host (parentPort in Electron, the fork IPC channel under Node)

export const ParentToHostSchema = z.discriminatedUnion('type', [
  /** Electron: a MessagePort for one renderer travels with this message. */
  z.object({ type: z.literal('connect') }),
  /** Stop the run cleanly (checkpoint kept), then exit. */
  z.object({ type: z.literal('shutdown') }),
  /** Node fork mode: a renderer command relayed by the serve bridge. */
  z.object({ type: z.literal('command'), command: z.unknown() }),
  /** Liveness probe: the host echoes it at once; a host that stops echoing is restarted. */
  z.object({ type: z.literal('heartbeat'), id: z.number().int().nonnegative() }),
]);
export type ParentToHost = z.infer<typeof ParentToHostSchema>;

export const HostToParentSchema = z.discriminatedUnion('type', [
  /** The live run's folder changed: the supervisor sends the host's stdout/stderr there. */
  z.object({ type: z.literal('runDir'), runDir: z.string().optional() }),
  /** The run is stopped and flushed; the host exits next. */
  z.object({ type: z.literal('shutdownDone') }),
  /** Node fork mode: a message for every renderer. */
  z.object({ type: z.literal('message'), message: z.unknown() }),
  /** The echo of the supervisor's heartbeat with the same id. */
  z.object({ type: z.literal('heartbeat'), id: z.number().int().nonnegative() }),
]);
export type HostToParent = z.infer<typeof HostToParentSchema>;

// ---------------------------------------------------------------------------------------------
// browser mode: the WebSocket between the page and the serve server

/** A user-editable preset (bundled presets are read-only). */
export const PresetSchema = z.object({
  name: z.string().min(1).max(64).regex(/^[A-Za-z0-9_-][A-Za-z0-9._-]*$/, 'use letters, digits, ".", "_" and "-" only, and do not start with "."'),
  source: z.enum(['bundled', 'user']),
  config: z.unknown(),
});
export type Preset = z.infer<typeof PresetSchema>;

export const PresetRequestSchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('list') }),
  z.object({ op: z.literal('save'), name: PresetSchema.shape.name, config: RunConfigSchema }),
]);
export type PresetRequest = z.infer<typeof PresetRequestSchema>;
export type PresetRequestInput = z.input<typeof PresetRequestSchema>;

export const BridgeClientMessageSchema = z.discriminatedUnion('channel', [
  z.object({ channel: z.literal('trainer'), command: HostCommandSchema }),
  z.object({ channel: z.literal('presets'), id: z.number().int(), request: PresetRequestSchema }),
  /** Start the trainer host again after the supervisor gave up restarting it (the Restart button). */
  z.object({ channel: z.literal('supervisor'), request: z.object({ op: z.literal('restart') }) }),
]);
export type BridgeClientMessage = z.infer<typeof BridgeClientMessageSchema>;

export const BridgeServerMessageSchema = z.discriminatedUnion('channel', [
  z.object({ channel: z.literal('trainer'), message: HostMessageSchema }),
  z.object({
    channel: z.literal('presets'),
    id: z.number().int(),
    ok: z.boolean(),
    presets: z.array(PresetSchema).optional(),
    error: z.string().optional(),
  }),
]);
export type BridgeServerMessage = z.infer<typeof BridgeServerMessageSchema>;

// ---------------------------------------------------------------------------------------------
// scalar values on the wire

/** A scalar value as sent: a number, or a string for a non-finite one (JSON has no NaN). */
export type WireValue = number | 'NaN' | 'Infinity' | '-Infinity';

/** Decodes a wire value to a JS number (NaN, +Infinity, -Infinity included). */
export function fromWire(v: WireValue): number {
  return typeof v === 'number' ? v : Number(v);
}

/** Encodes a number for JSON: non-finite values become "NaN" / "Infinity" / "-Infinity". */
export function toWire(v: number): WireValue {
  return Number.isFinite(v) ? v : (String(v) as 'NaN' | 'Infinity' | '-Infinity');
}

/**
 * The length of the path to the run config that an issue at `path` is inside, or 0 when it is not
 * inside one: a message's `config` (a start command's, a preset save's), at its top or under a
 * bridge message's `command` or `request`.
 */
function configPrefixLength(path: readonly PropertyKey[]): number {
  const k = path[0] === 'command' || path[0] === 'request' ? 1 : 0;
  return path[k] === 'config' ? k + 1 : 0;
}

/**
 * A schema error of the message `input` in words: its first `max` problems as `path: message`,
 * joined by '; ' (never zod's JSON dump). A problem inside a run config reads as `npm run train`
 * and the config editor say it (common/config-problems.ts), under its path in the message:
 * "config.optim.lr: must be in (0, 1] 1/step (got -1): raise it above 0"; others in the schema's
 * words ("name: use letters, digits, ...").
 */
export function issuesText(error: z.ZodError, input: unknown, max = 3): string {
  // A config's issues go to configProblems together (it drops a problem zod reports twice), in the place of the first.
  type ConfigIssues = { at: PropertyKey[]; issues: z.core.$ZodIssue[] };
  const parts: (string | ConfigIssues)[] = [];
  const configs = new Map<string, ConfigIssues>();
  for (const issue of error.issues) {
    const n = configPrefixLength(issue.path);
    if (!n) {
      parts.push(`${issue.path.join('.') || '(root)'}: ${issue.message}`);
      continue;
    }
    const at = issue.path.slice(0, n);
    let config = configs.get(at.join('.'));
    if (!config) {
      config = { at, issues: [] };
      configs.set(at.join('.'), config);
      parts.push(config);
    }
    config.issues.push({ ...issue, path: issue.path.slice(n) });
  }
  const lines = parts.flatMap((p) =>
    typeof p === 'string' ? [p] : configProblems(RunConfigSchema, valueAt(input, p.at), p.issues).map((c) => `${[...p.at, ...(c.path ? [c.path] : [])].join('.')}: ${c.message}`),
  );
  return lines.slice(0, max).join('; ');
}

/** Parses `data` with `schema`; the error names the channel and the first problems. */
export function parseMessage<T>(schema: z.ZodType<T>, data: unknown, channel: string): T {
  const r = schema.safeParse(data);
  if (r.success) return r.data;
  throw new ProtocolError(`invalid message on ${channel}: ${issuesText(r.error, data)}`);
}

/** A message that does not match its schema. */
export class ProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProtocolError';
  }
}
