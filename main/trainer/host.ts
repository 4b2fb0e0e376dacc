// The trainer host's message handler: it turns renderer commands into session calls and the
// session's callbacks into batched frames. It knows nothing about the transport: a port is two
// functions (post, listen), so the same class runs under Electron's parentPort + MessagePortMain,
// under Node's child_process.fork IPC channel (browser mode), and in tests with a fake port.
// It must not import electron.
import type { RunConfig } from '../../common/config.ts';
import {
  FRAME_PERIOD_MS,
  HostCommandSchema,
  issuesText,
  MAX_GPU_REASON_CHARS,
  MAX_RUN_SYSTEM_SAMPLES,
  type EpisodePoint,
  type HostCommand,
  type HostMessage,
  type HostToParent,
  type RunSummary,
  type SystemSample,
} from '../../common/protocol.ts';
import type { BackendStatus, EpochSummary, RunEvent, RunState, ScalarPoint } from '../../common/run.ts';
import type { GroupListing } from '../../common/seed-group.ts';
import { boundPoints, HISTORY_MAX_POINTS } from './history.ts';
import { BUNDLED_DATA_DIR } from './paths.ts';
import { resolveRunDir } from './paths-policy.ts';
import type { MetricsChunk, MetricsRecord } from './run-dir.ts';
import type { RunCallbacks, RunHandle, StartOptions } from './session-api.ts';
import { FrameBuilder } from '../../common/frame-builder.ts';
import { CsvExport } from './csv-export.ts';
import { ReadGate } from './read-gate.ts';
import { readEvalCurves } from './eval-curves.ts';
import { renameRunDir, trashRunDir } from './run-files.ts';
import { runLockHolder } from './run-lock.ts';
import { listSweeps, openSweep } from './sweep-dir.ts';

export type { MetricsRecord };

/**
 * What the host needs from the session module (main/trainer/session.ts, run-index.ts,
 * run-dir.ts); tests pass a fake. Reads of any size are asynchronous and chunked, so no client
 * request holds the event loop that the training loop and the heartbeat answers run on.
 */
export interface SessionApi {
  startRun(opts: StartOptions, cb: RunCallbacks): Promise<RunHandle>;
  /**
   * Past runs under `runsDir`, newest first (RunIndex.list); `fresh` after this host changed a
   * run, so that a listing begun before the change is not reused.
   */
  listRuns(runsDir: string, fresh?: boolean): Promise<RunSummary[]>;
  /** The seed groups of the last listing of `runsDir` (RunIndex.groups); absent: no groups are listed. */
  listGroups?(runsDir: string): GroupListing[];
  /** A run folder's validated config. @throws Error when the folder is not a run. */
  readRunConfig(runDir: string): RunConfig;
  /**
   * A run folder's metrics records in file order, as the file is when called (later appends
   * are not read), in chunks read off the event loop (run-dir.ts metricsChunks).
   */
  metricsChunks(runDir: string): AsyncIterable<Pick<MetricsChunk, 'records'>>;
}

/** A bidirectional message channel to one or more renderers. */
export interface HostPort {
  post(message: HostMessage): void;
  /** Subscribes to incoming data (not yet parsed); returns the unsubscribe function. */
  listen(listener: (data: unknown) => void): () => void;
}

export interface TrainerHostOptions {
  /** Parent folder of run directories; a run a client names must be one of its folders. */
  runsDir: string;
  /**
   * Folders a client's `env.data` must lie in (decided by the front end: see paths-policy.ts);
   * default: the bundled resources/data only.
   */
  dataDirs?: readonly string[];
  /** Frame period in ms (default FRAME_PERIOD_MS). */
  framePeriodMs?: number;
  /**
   * Most scalar points (and episodes) a `liveHistory` or `runData` message carries, and most
   * system samples either carries (default HISTORY_MAX_POINTS; samples also at most MAX_RUN_SYSTEM_SAMPLES).
   */
  historyMaxPoints?: number;
  /** Tells the supervisor about the live run folder (its stdout/stderr go to that run's log). */
  notifyParent?: (message: HostToParent) => void;
}

