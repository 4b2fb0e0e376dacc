// Keeps one trainer host process alive: spawns it, sends its stdout/stderr to the live run's log
// (host.log in the run folder, or the app's log folder between runs), restarts it with a growing
// delay when it dies or stops answering heartbeats and tells the dashboard why (hostExit /
// hostReady), gives up after too many exits until the user asks for a restart, and stops it
// cleanly on shutdown (a timeout then kills it). The process itself comes from an injected spawn function, so Electron
// main (utilityProcess.fork) and the browser-mode server (child_process.fork) share this code;
// it imports no electron.
import { join } from 'node:path';
import { HostToParentSchema, type HostMessage, type ParentToHost } from '../common/protocol.ts';
import { makeFolder } from './trainer/folders.ts';
import { appendRegularFile } from './trainer/regular-file.ts';
import { appendEvent } from './trainer/run-dir.ts';

/** A running trainer host process, as the supervisor sees it. */
export interface HostProcess {
  /** Process id (-1 until the process has started; see `ready`). */
  readonly pid: number;
  /** Resolves once the process runs (Electron reports the pid only after its spawn event). */
  readonly ready?: Promise<void>;
  /** Sends a control message; `transfer` carries a MessagePort in Electron. */
  postMessage(message: ParentToHost, transfer?: unknown[]): void;
  onMessage(listener: (data: unknown) => void): void;
  /** Called once when the process has ended, with a reason a user can read ("killed by SIGKILL"). */
  onExit(listener: (reason: string) => void): void;
  /** The process's stdout and stderr (null when not piped). */
  readonly stdout: NodeJS.ReadableStream | null;
  readonly stderr: NodeJS.ReadableStream | null;
  kill(): void;
}

export interface SupervisorOptions {
  spawn(): HostProcess;
  /** Receives hostReady / hostExit for the renderers. */
  notify(message: HostMessage): void;
  /** Called after each (re)spawn, e.g. to hand the new host a renderer port. */
  onSpawn?(child: HostProcess): void;
  /** Node fork mode: messages the host addressed to the renderers (not yet parsed). */
  onHostMessage?(data: unknown): void;
  /** Folder of host.log while no run is live. */
  logDir: string;
  /** Restarts allowed within `restartWindowMs` before the supervisor gives up (default 5 in 60 s). */
  maxRestarts?: number;
  restartWindowMs?: number;
  /** Delay before the first restart, doubled for each recent one (default 250 ms, at most 5 s). */
  restartDelayMs?: number;
  /** How often the host is sent a heartbeat (default 2 s). */
  heartbeatMs?: number;
  /**
   * A host that left the heartbeats of this long unanswered is stuck: it is asked to shut down
   * (its live run stops with a checkpoint, as on any shutdown), killed if it has not exited this
   * long after that, and restarted, with that reason (default 15 s; the host's event loop stays
   * free while it trains, builds, loads and reads files). Counted in heartbeats sent, not in
   * wall time, so a machine that slept (or a supervisor that was itself busy) does not stop a
   * healthy host.
   */
  heartbeatTimeoutMs?: number;
}

/** Where the supervisor stands: hosting, waiting to restart, given up (see restart()), or shut down. */
export type SupervisorState = 'running' | 'restarting' | 'gaveUp' | 'stopped';

/** Formats a Node child-process exit for the user: "killed by SIGKILL" or "exited with code 3". */
export function describeExit(code: number | null, signal: NodeJS.Signals | string | null): string {
  if (signal) return `killed by ${signal}`;
  return code === 0 ? 'exited normally (code 0)' : `exited with code ${code}`;
}

/**
 * Supervises the trainer host process. `start()` spawns it; when it exits without being asked
 * to, the reason goes to the dashboard and to the run's events.log, and a new host is spawned
 * after a growing delay, unless it died `maxRestarts` times within `restartWindowMs`.
 */
