// The trainer host's message handler: it turns renderer commands into session calls and the
// session's callbacks into batched frames. It knows nothing about the transport: a port is two
// functions (post, listen), so the same class runs under Electron's parentPort + MessagePortMain,
// under Node's child_process.fork IPC channel (browser mode), and in tests with a fake port.
// It must not import electron.
import type { RunConfig } from '../../common/config.ts';
import {
  FRAME_PERIOD_MS,
  HostCommandSchema,
  type EpisodePoint,
  type Frame,
  type HostCommand,
  type HostMessage,
  type HostToParent,
  type RunSummary,
} from '../../common/protocol.ts';
import type { BackendStatus, EpochSummary, RunEvent, RunState, ScalarPoint } from '../../common/run.ts';
import type { MetricsRecord } from './run-dir.ts';
import type { RunCallbacks, RunHandle, StartOptions } from './session-api.ts';

export type { MetricsRecord };

/** What the host needs from the session module (main/trainer/session.ts); tests pass a fake. */
export interface SessionApi {
  startRun(opts: StartOptions, cb: RunCallbacks): Promise<RunHandle>;
  /** Past runs under `runsDir`, newest first. */
  listRuns(runsDir: string): RunSummary[];
  /** A run folder's validated config. @throws Error when the folder is not a run. */
  readRunConfig(runDir: string): RunConfig;
  /** A run folder's metrics records in file order. */
  readRunMetrics(runDir: string): MetricsRecord[];
}

/** A bidirectional message channel to one or more renderers. */
export interface HostPort {
  post(message: HostMessage): void;
  /** Subscribes to incoming data (not yet parsed); returns the unsubscribe function. */
  listen(listener: (data: unknown) => void): () => void;
}

export interface TrainerHostOptions {
  /** Parent folder of run directories. */
  runsDir: string;
  /** Frame period in ms (default FRAME_PERIOD_MS). */
  framePeriodMs?: number;
  /** Tells the supervisor about the live run folder (its stdout/stderr go to that run's log). */
  notifyParent?: (message: HostToParent) => void;
}

/**
 * Drives training runs on behalf of the dashboard. Commands arrive on attached ports and are
 * parsed with HostCommandSchema; everything the session reports is batched into one `frame`
 * message per frame period (state changes are sent at once, after the pending frame).
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
  private pending = emptyFrame('');
  private timer: ReturnType<typeof setInterval> | undefined;

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
      const why = parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
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
          return;
        case 'start':
          return await this.start({ config: cmd.config, runsDir: this.options.runsDir }, cmd.config);
        case 'resume': {
          const config = this.session.readRunConfig(cmd.runDir);
          this.broadcast(this.runData(cmd.runDir, config));
          return await this.start({ config, runsDir: this.options.runsDir, resume: cmd.runDir }, config);
        }
        case 'stop':
          await this.handle?.stop();
          return;
        case 'listRuns':
          this.reply(from, { type: 'runs', runs: this.session.listRuns(this.options.runsDir) });
          return;
        case 'openRun':
          this.reply(from, this.runData(cmd.runDir, this.session.readRunConfig(cmd.runDir)));
          return;
      }
    } catch (e) {
      this.reply(from, { type: 'error', command: cmd.type, message: (e as Error).message });
    }
  }

  /** Stops the live run (checkpoint kept) and sends what is pending; used on shutdown. */
  async shutdown(): Promise<void> {
    const handle = this.handle;
    if (handle) {
      await handle.stop();
      await handle.done.catch(() => undefined);
    }
    this.flush();
    this.stopTimer();
  }

  /** Sends the pending frame, if it holds anything. */
  flush(): void {
    const f = this.pending;
    if (f.scalars.length + f.episodes.length + f.epochs.length + f.events.length === 0) return;
    this.pending = emptyFrame(this.runDir ?? '');
    this.broadcast(f);
  }

  private async start(opts: StartOptions, config: RunConfig): Promise<void> {
    if (this.handle || this.starting) throw new Error(`a run is already ${this.state === 'stopping' ? 'stopping' : 'running'} (${this.runDir ?? 'starting'}): stop it first`);
    this.starting = true;
    this.backends = undefined;
    this.runDir = undefined;
    this.config = undefined;
    this.pending = emptyFrame('');
    let handle: RunHandle;
    try {
      handle = await this.session.startRun(opts, this.callbacks());
    } catch (e) {
      this.setState('idle', undefined);
      throw e;
    } finally {
      this.starting = false;
    }
    this.handle = handle;
    this.runDir = handle.runDir;
    this.config = config;
    this.pending.runDir = handle.runDir;
    this.options.notifyParent?.({ type: 'runDir', runDir: handle.runDir });
    this.broadcast(this.stateMessage());
    this.startTimer();
    handle.done.then(
      (outcome) => this.finished(handle, outcome.state === 'halted' ? 'halted' : 'idle', outcome.haltReason),
      (e: unknown) => this.finished(handle, 'halted', `error: ${(e as Error).message}`),
    );
  }

  private finished(handle: RunHandle, state: RunState, detail: string | undefined): void {
    if (this.handle !== handle) return;
    this.handle = undefined;
    this.stopTimer();
    this.setState(state, detail);
  }

  private callbacks(): RunCallbacks {
    return {
      onState: (state, detail) => this.setState(state, detail),
      onBackends: (status) => {
        this.backends = status;
        this.flush();
        this.broadcast({ type: 'backends', status });
      },
      onScalars: (points) => void this.pending.scalars.push(...points),
      onEpisodes: (episodes) => void this.pending.episodes.push(...episodes),
      onEpoch: (summary) => void this.pending.epochs.push(summary),
      onEvent: (event: RunEvent) => void this.pending.events.push(event),
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

  private runData(runDir: string, config: RunConfig): HostMessage {
    const scalars: ScalarPoint[] = [];
    const episodes: EpisodePoint[] = [];
    const epochs: EpochSummary[] = [];
    for (const r of this.session.readRunMetrics(runDir)) {
      if (r.type === 'scalars') scalars.push({ step: r.step, wall_s: r.wall_s, values: r.values });
      else if (r.type === 'episode') episodes.push({ step: r.step, value: r.value });
      else if (r.type === 'epoch') {
        const { type: _type, ...summary } = r;
        epochs.push(summary);
      }
    }
    return { type: 'runData', runDir, config, scalars, episodes, epochs };
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
    if (port) port.post(message);
    else this.broadcast(message);
  }

  private broadcast(message: HostMessage): void {
    for (const port of this.ports) port.post(message);
  }
}

function emptyFrame(runDir: string): Frame {
  return { type: 'frame', runDir, scalars: [], episodes: [], epochs: [], events: [] };
}