/**
 * Drives training runs on behalf of the dashboard. Commands arrive on attached ports and are
 * parsed with HostCommandSchema; everything the session reports is summarised into one `frame`
 * message per frame period (common/frame-builder.ts: its size does not grow with the step rate; state changes
 * are sent at once, after the pending frame). A port
 * that says `hello` while a run is live (or after it ended) gets that run's records so far in
 * one `liveHistory` message before any later frame, so a reloaded page draws complete charts.
 */
export class TrainerHost {
  private readonly ports = new Set<HostPort>();
  private readonly framePeriodMs: number;
  private state: RunState = 'idle';
  private detail: string | undefined;
  private runDir: string | undefined;
  private config: RunConfig | undefined;
  private backends: BackendStatus | undefined;
  private handle: RunHandle | undefined;
  private starting = false;
  /** Settles when the run being started (its trainer being built) has started or failed. */
  private started: Promise<unknown> = Promise.resolve();
  /** Stop (or shutdown) came while the trainer was being built: stop the run as soon as it exists. */
  private stopOnStart = false;
  private pending = new FrameBuilder();
  /**
   * Records the session reported since its last metrics flush (onFlushed: every few seconds,
   * at each epoch boundary and at the end of a run), so metrics.jsonl + these = the run so far.
   */
  private unflushed: Unflushed = noneUnflushed();
  private timer: ReturnType<typeof setInterval> | undefined;
  /** Bounds each port's reads in flight (MAX_READS_PER_PORT). */
  private readonly reads = new ReadGate<HostPort | undefined>();
  /** Ports with a run listing on its way: another listRuns from them gets that answer. */
  private readonly listing = new Set<HostPort | undefined>();
  /** Messages for a port whose liveHistory is being read, sent after it (so no frame comes first). */
  private readonly held = new Map<HostPort, HostMessage[]>();

  constructor(
    private readonly session: SessionApi,
    private readonly options: TrainerHostOptions,
  ) {
    this.framePeriodMs = options.framePeriodMs ?? FRAME_PERIOD_MS;
  }

  /** Connects a port: its messages become commands, and it receives every message from now on. */
  attach(port: HostPort): () => void {
    this.ports.add(port);
    const unlisten = port.listen((data) => void this.receive(data, port));
    return () => {
      unlisten();
      this.ports.delete(port);
    };
  }

  /** Parses and runs one command; a malformed one is answered with an `error` message. */
  async receive(data: unknown, from?: HostPort): Promise<void> {
    const parsed = HostCommandSchema.safeParse(data);
    if (!parsed.success) {
      const type = typeof data === 'object' && data !== null && 'type' in data ? String((data as { type: unknown }).type) : 'unknown';
      const why = issuesText(parsed.error, data);
      this.reply(from, { type: 'error', command: type, message: `rejected ${type} command: ${why}` });
      return;
    }
    await this.run(parsed.data, from);
  }