export class HostSupervisor {
  private child: HostProcess | undefined;
  private restarts = 0;
  private recentExits: number[] = [];
  private stopping = false;
  private runDir: string | undefined;
  private restartTimer: ReturnType<typeof setTimeout> | undefined;
  private exitWaiters: (() => void)[] = [];
  private heartbeat: { timer: ReturnType<typeof setInterval>; next: number; unanswered: number } | undefined;
  /** Why the supervisor stopped the current child, when it did (a stuck host). */
  private stoppedBecause: string | undefined;
  /** Kills a stuck child that was asked to shut down and has not exited in time. */
  private killTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly options: SupervisorOptions) {}

  /** The live host process, if any. */
  get current(): HostProcess | undefined {
    return this.child;
  }

  /** What the supervisor is doing now (the dashboard offers a restart when it gave up). */
  get state(): SupervisorState {
    if (this.stopping) return 'stopped';
    if (this.child) return 'running';
    return this.restartTimer ? 'restarting' : 'gaveUp';
  }

  /**
   * Starts a host again after the supervisor gave up (the dashboard's Restart button): the
   * restart count starts over. Does nothing while a host runs or a restart is already due.
   */
  restart(): void {
    if (this.child || this.restartTimer || this.stopping) return;
    this.recentExits = [];
    this.restarts++;
    this.writeLog('[supervisor] restarting the trainer host on request\n');
    this.start();
  }

  /** Spawns the host (once). */
  start(): void {
    if (this.child || this.stopping) return;
    const child = this.options.spawn();
    this.child = child;
    const log = (chunk: Buffer | string) => this.writeLog(chunk);
    child.stdout?.on('data', log);
    child.stderr?.on('data', log);
    child.onMessage((data) => this.fromHost(data));
    child.onExit((reason) => this.exited(child, reason));
    const restarts = this.restarts;
    void (child.ready ?? Promise.resolve()).then(() => {
      if (this.child !== child) return;
      this.options.onSpawn?.(child);
      this.options.notify({ type: 'hostReady', pid: child.pid, restarts });
      this.startHeartbeat(child);
    });
  }

  /**
   * Sends a heartbeat every heartbeatMs; a host that answered none of the beats sent over
   * heartbeatTimeoutMs is stuck: stopStuck.
   */
  private startHeartbeat(child: HostProcess): void {
    this.stopHeartbeat();
    const period = this.options.heartbeatMs ?? 2000;
    const limit = Math.max(1, Math.ceil((this.options.heartbeatTimeoutMs ?? 15_000) / period));
    const hb = { next: 0, unanswered: 0, timer: setInterval(() => {
      if (this.child !== child) return this.stopHeartbeat();
      if (hb.unanswered >= limit) {
        this.stopHeartbeat();
        this.stopStuck(child, `stopped answering (no answer to ${hb.unanswered} heartbeats over ${((hb.unanswered * period) / 1000).toFixed(1)} s)`);
        return;
      }
      child.postMessage({ type: 'heartbeat', id: hb.next++ });
      hb.unanswered++;
    }, period) };
    hb.timer.unref?.();
    this.heartbeat = hb;
  }

  private stopHeartbeat(): void {
    if (this.heartbeat) clearInterval(this.heartbeat.timer);
    this.heartbeat = undefined;
  }

  /**
   * Stops a stuck host the way every shutdown goes, so that a host that was only held up (a
   * long read, a swapping machine) saves its live run: asks it to shut down (stop-step
   * checkpoint, stop event, metrics flushed) and kills it only if it has not exited within
   * heartbeatTimeoutMs. Its exit then restarts it, with `why` and what happened as the reason.
   */
  private stopStuck(child: HostProcess, why: string): void {
    const graceMs = this.options.heartbeatTimeoutMs ?? 15_000;
    this.stoppedBecause = `${why}; asked to stop (a live run keeps a checkpoint): it exited`;
    this.writeLog(`[supervisor] trainer host pid ${child.pid} ${why}: asking it to stop its run and exit, killing it if it has not within ${(graceMs / 1000).toFixed(1)} s\n`);
    child.postMessage({ type: 'shutdown' });
    this.killTimer = setTimeout(() => {
      this.killTimer = undefined;
      if (this.child !== child) return;
      this.stoppedBecause = `${why}; asked to stop, it did not exit within ${(graceMs / 1000).toFixed(1)} s: killed`;
      this.writeLog(`[supervisor] trainer host pid ${child.pid} did not exit: killing it\n`);
      child.kill();
    }, graceMs);
  }

  /**
   * Asks the host to stop its run (checkpoint kept) and waits until it exits; after `timeoutMs`
   * the process is killed. Resolves at once when no host runs.
   */
  async shutdown(timeoutMs = 15_000): Promise<void> {
    this.stopping = true;
    this.stopHeartbeat(); // a run's stop-step checkpoint may take a while: the timeout below bounds it
    if (this.restartTimer) clearTimeout(this.restartTimer);
    if (this.killTimer) clearTimeout(this.killTimer); // the timeout below takes over
    const child = this.child;
    if (!child) return;
    const exited = new Promise<void>((resolve) => this.exitWaiters.push(resolve));
    child.postMessage({ type: 'shutdown' });
    const timer = setTimeout(() => {
      this.writeLog(`[supervisor] trainer host pid ${child.pid} did not exit within ${timeoutMs} ms after shutdown: killing it\n`);
      child.kill();
    }, timeoutMs);
    await exited;
    clearTimeout(timer);
  }

  private fromHost(data: unknown): void {
    const parsed = HostToParentSchema.safeParse(data);
    if (!parsed.success) {
      this.writeLog(`[supervisor] ignored a malformed message from the trainer host: ${JSON.stringify(data).slice(0, 200)}\n`);
      return;
    }
    const msg = parsed.data;
    if (msg.type === 'runDir') this.runDir = msg.runDir;
    else if (msg.type === 'message') this.options.onHostMessage?.(msg.message);
    else if (msg.type === 'heartbeat' && this.heartbeat) this.heartbeat.unanswered = 0;
  }

  private exited(child: HostProcess, exitReason: string): void {
    if (this.child !== child) return;
    this.child = undefined;
    this.stopHeartbeat();
    if (this.killTimer) clearTimeout(this.killTimer);
    this.killTimer = undefined;
    const reason = this.stoppedBecause ?? exitReason;
    this.stoppedBecause = undefined;
    const now = Date.now();
    const window = this.options.restartWindowMs ?? 60_000;
    this.recentExits = [...this.recentExits.filter((t) => now - t < window), now];
    const max = this.options.maxRestarts ?? 5;
    const restarting = !this.stopping && this.recentExits.length <= max;
    const gaveUp = this.stopping ? '' : `; it ended ${this.recentExits.length} time${this.recentExits.length === 1 ? '' : 's'} within ${Math.round(window / 1000)} s, so it is not restarted automatically: use Restart trainer host`;
    const text = `trainer host (pid ${child.pid}) ${reason}`;
    this.writeLog(`[supervisor] ${text}${restarting ? '; restarting it' : gaveUp}\n`);
    if (!this.stopping && this.runDir) {
      try {
        appendEvent(this.runDir, { time: new Date().toISOString(), kind: 'error', message: `${text}${restarting ? '; restarted' : ''}` });
      } catch {
        // The run folder may be gone; the dashboard still gets the reason.
      }
    }
    this.runDir = undefined;
    this.options.notify({ type: 'hostExit', pid: child.pid, reason: restarting ? reason : `${reason}${gaveUp}`, restarting });
    for (const w of this.exitWaiters.splice(0)) w();
    if (!restarting) return;
    const delay = Math.min(5000, (this.options.restartDelayMs ?? 250) * 2 ** (this.recentExits.length - 1));
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      this.restarts++;
      this.start();
    }, delay);
  }

  private writeLog(chunk: Buffer | string): void {
    const dir = this.runDir ?? this.options.logDir;
    try {
      makeFolder(dir);
      appendRegularFile(join(dir, 'host.log'), chunk);
    } catch {
      // A log that cannot be written must not take the supervisor down; stderr still has it.
      process.stderr.write(chunk);
    }
  }
}