  private async run(cmd: HostCommand, from?: HostPort): Promise<void> {
    try {
      switch (cmd.type) {
        case 'hello':
          this.reply(from, this.stateMessage());
          if (this.backends) this.reply(from, { type: 'backends', status: this.backends });
          if (this.runDir) {
            // What is pending goes to the other ports; the history holds it too, and every later
            // frame holds only newer records (and waits until the history is sent).
            this.flush(from);
            await this.catchUp(from, this.runDir);
          }
          return;
        case 'start':
          return await this.start({ config: cmd.config, runsDir: this.options.runsDir, dataDirs: this.options.dataDirs ?? [BUNDLED_DATA_DIR] }, cmd.config);
        case 'resume': {
          // The config is the run folder's own (checked when that run started, or written by the
          // CLI's user), not the client's: its env.data is not limited to dataDirs.
          const runDir = resolveRunDir(this.options.runsDir, cmd.runDir);
          const config = this.session.readRunConfig(runDir);
          this.broadcast(await this.reads.run(from, () => this.runData(runDir, config)));
          return await this.start({ config, runsDir: this.options.runsDir, resume: runDir }, config);
        }
        case 'stop':
          if (this.starting) this.stopOnStart = true; // building can take seconds: honour it once built
          await this.handle?.stop();
          return;
        case 'ping':
          this.reply(from, { type: 'pong', id: cmd.id });
          return;
        case 'renameRun':
        case 'deleteRun': {
          const runDir = resolveRunDir(this.options.runsDir, cmd.runDir);
          if (runDir === this.runDir && (this.handle || this.starting)) throw new Error(`${runDir} is the live run: stop it first`);
          const held = runLockHolder(runDir); // a run another process (a CLI run, another console) trains
          if (held) throw new Error(held);
          const moved = cmd.type === 'renameRun' ? renameRunDir(this.options.runsDir, runDir, cmd.name) : trashRunDir(this.options.runsDir, runDir);
          // The last run's folder (a reconnecting page reads its history from there) moves with it.
          if (runDir === this.runDir) this.runDir = cmd.type === 'renameRun' ? moved : undefined;
          await this.broadcastRuns();
          return;
        }
        case 'exportCsv': {
          const runDir = cmd.runDir === this.runDir ? this.runDir : resolveRunDir(this.options.runsDir, cmd.runDir);
          const { text, rows } = await this.reads.run(from, async () => {
            // The live run's file plus what the session reported since its last flush, both as
            // of now: every record once.
            const { file, live } = this.snapshot(runDir);
            const csv = new CsvExport(cmd.series);
            for await (const { records } of file) csv.add(records);
            csv.add(unflushedRecords(live));
            return csv.result();
          });
          this.reply(from, { type: 'csv', id: cmd.id, runDir, rows, text });
          return;
        }
        case 'evalCurves': {
          const runDir = cmd.runDir === this.runDir ? this.runDir : resolveRunDir(this.options.runsDir, cmd.runDir);
          this.reply(from, { type: 'evalCurves', id: cmd.id, runDir, epoch: cmd.epoch, curves: readEvalCurves(runDir, cmd.epoch) });
          return;
        }
        case 'listRuns':
          if (this.listing.has(from)) return; // the listing on its way answers this one too
          this.listing.add(from);
          try {
            this.reply(from, await this.runsMessage(false));
          } finally {
            this.listing.delete(from);
          }
          return;
        case 'openRun': {
          const runDir = resolveRunDir(this.options.runsDir, cmd.runDir);
          const config = this.session.readRunConfig(runDir);
          this.reply(from, await this.reads.run(from, () => this.runData(runDir, config)));
          return;
        }
        case 'openGroup': {
          const members = (await this.session.listRuns(this.options.runsDir)).filter((r) => r.seedGroup === cmd.group).map((r) => r.runDir);
          if (members.length === 0) throw new Error(`seed group '${cmd.group}' has no member run in the runs folder ${this.options.runsDir}`);
          this.reply(from, await this.reads.run(from, () => this.groupData(cmd.group, members)));
          return;
        }
        case 'listSweeps':
          this.reply(from, { type: 'sweeps', sweeps: await this.reads.run(from, () => listSweeps(this.options.runsDir)) });
          return;
        case 'openSweep':
          this.reply(from, { type: 'sweepData', sweep: await this.reads.run(from, async () => openSweep(this.options.runsDir, cmd.name)) });
          return;
      }
    } catch (e) {
      this.reply(from, { type: 'error', command: cmd.type, message: (e as Error).message });
    }
  }

  /** Stops the live run (checkpoint kept) and sends what is pending; used on shutdown. */
  async shutdown(): Promise<void> {
    if (this.starting) {
      this.stopOnStart = true;
      await this.started;
    }
    const handle = this.handle;
    if (handle) {
      await handle.stop();
      await handle.done.catch(() => undefined);
    }
    this.flush();
    this.stopTimer();
  }

  /** Sends the pending frame, if it holds anything, to every port but `except`. */
  flush(except?: HostPort): void {
    const f = this.pending.take();
    if (!f) return;
    for (const port of this.ports) if (port !== except) this.post(port, f);
  }

  /**
   * Sends `port` the live run's history (liveHistory), within its read bound; messages for it
   * meanwhile (frames, states) are held and sent after the history, in order. A second hello
   * while the history is on its way gets that one.
   */
  private async catchUp(port: HostPort | undefined, runDir: string): Promise<void> {
    if (!port) return this.reply(port, await this.reads.run(port, () => this.liveHistory(runDir)));
    if (this.held.has(port)) return;
    const held: HostMessage[] = [];
    this.held.set(port, held);
    try {
      const history = await this.reads.run(port, () => this.liveHistory(runDir));
      if (this.ports.has(port)) port.post(history); // before what was held
    } finally {
      this.held.delete(port);
      if (this.ports.has(port)) for (const m of held) port.post(m);
    }
  }

  private async start(opts: StartOptions, config: RunConfig): Promise<void> {
    if (this.handle || this.starting) throw new Error(`a run is already ${this.state === 'stopping' ? 'stopping' : 'running'} (${this.runDir ?? 'starting'}): stop it first`);
    this.starting = true;
    this.backends = undefined;
    this.runDir = undefined;
    this.config = undefined;
    this.pending = new FrameBuilder();
    this.unflushed = noneUnflushed();
    let handle: RunHandle;
    this.stopOnStart = false;
    let settle!: () => void;
    this.started = new Promise<void>((r) => (settle = r));
    try {
      handle = await this.session.startRun(opts, this.callbacks());
    } catch (e) {
      this.setState('idle', undefined);
      throw e;
    } finally {
      this.starting = false;
      settle(); // shutdown() resumes after the rest of this method (no await below)
    }
    this.handle = handle;
    this.runDir = handle.runDir;
    this.config = config;
    this.pending.runDir = handle.runDir;
    this.options.notifyParent?.({ type: 'runDir', runDir: handle.runDir });
    this.broadcast(this.stateMessage());
    void this.broadcastRuns(); // every page's run history lists the new run, as live
    this.startTimer();
    handle.done.then(
      (outcome) => this.finished(handle, outcome.state === 'halted' ? 'halted' : 'idle', outcome.haltReason),
      (e: unknown) => this.finished(handle, 'halted', `error: ${(e as Error).message}`),
    );
    if (this.stopOnStart) {
      this.stopOnStart = false;
      void handle.stop();
    }
  }

  private finished(handle: RunHandle, state: RunState, detail: string | undefined): void {
    if (this.handle !== handle) return;
    this.handle = undefined;
    this.unflushed = noneUnflushed();
    this.stopTimer();
    this.setState(state, detail);
    void this.broadcastRuns(); // and how it ended
  }

  /**
   * Sends the run history, listed anew (this host just changed a run), to every page; a listing
   * that cannot be read is a warning in the host log. Never rejects.
   */
  private async broadcastRuns(): Promise<void> {
    try {
      this.broadcast(await this.runsMessage(true));
    } catch (e) {
      console.error(`trainer host: could not list the runs: ${(e as Error).message}`);
    }
  }

  /** The run history message: the runs under runsDir and their seed groups (`fresh`: see SessionApi.listRuns). */
  private async runsMessage(fresh: boolean): Promise<HostMessage> {
    const runs = await this.session.listRuns(this.options.runsDir, fresh);
    return { type: 'runs', runs, groups: this.session.listGroups?.(this.options.runsDir) ?? [] };
  }

  private callbacks(): RunCallbacks {
    return {
      onState: (state, detail) => this.setState(state, detail),
      onBackends: (status) => {
        this.backends = status;
        this.flush();
        this.broadcast({ type: 'backends', status });
      },
      onScalars: (points) => {
        this.pending.addScalars(points);
        this.unflushed.scalars.push(...points);
      },
      onEpisodes: (episodes) => {
        this.pending.addEpisodes(episodes);
        this.unflushed.episodes.push(...episodes);
      },
      onEpoch: (summary) => this.pending.addEpoch(summary),
      onFlushed: () => {
        this.unflushed = noneUnflushed();
      },
      onEvent: (event: RunEvent) => this.pending.addEvent(event),
      onSystem: (sample) => {
        this.pending.addSystem(sample);
        this.unflushed.system.push(sample);
      },
    };
  }

  private setState(state: RunState, detail: string | undefined): void {
    this.flush();
    this.state = state;
    this.detail = detail;
    this.broadcast(this.stateMessage());
  }

  private stateMessage(): HostMessage {
    return { type: 'state', state: this.state, detail: this.detail, runDir: this.runDir, config: this.config };
  }

  /**
   * The run's metrics file as it is now and the records reported since its last flush, copied
   * now: together every record of the run so far, once (a flush after this adds to the file
   * past what `file` reads and clears `unflushed`, not the copy).
   */
  private snapshot(runDir: string): { file: AsyncIterable<Pick<MetricsChunk, 'records'>>; live: Unflushed } {
    const u = runDir === this.runDir ? this.unflushed : noneUnflushed();
    return { file: this.session.metricsChunks(runDir), live: { scalars: [...u.scalars], episodes: [...u.episodes], system: [...u.system] } };
  }

  /** The run's metrics file plus the unflushed records, bounded (see boundPoints). */
  private async liveHistory(runDir: string): Promise<HostMessage> {
    const { file, live } = this.snapshot(runDir);
    const { scalars, episodes, epochs, system } = await this.records(file);
    scalars.push(...live.scalars);
    episodes.push(...live.episodes);
    system.push(...live.system.map(boundedReason));
    return { type: 'liveHistory', runDir, ...this.bounded(scalars, episodes), epochs, system: thinSamples(system, this.maxSystemSamples()) };
  }

  /** Most system samples a liveHistory or runData carries. */
  private maxSystemSamples(): number {
    return Math.min(this.options.historyMaxPoints ?? HISTORY_MAX_POINTS, MAX_RUN_SYSTEM_SAMPLES);
  }

  /** A past run's records, scalar points and episodes bounded as in liveHistory, system samples thinned (thinSamples). */
  private async runData(runDir: string, config: RunConfig): Promise<HostMessage> {
    const { scalars, episodes, epochs, system } = await this.records(this.session.metricsChunks(runDir));
    const { compactedBelow: _below, ...b } = this.bounded(scalars, episodes);
    return { type: 'runData', runDir, config, ...b, epochs, system: thinSamples(system, this.maxSystemSamples()) };
  }

  /**
   * A seed group's members' records (groupData), in seed order: each member's scalar points and
   * episodes bounded to an equal share of historyMaxPoints (at least MIN_MEMBER_POINTS), so the
   * whole is about one run's runData. A member that is no longer a run inside the runs folder
   * (deleted or replaced meanwhile, a planted link) is left out.
   * @throws Error when no member is left.
   */
  private async groupData(group: string, runDirs: readonly string[]): Promise<HostMessage> {
    const max = Math.max(MIN_MEMBER_POINTS, Math.floor((this.options.historyMaxPoints ?? HISTORY_MAX_POINTS) / runDirs.length));
    const members = [];
    for (const dir of runDirs) {
      let runDir: string;
      let config: RunConfig;
      try {
        runDir = resolveRunDir(this.options.runsDir, dir);
        config = this.session.readRunConfig(runDir);
      } catch {
        continue;
      }
      const { scalars, episodes, epochs } = await this.records(this.session.metricsChunks(runDir));
      const { compactedBelow: _below, ...b } = this.bounded(scalars, episodes, max);
      members.push({ runDir, config, ...b, epochs });
    }
    if (members.length === 0) throw new Error(`none of the ${runDirs.length} members of seed group '${group}' could be read`);
    members.sort((a, b) => a.config.seed - b.config.seed);
    return { type: 'groupData', group, members };
  }

  /** Scalar points and episodes bounded to `max` each (default historyMaxPoints; boundPoints: min / max / last of older buckets). */
  private bounded(scalars: ScalarPoint[], episodes: EpisodePoint[], max = this.options.historyMaxPoints ?? HISTORY_MAX_POINTS): { scalars: ScalarPoint[]; episodes: EpisodePoint[]; compactedBelow?: number } {
    const s = boundPoints(scalars, max);
    const e = boundPoints(episodes.map((p) => ({ step: p.step, wall_s: 0, values: { r: p.value } })), max);
    return { scalars: s.points, episodes: e.points.map((p) => ({ step: p.step, value: p.values.r as number })), compactedBelow: s.compactedBelow };
  }

  /** A run folder's metrics records (read a chunk at a time) split by record type. */
  private async records(file: AsyncIterable<Pick<MetricsChunk, 'records'>>): Promise<{ scalars: ScalarPoint[]; episodes: EpisodePoint[]; epochs: EpochSummary[]; system: SystemSample[] }> {
    const scalars: ScalarPoint[] = [];
    const episodes: EpisodePoint[] = [];
    const epochs: EpochSummary[] = [];
    const system: SystemSample[] = [];
    for await (const { records } of file)
      for (const r of records) {
        if (r.type === 'scalars') scalars.push({ step: r.step, wall_s: r.wall_s, values: r.values });
        else if (r.type === 'episode') episodes.push({ step: r.step, value: r.value });
        else if (r.type === 'epoch') {
          const { type: _type, ...summary } = r;
          epochs.push(summary);
        } else if (r.type === 'system') {
          const { type: _type, ...sample } = r;
          system.push(boundedReason(sample));
        }
      }
    return { scalars, episodes, epochs, system };
  }

  private startTimer(): void {
    this.stopTimer();
    this.timer = setInterval(() => this.flush(), this.framePeriodMs);
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private reply(port: HostPort | undefined, message: HostMessage): void {
    if (port) this.post(port, message);
    else this.broadcast(message);
  }

  private broadcast(message: HostMessage): void {
    for (const port of this.ports) this.post(port, message);
  }

  /** Posts to `port`, or holds the message while its history is being read (catchUp). */
  private post(port: HostPort, message: HostMessage): void {
    const held = this.held.get(port);
    if (held) held.push(message);
    else port.post(message);
  }
}

/** Fewest scalar points (and episodes) a group member's share of a groupData message holds. */
const MIN_MEMBER_POINTS = 256;

/** The sample with its GPU reason cut to MAX_GPU_REASON_CHARS (what runData and liveHistory carry). */
function boundedReason(sample: SystemSample): SystemSample {
  return { ...sample, gpu: { ...sample.gpu, reason: sample.gpu.reason.slice(0, MAX_GPU_REASON_CHARS) } };
}

/** What the session reported since metrics.jsonl was last appended to. */
interface Unflushed {
  scalars: ScalarPoint[];
  episodes: EpisodePoint[];
  system: SystemSample[];
}
const noneUnflushed = (): Unflushed => ({ scalars: [], episodes: [], system: [] });

/** Unflushed records as metrics records, in the order an export lists them. */
function unflushedRecords(u: Unflushed): MetricsRecord[] {
  return [...u.scalars.map((p) => ({ type: 'scalars' as const, ...p })), ...u.episodes.map((e) => ({ type: 'episode' as const, ...e })), ...u.system.map((x) => ({ type: 'system' as const, ...x }))];
}

/**
 * At most `max` of `samples`, spread evenly over the run: the first, the last (whose GPU
 * status the panel shows) and every (n - 1) / (max - 1)-th one between, in order. A system
 * sample is a reading over about a second, so even thinning draws the run's shape at any length
 * (a short spike between two kept samples is not drawn). Returns the input when it fits.
 */
export function thinSamples<T>(samples: T[], max: number): T[] {
  if (samples.length <= max) return samples;
  if (max < 2) return samples.slice(samples.length - Math.max(0, max)); // the last, or none
  const out: T[] = [];
  for (let i = 0; i < max; i++) out.push(samples[Math.round((i * (samples.length - 1)) / (max - 1))]!);
  return out;
}
